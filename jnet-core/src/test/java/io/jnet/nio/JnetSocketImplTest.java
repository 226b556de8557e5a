package io.jnet.nio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.stack.NetNamespace;
import io.jnet.tcp.TcpProtocol;
import io.jnet.topology.Topology;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ServerSocketFactory;
import javax.net.SocketFactory;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * java.net.Socket and ServerSocket on {@link JnetSocketImpl}, through {@link JnetNetwork#socketFactory()} and
 * {@link JnetNetwork#serverSocketFactory()} (nothing installed JVM-wide): client in namespace a (10.0.0.1),
 * server in namespace b (10.0.0.2), joined by a veth pair. Expected behaviour is the JDK's NioSocketImpl's.
 */
// in a thread of its own: a platform thread's blocking read ignores the interrupt that would end a timed-out test
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class JnetSocketImplTest {
    private static final String A = "10.0.0.1";
    private static final String B = "10.0.0.2";
    private static final int PORT = 7;

    private NetNamespace a;
    private NetNamespace b;
    private SocketFactory clients;
    private ServerSocketFactory servers;
    private final List<AutoCloseable> closeLater = new ArrayList<>();

    @BeforeEach
    void setUp() {
        a = NetNamespace.create("a");
        b = NetNamespace.create("b");
        Topology.link(a, b, "veth0", A + "/24", B + "/24");
        clients = JnetNetwork.of(a).socketFactory();
        servers = JnetNetwork.of(b).serverSocketFactory();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : closeLater) c.close();
        a.close();
        b.close();
    }

    private <T extends AutoCloseable> T later(T c) {
        closeLater.add(c);
        return c;
    }

    private ServerSocket listen() throws IOException {
        return later(servers.createServerSocket(PORT, 50, InetAddress.getByName(B)));
    }

    /** A connected pair: [0] the client in a, [1] the socket b accepted. */
    private Socket[] pair(ServerSocket server) throws IOException {
        Socket client = later(clients.createSocket(B, PORT));
        Socket accepted = later(server.accept());
        return new Socket[] {client, accepted};
    }

    /** The namespace's TCP connections as {@code ss -tan} lists them. */
    private static List<String> connections(NetNamespace ns) {
        return ns.extension(TcpProtocol.class).describeConnections();
    }

    /** Waits until {@code t} is parked in JnetSocketImpl waiting for the network. */
    private static void awaitParked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            boolean parked = (t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING)
                    && Arrays.stream(t.getStackTrace()).anyMatch(e ->
                            e.getClassName().equals(JnetSocketImpl.class.getName()) && e.getMethodName().equals("park"));
            if (parked) return;
            Thread.sleep(5);
        }
        throw new AssertionError(t + " never parked in JnetSocketImpl: " + t.getState() + " " + Arrays.toString(t.getStackTrace()));
    }

    /** Runs {@code body} in a new platform thread (or virtual, when asked); the future holds what it threw. */
    private static Thread start(boolean virtual, CompletableFuture<Object> result, ThrowingSupplier body) {
        Runnable r = () -> {
            try {
                result.complete(body.get());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        };
        return virtual ? Thread.ofVirtual().start(r) : Thread.ofPlatform().start(r);
    }

    interface ThrowingSupplier {
        Object get() throws Exception;
    }

    private static Throwable failure(Future<?> f) throws InterruptedException {
        try {
            Object v = f.get(10, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure, got " + v);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the blocked call never returned", e);
        }
    }

    @Test
    void echoBetweenTwoNamespacesWithTheAddressesOfBothEnds() throws Exception {
        ServerSocket server = listen();
        assertThat(server.getLocalPort()).isEqualTo(PORT);
        assertThat(server.getInetAddress().getHostAddress()).isEqualTo(B);
        Socket[] p = pair(server);
        Socket client = p[0];
        Socket accepted = p[1];

        assertThat(client.isConnected()).isTrue();
        assertThat(client.getInetAddress().getHostAddress()).isEqualTo(B);
        assertThat(client.getPort()).isEqualTo(PORT);
        assertThat(client.getLocalAddress().getHostAddress()).isEqualTo(A);
        assertThat(client.getLocalPort()).isPositive();
        assertThat(accepted.getInetAddress().getHostAddress()).isEqualTo(A);
        assertThat(accepted.getPort()).isEqualTo(client.getLocalPort());
        assertThat(accepted.getLocalPort()).isEqualTo(PORT);
        assertThat(accepted.getLocalAddress().getHostAddress()).isEqualTo(B);

        client.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));
        byte[] got = accepted.getInputStream().readNBytes(5);
        accepted.getOutputStream().write(got);
        assertThat(new String(client.getInputStream().readNBytes(5), StandardCharsets.US_ASCII)).isEqualTo("hello");
        assertThat(connections(a)).hasSize(1);
        assertThat(connections(b)).hasSize(1);
    }

    @Test
    void eightMebibytesArriveWithTheirSha256() throws Exception {
        ServerSocket server = listen();
        Socket[] p = pair(server);
        byte[] data = new byte[8 << 20];
        new Random(42).nextBytes(data);
        CompletableFuture<Object> sent = new CompletableFuture<>();
        start(false, sent, () -> {
            OutputStream out = p[0].getOutputStream();
            for (int off = 0; off < data.length; off += 100_000) out.write(data, off, Math.min(100_000, data.length - off));
            p[0].shutdownOutput();
            return null;
        });
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        InputStream in = p[1].getInputStream();
        byte[] buf = new byte[65536];
        long total = 0;
        int n;
        while ((n = in.read(buf)) != -1) {
            md.update(buf, 0, n);
            total += n;
        }
        sent.get(30, TimeUnit.SECONDS);
        assertThat(total).isEqualTo(data.length);
        assertThat(md.digest()).isEqualTo(MessageDigest.getInstance("SHA-256").digest(data));
    }

    @Test
    void soTimeoutEndsAReadWithReadTimedOutAndTheSocketStaysUsable() throws Exception {
        Socket[] p = pair(listen());
        p[0].setSoTimeout(200);
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> p[0].getInputStream().read())
                .isExactlyInstanceOf(SocketTimeoutException.class).hasMessage("Read timed out");
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
        assertThat(p[0].isClosed()).isFalse();
        p[1].getOutputStream().write(42);
        assertThat(p[0].getInputStream().read()).isEqualTo(42);
    }

    @Test
    void soTimeoutEndsAnAcceptWithAcceptTimedOut() throws Exception {
        ServerSocket server = listen();
        server.setSoTimeout(150);
        assertThat(server.getSoTimeout()).isEqualTo(150);
        assertThatThrownBy(server::accept).isExactlyInstanceOf(SocketTimeoutException.class).hasMessage("Accept timed out");
        assertThat(server.isClosed()).isFalse();
        Socket client = later(clients.createSocket(B, PORT));
        Socket accepted = later(server.accept());
        assertThat(accepted.getPort()).isEqualTo(client.getLocalPort());
    }

    @Test
    void closeFromAnotherThreadWakesABlockedReadWithSocketClosed() throws Exception {
        Socket[] p = pair(listen());
        CompletableFuture<Object> read = new CompletableFuture<>();
        Thread reader = start(false, read, () -> p[0].getInputStream().read());
        awaitParked(reader);
        p[0].close();
        assertThat(failure(read)).isExactlyInstanceOf(SocketException.class).hasMessage("Socket closed");
        assertThat(p[1].getInputStream().read()).as("the peer sees the FIN").isEqualTo(-1);
    }

    @Test
    void closeFromAnotherThreadWakesABlockedAcceptWithSocketClosed() throws Exception {
        ServerSocket server = listen();
        CompletableFuture<Object> accept = new CompletableFuture<>();
        Thread acceptor = start(false, accept, server::accept);
        awaitParked(acceptor);
        server.close();
        assertThat(failure(accept)).isExactlyInstanceOf(SocketException.class).hasMessage("Socket closed");
        assertThatThrownBy(() -> clients.createSocket(B, PORT)).as("the port no longer listens")
                .isExactlyInstanceOf(ConnectException.class);
    }

    @Test
    void connectToAPortNobodyListensOnIsRefused() throws Exception {
        Socket s = later(clients.createSocket());
        assertThatThrownBy(() -> s.connect(new InetSocketAddress(B, 9)))
                .isExactlyInstanceOf(ConnectException.class).hasMessage("Connection refused");
        assertThatThrownBy(() -> s.getInputStream()).isInstanceOf(SocketException.class);
    }

    @Test
    void connectToAPeerThatDropsSynsTimesOutAfterTheGivenMillis() throws Exception {
        SynDropper dropper = (SynDropper) a.interpose("veth0", SynDropper::new);
        listen();
        Socket s = later(clients.createSocket());
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> s.connect(new InetSocketAddress(B, PORT), 300))
                .isExactlyInstanceOf(SocketTimeoutException.class).hasMessage("Connect timed out");
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
        assertThat(dropper.dropped()).isPositive();
        assertThat(connections(a)).as("the impl closed the socket it could not connect").isEmpty();
    }

    @Test
    void closeFromAnotherThreadWakesABlockedConnectWithSocketClosed() throws Exception {
        a.interpose("veth0", SynDropper::new);
        Socket s = later(clients.createSocket());
        CompletableFuture<Object> connect = new CompletableFuture<>();
        Thread connector = start(false, connect, () -> {
            s.connect(new InetSocketAddress(B, PORT));
            return s;
        });
        awaitParked(connector);
        s.close();
        assertThat(failure(connect)).isExactlyInstanceOf(SocketException.class).hasMessage("Socket closed");
    }

    @Test
    void shutdownOutputGivesThePeerEndOfStreamAndTheOtherDirectionGoesOn() throws Exception {
        Socket[] p = pair(listen());
        p[0].getOutputStream().write("abc".getBytes(StandardCharsets.US_ASCII));
        p[0].shutdownOutput();
        assertThat(p[0].isOutputShutdown()).isTrue();
        InputStream in = p[1].getInputStream();
        assertThat(new String(in.readNBytes(3), StandardCharsets.US_ASCII)).isEqualTo("abc");
        assertThat(in.read()).isEqualTo(-1);
        assertThat(in.read()).as("end of stream again").isEqualTo(-1);
        p[1].getOutputStream().write("ok".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(p[0].getInputStream().readNBytes(2), StandardCharsets.US_ASCII)).isEqualTo("ok");
        assertThatThrownBy(() -> p[0].getOutputStream()).isExactlyInstanceOf(SocketException.class);
    }

    @Test
    void aResetConnectionReadsConnectionResetEveryTime() throws Exception {
        Socket[] p = pair(listen());
        p[1].setSoLinger(true, 0);
        p[1].close(); // RST
        InputStream in = p[0].getInputStream();
        assertThatThrownBy(in::read).isExactlyInstanceOf(SocketException.class).hasMessage("Connection reset");
        assertThatThrownBy(in::read).isExactlyInstanceOf(SocketException.class).hasMessage("Connection reset");
    }

    @Test
    void availableCountsTheBytesQueuedAndShutdownInputEndsTheStream() throws Exception {
        Socket[] p = pair(listen());
        p[1].getOutputStream().write(new byte[10]);
        InputStream in = p[0].getInputStream();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (in.available() < 10 && System.nanoTime() < deadline) Thread.sleep(1);
        assertThat(in.available()).isEqualTo(10);
        p[0].shutdownInput();
        assertThat(in.available()).isZero();
        assertThat(in.read()).isEqualTo(-1);
    }

    @Test
    void optionsRoundTripWithLinuxUnitsAndTheJdkErrorsForTheOnesJnetLacks() throws Exception {
        ServerSocket server = listen();
        Socket s = later(clients.createSocket());
        s.setTcpNoDelay(true);
        assertThat(s.getTcpNoDelay()).isTrue();
        s.setTcpNoDelay(false);
        assertThat(s.getTcpNoDelay()).isFalse();
        s.setKeepAlive(true);
        assertThat(s.getKeepAlive()).isTrue();
        s.setReuseAddress(true);
        assertThat(s.getReuseAddress()).isTrue();
        assertThat(s.getSoLinger()).isEqualTo(-1);
        s.setSoLinger(true, 5);
        assertThat(s.getSoLinger()).isEqualTo(5);
        s.setSoLinger(true, 100_000);
        assertThat(s.getSoLinger()).as("capped as the JDK caps it").isEqualTo(65535);
        s.setSoLinger(false, 0);
        assertThat(s.getSoLinger()).isEqualTo(-1);
        assertThat(s.getSendBufferSize()).as("half of tcp_wmem[1], as the JDK on Linux").isEqualTo(8192);
        assertThat(s.getReceiveBufferSize()).as("half of tcp_rmem[1]").isEqualTo(65536);
        s.setSendBufferSize(65536);
        assertThat(s.getSendBufferSize()).as("Linux doubles it, the JDK halves it back").isEqualTo(65536);
        s.setReceiveBufferSize(100_000);
        assertThat(s.getReceiveBufferSize()).isEqualTo(100_000);
        s.setSendBufferSize(1);
        assertThat(s.getSendBufferSize()).as("Linux's minimum of 4608, halved").isEqualTo(2304);
        s.setSendBufferSize(65536);
        s.setSoTimeout(1234);
        assertThat(s.getSoTimeout()).isEqualTo(1234);
        assertThat(s.getOOBInline()).as("off by default, as Linux's SOCK_URGINLINE").isFalse();
        s.setOOBInline(true);
        assertThat(s.getOOBInline()).isTrue();
        s.setOOBInline(false);
        assertThat(s.getOOBInline()).isFalse();
        assertThatThrownBy(() -> s.setTrafficClass(0x10)).isExactlyInstanceOf(SocketException.class)
                .hasMessageContaining("IP_TOS");

        s.setOption(StandardSocketOptions.TCP_NODELAY, true);
        assertThat(s.getOption(StandardSocketOptions.TCP_NODELAY)).isTrue();
        s.setOption(StandardSocketOptions.SO_LINGER, 7);
        assertThat(s.getOption(StandardSocketOptions.SO_LINGER)).isEqualTo(7);
        s.setOption(StandardSocketOptions.SO_LINGER, -1);
        assertThat(s.getOption(StandardSocketOptions.SO_LINGER)).isEqualTo(-1);
        s.setOption(StandardSocketOptions.SO_SNDBUF, 32768);
        assertThat(s.getOption(StandardSocketOptions.SO_SNDBUF)).isEqualTo(32768);
        s.setOption(StandardSocketOptions.SO_SNDBUF, 65536);
        assertThat(s.supportedOptions()).containsExactlyInAnyOrder(StandardSocketOptions.SO_RCVBUF,
                StandardSocketOptions.SO_SNDBUF, StandardSocketOptions.SO_REUSEADDR, StandardSocketOptions.SO_KEEPALIVE,
                StandardSocketOptions.SO_LINGER, StandardSocketOptions.TCP_NODELAY, ExtendedSocketOptions.TCP_KEEPIDLE,
                ExtendedSocketOptions.TCP_KEEPINTERVAL, ExtendedSocketOptions.TCP_KEEPCOUNT,
                ExtendedSocketOptions.TCP_QUICKACK);
        assertThatThrownBy(() -> s.setOption(StandardSocketOptions.IP_TOS, 0x10))
                .isExactlyInstanceOf(UnsupportedOperationException.class);
        // the extended keepalive options, as Linux's TCP_KEEPIDLE, TCP_KEEPINTVL (seconds) and TCP_KEEPCNT
        assertThat(s.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(7200);
        s.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, 10);
        s.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, 3);
        s.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, 4);
        assertThat(s.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(10);
        assertThat(s.getOption(ExtendedSocketOptions.TCP_KEEPINTERVAL)).isEqualTo(3);
        assertThat(s.getOption(ExtendedSocketOptions.TCP_KEEPCOUNT)).isEqualTo(4);
        // TCP_QUICKACK as Linux's: true (not in pingpong mode) on a new socket, false once pingpong mode is asked for
        assertThat(s.getOption(ExtendedSocketOptions.TCP_QUICKACK)).isTrue();
        s.setOption(ExtendedSocketOptions.TCP_QUICKACK, false);
        assertThat(s.getOption(ExtendedSocketOptions.TCP_QUICKACK)).isFalse();
        s.setOption(ExtendedSocketOptions.TCP_QUICKACK, true);
        assertThat(s.getOption(ExtendedSocketOptions.TCP_QUICKACK)).isTrue();
        assertThatThrownBy(() -> s.setOption(StandardSocketOptions.SO_RCVBUF, -1))
                .isExactlyInstanceOf(IllegalArgumentException.class);

        // set before connecting, they hold on the connection
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress(B, PORT));
        later(server.accept());
        assertThat(s.getTcpNoDelay()).isTrue();
        assertThat(s.getSendBufferSize()).isEqualTo(65536);

        assertThat(server.getReceiveBufferSize()).isEqualTo(65536);
        server.setReceiveBufferSize(100_000);
        assertThat(server.getReceiveBufferSize()).isEqualTo(100_000);
        assertThat(server.getReuseAddress()).isFalse();
        server.setReuseAddress(true);
        assertThat(server.getReuseAddress()).isTrue();
        assertThat(server.supportedOptions()).containsExactlyInAnyOrder(StandardSocketOptions.SO_RCVBUF,
                StandardSocketOptions.SO_REUSEADDR);
        assertThatThrownBy(() -> server.setOption(StandardSocketOptions.TCP_NODELAY, true))
                .isExactlyInstanceOf(UnsupportedOperationException.class);

        s.close();
        assertThatThrownBy(() -> s.setTcpNoDelay(true)).isExactlyInstanceOf(SocketException.class);
        assertThatThrownBy(() -> s.sendUrgentData(1)).isExactlyInstanceOf(SocketException.class);
    }

    /** Reads exactly {@code n} bytes from {@code s}. */
    private static byte[] readExactly(Socket s, int n) throws IOException {
        byte[] b = new byte[n];
        int got = 0;
        while (got < n) {
            int r = s.getInputStream().read(b, got, n - got);
            if (r < 0) throw new java.io.EOFException("after " + got + " bytes");
            got += r;
        }
        return b;
    }

    @Test
    void urgentDataLeavesTheStreamUnlessOobInline() throws Exception {
        ServerSocket server = listen();
        Socket[] p = pair(server);
        // as the JDK on Linux: sent with MSG_OOB, and a reader without SO_OOBINLINE never sees the urgent byte
        p[0].getOutputStream().write("ab".getBytes(StandardCharsets.US_ASCII));
        p[0].sendUrgentData('!');
        p[0].getOutputStream().write("cd".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(readExactly(p[1], 4), StandardCharsets.US_ASCII)).isEqualTo("abcd");

        Socket[] q = pair(server);
        q[1].setOOBInline(true);
        q[0].getOutputStream().write("ab".getBytes(StandardCharsets.US_ASCII));
        q[0].sendUrgentData(0x121); // the low 8 bits: '!'
        q[0].getOutputStream().write("cd".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(readExactly(q[1], 5), StandardCharsets.US_ASCII)).isEqualTo("ab!cd");
    }

    @Test
    void aVirtualThreadInterruptedInReadClosesTheSocketWithClosedByInterrupt() throws Exception {
        Socket[] p = pair(listen());
        CompletableFuture<Object> read = new CompletableFuture<>();
        AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
        Thread reader = start(true, read, () -> {
            try {
                return p[0].getInputStream().read();
            } finally {
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            }
        });
        awaitParked(reader);
        reader.interrupt();
        assertThat(failure(read)).isExactlyInstanceOf(SocketException.class).hasMessage("Closed by interrupt");
        assertThat(stillInterrupted.get()).as("the interrupt status stays set").isTrue();
        assertThat(p[0].isClosed()).isTrue();
        assertThat(p[1].getInputStream().read()).as("the peer sees the close").isEqualTo(-1);
    }

    @Test
    void aVirtualThreadInterruptedInAcceptClosesTheServerSocket() throws Exception {
        ServerSocket server = listen();
        CompletableFuture<Object> accept = new CompletableFuture<>();
        Thread acceptor = start(true, accept, server::accept);
        awaitParked(acceptor);
        acceptor.interrupt();
        assertThat(failure(accept)).isExactlyInstanceOf(SocketException.class).hasMessage("Closed by interrupt");
        assertThat(server.isClosed()).isTrue();
    }

    @Test
    void aPlatformThreadInterruptedInReadKeepsWaitingAndKeepsItsInterruptStatus() throws Exception {
        Socket[] p = pair(listen());
        CompletableFuture<Object> read = new CompletableFuture<>();
        AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
        Thread reader = start(false, read, () -> {
            try {
                return p[0].getInputStream().read();
            } finally {
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            }
        });
        awaitParked(reader);
        reader.interrupt();
        Thread.sleep(100);
        assertThat(read).as("a platform thread's blocking read ignores the interrupt, as the JDK's").isNotDone();
        awaitParked(reader);
        p[1].getOutputStream().write(7);
        assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(7);
        assertThat(stillInterrupted.get()).isTrue();
        assertThat(p[0].isClosed()).isFalse();
    }

    @Test
    void virtualThreadsBlockedInReadLeaveTheirCarriersFree() throws Exception {
        ServerSocket server = listen();
        int blocked = 4 * Runtime.getRuntime().availableProcessors() + 4;
        List<Socket[]> pairs = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        List<CompletableFuture<Object>> reads = new ArrayList<>();
        for (int i = 0; i < blocked; i++) {
            Socket[] p = pair(server);
            pairs.add(p);
            CompletableFuture<Object> f = new CompletableFuture<>();
            reads.add(f);
            readers.add(start(true, f, () -> p[0].getInputStream().read()));
        }
        for (Thread t : readers) awaitParked(t);
        // more readers wait than the scheduler has carriers: a virtual thread still runs an exchange
        Socket[] q = pair(server);
        CompletableFuture<Object> echo = new CompletableFuture<>();
        start(true, echo, () -> {
            q[0].getOutputStream().write(1);
            return q[0].getInputStream().read();
        });
        assertThat(q[1].getInputStream().read()).isEqualTo(1);
        q[1].getOutputStream().write(2);
        assertThat(echo.get(10, TimeUnit.SECONDS)).isEqualTo(2);
        for (Socket[] p : pairs) p[1].getOutputStream().write(3);
        for (CompletableFuture<Object> f : reads) assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(3);
    }

    @Test
    void aSocketMadeInAScopeTakesTheScopesNamespaceAndAcceptedOnesTheListeners() throws Exception {
        ServerSocket server = listen();
        JnetSocketImpl impl = new JnetSocketImpl(false);
        Socket s = later(JnetSocketFactory.newSocket(impl));
        JnetNetwork.of(a).call(() -> {
            s.connect(new InetSocketAddress(B, PORT), 5000);
            return null;
        });
        assertThat(impl.network()).isSameAs(JnetNetwork.of(a));
        Socket accepted = later(server.accept());
        assertThat(accepted.getPort()).isEqualTo(s.getLocalPort());
        DataInputStream in = new DataInputStream(accepted.getInputStream());
        s.getOutputStream().write(new byte[] {0, 0, 0, 9});
        assertThat(in.readInt()).isEqualTo(9);
    }

    @Test
    void aDatagramImplIsRefusedClearly() {
        JnetSocketImpl impl = new JnetSocketImpl(JnetNetwork.of(a), false);
        assertThatThrownBy(() -> impl.create(false))
                .isExactlyInstanceOf(SocketException.class).hasMessageContaining("DatagramSocket");
    }

    @Test
    void aClosedNamespaceRefusesNewSockets() throws Exception {
        a.close();
        assertThatThrownBy(() -> clients.createSocket(B, PORT)).isInstanceOf(SocketException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void aWriterBlockedOnAFullSendBufferGoesOnWhenThePeerReads() throws Exception {
        Socket[] p = pair(listen());
        int size = 16 << 20;
        CompletableFuture<Object> write = new CompletableFuture<>();
        Thread writer = start(false, write, () -> {
            p[0].getOutputStream().write(new byte[size]);
            p[0].shutdownOutput();
            return null;
        });
        awaitParked(writer);
        assertThat(write).isNotDone();
        assertThat(p[1].getInputStream().transferTo(OutputStream.nullOutputStream())).isEqualTo(size);
        write.get(10, TimeUnit.SECONDS);
    }

    @Test
    void closeFromAnotherThreadWakesABlockedWriteWithSocketClosed() throws Exception {
        Socket[] p = pair(listen());
        CompletableFuture<Object> write = new CompletableFuture<>();
        Thread writer = start(false, write, () -> {
            p[0].getOutputStream().write(new byte[16 << 20]);
            return null;
        });
        awaitParked(writer);
        p[0].close();
        assertThat(failure(write)).isExactlyInstanceOf(SocketException.class).hasMessage("Socket closed");
    }

    @Test
    void aVirtualThreadInterruptedInConnectClosesTheSocket() throws Exception {
        a.interpose("veth0", SynDropper::new);
        Socket s = later(clients.createSocket());
        CompletableFuture<Object> connect = new CompletableFuture<>();
        Thread connector = start(true, connect, () -> {
            s.connect(new InetSocketAddress(B, PORT));
            return s;
        });
        awaitParked(connector);
        connector.interrupt();
        assertThat(failure(connect)).isExactlyInstanceOf(SocketException.class).hasMessage("Closed by interrupt");
        assertThat(s.isClosed()).isTrue();
        assertThat(connections(a)).isEmpty();
    }

    @Test
    void echoOverLoopbackWithTcpFriends() throws Exception {
        a.sysctl().set("net.ipv4.tcp_friends", "1");
        ServerSocket server = later(JnetNetwork.of(a).serverSocketFactory().createServerSocket(PORT, 0,
                InetAddress.getByName("127.0.0.1")));
        Socket client = later(clients.createSocket("127.0.0.1", PORT));
        Socket accepted = later(server.accept());
        CompletableFuture<Object> echo = new CompletableFuture<>();
        start(true, echo, () -> {
            long n = accepted.getInputStream().transferTo(accepted.getOutputStream());
            accepted.shutdownOutput();
            return n;
        });
        byte[] data = new byte[4 << 20];
        new Random(1).nextBytes(data);
        CompletableFuture<Object> sent = new CompletableFuture<>();
        start(true, sent, () -> {
            client.getOutputStream().write(data);
            client.shutdownOutput();
            return null;
        });
        byte[] back = client.getInputStream().readAllBytes();
        assertThat(back).isEqualTo(data);
        assertThat(echo.get(10, TimeUnit.SECONDS)).isEqualTo((long) data.length);
        // one byte at a time: each read waits for the friend's next write
        for (int i = 0; i < 100; i++) {
            Socket c = later(clients.createSocket("127.0.0.1", PORT));
            Socket s = later(server.accept());
            c.getOutputStream().write(i);
            assertThat(s.getInputStream().read()).isEqualTo(i);
            s.getOutputStream().write(i + 1);
            assertThat(c.getInputStream().read()).isEqualTo(i + 1);
        }
    }

    @Test
    void theIpv6WildcardBindsTheIpv4WildcardAndOtherIpv6AddressesAreRefused() throws Exception {
        ServerSocket server = later(servers.createServerSocket());
        server.bind(new InetSocketAddress(InetAddress.getByName("::"), PORT));
        assertThat(server.getLocalPort()).isEqualTo(PORT);
        Socket s = later(clients.createSocket());
        assertThatThrownBy(() -> s.connect(new InetSocketAddress(InetAddress.getByName("::1"), PORT)))
                .isExactlyInstanceOf(SocketException.class).hasMessageContaining("IPv4 only");
        later(clients.createSocket(B, PORT));
        later(server.accept());
    }

    @Test
    void aSecondServerOnTheSamePortGetsAddressAlreadyInUse() throws Exception {
        listen();
        assertThatThrownBy(() -> servers.createServerSocket(PORT, 50, InetAddress.getByName(B)))
                .isExactlyInstanceOf(java.net.BindException.class).hasMessage("Address already in use");
    }

    @Test
    void connectWithoutARouteIsNetworkIsUnreachable() throws Exception {
        Socket s = later(clients.createSocket());
        assertThatThrownBy(() -> s.connect(new InetSocketAddress("192.0.2.1", PORT)))
                .isExactlyInstanceOf(SocketException.class).hasMessage("Network is unreachable");
    }

    @Test
    void closingTheNamespaceWakesABlockedReadAndABlockedAccept() throws Exception {
        ServerSocket server = listen();
        Socket[] p = pair(server);
        CompletableFuture<Object> read = new CompletableFuture<>();
        Thread reader = start(false, read, () -> p[1].getInputStream().read());
        CompletableFuture<Object> accept = new CompletableFuture<>();
        Thread acceptor = start(false, accept, server::accept);
        awaitParked(reader);
        awaitParked(acceptor);
        b.close();
        assertThat(failure(read)).isExactlyInstanceOf(SocketException.class).hasMessage("jnet: namespace b is closed");
        assertThat(failure(accept)).isExactlyInstanceOf(SocketException.class).hasMessage("jnet: namespace b is closed");
    }

    @Test
    void shutdownInputFromAnotherThreadEndsABlockedReadWithEndOfStream() throws Exception {
        Socket[] p = pair(listen());
        CompletableFuture<Object> read = new CompletableFuture<>();
        Thread reader = start(false, read, () -> p[0].getInputStream().read());
        awaitParked(reader);
        p[0].shutdownInput();
        assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(-1);
        assertThat(p[0].isClosed()).isFalse();
        p[0].getOutputStream().write(5);
        assertThat(p[1].getInputStream().read()).as("the other direction still works").isEqualTo(5);
    }
}
