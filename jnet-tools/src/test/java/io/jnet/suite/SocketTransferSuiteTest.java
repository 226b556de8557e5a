package io.jnet.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Data transfer behaviour over every {@link TransportPath}: echo, half-close, Nagle, many connections, churn. */
@Timeout(60)
class SocketTransferSuiteTest extends SuiteBase {

    static Stream<Arguments> pathsAndWriteSizes() {
        int[] sizes = {1, 100, 1460, 8192, 65536, 1 << 20};
        return paths().stream().flatMap(p -> Arrays.stream(sizes).mapToObj(s -> Arguments.of(p, s)));
    }

    /** Echo server loop for one connection: returns what it echoed, in bytes. */
    static long echo(TcpSocket s) throws Exception {
        byte[] b = new byte[65536];
        long total = 0;
        int n;
        while ((n = s.read(b, 0, b.length)) > 0) {
            s.write(b, 0, n);
            total += n;
        }
        s.close();
        return total;
    }

    @ParameterizedTest(name = "{0} writes of {1} B")
    @MethodSource("pathsAndWriteSizes")
    void echoesRandomDataInBothDirectionsAtOnce(TransportPath path, int writeSize) throws Exception {
        open(path);
        int total = writeSize == 1 ? 16 << 10 : writeSize < 1460 ? 256 << 10 : Math.max(1 << 20, 4 * writeSize);
        byte[] data = new byte[total];
        new Random(writeSize).nextBytes(data);
        try (TcpServerSocket srv = listen(PORT, 8)) {
            Future<Long> server = pool.submit(() -> echo(srv.accept()));
            try (TcpSocket c = connect(PORT)) {
                Future<?> writer = pool.submit(() -> {
                    SocketIo.writeInChunks(c, data, writeSize);
                    c.shutdownOutput();
                    return null;
                });
                byte[] back = SocketIo.readToEnd(c);
                writer.get(30, TimeUnit.SECONDS);
                assertThat(back.length).isEqualTo(total);
                assertThat(Arrays.equals(back, data)).as("echoed bytes equal the sent bytes").isTrue();
            }
            assertThat(server.get(30, TimeUnit.SECONDS)).isEqualTo(total);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void halfCloseLetsThePeerKeepWriting(TransportPath path) throws Exception {
        open(path);
        byte[] request = new byte[10_000];
        byte[] response = new byte[300_000];
        new Random(1).nextBytes(request);
        new Random(2).nextBytes(response);
        try (TcpServerSocket srv = listen(PORT, 8)) {
            Future<byte[]> server = pool.submit(() -> {
                try (TcpSocket s = srv.accept()) {
                    // start writing before the request is complete, keep writing after its EOF
                    s.write(response, 0, 1000);
                    byte[] got = SocketIo.readToEnd(s);
                    assertThat(s.state()).isEqualTo("CLOSE-WAIT");
                    SocketIo.writeInChunks(s, Arrays.copyOfRange(response, 1000, response.length), 7000);
                    return got;
                }
            });
            try (TcpSocket c = connect(PORT)) {
                c.write(request, 0, request.length);
                c.shutdownOutput();
                ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> c.write(new byte[1], 0, 1));
                assertThat(e.errno()).isEqualTo(Errno.EPIPE);
                assertThat(SocketIo.readToEnd(c)).isEqualTo(response);
            }
            assertThat(server.get(20, TimeUnit.SECONDS)).isEqualTo(request);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void tcpNodelaySendsEverySmallWriteAtOnce(TransportPath path) throws Exception {
        open(path);
        int writes = 64;
        try (TcpServerSocket srv = listen(PORT, 8)) {
            srv.setOption(SocketOption.TCP_NODELAY, true);
            for (boolean nodelay : new boolean[] {true, false}) {
                try (TcpSocket c = TcpSocket.open(topo.client())) {
                    c.setOption(SocketOption.TCP_NODELAY, nodelay);
                    assertThat(c.getOption(SocketOption.TCP_NODELAY)).isEqualTo(nodelay);
                    c.connect(server(PORT));
                    try (TcpSocket s = srv.accept()) {
                        assertThat(s.getOption(SocketOption.TCP_NODELAY)).as("inherited from the listener").isTrue();
                        long before = topo.client().mib().get(MibCounter.TcpExtTCPOrigDataSent);
                        byte[] msg = new byte[10];
                        for (int i = 0; i < writes; i++) {
                            Arrays.fill(msg, (byte) i);
                            c.write(msg, 0, msg.length);
                        }
                        long segments = topo.client().mib().get(MibCounter.TcpExtTCPOrigDataSent) - before;
                        byte[] got = SocketIo.readExactly(s, writes * 10);
                        for (int i = 0; i < writes * 10; i++) assertThat(got[i]).isEqualTo((byte) (i / 10));
                        if (topo.client().sysctl().tcpFriends.enabled()) {
                            // TCP friends: each write lands in the peer's receive queue at once, no segment carries it
                            assertThat(segments).as("friends: no data segments").isZero();
                        } else if (nodelay) {
                            assertThat(segments).as("TCP_NODELAY: one segment per write").isEqualTo(writes);
                        } else {
                            // Nagle (RFC 896): while data is unacknowledged, small writes wait and coalesce
                            assertThat(segments).as("Nagle coalesces small writes").isLessThan(writes);
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void manyConcurrentConnectionsEachTransferData(TransportPath path) throws Exception {
        open(path);
        int n = 200;
        int size = 32 << 10;
        try (TcpServerSocket srv = listen(PORT, 256)) {
            Future<?> acceptor = pool.submit(() -> {
                for (int i = 0; i < n; i++) {
                    TcpSocket s = srv.accept();
                    pool.submit(() -> echo(s));
                }
                return null;
            });
            List<Future<Boolean>> clients = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int id = i;
                clients.add(pool.submit(() -> {
                    byte[] data = new byte[size];
                    new Random(id).nextBytes(data);
                    try (TcpSocket c = connect(PORT)) {
                        Future<?> w = pool.submit(() -> {
                            SocketIo.writeInChunks(c, data, 4096);
                            c.shutdownOutput();
                            return null;
                        });
                        byte[] back = SocketIo.readToEnd(c);
                        w.get(30, TimeUnit.SECONDS);
                        return Arrays.equals(back, data);
                    }
                }));
            }
            for (int i = 0; i < n; i++) assertThat(within(clients.get(i), 45, "client " + i)).isTrue();
            within(acceptor, 10, "acceptor");
        }
        assertThat(topo.client().mib().get(MibCounter.TcpActiveOpens)).isEqualTo(n);
        assertThat(topo.server().mib().get(MibCounter.TcpPassiveOpens)).isEqualTo(n);
        assertThat(SocketIo.await(() -> topo.client().mib().get(MibCounter.TcpCurrEstab) == 0
                && topo.server().mib().get(MibCounter.TcpCurrEstab) == 0, 5000)).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void connectRequestResponseCloseChurn(TransportPath path) throws Exception {
        open(path);
        int cycles = 3000;
        try (TcpServerSocket srv = listen(PORT, 128)) {
            Future<Integer> server = pool.submit(() -> {
                int served = 0;
                for (int i = 0; i < cycles; i++) {
                    try (TcpSocket s = srv.accept()) {
                        byte[] req = SocketIo.readExactly(s, 64);
                        s.write(req, 0, 64);
                        if (s.read(new byte[1], 0, 1) == -1) served++;
                    }
                }
                return served;
            });
            byte[] req = new byte[64];
            for (int i = 0; i < cycles; i++) {
                Arrays.fill(req, (byte) i);
                try (TcpSocket c = connect(PORT)) {
                    c.write(req, 0, 64);
                    assertThat(SocketIo.readExactly(c, 64)).isEqualTo(req);
                }
            }
            assertThat(server.get(30, TimeUnit.SECONDS)).isEqualTo(cycles);
        }
        var cm = topo.client().mib();
        assertThat(cm.get(MibCounter.TcpActiveOpens)).isEqualTo(cycles);
        assertThat(cm.get(MibCounter.TcpAttemptFails)).isZero();
        // the client enters TIME-WAIT when the server's FIN arrives, which may be after the server loop ended
        assertThat(SocketIo.await(() -> topo.client().extension(io.jnet.tcp.TcpProtocol.class).timeWaitEntered() == cycles, 5000))
                .as("each client close leaves a TIME-WAIT: %d of %d\n%s", topo.client().extension(io.jnet.tcp.TcpProtocol.class).timeWaitEntered(), cycles, cm.toNstatString()).isTrue();
        assertThat(SocketIo.await(() -> cm.get(MibCounter.TcpCurrEstab) == 0
                && topo.server().mib().get(MibCounter.TcpCurrEstab) == 0, 5000)).isTrue();
    }

    /**
     * tcp_tw_reuse=2 (the default) lets a new outgoing loopback connection take a port whose previous
     * connection is in TIME-WAIT once its last timestamp is over a second old; on other paths the port
     * stays taken and connect() fails with EADDRNOTAVAIL when no other port is free.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void timeWaitPortsAreReusedOnLoopbackOnly(TransportPath path) throws Exception {
        open(path);
        topo.client().sysctl().set("net.ipv4.ip_local_port_range", "40000 40009");
        try (TcpServerSocket srv = listen(PORT, 128)) {
            // the server closes only after the client's close() returned: a server FIN sent while the client
            // thread still carries the server's ACK of the client's FIN can overtake that ACK by milliseconds
            // when the thread is descheduled; TIME-WAIT then answers the ACK's older timestamp (PAWS) with an
            // ACK, the closed server resets it, and the RST ends TIME-WAIT early (tcp_rfc1337=0, as Linux)
            java.util.concurrent.Semaphore clientClosed = new java.util.concurrent.Semaphore(0);
            Future<?> server = pool.submit(() -> {
                while (true) {
                    try (TcpSocket s = srv.accept()) {
                        SocketIo.readToEnd(s);
                        clientClosed.acquire();
                    }
                }
            });
            for (int i = 0; i < 10; i++) {
                connect(PORT).close();
                clientClosed.release();
            }
            assertThat(SocketIo.await(() -> topo.client().extension(io.jnet.tcp.TcpProtocol.class).timeWaitEntered() == 10, 5000)).isTrue();
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> connect(PORT));
            assertThat(e).as("every port is in TIME-WAIT for less than a second").isNotNull();
            assertThat(e.errno()).isEqualTo(Errno.EADDRNOTAVAIL);
            Thread.sleep(1100);
            if (topo.isLoopback()) {
                for (int i = 0; i < 10; i++) {
                    try (TcpSocket c = connect(PORT)) {
                        c.write(new byte[] {1}, 0, 1);
                    }
                    clientClosed.release();
                }
                assertThat(topo.client().mib().get(MibCounter.TcpExtTWRecycled)).isGreaterThanOrEqualTo(10);
            } else {
                e = catchThrowableOfType(ErrnoException.class, () -> connect(PORT));
                assertThat(e).as("tcp_tw_reuse=2 applies to loopback only").isNotNull();
                assertThat(e.errno()).isEqualTo(Errno.EADDRNOTAVAIL);
            }
            server.cancel(true);
        }
    }
}
