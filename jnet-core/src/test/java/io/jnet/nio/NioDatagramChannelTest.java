package io.jnet.nio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link JnetDatagramChannel} and its DatagramSocket between two namespaces joined by a veth pair. */
@Timeout(30)
class NioDatagramChannelTest {
    private static final String A = "10.9.1.1", B = "10.9.1.2";
    private NetNamespace a, b;
    private SelectorProvider pa, pb;
    private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();

    @BeforeEach
    void setUp() {
        a = NetNamespace.create("dg-a");
        b = NetNamespace.create("dg-b");
        Topology.link(a, b, "veth0", A + "/24", B + "/24");
        pa = JnetNetwork.of(a).selectorProvider();
        pb = JnetNetwork.of(b).selectorProvider();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        a.close();
        b.close();
        assertThat(a.internalErrors() + b.internalErrors()).isZero();
    }

    @Test
    void sendBindsImplicitlyAndReceiveReportsTheSenderAndCutsLongDatagrams() throws Exception {
        try (DatagramChannel server = pb.openDatagramChannel(); DatagramChannel client = pa.openDatagramChannel()) {
            server.bind(new InetSocketAddress(B, 53));
            assertThat(client.getLocalAddress()).isNull();
            assertThat(client.send(ByteBuffer.wrap("0123456789".getBytes()), new InetSocketAddress(B, 53))).isEqualTo(10);
            InetSocketAddress local = (InetSocketAddress) client.getLocalAddress();
            assertThat(local.getPort()).isPositive();
            ByteBuffer small = ByteBuffer.allocate(4);
            InetSocketAddress from = (InetSocketAddress) server.receive(small);
            assertThat(from.getAddress().getHostAddress()).isEqualTo(A);
            assertThat(from.getPort()).isEqualTo(local.getPort());
            assertThat(new String(small.array())).isEqualTo("0123");
            server.configureBlocking(false);
            assertThat(server.receive(ByteBuffer.allocate(4))).as("the rest was discarded").isNull();
        }
    }

    @Test
    void connectedChannelsReadWriteAndSeePortUnreachable() throws Exception {
        try (DatagramChannel c = pa.openDatagramChannel()) {
            assertThatThrownBy(() -> c.write(ByteBuffer.allocate(1))).isInstanceOf(NotYetConnectedException.class);
            c.connect(new InetSocketAddress(B, 9)); // nobody listens there: B answers port unreachable
            assertThat(c.isConnected()).isTrue();
            c.write(ByteBuffer.wrap(new byte[] {1}));
            assertThatThrownBy(() -> c.read(ByteBuffer.allocate(8))).isInstanceOf(PortUnreachableException.class);
            assertThatThrownBy(() -> c.send(ByteBuffer.allocate(1), new InetSocketAddress(B, 10)))
                    .isInstanceOf(IllegalArgumentException.class);
            c.disconnect();
            assertThat(c.isConnected()).isFalse();
        }
    }

    @Test
    void selectorReportsReadableDatagramsAndCloseEndsABlockedReceive() throws Exception {
        try (DatagramChannel server = pb.openDatagramChannel(); DatagramChannel client = pa.openDatagramChannel();
             Selector sel = pb.openSelector()) {
            server.bind(new InetSocketAddress(B, 54)).configureBlocking(false);
            SelectionKey k = server.register(sel, SelectionKey.OP_READ);
            assertThat(sel.selectNow()).isZero();
            client.send(ByteBuffer.wrap("x".getBytes()), new InetSocketAddress(B, 54));
            assertThat(sel.select(5000)).isEqualTo(1);
            assertThat(k.isReadable()).isTrue();
            assertThat(server.receive(ByteBuffer.allocate(8))).isNotNull();

            Future<Throwable> blocked = pool.submit(() -> {
                try {
                    client.receive(ByteBuffer.allocate(8));
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            Thread.sleep(100);
            client.close();
            assertThat(blocked.get(5, TimeUnit.SECONDS)).isInstanceOf(AsynchronousCloseException.class);
        }
    }

    @Test
    void datagramSocketAdaptorSendsReceivesAndTimesOut() throws Exception {
        try (DatagramChannel server = pb.openDatagramChannel(); DatagramChannel client = pa.openDatagramChannel()) {
            DatagramSocket ss = server.socket();
            ss.bind(new InetSocketAddress(B, 55));
            assertThat(ss.getLocalPort()).isEqualTo(55);
            DatagramSocket cs = client.socket();
            cs.send(new DatagramPacket("hello".getBytes(), 5, new InetSocketAddress(B, 55)));
            DatagramPacket p = new DatagramPacket(new byte[100], 100);
            ss.receive(p);
            assertThat(new String(p.getData(), 0, p.getLength())).isEqualTo("hello");
            assertThat(p.getAddress().getHostAddress()).isEqualTo(A);
            ss.send(new DatagramPacket("back".getBytes(), 4, p.getSocketAddress()));
            DatagramPacket q = new DatagramPacket(new byte[100], 100);
            cs.receive(q);
            assertThat(new String(q.getData(), 0, q.getLength())).isEqualTo("back");
            ss.setSoTimeout(100);
            assertThatThrownBy(() -> ss.receive(new DatagramPacket(new byte[1], 1))).isInstanceOf(SocketTimeoutException.class);
            cs.close();
            assertThat(client.isOpen()).isFalse();
        }
    }
}
