package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.link.impair.ImpairedDevice;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpInfo;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Tcp;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * TCP friends (net.ipv4.tcp_friends): which connections pair, what the wire shows of their handshake, and the
 * friends data path's accounting and memory bound. The behaviour every socket call must share with plain TCP
 * is checked by the socket-behaviour suite over its FRIENDS paths.
 */
class TcpFriendsTest {

    private record Pair(TcpConnection client, TcpConnection server) implements AutoCloseable {
        @Override
        public void close() {
            client.close();
            server.close();
        }
    }

    private static Pair connect(NetNamespace ns, TcpServerSocket srv) throws IOException {
        TcpSocket c = TcpSocket.open(ns);
        c.connect(srv.localAddress());
        return new Pair((TcpConnection) c, (TcpConnection) srv.accept());
    }

    private static TcpServerSocket listen(NetNamespace ns) throws IOException {
        TcpServerSocket srv = TcpServerSocket.open(ns);
        srv.bind(new InetSocketAddress("127.0.0.1", 0));
        srv.listen(16);
        return srv;
    }

    @Test
    void corkAndMsgMoreAreAcceptedAndHoldNothingBetweenFriends() throws Exception {
        try (NetNamespace ns = NetNamespace.create("friends-cork"); TcpServerSocket srv = listen(ns)) {
            ns.sysctl().set("net.ipv4.tcp_friends", "1");
            try (Pair p = connect(ns, srv)) {
                assertThat(TcpFriends.isPaired(p.client())).isTrue();
                p.client().setOption(SocketOption.TCP_CORK, true);
                assertThat(p.client().getOption(SocketOption.TCP_CORK)).isTrue();
                p.client().write(new byte[] {1, 2}, 0, 2);
                p.client().write(new byte[] {3}, 0, 1, io.jnet.socket.MsgFlags.MSG_MORE);
                // the friend's pipe has the bytes at once: no segment to hold, nothing to wait for
                assertThat(p.server().available()).isEqualTo(3);
                byte[] b = new byte[3];
                assertThat(p.server().read(b, 0, 3)).isEqualTo(3);
                assertThat(b).containsExactly(1, 2, 3);
                p.client().setOption(SocketOption.TCP_CORK, false);
                assertThat(p.client().getOption(SocketOption.TCP_CORK)).isFalse();
            }
        }
    }

    @Test
    void theSysctlDecidesForNewConnectionsOnly() throws Exception {
        try (NetNamespace ns = NetNamespace.create("friends"); TcpServerSocket srv = listen(ns)) {
            try (Pair plain = connect(ns, srv)) {
                assertThat(TcpFriends.isPaired(plain.client())).isFalse();
                ns.sysctl().set("net.ipv4.tcp_friends", "1");
                try (Pair paired = connect(ns, srv)) {
                    assertThat(TcpFriends.isPaired(paired.client())).isTrue();
                    assertThat(TcpFriends.isPaired(paired.server())).isTrue();
                    assertThat(TcpFriends.isPaired(plain.client())).as("an older connection stays plain").isFalse();
                    ns.sysctl().set("net.ipv4.tcp_friends", "0");
                    assertThat(TcpFriends.isPaired(paired.client())).as("and a paired one stays paired").isTrue();
                    exchange(plain);
                    exchange(paired);
                }
            }
            assertThat(ns.mib().get(MibCounter.TcpExtJnetFriendsPaired)).isEqualTo(1);
            assertThat(ns.mib().get(MibCounter.TcpExtJnetFriendsBytes)).isEqualTo(2 * 100_000);
        }
    }

    /** 100,000 bytes each way, checked, then the accounting both ends report. */
    private static void exchange(Pair p) throws Exception {
        byte[] a = new byte[100_000];
        for (int i = 0; i < a.length; i++) a[i] = (byte) (i * 7);
        CompletableFuture<Void> w = CompletableFuture.runAsync(() -> {
            try {
                p.client().outputStream().write(a);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        byte[] got = p.server().inputStream().readNBytes(a.length);
        w.get(10, TimeUnit.SECONDS);
        assertThat(got).isEqualTo(a);
        p.server().outputStream().write(a);
        assertThat(p.client().inputStream().readNBytes(a.length)).isEqualTo(a);
        TcpInfo ci = p.client().info();
        TcpInfo si = p.server().info();
        assertThat(ci.bytesAcked()).isEqualTo(a.length + 1L); // the SYN counts, as Linux
        assertThat(ci.bytesReceived()).isEqualTo(a.length);
        assertThat(si.bytesReceived()).isEqualTo(a.length);
        assertThat(p.client().outq()).isZero();
        assertThat(p.server().inq()).isZero();
        assertThat(p.client().rcvNxt).isEqualTo(p.server().sndNxt);
        assertThat(p.server().rcvNxt).isEqualTo(p.client().sndNxt);
    }

    @Test
    void inqAndReadinessCountBytesInTheFriendsPipe() throws Exception {
        try (NetNamespace ns = NetNamespace.create("friends")) {
            ns.sysctl().set("net.ipv4.tcp_friends", "1");
            try (TcpServerSocket srv = listen(ns); Pair p = connect(ns, srv)) {
                assertThat(p.server().readyEvents() & io.jnet.socket.Events.POLLIN).isZero();
                p.client().write(new byte[1234], 0, 1234);
                assertThat(p.server().inq()).isEqualTo(1234);
                assertThat(p.server().available()).isEqualTo(1234);
                assertThat(p.server().readyEvents() & io.jnet.socket.Events.POLLIN).isNotZero();
                assertThat(p.client().info().bytesAcked()).isEqualTo(1235);
            }
        }
    }

    @Test
    void tcpInfoTimesFollowTheBytesMoved() throws Exception {
        // TCP_INFO's last data sent/received and last ACK received come from segments in plain TCP; a friends
        // connection has none after the handshake, so they must follow the bytes moved instead
        try (NetNamespace ns = NetNamespace.create("friends")) {
            ns.sysctl().set("net.ipv4.tcp_friends", "1");
            try (TcpServerSocket srv = listen(ns); Pair p = connect(ns, srv)) {
                Thread.sleep(1500);
                p.client().write(new byte[1024], 0, 1024);
                assertThat(p.server().inputStream().readNBytes(1024)).hasSize(1024);
                p.server().write(new byte[1024], 0, 1024);
                assertThat(p.client().inputStream().readNBytes(1024)).hasSize(1024);
                for (TcpConnection c : new TcpConnection[] {p.client(), p.server()}) {
                    io.jnet.socket.TcpInfo i = c.info();
                    assertThat(i.lastDataSent()).as("last data sent (ms)").isLessThan(1000);
                    assertThat(i.lastDataRecv()).as("last data received (ms)").isLessThan(1000);
                    assertThat(i.lastAckRecv()).as("last ACK received (ms)").isLessThan(1000);
                    assertThat(i.rcvMss()).as("the friend's MSS").isGreaterThan(536);
                }
            }
        }
    }

    @Test
    void aCaptureOrAnImpairmentOnLoKeepsConnectionsPlain() throws Exception {
        try (NetNamespace ns = NetNamespace.create("friends")) {
            ns.sysctl().set("net.ipv4.tcp_friends", "1");
            FilterDevice lo = (FilterDevice) ns.interpose("lo", d -> new FilterDevice(d, ns.clock()));
            try (TcpServerSocket srv = listen(ns); Pair p = connect(ns, srv)) {
                assertThat(TcpFriends.isPaired(p.client())).isFalse();
                assertThat(TcpFriends.isPaired(p.server())).isFalse();
                p.client().write(new byte[10], 0, 10);
                assertThat(p.server().inputStream().readNBytes(10)).hasSize(10);
                assertThat(lo.frames(true).stream().filter(f -> f.payloadLength() == 10)).hasSize(1);
            }
            assertThat(ns.mib().get(MibCounter.TcpExtJnetFriendsFallback)).isEqualTo(1);
            assertThat(ns.mib().get(MibCounter.TcpExtJnetFriendsPaired)).isZero();
        }
        try (NetNamespace ns = NetNamespace.create("friends")) {
            ns.sysctl().set("net.ipv4.tcp_friends", "1");
            ImpairedDevice.interpose(ns, "lo", ImpairmentConfig.parse("egress.delay=1ms"));
            try (TcpServerSocket srv = listen(ns); Pair p = connect(ns, srv)) {
                assertThat(TcpFriends.isPaired(p.client())).isFalse();
            }
        }
    }

    @Test
    void theHandshakeOnTheWireIsPlainTcps() throws Exception {
        List<List<String>> handshakes = new java.util.ArrayList<>();
        for (String friends : new String[] {"0", "1"}) {
            try (NetNamespace ns = NetNamespace.create("friends")) {
                ns.sysctl().set("net.ipv4.tcp_friends", friends);
                ns.sysctl().set("net.ipv4.tcp_timestamps", "2"); // no random offset, so only the clock differs
                FilterDevice lo = (FilterDevice) ns.interpose("lo", d -> new FilterDevice(d, ns.clock()));
                lo.claimBypassable(true);
                try (TcpServerSocket srv = listen(ns); Pair p = connect(ns, srv)) {
                    assertThat(TcpFriends.isPaired(p.client())).isEqualTo(friends.equals("1"));
                    List<TcpFrame> out = lo.frames(true);
                    assertThat(out).hasSizeGreaterThanOrEqualTo(3);
                    handshakes.add(out.subList(0, 3).stream().map(TcpFriendsTest::shape).toList());
                }
            }
        }
        assertThat(handshakes.get(1)).isEqualTo(handshakes.get(0));
        assertThat(handshakes.get(0).get(1)).startsWith("flags=18"); // SYN-ACK
    }

    /** A frame's shape without what differs between any two connections (ports, ISNs, timestamp values). */
    private static String shape(TcpFrame f) {
        byte[] opts = f.optionBytes().clone();
        if (f.options().hasTimestamp) {
            for (int i = 0; i + 1 < opts.length; ) { // blank the timestamp values, keep kind and length
                int kind = opts[i] & 0xFF;
                if (kind == 0 || kind == 1) {
                    i++;
                    continue;
                }
                int len = opts[i + 1] & 0xFF;
                if (kind == 8) Arrays.fill(opts, i + 2, i + len, (byte) 0);
                i += Math.max(len, 2);
            }
        }
        return "flags=" + f.flags() + " window=" + f.window() + " options=" + Arrays.toString(opts)
                + " payload=" + f.payloadLength() + " ack>0=" + (f.ack() != 0);
    }

    @Test
    void aWriterAgainstAReaderThatNeverReadsStopsAtTheReceiveBuffer() throws Exception {
        try (NetNamespace ns = NetNamespace.create("friends")) {
            ns.sysctl().set("net.ipv4.tcp_friends", "1");
            try (TcpServerSocket srv = listen(ns); Pair p = connect(ns, srv)) {
                p.client().setBlocking(false);
                byte[] chunk = new byte[65536];
                long total = 0;
                for (int i = 0; i < 1000; i++) {
                    int n = p.client().write(chunk, 0, chunk.length);
                    if (n == 0) break;
                    total += n;
                }
                int rcvbuf = p.server().getOption(SocketOption.SO_RCVBUF);
                int sndbuf = p.client().getOption(SocketOption.SO_SNDBUF);
                assertThat(total).isPositive().isLessThanOrEqualTo((long) rcvbuf + sndbuf);
                assertThat(p.server().inq()).isEqualTo((int) total);
                // a blocking write with SO_SNDTIMEO waits for room and times out
                p.client().setBlocking(true);
                p.client().setOption(SocketOption.SO_SNDTIMEO, java.time.Duration.ofMillis(100));
                assertThatThrownBy(() -> p.client().write(chunk, 0, chunk.length))
                        .isInstanceOf(ErrnoException.class).extracting(e -> ((ErrnoException) e).errno()).isEqualTo(Errno.EAGAIN);
                // reading the buffer wakes a blocked writer
                CompletableFuture<Integer> w = CompletableFuture.supplyAsync(() -> {
                    try {
                        p.client().setOption(SocketOption.SO_SNDTIMEO, java.time.Duration.ZERO);
                        return p.client().write(chunk, 0, 1000);
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                });
                p.server().inputStream().readNBytes((int) total);
                assertThat(w.get(10, TimeUnit.SECONDS)).isEqualTo(1000);
            }
        }
    }

    @Test
    void dataToAClosedFriendResetsTheWriter() throws Exception {
        try (NetNamespace ns = NetNamespace.create("friends")) {
            ns.sysctl().set("net.ipv4.tcp_friends", "1");
            try (TcpServerSocket srv = listen(ns); Pair p = connect(ns, srv)) {
                p.server().close();
                // the FIN arrives; the first write is accepted, the friend resets, later writes fail
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                ErrnoException failure = null;
                while (failure == null && System.nanoTime() < deadline) {
                    try {
                        p.client().write(new byte[100], 0, 100);
                    } catch (ErrnoException e) {
                        failure = e;
                    }
                }
                assertThat(failure).isNotNull();
                assertThat(failure.errno()).isIn(Errno.ECONNRESET, Errno.EPIPE);
                assertThat(ns.mib().get(MibCounter.TcpExtTCPAbortOnData)).isEqualTo(1);
            }
        }
    }

    @Test
    void closeWithUnreadDataResetsTheFriend() throws Exception {
        try (NetNamespace ns = NetNamespace.create("friends")) {
            ns.sysctl().set("net.ipv4.tcp_friends", "1");
            try (TcpServerSocket srv = listen(ns); Pair p = connect(ns, srv)) {
                p.client().write(new byte[500], 0, 500);
                p.server().close(); // 500 bytes unread
                assertThatThrownBy(() -> p.client().inputStream().read())
                        .isInstanceOf(ErrnoException.class).extracting(e -> ((ErrnoException) e).errno()).isEqualTo(Errno.ECONNRESET);
                assertThat(ns.mib().get(MibCounter.TcpExtTCPAbortOnClose)).isEqualTo(1);
            }
        }
    }

    @Test
    void dataWrittenBeforeCloseAllArrivesBeforeEndOfStream() throws Exception {
        try (NetNamespace ns = NetNamespace.create("friends")) {
            ns.sysctl().set("net.ipv4.tcp_friends", "1");
            try (TcpServerSocket srv = listen(ns); Pair p = connect(ns, srv)) {
                byte[] a = new byte[50_000];
                new java.util.Random(3).nextBytes(a);
                p.client().write(a, 0, a.length);
                p.client().close();
                byte[] got = p.server().inputStream().readAllBytes();
                assertThat(got).isEqualTo(a);
                assertThat(p.server().state()).isEqualTo("CLOSE-WAIT");
                assertThat(p.server().info().state()).isEqualTo(TcpInfo.TCP_CLOSE_WAIT);
            }
        }
    }

    /**
     * TCP_CRR with large messages: every segment of a paired connection (here the FIN after 256 KiB each way)
     * acknowledges what the friend put in the pipe; a stale ACK field was outside RFC 5961's window and the FIN
     * waited for its retransmission.
     */
    @Test
    void closesAfterDataBothWaysNeedNoRetransmission() throws Exception {
        try (NetNamespace ns = NetNamespace.create("friends")) {
            ns.sysctl().set("net.ipv4.tcp_friends", "1");
            try (TcpServerSocket srv = listen(ns)) {
                int size = 262144;
                CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
                    try {
                        for (int i = 0; i < 3; i++) {
                            try (TcpSocket s = srv.accept()) {
                                s.inputStream().readNBytes(size);
                                s.outputStream().write(new byte[size]);
                                if (s.inputStream().read() != -1) throw new AssertionError("no end of stream");
                            }
                        }
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                });
                for (int i = 0; i < 3; i++) {
                    try (TcpSocket c = TcpSocket.open(ns)) {
                        c.connect(srv.localAddress());
                        c.outputStream().write(new byte[size]);
                        assertThat(c.inputStream().readNBytes(size)).hasSize(size);
                    }
                }
                server.get(10, TimeUnit.SECONDS);
            }
            assertThat(ns.mib().get(MibCounter.TcpExtJnetFriendsPaired)).isEqualTo(3);
            assertThat(ns.mib().get(MibCounter.TcpRetransSegs)).isZero();
            assertThat(ns.mib().get(MibCounter.TcpExtTCPChallengeACK)).isZero();
        }
    }

    @Test
    void segmentsAfterPairingAreOnlyControl() throws Exception {
        try (NetNamespace ns = NetNamespace.create("friends")) {
            ns.sysctl().set("net.ipv4.tcp_friends", "1");
            FilterDevice lo = (FilterDevice) ns.interpose("lo", d -> new FilterDevice(d, ns.clock()));
            lo.claimBypassable(true);
            try (TcpServerSocket srv = listen(ns); Pair p = connect(ns, srv)) {
                CompletableFuture<Void> w = CompletableFuture.runAsync(() -> {
                    try {
                        p.client().outputStream().write(new byte[300_000]);
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                });
                assertThat(p.server().inputStream().readNBytes(300_000)).hasSize(300_000);
                w.get(10, TimeUnit.SECONDS);
                p.client().shutdownOutput();
                assertThat(p.server().inputStream().read()).isEqualTo(-1);
                List<TcpFrame> out = lo.frames(true);
                assertThat(out.stream().mapToInt(TcpFrame::payloadLength).sum()).isZero();
                TcpFrame fin = out.stream().filter(f -> f.has(Tcp.FIN)).findFirst().orElseThrow();
                assertThat(fin.seq() - p.client().iss).as("the FIN's sequence counts the bytes moved").isEqualTo(300_001);
            }
        }
    }

    @Test
    void aNonBlockingWriterThatFilledThePipeGetsAnEdgeTriggeredPolloutWhenTheReaderDrains() throws Exception {
        try (NetNamespace ns = NetNamespace.create("friends")) {
            ns.sysctl().set("net.ipv4.tcp_friends", "1");
            try (TcpServerSocket srv = listen(ns); Pair p = connect(ns, srv);
                    io.jnet.socket.Poller poller = io.jnet.socket.Poller.open()) {
                assertThat(TcpFriends.isPaired(p.client())).isTrue();
                p.client().setBlocking(false);
                poller.register(p.client(), io.jnet.socket.Events.POLLOUT | io.jnet.socket.Events.EPOLLET);
                List<io.jnet.socket.Poller.Ready> ready = new java.util.ArrayList<>();
                poller.poll(ready, java.time.Duration.ofSeconds(5));
                assertThat(ready).hasSize(1); // the first edge: writable
                ready.clear();
                // fill the pipe without asking for readiness in between (an epoll loop writes until EAGAIN)
                byte[] chunk = new byte[65536];
                long total = 0;
                int n;
                while ((n = p.client().write(chunk, 0, chunk.length)) > 0) total += n;
                assertThat(total).isPositive();
                long got = 0;
                while (got < total) got += p.server().read(chunk, 0, chunk.length);
                poller.poll(ready, java.time.Duration.ofSeconds(10));
                assertThat(ready).as("POLLOUT edge after the reader drained the pipe").hasSize(1);
                assertThat(ready.getFirst().events() & io.jnet.socket.Events.POLLOUT).isNotZero();
            }
        }
    }
}
