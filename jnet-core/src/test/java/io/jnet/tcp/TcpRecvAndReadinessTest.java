package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.MsgFlags;
import io.jnet.socket.Poller;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * recv(2)'s flags (MSG_PEEK, MSG_DONTWAIT, MSG_WAITALL), SO_RCVLOWAT and poll readiness, as Linux's tcp_recvmsg,
 * tcp_set_rcvlowat, tcp_data_ready and tcp_poll; on virtual time, the server's socket under test.
 */
@Timeout(60)
class TcpRecvAndReadinessTest {
    private static final int IN = Events.POLLIN, OUT = Events.POLLOUT, ERR = Events.POLLERR, HUP = Events.POLLHUP,
            RDHUP = Events.POLLRDHUP;

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (seed + i * 13 + (i >> 8));
        return b;
    }

    private static void assertErrno(ThrowingCall call, Errno errno) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(errno));
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void run() throws Exception;
    }

    /** Waits (real time) until a thread waits in {@code c}'s read. */
    private static void awaitReader(TcpConnection c) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!c.lock.hasWaiters()) {
            if (System.nanoTime() > deadline) throw new AssertionError("the reader never waited");
            Thread.sleep(1);
        }
    }

    private static CompletableFuture<Integer> readLater(TcpConnection s, byte[] b, int len, int flags) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return s.read(b, 0, len, flags);
            } catch (java.io.IOException e) {
                throw new RuntimeException(e);
            }
        });
    }

    private static List<Poller.Ready> poll(Poller p) {
        List<Poller.Ready> out = new ArrayList<>();
        p.poll(out, Duration.ZERO);
        return out;
    }

    // ---- recv flags ---------------------------------------------------------------------------------

    @Test
    void peekCopiesWithoutTakingAndSiocinqStays() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0], s = p[1];
            c.setOption(SocketOption.TCP_NODELAY, true);
            byte[] data = bytes(3000, 5);
            c.write(data, 0, 1000); // three segments in the receive queue
            c.write(data, 1000, 1000);
            c.write(data, 2000, 1000);
            assertThat(s.inq()).isEqualTo(3000);

            byte[] b = new byte[5000];
            assertThat(s.read(b, 0, 400, MsgFlags.MSG_PEEK)).isEqualTo(400);
            assertThat(Arrays.copyOf(b, 400)).isEqualTo(Arrays.copyOf(data, 400));
            assertThat(s.inq()).isEqualTo(3000);
            assertThat(s.read(b, 0, b.length, MsgFlags.MSG_PEEK)).as("across the segments").isEqualTo(3000);
            assertThat(Arrays.copyOf(b, 3000)).isEqualTo(data);
            assertThat(s.inq()).isEqualTo(3000);

            assertThat(s.read(b, 0, 1500)).isEqualTo(1500);
            assertThat(Arrays.copyOf(b, 1500)).isEqualTo(Arrays.copyOf(data, 1500));
            assertThat(s.inq()).isEqualTo(1500);
            // a peek from the middle of a segment, into a direct buffer: its position moves, the queue does not
            ByteBuffer direct = ByteBuffer.allocateDirect(1000);
            assertThat(s.read(direct, MsgFlags.MSG_PEEK | MsgFlags.MSG_DONTWAIT)).isEqualTo(1000);
            assertThat(direct.position()).isEqualTo(1000);
            byte[] got = new byte[1000];
            direct.flip().get(got);
            assertThat(got).isEqualTo(Arrays.copyOfRange(data, 1500, 2500));
            assertThat(s.read(b, 0, b.length)).isEqualTo(1500);
            assertThat(Arrays.copyOf(b, 1500)).isEqualTo(Arrays.copyOfRange(data, 1500, 3000));
            assertThat(s.read(b, 0, b.length, MsgFlags.MSG_PEEK)).as("nothing queued, non-blocking").isZero();
        }
    }

    @Test
    void recvFlagsOutsideTheTcpSetAreRefusedAndDontwaitDoesNotBlock() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection s = net.establish(srv)[1];
            assertErrno(() -> s.read(new byte[10], 0, 10, 0x1), Errno.EINVAL); // MSG_OOB
            assertErrno(() -> s.read(ByteBuffer.allocate(10), 0x20), Errno.EINVAL); // MSG_TRUNC
            s.setBlocking(true);
            assertThat(s.read(new byte[10], 0, 10, MsgFlags.MSG_DONTWAIT)).isZero();
            assertThat(s.read(new byte[10], 0, 10, MsgFlags.MSG_DONTWAIT | MsgFlags.MSG_WAITALL)).isZero();
            assertThat(s.isBlocking()).isTrue();
        }
    }

    @Test
    void waitallAndRcvlowatSetWhatABlockingReadWaitsFor() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0], s = p[1];
            c.setOption(SocketOption.TCP_NODELAY, true);
            s.setBlocking(true);
            byte[] b = new byte[1000];

            CompletableFuture<Integer> all = readLater(s, b, 300, MsgFlags.MSG_WAITALL);
            awaitReader(s);
            c.write(bytes(100, 1), 0, 100);
            c.write(bytes(100, 2), 0, 100);
            Thread.sleep(50);
            assertThat(all).as("MSG_WAITALL: 200 of 300").isNotDone();
            c.write(bytes(150, 3), 0, 150);
            assertThat(all.get(10, TimeUnit.SECONDS)).isEqualTo(300);
            assertThat(s.inq()).isEqualTo(50);
            assertThat(s.read(b, 0, 1000)).isEqualTo(50);

            // SO_RCVLOWAT 200: 150 queued are copied, then the reader waits; 100 more do not wake it (tcp_data_ready
            // counts from what it copied), 100 after those do
            s.setOption(SocketOption.SO_RCVLOWAT, 200);
            c.write(bytes(150, 4), 0, 150);
            CompletableFuture<Integer> low = readLater(s, b, 1000, 0);
            awaitReader(s);
            c.write(bytes(100, 5), 0, 100);
            Thread.sleep(50);
            assertThat(low).isNotDone();
            c.write(bytes(100, 6), 0, 100);
            assertThat(low.get(10, TimeUnit.SECONDS)).isEqualTo(350);

            // a read of fewer bytes than the mark needs only those; a non-blocking one returns what is there
            c.write(bytes(250, 7), 0, 250);
            assertThat(s.read(b, 0, 100)).isEqualTo(100);
            assertThat(s.read(b, 0, 1000, MsgFlags.MSG_DONTWAIT)).isEqualTo(150);

            // the peer's FIN ends a read short of the mark with what it copied
            c.write(bytes(50, 8), 0, 50);
            CompletableFuture<Integer> fin = readLater(s, b, 1000, MsgFlags.MSG_WAITALL);
            awaitReader(s);
            c.shutdownOutput();
            assertThat(fin.get(10, TimeUnit.SECONDS)).isEqualTo(50);
            assertThat(s.read(b, 0, 1000)).isEqualTo(-1);
        }
    }

    @Test
    void rcvlowatIsSetAsTcpSetRcvlowatSetsIt() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            srv.setOption(SocketOption.SO_RCVLOWAT, 500);
            assertThat(srv.getOption(SocketOption.SO_RCVLOWAT)).isEqualTo(500);
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0], s = p[1];
            assertThat(s.getOption(SocketOption.SO_RCVLOWAT)).as("inherited from the listener").isEqualTo(500);
            assertThat(c.getOption(SocketOption.SO_RCVLOWAT)).as("default").isEqualTo(1);

            int rcvbuf = s.getOption(SocketOption.SO_RCVBUF);
            int rmemMax = net.b.sysctl().tcpRmem.intValue(2);
            s.setOption(SocketOption.SO_RCVLOWAT, 0);
            assertThat(s.getOption(SocketOption.SO_RCVLOWAT)).as("0 means 1").isEqualTo(1);
            s.setOption(SocketOption.SO_RCVLOWAT, 1000);
            assertThat(s.getOption(SocketOption.SO_RCVLOWAT)).isEqualTo(1000);
            assertThat(s.getOption(SocketOption.SO_RCVBUF)).as("room for the mark already").isEqualTo(rcvbuf);
            s.setOption(SocketOption.SO_RCVLOWAT, -1);
            assertThat(s.getOption(SocketOption.SO_RCVLOWAT)).as("INT_MAX, capped at half of tcp_rmem[2]").isEqualTo(rmemMax >> 1);
            assertThat(s.getOption(SocketOption.SO_RCVBUF)).as("grown for a window of the mark").isEqualTo(rmemMax & ~1);

            // once SO_RCVBUF fixes the buffer: the cap is half of it, and the buffer stays
            c.setOption(SocketOption.SO_RCVBUF, 10_000);
            int fixed = c.getOption(SocketOption.SO_RCVBUF);
            c.setOption(SocketOption.SO_RCVLOWAT, 1_000_000);
            assertThat(c.getOption(SocketOption.SO_RCVLOWAT)).isEqualTo(fixed >> 1);
            assertThat(c.getOption(SocketOption.SO_RCVBUF)).isEqualTo(fixed);
        }
    }

    @Test
    void pollinComesFromTheMarkAndOnlyThenWakesAnEdgeTriggeredPoller() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT);
                Poller poller = Poller.open(net.b)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0], s = p[1];
            c.setOption(SocketOption.TCP_NODELAY, true);
            s.setOption(SocketOption.SO_RCVLOWAT, 1000);
            poller.register(s, IN | OUT | Events.EPOLLET);
            assertThat(poll(poller)).extracting(Poller.Ready::events).containsExactly(OUT);

            c.write(bytes(500, 1), 0, 500);
            assertThat(s.readyEvents()).isEqualTo(OUT);
            assertThat(poll(poller)).as("500 of 1000: no sk_data_ready").isEmpty();
            c.write(bytes(500, 2), 0, 500);
            assertThat(s.readyEvents()).isEqualTo(IN | OUT);
            assertThat(poll(poller)).extracting(Poller.Ready::events).containsExactly(IN | OUT);

            assertThat(s.read(new byte[600], 0, 600)).isEqualTo(600);
            assertThat(s.readyEvents()).as("400 left").isEqualTo(OUT);
            // lowering the mark signals at once (tcp_set_rcvlowat calls tcp_data_ready)
            s.setOption(SocketOption.SO_RCVLOWAT, 300);
            assertThat(poll(poller)).extracting(Poller.Ready::events).containsExactly(IN | OUT);
            // a window of at most one segment left: readable below the mark too (tcp_epollin_ready)
            assertThat(s.read(new byte[400], 0, 400)).isEqualTo(400);
            c.write(bytes(10, 3), 0, 10);
            assertThat(s.readyEvents() & IN).isZero();
            s.rcvWup = s.rcvNxt - s.rcvWnd + s.rcvMss; // as if the last window advertised ended one segment ahead
            assertThat(s.readyEvents() & IN).isEqualTo(IN);
        }
    }

    // ---- readiness after a reset, a half close, shutdown(SHUT_RD) ------------------------------------

    @Test
    void aResetIsErrHupInOutRdhupUntilTheErrorIsRead() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0], s = p[1];
            assertThat(s.readyEvents()).isEqualTo(OUT);
            c.setOption(SocketOption.SO_LINGER, Duration.ZERO);
            c.close(); // RST
            assertThat(s.readyEvents()).isEqualTo(IN | OUT | ERR | HUP | RDHUP);
            assertErrno(() -> s.read(new byte[10], 0, 10), Errno.ECONNRESET);
            assertThat(s.readyEvents()).isEqualTo(IN | OUT | HUP | RDHUP);
            assertThat(s.read(new byte[10], 0, 10)).isEqualTo(-1);
            assertErrno(() -> s.write(new byte[10], 0, 10), Errno.EPIPE);
        }
    }

    @Test
    void halfCloseIsPolloutThenHupOnceBothWaysAreShut() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0], s = p[1];
            s.shutdownOutput();
            net.advanceMillis(40); // the peer's ACK of our FIN is delayed (it entered pingpong mode: tcp_fin)
            assertThat(s.state()).isEqualTo("FIN-WAIT-2");
            assertThat(s.readyEvents()).as("SEND_SHUTDOWN reports POLLOUT, no POLLHUP").isEqualTo(OUT);
            c.shutdownOutput();
            assertThat(s.readyEvents()).isEqualTo(IN | OUT | RDHUP | HUP);
            assertThat(s.read(new byte[10], 0, 10)).isEqualTo(-1);
            assertThat(c.readyEvents()).as("the other end, in LAST-ACK and then closed").isEqualTo(IN | OUT | RDHUP | HUP);
        }
    }

    @Test
    void shutdownReadSendsNothingAndLaterDataIsStillRead() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0], s = p[1];
            net.filter.clearRecording();
            s.shutdownInput();
            assertThat(net.filter.frames()).as("nothing sent").isEmpty();
            assertThat(s.readyEvents()).isEqualTo(IN | OUT | RDHUP);
            assertThat(s.read(new byte[10], 0, 10)).isEqualTo(-1);

            byte[] data = bytes(500, 9);
            c.write(data, 0, data.length);
            List<TcpFrame> acks = net.filter.frames(false);
            assertThat(acks).isNotEmpty();
            assertThat(acks.get(acks.size() - 1).ack()).isEqualTo(c.sndNxt);
            assertThat(s.inq()).isEqualTo(500);
            byte[] b = new byte[1000];
            assertThat(s.read(b, 0, b.length)).isEqualTo(500);
            assertThat(Arrays.copyOf(b, 500)).isEqualTo(data);
            assertThat(s.read(b, 0, b.length)).isEqualTo(-1);
            assertThat(s.write(new byte[100], 0, 100)).isEqualTo(100);
            assertThat(s.state()).isEqualTo("ESTAB");
        }
    }

    @Test
    void dataReachingASocketShutBothWaysIsAnsweredWithReset() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0], s = p[1];
            long aborts = net.b.mib().get(MibCounter.TcpExtTCPAbortOnData);
            s.shutdownInput();
            s.shutdownOutput();
            net.advanceMillis(40); // the peer's ACK of our FIN is delayed (it entered pingpong mode: tcp_fin)
            assertThat(s.state()).isEqualTo("FIN-WAIT-2");
            c.write(new byte[100], 0, 100);
            assertThat(net.filter.frames(false).getLast().flags() & Tcp.RST).isNotZero();
            assertThat(net.b.mib().get(MibCounter.TcpExtTCPAbortOnData) - aborts).isEqualTo(1);
            assertThat(s.state()).isEqualTo("UNCONN");
            assertThat(c.readyEvents() & (ERR | HUP)).isEqualTo(ERR | HUP);
            assertErrno(() -> c.write(new byte[1], 0, 1), Errno.EPIPE); // a RST in CLOSE-WAIT: EPIPE (tcp_reset)
        }
    }

    @Test
    void aRefusedConnectAndAFreshSocketPollAsLinux() throws Exception {
        try (VirtualNet net = new VirtualNet()) {
            TcpSocket fresh = TcpSocket.open(net.a);
            assertThat(fresh.readyEvents()).as("TCP_CLOSE, never connected").isEqualTo(OUT | HUP);
            fresh.close();

            TcpConnection c = net.connect(VirtualNet.PORT); // nobody listens: RST
            assertThat(c.readyEvents()).isEqualTo(IN | OUT | ERR | HUP | RDHUP);
            assertErrno(c::finishConnect, Errno.ECONNREFUSED);
            assertThat(c.readyEvents()).isEqualTo(IN | OUT | HUP | RDHUP);
            assertThat(c.read(new byte[10], 0, 10)).as("RCV_SHUTDOWN after tcp_done").isEqualTo(-1);
        }
    }
}
