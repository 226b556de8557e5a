package io.jnet.drill.jnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.drill.play.Wire;
import io.jnet.drill.target.SyscallException;
import io.jnet.drill.target.Syscalls;
import io.jnet.drill.target.Target;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class JnetTargetTest {
    static final int AF_INET = 2, SOCK_STREAM = 1, SOCK_NONBLOCK = 0x800;

    final JnetTarget target = new JnetTarget(addr("192.168.0.1"), addr("192.0.2.1"), addr("192.168.0.2"), 1500);
    final Syscalls sys = target.syscalls();

    @AfterEach
    void close() {
        target.close();
        assertThat(target.namespace().internalErrors()).isZero();
    }

    static Inet4Address addr(String s) {
        try {
            return (Inet4Address) InetAddress.getByName(s);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void descriptorsStartAtThreeAndReuseTheLowestFree() throws Exception {
        assertThat(sys.socket(AF_INET, SOCK_STREAM, 0)).isEqualTo(3);
        assertThat(sys.socket(AF_INET, SOCK_STREAM, 0)).isEqualTo(4);
        sys.close(3);
        assertThat(sys.socket(AF_INET, SOCK_STREAM, 0)).isEqualTo(3);
        assertThatThrownBy(() -> sys.close(9)).isInstanceOf(SyscallException.class).hasMessageContaining("EBADF");
        assertThatThrownBy(() -> sys.socket(10, SOCK_STREAM, 0)).hasMessageContaining("EAFNOSUPPORT");
    }

    @Test
    void tcpOptionsOfANewSocketReadAsLinuxAndBadValuesAreRefusedAtOnce() throws Exception {
        int fd = sys.socket(AF_INET, SOCK_STREAM, 0);
        int solTcp = 6, tcpMaxseg = 2, tcpKeepidle = 4, tcpKeepcnt = 6, tcpUserTimeout = 18;
        assertThat(sys.getsockopt(fd, solTcp, tcpKeepidle, 4)).containsExactly(0x20, 0x1C, 0, 0); // 7200 s
        assertThat(sys.getsockopt(fd, solTcp, tcpMaxseg, 4)).containsExactly(0x18, 0x02, 0, 0); // 536, TCP_MSS_DEFAULT
        assertThat(sys.getsockopt(fd, solTcp, tcpUserTimeout, 4)).containsExactly(0, 0, 0, 0);
        assertThatThrownBy(() -> sys.setsockopt(fd, solTcp, tcpKeepcnt, new byte[] {0, 0, 0, 0})).hasMessageContaining("EINVAL");
        assertThatThrownBy(() -> sys.setsockopt(fd, solTcp, tcpMaxseg, new byte[] {87, 0, 0, 0})).hasMessageContaining("EINVAL");
        assertThatThrownBy(() -> sys.setsockopt(fd, 1, 4, new byte[] {0, 0, 0, 0})).hasMessageContaining("ENOPROTOOPT"); // SO_ERROR
        sys.setsockopt(fd, solTcp, tcpKeepidle, new byte[] {60, 0, 0, 0});
        assertThat(sys.getsockopt(fd, solTcp, tcpKeepidle, 4)).containsExactly(60, 0, 0, 0);
    }

    @Test
    void bindToAnAddressNotOnTheStackIsRefused() throws Exception {
        int fd = sys.socket(AF_INET, SOCK_STREAM, 0);
        assertThatThrownBy(() -> sys.bind(fd, new InetSocketAddress("10.1.2.3", 80)))
                .isInstanceOf(SyscallException.class).hasMessageContaining("EADDRNOTAVAIL");
    }

    @Test
    void activeOpenCrossesTheWireOnVirtualTime() throws Exception {
        Wire wire = new Wire(target, 1_000_000);
        int fd = sys.socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        assertThatThrownBy(() -> sys.connect(fd, new InetSocketAddress("192.0.2.1", 8080)))
                .isInstanceOf(SyscallException.class).hasMessageContaining("EINPROGRESS");
        Target.Outbound syn = target.nextOutbound(target.nowMicros() + 1000);
        assertThat(syn).isNotNull();
        assertThat(wire.describe(syn.packet())).startsWith("S 0:0(0) win ").contains("mss 1460").contains("(ports ").contains(">8080)");
        wire.inject("S.", 0, 0, 1L, 65535, 1460);
        Target.Outbound ack = target.nextOutbound(target.nowMicros() + 1000);
        assertThat(wire.describe(ack.packet())).startsWith(". 1:1(0) ack 1 ");
        assertThat(sys.getsockopt(fd, 1, 4, 4)).containsExactly(0, 0, 0, 0); // SO_ERROR
        assertThat(sys.write(fd, new byte[100])).isEqualTo(100);
        Target.Outbound data = target.nextOutbound(target.nowMicros() + 1000);
        assertThat(wire.describe(data.packet())).startsWith("P. 1:101(100) ack 1 ");
        // no ACK: the retransmission comes one RTO later, on virtual time
        long sent = data.micros();
        long t0 = System.nanoTime();
        Target.Outbound again = target.nextOutbound(sent + 5_000_000);
        assertThat(wire.describe(again.packet())).startsWith("P. 1:101(100) ack 1 ");
        assertThat(again.micros() - sent).isBetween(200_000L, 1_100_000L);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).as("real ms").isLessThan(2_000);
    }

    /** A listener on 8080 and one connection accepted from 192.0.2.1:40000; returns the accepted descriptor. */
    private int acceptOne(Wire wire) throws Exception {
        int l = sys.socket(AF_INET, SOCK_STREAM, 0);
        sys.bind(l, new InetSocketAddress("0.0.0.0", 8080));
        sys.listen(l, 1);
        wire.ports(8080, 40000);
        wire.inject("S", 0, 0, null, 65535, 1000);
        assertThat(wire.describe(target.nextOutbound(target.nowMicros() + 1000).packet())).startsWith("S. 0:0(0) ack 1 ");
        wire.inject(".", 1, 0, 1L, 65535, -1);
        return sys.accept(l, 0).fd();
    }

    private static byte[] le(int v) { return new byte[] {(byte) v, (byte) (v >> 8), (byte) (v >> 16), (byte) (v >> 24)}; }

    @Test
    void ioctlsPeekRcvlowatAndEpollFlagsMapToJnet() throws Exception {
        Wire wire = new Wire(target, 1_000_000);
        int fresh = sys.socket(AF_INET, SOCK_STREAM, 0);
        assertThat(sys.ioctlInt(fresh, 0x5411)).as("SIOCOUTQ on a new socket").isZero();
        assertThat(sys.ioctlInt(fresh, 0x541B)).as("SIOCINQ on a new socket").isZero();
        assertThat(sys.getsockopt(fresh, 1, 18, 4)).as("SO_RCVLOWAT default").containsExactly(1, 0, 0, 0);
        int c = acceptOne(wire); // listener 4, connection 5
        for (long req : new long[] {0x541B, 0x5411, 0x894B}) {
            assertThatThrownBy(() -> sys.ioctlInt(4, req)).as("tcp_ioctl on a listener").hasMessageContaining("EINVAL");
        }
        sys.setsockopt(c, 1, 18, le(20)); // SO_RCVLOWAT
        assertThat(sys.getsockopt(c, 1, 18, 4)).containsExactly(20, 0, 0, 0);
        int ep = sys.epollCreate(0);
        sys.epollCtl(ep, 1, c, 0x1 | (1 << 30), 77); // EPOLLIN | EPOLLONESHOT
        assertThatThrownBy(() -> sys.epollCtl(ep, 1, 4, 0x1 | (1 << 28), 1)).hasMessageContaining("EOPNOTSUPP");
        assertThatThrownBy(() -> sys.epollCtl(ep, 1, 4, 0x2000 | (1 << 28), 1)).as("EPOLLRDHUP with EPOLLEXCLUSIVE")
                .hasMessageContaining("EINVAL");
        assertThatThrownBy(() -> sys.epollCtl(ep, 3, c, 0x1 | (1 << 28), 1)).as("EPOLL_CTL_MOD with EPOLLEXCLUSIVE")
                .hasMessageContaining("EINVAL");
        wire.inject("P.", 1, 10, 1L, 65535, -1);
        assertThat(sys.epollWait(ep, 1, 0)).as("10 bytes, below SO_RCVLOWAT").isEmpty();
        wire.inject("P.", 11, 10, 1L, 65535, -1);
        assertThat(sys.epollWait(ep, 1, 0)).containsExactly(new Syscalls.EpollEvent(0x1, 77));
        assertThat(sys.epollWait(ep, 1, 0)).as("one shot").isEmpty();
        assertThat(sys.recvfrom(c, 15, 0x2).data()).hasSize(15); // MSG_PEEK
        assertThat(sys.ioctlInt(c, 0x541B)).isEqualTo(20);
        assertThat(sys.recvfrom(c, 100, 0x40).data()).hasSize(20); // MSG_DONTWAIT
        assertThatThrownBy(() -> sys.recvfrom(c, 100, 0x40)).hasMessageContaining("EAGAIN");
        assertThatThrownBy(() -> sys.recvfrom(c, 100, 0x1)).as("MSG_OOB without urgent data").hasMessageContaining("EINVAL");
        assertThatThrownBy(() -> sys.recvfrom(c, 100, 0x20)).as("MSG_TRUNC").hasMessageContaining("EOPNOTSUPP");
    }

    @Test
    void aBlockedReadReturnsWhenDataArrives() throws Exception {
        Wire wire = new Wire(target, 5_000_000);
        int l = sys.socket(AF_INET, SOCK_STREAM, 0);
        sys.bind(l, new InetSocketAddress("0.0.0.0", 8080));
        sys.listen(l, 1);
        wire.ports(8080, 40000);
        wire.inject("S", 0, 0, null, 65535, 1000);
        Target.Outbound synAck = target.nextOutbound(target.nowMicros() + 1000);
        assertThat(wire.describe(synAck.packet())).startsWith("S. 0:0(0) ack 1 ");
        wire.inject(".", 1, 0, 1L, 65535, -1);
        Syscalls.Accepted a = sys.accept(l, 0);
        assertThat(a.fd()).isEqualTo(4);
        assertThat(a.peer()).isEqualTo(new InetSocketAddress("192.0.2.1", 40000));
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> {
            try {
                return sys.read(4, 1000);
            } catch (SyscallException e) {
                throw new IllegalStateException(e);
            }
        }, r -> Thread.ofPlatform().daemon().start(r));
        target.waitUntil(target.nowMicros() + 100_000); // the read parks; time moves
        assertThat(read).isNotDone();
        wire.inject("P.", 1, 10, 1L, 65535, -1);
        assertThat(read.get(5, TimeUnit.SECONDS)).hasSize(10);
    }
    @Test
    void urgentDataMapsMsgOobSoOobinlineAndSiocatmark() throws Exception {
        Wire wire = new Wire(target, 5_000_000);
        int l = sys.socket(AF_INET, SOCK_STREAM, 0);
        sys.bind(l, new InetSocketAddress("0.0.0.0", 8080));
        sys.listen(l, 1);
        wire.ports(8080, 40000);
        wire.inject("S", 0, 0, null, 65535, 1000);
        assertThat(wire.describe(target.nextOutbound(target.nowMicros() + 1000).packet())).startsWith("S. 0:0(0) ack 1 ");
        wire.inject(".", 1, 0, 1L, 65535, -1);
        int fd = sys.accept(l, 0).fd();
        final int MSG_OOB = 1, SOL_SOCKET = 1, SO_OOBINLINE = 10;
        final long SIOCATMARK = 0x8905;
        assertThat(sys.ioctlInt(fd, SIOCATMARK)).isZero();
        assertThat(sys.ioctlInt(l, SIOCATMARK)).as("a listener has no urgent data").isZero();
        assertThatThrownBy(() -> sys.recvfrom(fd, 1, MSG_OOB)).hasMessageContaining("EINVAL");
        // send(MSG_OOB): URG and the pointer one past the urgent byte
        assertThat(sys.sendto(fd, new byte[5], MSG_OOB, null)).isEqualTo(5);
        Target.Outbound data = target.nextOutbound(target.nowMicros() + 1000);
        assertThat(wire.describe(data.packet())).startsWith("PU. 1:6(5) ack 1 ").contains(" urg 5 ");
        assertThat(sys.getsockopt(fd, SOL_SOCKET, SO_OOBINLINE, 4)).containsExactly(0, 0, 0, 0);
        sys.setsockopt(fd, SOL_SOCKET, SO_OOBINLINE, new byte[] {1, 0, 0, 0});
        assertThat(sys.getsockopt(fd, SOL_SOCKET, SO_OOBINLINE, 4)).containsExactly(1, 0, 0, 0);
    }

    /**
     * Runs {@code call} in a thread of its own, as the player runs a blocking call, and waits until it returns or
     * parks; the future completes with its result and the virtual time it returned at.
     */
    private <T> CompletableFuture<Timed<T>> blockingCall(java.util.concurrent.Callable<T> call) throws InterruptedException {
        CompletableFuture<Timed<T>> done = new CompletableFuture<>();
        Thread caller = Thread.ofPlatform().daemon().unstarted(() -> {
            try {
                T v = call.call();
                done.complete(new Timed<>(v, target.nowMicros()));
            } catch (SyscallException e) {
                done.complete(new Timed<>(null, target.nowMicros(), e));
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        });
        caller.start();
        target.awaitCall(caller, done, 0);
        return done;
    }

    record Timed<T>(T value, long micros, SyscallException error) {
        Timed(T value, long micros) { this(value, micros, null); }
    }

    @Test
    void aReadWaitingOutAFiftySecondRcvtimeoFailsWithEagainAtFiftySeconds() throws Exception {
        Wire wire = new Wire(target, 1_000_000);
        int fd = acceptOne(wire);
        byte[] timeval = new byte[16];
        timeval[0] = 50; // tv_sec = 50, tv_usec = 0
        sys.setsockopt(fd, 1, 20, timeval); // SO_RCVTIMEO
        long start = target.nowMicros();
        CompletableFuture<Timed<byte[]>> read = blockingCall(() -> sys.read(fd, 10));
        target.waitUntil(start + 49_999_000);
        assertThat(read).as("parked 1 ms before its timeout").isNotDone();
        target.waitUntil(start + 50_000_000);
        Timed<byte[]> r = read.get(10, TimeUnit.SECONDS);
        assertThat(r.error()).isNotNull().hasMessageContaining("EAGAIN");
        assertThat(r.micros() - start).as("virtual time of the return").isEqualTo(50_000_000L);
    }

    @Test
    void aBlockingReadCompletedByDataFiftySecondsLaterReturnsThen() throws Exception {
        Wire wire = new Wire(target, 1_000_000);
        int fd = acceptOne(wire);
        long start = target.nowMicros();
        CompletableFuture<Timed<byte[]>> read = blockingCall(() -> sys.read(fd, 10));
        target.waitUntil(start + 50_000_000);
        assertThat(read).isNotDone();
        wire.inject("P.", 1, 10, 1L, 65535, -1);
        Timed<byte[]> r = read.get(10, TimeUnit.SECONDS);
        assertThat(r.value()).hasSize(10);
        assertThat(r.micros() - start).as("virtual time of the return").isEqualTo(50_000_000L);
        assertThat(wire.describe(target.nextOutbound(target.nowMicros() + 1000).packet())).startsWith(". 1:1(0) ack 11 ");
    }

    @Test
    void aPollWithAFiftySecondTimeoutReturnsZeroAtFiftySeconds() throws Exception {
        Wire wire = new Wire(target, 1_000_000);
        int fd = acceptOne(wire);
        long start = target.nowMicros();
        CompletableFuture<Timed<Integer>> poll = blockingCall(() -> sys.poll(new Syscalls.PollFd[] {new Syscalls.PollFd(fd, 0x1)}, 50_000));
        target.waitUntil(start + 49_999_000);
        assertThat(poll).as("parked 1 ms before its timeout").isNotDone();
        target.waitUntil(start + 50_000_000);
        Timed<Integer> r = poll.get(10, TimeUnit.SECONDS);
        assertThat(r.error()).isNull();
        assertThat(r.value()).isZero();
        assertThat(r.micros() - start).as("virtual time of the return").isEqualTo(50_000_000L);
    }
}
