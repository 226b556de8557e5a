package io.jnet.drill.kernel;

import static io.jnet.drill.kernel.KernelSyscallsTest.outcome;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.drill.kernel.Packets.Segment;
import io.jnet.drill.target.LinuxConstants;
import io.jnet.drill.target.SyscallException;
import io.jnet.drill.target.Syscalls;
import io.jnet.drill.target.Syscalls.EpollEvent;
import io.jnet.drill.target.Syscalls.PollFd;
import io.jnet.drill.target.TcpInfoLayout;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The kernel target end to end: a namespace with tun0, the runner as the remote peer injecting and reading packets.
 * Needs root, /dev/net/tun and ip; skipped with the reason elsewhere.
 */
class KernelTargetTest {

    static final int AF_INET = 2, SOCK_STREAM = 1, SOCK_DGRAM = 2, SOCK_NONBLOCK = 04000, SOL_SOCKET = 1,
            SOL_TCP = 6, SO_ERROR = 4, SO_REUSEADDR = 2, TCP_INFO = 11, POLLIN = 1, POLLOUT = 4, EPOLLIN = 1,
            EPOLLONESHOT = 1 << 30, EPOLL_CTL_ADD = 1, MSG_TRUNC = 0x20, FIONREAD = 0x541B, F_SETFL = 4;
    static final int REMOTE_PORT = 8080;
    static final long SECOND = 1_000_000;

    private final List<KernelTarget> targets = new ArrayList<>();

    @BeforeEach
    void needsTheKernelTarget() {
        String reason = KernelTarget.unavailableReason();
        Assumptions.assumeTrue(reason == null, () -> "kernel target unavailable: " + reason);
    }

    @AfterEach
    void closeTargets() {
        targets.forEach(KernelTarget::close);
    }

    private KernelTarget open(KernelTarget.Options options) throws IOException {
        KernelTarget t = KernelTarget.open(options);
        targets.add(t);
        return t;
    }

    /** The next outbound TCP segment within 2 s. */
    static Segment nextSegment(KernelTarget t) throws InterruptedException {
        long deadline = t.nowMicros() + 2 * SECOND;
        while (true) {
            var o = t.nextOutbound(deadline);
            assertThat(o).as("an outbound packet within 2 s").isNotNull();
            byte[] p = o.packet();
            if (Ipv4.protocol(p, 0) == Ipv4.PROTO_TCP) return Segment.parse(p);
        }
    }

    static InetSocketAddress remote(KernelTarget t, int port) {
        return new InetSocketAddress(t.remoteAddress(), port);
    }

    /** A connection the kernel opened to remote:8080: its descriptor and the numbers of both sides. */
    record Client(int fd, Segment syn, int remoteIss) {
        int localNext(int sent) { return syn.seq() + 1 + sent; }
    }

    private Client connect(KernelTarget t, int wscale) throws Exception {
        Syscalls sys = t.syscalls();
        int fd = sys.socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        assertThatThrownBy(() -> sys.connect(fd, remote(t, REMOTE_PORT)))
                .isInstanceOfSatisfying(SyscallException.class, e -> assertThat(e.errnoName()).isEqualTo("EINPROGRESS"));
        Segment syn = nextSegment(t);
        int iss = 1_000_000;
        t.inject(Packets.tcp(t.remoteAddress(), t.localAddress(), REMOTE_PORT, syn.sport(), iss, syn.seq() + 1,
                Tcp.SYN | Tcp.ACK, 65535, Packets.options(1460, wscale, true), new byte[0]));
        PollFd[] pfd = {new PollFd(fd, POLLOUT)};
        assertThat(sys.poll(pfd, 2000)).isEqualTo(1);
        assertThat(pfd[0].revents & POLLOUT).isEqualTo(POLLOUT);
        assertThat(sys.getsockopt(fd, SOL_SOCKET, SO_ERROR, 4)).containsExactly(0, 0, 0, 0);
        Segment ack = nextSegment(t);
        assertThat(ack.flags()).isEqualTo(Tcp.ACK);
        assertThat(ack.ack()).isEqualTo(iss + 1);
        return new Client(fd, syn, iss);
    }

    @Test
    void activeOpenSendsASynTakesTheSynAckAndSendsData() throws Exception {
        KernelTarget t = open(KernelTarget.Options.DEFAULTS);
        assertThat(t.name()).isEqualTo("kernel");
        Client c = connect(t, 7);
        Segment syn = c.syn();
        assertThat(Ipv4.addressToString(syn.src())).isEqualTo("192.168.0.1");
        assertThat(Ipv4.addressToString(syn.dst())).isEqualTo("192.0.2.1");
        assertThat(syn.dport()).isEqualTo(REMOTE_PORT);
        assertThat(syn.flags()).isEqualTo(Tcp.SYN);
        assertThat(syn.options().mss).isEqualTo(1460);

        byte[] data = new byte[100];
        Arrays.fill(data, (byte) 'a');
        assertThat(t.syscalls().write(c.fd(), data)).isEqualTo(100);
        Segment seg = nextSegment(t);
        assertThat(seg.flags()).isEqualTo(Tcp.PSH | Tcp.ACK);
        assertThat(seg.seq()).isEqualTo(c.localNext(0));
        assertThat(seg.payload()).isEqualTo(data);

        byte[] info = t.syscalls().getsockopt(c.fd(), SOL_TCP, TCP_INFO, TcpInfoLayout.SIZE);
        assertThat(TcpInfoLayout.get(info, "tcpi_state")).isEqualTo(LinuxConstants.require("TCP_ESTABLISHED"));
        assertThat(TcpInfoLayout.get(info, "tcpi_snd_wscale")).isEqualTo(7);
        assertThat(TcpInfoLayout.get(info, "tcpi_rcv_wscale")).isEqualTo(syn.options().windowScale);
        assertThat(TcpInfoLayout.get(info, "tcpi_options"))
                .isEqualTo(LinuxConstants.require("TCPI_OPT_SACK") | LinuxConstants.require("TCPI_OPT_WSCALE"));
        assertThat(TcpInfoLayout.get(info, "tcpi_unacked")).isEqualTo(1);
        assertThat(TcpInfoLayout.get(info, "tcpi_bytes_sent")).isEqualTo(100);
    }

    @Test
    void passiveOpenAcceptsAnInjectedConnectionAndReadsItsData() throws Exception {
        KernelTarget t = open(KernelTarget.Options.DEFAULTS);
        Syscalls sys = t.syscalls();
        int lfd = sys.socket(AF_INET, SOCK_STREAM, 0);
        sys.setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, new byte[] {1, 0, 0, 0});
        sys.bind(lfd, new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 8080));
        sys.listen(lfd, 1);

        int peerPort = 40000;
        t.inject(Packets.tcp(t.remoteAddress(), t.localAddress(), peerPort, 8080, 0, 0, Tcp.SYN, 65535,
                Packets.options(1000, 7, true), new byte[0]));
        Segment synAck = nextSegment(t);
        assertThat(synAck.flags()).isEqualTo(Tcp.SYN | Tcp.ACK);
        assertThat(synAck.ack()).isEqualTo(1);
        assertThat(synAck.options().mss).isEqualTo(1460);
        t.inject(Packets.tcp(t.remoteAddress(), t.localAddress(), peerPort, 8080, 1, synAck.seq() + 1, Tcp.ACK, 502,
                null, new byte[0]));

        Syscalls.Accepted a = sys.accept(lfd, 0); // blocking: the connection is (about to be) established
        assertThat(a.peer()).isEqualTo(new InetSocketAddress(t.remoteAddress(), peerPort));

        t.inject(Packets.tcp(t.remoteAddress(), t.localAddress(), peerPort, 8080, 1, synAck.seq() + 1,
                Tcp.PSH | Tcp.ACK, 502, null, "hello, kernel".getBytes(StandardCharsets.US_ASCII)));
        PollFd[] pfd = {new PollFd(a.fd(), POLLIN)};
        assertThat(sys.poll(pfd, 2000)).isEqualTo(1);
        assertThat(sys.ioctlInt(a.fd(), FIONREAD)).isEqualTo(13);
        assertThat(new String(sys.readv(a.fd(), new int[] {5, 2}), StandardCharsets.US_ASCII)).isEqualTo("hello, ");
        Syscalls.Received r = sys.recvfrom(a.fd(), 100, 0);
        assertThat(new String(r.data(), StandardCharsets.US_ASCII)).isEqualTo("kernel");
        assertThat(r.from()).isNull(); // TCP reports no source
        assertThat(nextSegment(t).ack()).isEqualTo(14); // the data's ACK (delayed at most 40 ms in quick-ack mode)
    }

    @Test
    void epollReportsTheListenerOnceWithOneShot() throws Exception {
        KernelTarget t = open(KernelTarget.Options.DEFAULTS);
        Syscalls sys = t.syscalls();
        int lfd = sys.socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        sys.bind(lfd, new InetSocketAddress(t.localAddress(), 8080));
        sys.listen(lfd, 4);
        int epfd = sys.epollCreate(0);
        sys.epollCtl(epfd, EPOLL_CTL_ADD, lfd, EPOLLIN | EPOLLONESHOT, 0x1234_5678_9abcL);
        assertThat(sys.epollWait(epfd, 8, 0)).isEmpty();
        assertThatThrownBy(() -> sys.accept(lfd, 0)).isInstanceOfSatisfying(SyscallException.class,
                e -> assertThat(e.errnoName()).isEqualTo("EAGAIN"));

        t.inject(Packets.tcp(t.remoteAddress(), t.localAddress(), 40001, 8080, 0, 0, Tcp.SYN, 65535,
                Packets.options(1460, -1, false), new byte[0]));
        Segment synAck = nextSegment(t);
        t.inject(Packets.tcp(t.remoteAddress(), t.localAddress(), 40001, 8080, 1, synAck.seq() + 1, Tcp.ACK, 65535,
                null, new byte[0]));

        assertThat(sys.epollWait(epfd, 8, 2000)).containsExactly(new EpollEvent(EPOLLIN, 0x1234_5678_9abcL));
        assertThat(sys.epollWait(epfd, 8, 0)).as("one shot").isEmpty();
        assertThat(sys.accept(lfd, SOCK_NONBLOCK).fd()).isPositive();
    }

    @Test
    void errorsComeBackAsLinuxsErrnos() throws Exception {
        KernelTarget t = open(KernelTarget.Options.DEFAULTS);
        Syscalls sys = t.syscalls();
        int fd = sys.socket(AF_INET, SOCK_STREAM, 0);
        assertThatThrownBy(() -> sys.bind(fd, new InetSocketAddress(InetAddress.getByName("10.9.9.9"), 80)))
                .isInstanceOfSatisfying(SyscallException.class, e -> assertThat(e.errnoName()).isEqualTo("EADDRNOTAVAIL"));
        assertThatThrownBy(() -> sys.listen(12345, 1)).isInstanceOfSatisfying(SyscallException.class,
                e -> assertThat(e.errnoName()).isEqualTo("EBADF"));

        // a blocking connect refused by the peer's RST
        CompletableFuture<Object> connect = CompletableFuture.supplyAsync(() -> outcome(() -> {
            sys.connect(fd, remote(t, 9));
            return "connected";
        }), r -> Thread.ofPlatform().name("test-connect").start(r));
        Segment syn = nextSegment(t);
        t.inject(Packets.tcp(t.remoteAddress(), t.localAddress(), 9, syn.sport(), 0, syn.seq() + 1, Tcp.RST | Tcp.ACK,
                0, null, new byte[0]));
        assertThat(connect.get(2, TimeUnit.SECONDS)).isEqualTo("ECONNREFUSED");
    }

    @Test
    void udpOnTheNamespacesLoopbackCarriesAddressesAndTruncation() throws Exception {
        KernelTarget t = open(KernelTarget.Options.DEFAULTS);
        Syscalls sys = t.syscalls();
        InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 5000);
        InetSocketAddress b = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 5001);
        int fa = sys.socket(AF_INET, SOCK_DGRAM, 0);
        int fb = sys.socket(AF_INET, SOCK_DGRAM, 0);
        sys.bind(fa, a);
        sys.bind(fb, b);
        assertThat(sys.sendto(fa, "ping".getBytes(StandardCharsets.US_ASCII), 0, b)).isEqualTo(4);
        Syscalls.Received r = sys.recvfrom(fb, 100, 0);
        assertThat(r.data()).asString(StandardCharsets.US_ASCII).isEqualTo("ping");
        assertThat(r.from()).isEqualTo(a);

        assertThat(sys.sendmsg(fb, new byte[][] {"lo".getBytes(StandardCharsets.US_ASCII),
                "ng reply".getBytes(StandardCharsets.US_ASCII)}, 0, a)).isEqualTo(10);
        Syscalls.Received m = sys.recvmsg(fa, new int[] {2, 2}, 0);
        assertThat(m.data()).asString(StandardCharsets.US_ASCII).isEqualTo("long");
        assertThat(m.from()).isEqualTo(b);
        assertThat(m.msgFlags() & MSG_TRUNC).isEqualTo(MSG_TRUNC);
    }

    @Test
    void mtuAndSysctlsShapeTheSyn() throws Exception {
        KernelTarget t = open(KernelTarget.Options.DEFAULTS.withMtu(1000));
        t.sysctl("net.ipv4.tcp_sack", "0");
        t.sysctl("net/ipv4/tcp_timestamps", "0");
        int fd = t.syscalls().socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        assertThatThrownBy(() -> t.syscalls().connect(fd, remote(t, REMOTE_PORT))).isInstanceOf(SyscallException.class);
        Segment syn = nextSegment(t);
        assertThat(syn.options().mss).isEqualTo(960);
        assertThat(syn.options().sackPermitted).isFalse();
        assertThat(syn.options().hasTimestamp).isFalse();

        assertThatThrownBy(() -> t.sysctl("kernel.hostname", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> t.sysctl("net.ipv4.no_such_sysctl", "1")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> t.sysctl("net.ipv4.tcp_sack", "not a number")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void largeWritesLeaveAsWireSizedSegmentsWithAndWithoutChecksumOffload() throws Exception {
        for (boolean offload : new boolean[] {true, false}) {
            KernelTarget t = open(KernelTarget.Options.DEFAULTS.withOffload(offload));
            Client c = connect(t, 7);
            assertThat(t.syscalls().write(c.fd(), new byte[10 * 1460])).isEqualTo(10 * 1460);
            int bytes = 0;
            int largest = 0;
            while (bytes < 10 * 1460) {
                Segment s = nextSegment(t); // checksums verified: completed here when offloaded
                assertThat(s.seq()).isEqualTo(c.localNext(bytes));
                assertThat(s.payload().length).as("payload with offload " + offload).isLessThanOrEqualTo(1460);
                bytes += s.payload().length;
                largest = Math.max(largest, s.length());
            }
            assertThat(largest).as("largest packet with offload " + offload + ": no TSO super-packets").isLessThanOrEqualTo(1500);
            t.close();
        }
    }

    @Test
    void closeEndsBlockedCallsAndRemovesTheNamespaceAndItsThread() throws Exception {
        KernelTarget t = open(KernelTarget.Options.DEFAULTS);
        Syscalls sys = t.syscalls();
        String ns = t.namespace();
        assertThat(IpCommand.run(null, "netns", "list")).contains(ns);
        Client c = connect(t, 7);
        sys.fcntl(c.fd(), F_SETFL, 0); // blocking from here
        int lfd = sys.socket(AF_INET, SOCK_STREAM, 0);
        sys.bind(lfd, new InetSocketAddress(t.localAddress(), 8080));
        sys.listen(lfd, 1);
        int epfd = sys.epollCreate(0);

        List<CompletableFuture<Object>> blocked = List.of(
                blockedIn("accept", () -> sys.accept(lfd, 0)),
                blockedIn("read", () -> sys.read(c.fd(), 100)),
                blockedIn("epoll_wait", () -> sys.epollWait(epfd, 1, -1)),
                blockedIn("poll", () -> sys.poll(new PollFd[] {new PollFd(lfd, POLLIN)}, -1)),
                blockedIn("nextOutbound", () -> String.valueOf(t.nextOutbound(t.nowMicros() + 60 * SECOND))));
        Thread.sleep(200);
        blocked.forEach(f -> assertThat(f).isNotDone());

        t.close();

        for (CompletableFuture<Object> f : blocked) assertThat(f.get(3, TimeUnit.SECONDS)).isNotNull();
        assertThat(blocked.get(1).get()).as("read after shutdown").isInstanceOf(byte[].class);
        assertThat(blocked.get(2).get()).isEqualTo("EBADF");
        assertThat(blocked.get(4).get()).isEqualTo("null");
        assertThat(IpCommand.run(null, "netns", "list")).doesNotContain(ns);
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(th -> th.getName().equals("jnet-drill-netns-" + ns));
        assertThat(outcome(() -> sys.socket(AF_INET, SOCK_STREAM, 0))).isEqualTo("EBADF");
        assertThatThrownBy(() -> t.inject(new byte[20])).isInstanceOf(IOException.class);
    }

    private static CompletableFuture<Object> blockedIn(String name, KernelSyscallsTest.Call call) {
        return CompletableFuture.supplyAsync(() -> outcome(call), r -> Thread.ofPlatform().name("test-" + name).start(r));
    }
}
