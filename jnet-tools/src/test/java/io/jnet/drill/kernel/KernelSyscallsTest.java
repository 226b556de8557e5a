package io.jnet.drill.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.drill.target.LinuxConstants;
import io.jnet.drill.target.SyscallException;
import io.jnet.drill.target.Syscalls.PollFd;
import io.jnet.drill.target.TcpInfoLayout;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The system calls on sockets that are never bound or connected, in this JVM's own namespace (no root needed):
 * nothing is sent anywhere.
 */
class KernelSyscallsTest {

    static final int AF_INET = 2, SOCK_STREAM = 1, SOL_SOCKET = 1, SOL_TCP = 6, TCP_INFO = 11, SO_RCVBUF = 8,
            SO_TYPE = 3, F_GETFL = 3, F_SETFL = 4, O_NONBLOCK = 04000, POLLIN = 1, POLLNVAL = 0x20;

    private KernelSyscalls sys;

    @BeforeEach
    void linuxOnly() throws Exception {
        Assumptions.assumeTrue(System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux"),
                "the kernel's system calls are Linux's");
        sys = new KernelSyscalls(Netns.CALLER);
    }

    @AfterEach
    void closeAll() {
        if (sys != null) assertThat(sys.closeAll()).isTrue();
    }

    /** The length of struct tcp_info that each kernel returns (it grew in 5.4, 6.2, 6.7 and 6.18). */
    static int expectedTcpInfoLength(String osVersion) {
        String[] v = osVersion.split("[.-]");
        int major = Integer.parseInt(v[0]);
        int minor = Integer.parseInt(v[1]);
        int version = major * 1000 + minor;
        if (version >= 6018) return TcpInfoLayout.SIZE;
        if (version >= 6007) return 248;
        if (version >= 6002) return 240;
        if (version >= 5004) return 232;
        return -1;
    }

    @Test
    void tcpInfoHasTheLengthThisKernelReturnsAndTheStateOfAnUnconnectedSocket() throws Exception {
        String version = System.getProperty("os.version");
        int expected = expectedTcpInfoLength(version);
        Assumptions.assumeTrue(expected > 0, "kernel " + version + " is older than the lengths tabulated here (5.4)");
        int fd = sys.socket(AF_INET, SOCK_STREAM, 0);
        byte[] info = sys.getsockopt(fd, SOL_TCP, TCP_INFO, 512);
        assertThat(info).as("getsockopt(TCP_INFO) length on " + version).hasSize(expected);
        assertThat(TcpInfoLayout.get(info, "tcpi_state")).isEqualTo(LinuxConstants.require("TCP_CLOSE"));
        assertThat(TcpInfoLayout.get(info, "tcpi_rto")).isEqualTo(1_000_000); // TCP_TIMEOUT_INIT, in µs
        sys.close(fd);
    }

    @Test
    void optionsAndFlagsGoThroughAsLinuxsBytes() throws Exception {
        int fd = sys.socket(AF_INET, SOCK_STREAM, 0);
        assertThat(sys.getsockopt(fd, SOL_SOCKET, SO_TYPE, 4)).containsExactly(1, 0, 0, 0);
        sys.setsockopt(fd, SOL_SOCKET, SO_RCVBUF, new byte[] {0, 0x40, 0, 0}); // 16384
        assertThat(sys.getsockopt(fd, SOL_SOCKET, SO_RCVBUF, 4)).containsExactly(0, (byte) 0x80, 0, 0); // doubled
        int flags = sys.fcntl(fd, F_GETFL, 0);
        assertThat(flags & O_NONBLOCK).isZero();
        sys.fcntl(fd, F_SETFL, flags | O_NONBLOCK);
        assertThat(sys.fcntl(fd, F_GETFL, 0) & O_NONBLOCK).isEqualTo(O_NONBLOCK);
        assertThatThrownBy(() -> sys.fcntl(fd, 5 /* F_GETLK takes a pointer */, 0))
                .isInstanceOfSatisfying(SyscallException.class, e -> assertThat(e.errnoName()).isEqualTo("EINVAL"));
        assertThatThrownBy(() -> sys.socket(12345, SOCK_STREAM, 0))
                .isInstanceOfSatisfying(SyscallException.class, e -> assertThat(e.errnoName()).isEqualTo("EAFNOSUPPORT"));
        sys.close(fd);
        assertThat(sys.openDescriptors()).isEmpty();
    }

    @Test
    void descriptorsNotOpenedHereAreRefused() throws Exception {
        // the JVM's standard streams: never touched
        assertThatThrownBy(() -> sys.read(0, 1)).isInstanceOfSatisfying(SyscallException.class,
                e -> assertThat(e.errnoName()).isEqualTo("EBADF"));
        assertThatThrownBy(() -> sys.write(1, new byte[] {'x'})).isInstanceOf(SyscallException.class);
        assertThatThrownBy(() -> sys.close(2)).isInstanceOfSatisfying(SyscallException.class,
                e -> assertThat(e.errno()).isEqualTo(9));
        PollFd[] fds = {new PollFd(1, POLLIN), new PollFd(-1, POLLIN)};
        assertThat(sys.poll(fds, 0)).isEqualTo(1);
        assertThat(fds[0].revents).isEqualTo(POLLNVAL);
        assertThat(fds[1].revents).isZero();
    }

    @Test
    void closingEndsBlockedPollAndEpollWaitAndRefusesLaterCalls() throws Exception {
        int epfd = sys.epollCreate(0);
        CompletableFuture<Object> epollWait = CompletableFuture.supplyAsync(() -> outcome(() -> sys.epollWait(epfd, 8, -1)),
                runnable -> Thread.ofPlatform().name("test-epoll-wait").start(runnable));
        CompletableFuture<Object> poll = CompletableFuture.supplyAsync(() -> outcome(() -> sys.poll(new PollFd[0], -1)),
                runnable -> Thread.ofPlatform().name("test-poll").start(runnable));
        Thread.sleep(100);
        assertThat(epollWait).isNotDone();
        assertThat(poll).isNotDone();

        assertThat(sys.closeAll()).isTrue();

        assertThat(epollWait.get(2, TimeUnit.SECONDS)).isEqualTo("EBADF");
        assertThat(poll.get(2, TimeUnit.SECONDS)).isEqualTo("EBADF");
        assertThat(outcome(() -> sys.socket(AF_INET, SOCK_STREAM, 0))).isEqualTo("EBADF");
        assertThat(sys.openDescriptors()).isEmpty();
    }

    @Test
    void epollWaitReturnsNothingWhenTheTimeoutPasses() throws Exception {
        int epfd = sys.epollCreate(0);
        long t0 = System.nanoTime();
        assertThat(sys.epollWait(epfd, 4, 30)).isEqualTo(List.of());
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(29));
        assertThatThrownBy(() -> sys.epollWait(epfd, 0, 0)).isInstanceOfSatisfying(SyscallException.class,
                e -> assertThat(e.errnoName()).isEqualTo("EINVAL"));
    }

    interface Call {
        Object run() throws Exception;
    }

    /** The result, or the errno name of the SyscallException thrown. */
    static Object outcome(Call c) {
        try {
            return c.run();
        } catch (SyscallException e) {
            return e.errnoName();
        } catch (Exception e) {
            return e.toString();
        }
    }
}
