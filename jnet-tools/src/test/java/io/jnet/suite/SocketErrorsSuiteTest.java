package io.jnet.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.ArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Socket errors and close semantics over every {@link TransportPath}, as Linux reports them. */
@Timeout(30)
class SocketErrorsSuiteTest extends SuiteBase {

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void connectToClosedPortIsRefused(TransportPath path) throws Exception {
        open(path);
        long resetsBefore = topo.server().mib().get(MibCounter.TcpOutRsts);
        try (TcpSocket c = TcpSocket.open(topo.client())) {
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> c.connect(server(9)));
            assertThat(e).isNotNull();
            assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED);
            assertThat(c.state()).isEqualTo("UNCONN");
        }
        assertThat(topo.server().mib().get(MibCounter.TcpOutRsts)).isGreaterThan(resetsBefore);
        assertThat(topo.client().mib().get(MibCounter.TcpAttemptFails)).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void bindingATakenPortFailsWithEaddrinuse(TransportPath path) throws Exception {
        open(path);
        try (TcpServerSocket first = listen(PORT, 8); TcpServerSocket second = TcpServerSocket.open(topo.server());
             TcpSocket third = TcpSocket.open(topo.server())) {
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> second.bind(server(PORT)));
            assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE);
            // a listener blocks the port even for SO_REUSEADDR sockets (Linux inet_csk_bind_conflict)
            third.setOption(SocketOption.SO_REUSEADDR, true);
            e = catchThrowableOfType(ErrnoException.class, () -> third.bind(server(PORT)));
            assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE);
        }
        // closing the listener frees the port
        try (TcpServerSocket again = listen(PORT, 8)) {
            assertThat(again.localAddress().getPort()).isEqualTo(PORT);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void soReuseAddrRebindsAPortHeldByTimeWait(TransportPath path) throws Exception {
        open(path);
        try (TcpServerSocket srv = listen(PORT, 8); TcpSocket c = connect(PORT)) {
            TcpSocket s = srv.accept();
            s.close(); // the server closes first: its side ends in TIME-WAIT, holding PORT
            assertThat(c.read(new byte[1], 0, 1)).isEqualTo(-1);
            c.close();
            // timeWaitEntered() counts when TIME-WAIT is admitted; the closed socket turns UNCONN once its remnant
            // holds the port (the transition may still be running on the device's receive thread)
            assertThat(SocketIo.await(() -> topo.server().extension(io.jnet.tcp.TcpProtocol.class).timeWaitEntered() == 1
                    && s.state().equals("UNCONN"), 5000)).as("server side in TIME-WAIT").isTrue();
        }
        try (TcpServerSocket plain = TcpServerSocket.open(topo.server())) {
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> plain.bind(server(PORT)));
            assertThat(e).as("bind without SO_REUSEADDR while TIME-WAIT holds the port").isNotNull();
            assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE);
        }
        try (TcpServerSocket reuse = TcpServerSocket.open(topo.server())) {
            reuse.setOption(SocketOption.SO_REUSEADDR, true);
            reuse.bind(server(PORT));
            reuse.listen(8);
            // and the new listener works
            try (TcpSocket c = connect(PORT); TcpSocket s = reuse.accept()) {
                c.write(new byte[] {42}, 0, 1);
                assertThat(SocketIo.readExactly(s, 1)).containsExactly(42);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void ephemeralPortsAreDistinct(TransportPath path) throws Exception {
        open(path);
        List<TcpSocket> clients = new ArrayList<>();
        Set<Integer> ports = new HashSet<>();
        int lo = topo.client().sysctl().ipLocalPortRange.intValue(0);
        int hi = topo.client().sysctl().ipLocalPortRange.intValue(1);
        try (TcpServerSocket srv = listen(PORT, 128)) {
            for (int i = 0; i < 100; i++) {
                TcpSocket c = connect(PORT);
                clients.add(c);
                int p = c.localAddress().getPort();
                assertThat(p).isBetween(lo, hi);
                assertThat(ports.add(p)).as("port %d reused", p).isTrue();
                srv.accept().close();
            }
            // bind(port 0) picks a free port too, distinct from the connected ones
            try (TcpSocket b = TcpSocket.open(topo.client())) {
                b.bind(new java.net.InetSocketAddress(topo.clientAddress(), 0));
                assertThat(ports).doesNotContain(b.localAddress().getPort());
            }
        } finally {
            for (TcpSocket c : clients) c.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void readAfterPeerCloseReturnsEndOfStream(TransportPath path) throws Exception {
        open(path);
        try (TcpServerSocket srv = listen(PORT, 8); TcpSocket c = connect(PORT)) {
            TcpSocket s = srv.accept();
            s.write(new byte[] {1, 2, 3}, 0, 3);
            s.close();
            assertThat(SocketIo.readExactly(c, 3)).containsExactly(1, 2, 3);
            byte[] b = new byte[8];
            assertThat(c.read(b, 0, 8)).isEqualTo(-1);
            assertThat(c.read(b, 0, 8)).as("EOF is sticky").isEqualTo(-1);
            assertThat(c.state()).isEqualTo("CLOSE-WAIT");
            // writing to a half-closed connection still works (the peer is gone: it answers RST)
            c.write(new byte[] {9}, 0, 1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void writeAfterPeerResetFails(TransportPath path) throws Exception {
        open(path);
        try (TcpServerSocket srv = listen(PORT, 8); TcpSocket c = connect(PORT)) {
            TcpSocket s = srv.accept();
            s.setOption(SocketOption.SO_LINGER, Duration.ZERO);
            s.close();
            assertThat(SocketIo.await(() -> c.state().equals("UNCONN"), 5000)).as("RST received").isTrue();
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> {
                for (int i = 0; i < 100; i++) c.write(new byte[100], 0, 100);
            });
            assertThat(e).isNotNull();
            assertThat(e.errno()).isIn(Errno.ECONNRESET, Errno.EPIPE);
            // after the error was reported once, further writes give EPIPE
            e = catchThrowableOfType(ErrnoException.class, () -> c.write(new byte[1], 0, 1));
            assertThat(e.errno()).isEqualTo(Errno.EPIPE);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void closeWithUnreadDataResetsThePeer(TransportPath path) throws Exception {
        open(path);
        try (TcpServerSocket srv = listen(PORT, 8); TcpSocket c = connect(PORT)) {
            TcpSocket s = srv.accept();
            c.write(new byte[100], 0, 100);
            assertThat(SocketIo.await(() -> s.available() == 100, 5000)).isTrue();
            long abortOnClose = topo.server().mib().get(MibCounter.TcpExtTCPAbortOnClose);
            s.close(); // 100 bytes unread: RFC 2525 2.17, Linux sends RST
            assertThat(topo.server().mib().get(MibCounter.TcpExtTCPAbortOnClose)).isEqualTo(abortOnClose + 1);
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> c.read(new byte[10], 0, 10));
            assertThat(e).isNotNull();
            assertThat(e.errno()).isEqualTo(Errno.ECONNRESET);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void soLingerZeroClosesWithReset(TransportPath path) throws Exception {
        open(path);
        try (TcpServerSocket srv = listen(PORT, 8); TcpSocket c = connect(PORT)) {
            TcpSocket s = srv.accept();
            long rsts = topo.client().mib().get(MibCounter.TcpOutRsts);
            long tw = topo.client().extension(io.jnet.tcp.TcpProtocol.class).timeWaitEntered();
            c.setOption(SocketOption.SO_LINGER, Duration.ZERO);
            assertThat(c.getOption(SocketOption.SO_LINGER)).isEqualTo(Duration.ZERO);
            c.close();
            assertThat(topo.client().mib().get(MibCounter.TcpOutRsts)).isEqualTo(rsts + 1);
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> s.read(new byte[10], 0, 10));
            assertThat(e).isNotNull();
            assertThat(e.errno()).isEqualTo(Errno.ECONNRESET);
            assertThat(topo.client().extension(io.jnet.tcp.TcpProtocol.class).timeWaitEntered()).as("no TIME-WAIT after an abortive close").isEqualTo(tw);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void soRcvtimeoExpiresWithEagain(TransportPath path) throws Exception {
        open(path);
        try (TcpServerSocket srv = listen(PORT, 8); TcpSocket c = connect(PORT); TcpSocket s = srv.accept()) {
            c.setOption(SocketOption.SO_RCVTIMEO, Duration.ofMillis(50));
            assertThat(c.getOption(SocketOption.SO_RCVTIMEO)).isEqualTo(Duration.ofMillis(50));
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> c.read(new byte[10], 0, 10));
            assertThat(e.errno()).isEqualTo(Errno.EAGAIN);
            // the connection is still usable afterwards
            s.write(new byte[] {7}, 0, 1);
            assertThat(SocketIo.readExactly(c, 1)).containsExactly(7);
            // and accept() on a listener honours it as well
            srv.setOption(SocketOption.SO_RCVTIMEO, Duration.ofMillis(50));
            e = catchThrowableOfType(ErrnoException.class, srv::accept);
            assertThat(e.errno()).isEqualTo(Errno.EAGAIN);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void nonBlockingReadReturnsZeroWhenNothingIsQueued(TransportPath path) throws Exception {
        open(path);
        try (TcpServerSocket srv = listen(PORT, 8); TcpSocket c = connect(PORT); TcpSocket s = srv.accept()) {
            c.setBlocking(false);
            byte[] b = new byte[10];
            assertThat(c.read(b, 0, 10)).isZero();
            s.write(new byte[] {1, 2}, 0, 2);
            assertThat(SocketIo.await(() -> c.available() == 2, 5000)).isTrue();
            assertThat(c.read(b, 0, 10)).isEqualTo(2);
            assertThat(c.read(b, 0, 10)).isZero();
            srv.setBlocking(false);
            assertThat(srv.accept()).as("non-blocking accept with an empty queue").isNull();
            s.shutdownOutput();
            assertThat(SocketIo.await(() -> {
                try {
                    return c.read(b, 0, 10) == -1;
                } catch (Exception ex) {
                    throw new AssertionError(ex);
                }
            }, 5000)).isTrue();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void connectionsBeyondTheBacklogWaitAndCompleteOnceAccepted(TransportPath path) throws Exception {
        open(path);
        // without SYN cookies: a cookie could complete a client's handshake that the full accept queue then drops
        topo.server().sysctl().set("net.ipv4.tcp_syncookies", "0");
        int n = 4;
        try (TcpServerSocket srv = listen(PORT, 1)) {
            List<TcpSocket> clients = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                TcpSocket c = TcpSocket.open(topo.client());
                c.setBlocking(false);
                assertThatThrownBy(() -> c.connect(server(PORT)))
                        .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINPROGRESS));
                clients.add(c);
            }
            // backlog 1: the accept queue holds backlog + 1 = 2 connections; later SYNs are dropped
            assertThat(SocketIo.await(() -> clients.stream().filter(c -> c.state().equals("ESTAB")).count() == 2, 5000)).isTrue();
            assertThat(clients.stream().filter(c -> c.state().equals("SYN-SENT")).count()).isEqualTo(n - 2);
            // on TAP the client may see both handshakes complete before the server has handled the later SYNs
            assertThat(SocketIo.await(() -> topo.server().mib().get(MibCounter.TcpExtListenDrops) > 0, 5000)).isTrue();
            // accepting makes room: the waiting clients complete when their SYN is retransmitted (1 s)
            List<TcpSocket> accepted = new ArrayList<>();
            srv.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(10));
            for (int i = 0; i < n; i++) accepted.add(srv.accept());
            for (TcpSocket c : clients) {
                assertThat(SocketIo.await(() -> {
                    try {
                        return c.finishConnect();
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }, 10_000)).isTrue();
                c.setBlocking(true);
                c.write(new byte[] {(byte) clients.indexOf(c)}, 0, 1);
            }
            Set<Integer> seen = new HashSet<>();
            for (TcpSocket s : accepted) seen.add((int) SocketIo.readExactly(s, 1)[0]);
            assertThat(seen).containsExactlyInAnyOrder(0, 1, 2, 3);
            for (TcpSocket c : clients) c.close();
            for (TcpSocket s : accepted) s.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void mibCountersFollowOneConnection(TransportPath path) throws Exception {
        open(path);
        var cm = topo.client().mib();
        var sm = topo.server().mib();
        long active = cm.get(MibCounter.TcpActiveOpens);
        long passive = sm.get(MibCounter.TcpPassiveOpens);
        try (TcpServerSocket srv = listen(PORT, 8)) {
            TcpSocket c = connect(PORT);
            TcpSocket s = srv.accept();
            assertThat(cm.get(MibCounter.TcpActiveOpens)).isEqualTo(active + 1);
            assertThat(sm.get(MibCounter.TcpPassiveOpens)).isEqualTo(passive + 1);
            long estab = topo.client() == topo.server() ? 2 : 1;
            assertThat(cm.get(MibCounter.TcpCurrEstab)).isEqualTo(estab);
            assertThat(sm.get(MibCounter.TcpCurrEstab)).isEqualTo(estab);
            c.write(new byte[1000], 0, 1000);
            SocketIo.readExactly(s, 1000);
            c.close();
            assertThat(s.read(new byte[1], 0, 1)).isEqualTo(-1);
            s.close();
            assertThat(SocketIo.await(() -> cm.get(MibCounter.TcpCurrEstab) == 0 && sm.get(MibCounter.TcpCurrEstab) == 0, 5000))
                    .as("TcpCurrEstab back to 0").isTrue();
            assertThat(cm.get(MibCounter.TcpEstabResets)).isZero();
            assertThat(sm.get(MibCounter.TcpEstabResets)).isZero();
            assertThat(cm.get(MibCounter.TcpAttemptFails)).isZero();
            // once the server's FIN arrives, which can be after TcpCurrEstab went to 0 (at close on both sides)
            assertThat(SocketIo.await(() -> topo.client().extension(io.jnet.tcp.TcpProtocol.class).timeWaitEntered() == 1, 5000))
                    .as("the active closer enters TIME-WAIT").isTrue();
            assertThat(cm.get(MibCounter.TcpOutSegs)).isPositive();
            assertThat(sm.get(MibCounter.TcpInSegs)).isPositive();
            assertThat(cm.get(MibCounter.TcpRetransSegs)).isZero();
        }
    }

    static <T> T get(Future<T> f) throws Exception { return f.get(20, TimeUnit.SECONDS); }
}
