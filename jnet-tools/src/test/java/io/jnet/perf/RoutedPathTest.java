package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code jnet:routed}: client - router - server namespaces; bytes go both ways over TCP and UDP, every packet
 * through the router's forwarding path.
 */
@Timeout(60)
class RoutedPathTest {

    private static final Duration SHORT = Duration.ofMillis(200);
    private static PerfPath routed;

    @BeforeAll
    static void open() throws Exception {
        // strict reverse path filtering on the router too: the routes are symmetric, so nothing is dropped
        routed = PathRegistry.standard().get(PathRegistry.JNET_ROUTED).open(Map.of("net.ipv4.conf.all.rp_filter", "1"));
    }

    @AfterAll
    static void close() {
        routed.close();
    }

    private static NetNamespace router() { return JnetPaths.namespaces(routed).get(1); }

    private static long forwarded() { return router().mib().get(MibCounter.IpForwDatagrams); }

    @Test
    void threeNamespacesWithForwardingOnTheRouterAndTheSysctlsInEach() {
        List<NetNamespace> ns = JnetPaths.namespaces(routed);
        assertThat(ns).hasSize(3);
        assertThat(ns).allSatisfy(n -> assertThat(n.sysctl().get("net.ipv4.conf.all.rp_filter").trim()).isEqualTo("1"));
        assertThat(router().sysctl().get("net.ipv4.ip_forward").trim()).isEqualTo("1");
        assertThat(ns.getFirst().sysctl().get("net.ipv4.ip_forward").trim()).as("a host does not forward").isEqualTo("0");
        assertThat(routed.stack()).isEqualTo("jnet");
        assertThat(routed.description()).contains("10.0.1.2 -> 10.0.2.2").contains("router").contains("ip_forward=1")
                .contains("rp_filter=1");
    }

    @Test
    void aSysctlOfIpForwardIsNotedAsOverriddenOnTheRouter() {
        PathRegistry registry = new PathRegistry()
                .register(new PathRegistry.Entry(PathRegistry.JNET_ROUTED, "jnet", "fake", true, s -> new InMemoryPath("jnet"), null))
                .register(new PathRegistry.Entry(PathRegistry.KERNEL_TCP, "kernel", "fake", false, s -> new InMemoryPath("kernel"), null));
        PerfPlan plan = new PerfPlan(List.of(new PerfPlan.Cell(TestSpec.defaults(TestKind.TCP_RR, Duration.ofMillis(50)), -1)),
                List.of(PathRegistry.JNET_ROUTED, PathRegistry.KERNEL_TCP), "routed", Map.of("net/ipv4/ip_forward", "0"),
                Iterations.exactly(3), Confidence.DEFAULT, Warmup.NONE, false, List.of());
        SuiteResult r = new PerfSuite(registry, Progress.NONE).run(plan);
        assertThat(r.notes()).anySatisfy(n -> assertThat(n).startsWith("jnet:routed's router runs with net.ipv4.ip_forward=1")
                .contains("--sysctl net/ipv4/ip_forward=0 applies to its client and server namespaces"));
        assertThat(PathRegistry.routerForwardingNote(List.of(PathRegistry.JNET_VETH), Map.of("net.ipv4.ip_forward", "0"))).isNull();
        assertThat(PathRegistry.routerForwardingNote(List.of(PathRegistry.JNET_ROUTED), Map.of("net.ipv4.tcp_sack", "0"))).isNull();
    }

    @Test
    void tcpBytesGoBothWaysThroughTheRouter() throws Exception {
        long before = forwarded();
        int size = 1 << 20;
        byte[] up = pattern(size, 7);
        byte[] down = pattern(size, 13);
        try (PerfListener listener = routed.listen(SocketSettings.defaults())) {
            assertThat(((InetSocketAddress) listener.address()).getAddress().getHostAddress()).isEqualTo("10.0.2.2");
            CompletableFuture<byte[]> server = CompletableFuture.supplyAsync(() -> {
                try (PerfConnection c = listener.accept()) {
                    byte[] got = readFully(c, size);
                    c.write(ByteBuffer.wrap(down));
                    return got;
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            try (PerfConnection c = routed.connect(listener, SocketSettings.defaults())) {
                ByteBuffer src = ByteBuffer.wrap(up);
                while (src.hasRemaining()) c.write(src);
                assertThat(readFully(c, size)).isEqualTo(down);
            }
            assertThat(server.get()).isEqualTo(up);
        }
        assertThat(forwarded() - before).as("segments forwarded by the router").isPositive();
    }

    @Test
    void udpDatagramsGoBothWaysThroughTheRouter() throws Exception {
        long before = forwarded();
        try (PerfDatagramSocket server = routed.bindDatagram(SocketSettings.defaults());
             PerfDatagramSocket client = routed.connectDatagram(server.localAddress(), SocketSettings.defaults())) {
            // 1472 bytes fill one 1500-byte frame; 4000 are fragmented by the client and forwarded as fragments
            for (int size : new int[] {1, 1472, 4000}) {
                byte[] request = pattern(size, size);
                assertThat(client.send(ByteBuffer.wrap(request))).isEqualTo(size);
                ByteBuffer got = ByteBuffer.allocate(65536);
                InetSocketAddress from = server.receive(got);
                assertThat(from.getAddress().getHostAddress()).isEqualTo("10.0.1.2");
                assertThat(got.flip().remaining()).isEqualTo(size);
                byte[] echo = new byte[size];
                got.get(echo);
                assertThat(echo).isEqualTo(request);
                assertThat(server.sendTo(ByteBuffer.wrap(echo), from)).isEqualTo(size);
                ByteBuffer back = ByteBuffer.allocate(65536);
                assertThat(client.read(back)).isEqualTo(size);
                assertThat(java.util.Arrays.copyOf(back.array(), size)).isEqualTo(request);
            }
        }
        assertThat(forwarded() - before).as("1 + 1 + 3 + 3 fragments each way at least").isGreaterThanOrEqualTo(10);
    }

    @Test
    void theStreamAndRequestResponseTestsRunOverIt() throws Exception {
        for (TestKind kind : new TestKind[] {TestKind.TCP_STREAM, TestKind.TCP_MAERTS, TestKind.TCP_RR, TestKind.UDP_STREAM}) {
            TestSpec spec = RunReports.spec(kind, SHORT, kind.isUdp() ? 1472 : 16384, 64, 64);
            RunResult r = PerfTest.of(kind).run(routed, spec);
            assertThat(r.value()).as(kind.name()).isPositive();
            if (kind == TestKind.TCP_RR) {
                assertThat(r.transactions()).isPositive();
                assertThat(r.bytesSent()).isEqualTo(r.transactions() * 128);
            } else {
                assertThat(r.bytesReceived()).as(kind.name()).isPositive();
            }
        }
    }

    private static byte[] pattern(int size, int seed) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) b[i] = (byte) (i * 31 + seed + (i >>> 8));
        return b;
    }

    private static byte[] readFully(PerfConnection c, int size) throws Exception {
        ByteBuffer dst = ByteBuffer.allocate(size);
        while (dst.hasRemaining()) {
            if (c.read(dst) < 0) break;
        }
        return java.util.Arrays.copyOf(dst.array(), dst.position());
    }
}
