package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --flows} and {@code --udp}: each mode with a few flows on jnet:veth uses as many distinct flows at the
 * server as asked and reports lookups per packet as the counters of early demux say they must be; bad values
 * are refused with a message that names the limit.
 */
@Timeout(120)
class FlowsRunTest {

    private static final Duration SHORT = Duration.ofMillis(300);

    private static PerfPath veth;
    private static PerfPath vethDemuxOff;
    private static PerfPath kernel;

    @BeforeAll
    static void open() throws Exception {
        veth = JnetPaths.veth(Map.of());
        vethDemuxOff = JnetPaths.veth(Map.of("net.ipv4.ip_early_demux", "0"));
        kernel = KernelPaths.tcp();
    }

    @AfterAll
    static void close() {
        veth.close();
        vethDemuxOff.close();
        kernel.close();
    }

    private static TestSpec spec(TestKind kind, int flows, UdpMode udp) {
        return TestSpec.defaults(kind, SHORT).withFlows(flows, udp);
    }

    private static RunResult run(PerfPath path, TestSpec spec) throws PerfException {
        RunResult r = PerfTest.of(spec.kind()).run(path, spec);
        assertThat(r.flows()).isEqualTo(spec.flows());
        return r;
    }

    /** Every received packet found its established socket at IP receive: one socket lookup, no route lookup. */
    private static void assertEarlyDemuxServedEveryPacket(LookupCounts l, String what) {
        assertThat(l).as(what).isNotNull();
        assertThat(l.packets()).as(what).isPositive();
        assertThat(l.socketPerPacket()).as(what + ": socket lookups per packet").isCloseTo(1.0, within(0.01));
        assertThat(l.routePerPacket()).as(what + ": route lookups per packet").isLessThan(0.01);
        assertThat(l.hitsPerPacket()).as(what + ": early-demux hits per packet").isCloseTo(1.0, within(0.01));
        assertThat(l.lookupsPerPacket()).as(what).isCloseTo(1.0, within(0.02));
    }

    @Test
    void tcpRrGoesRoundRobinOverEveryConnection() throws Exception {
        RunResult r = run(veth, spec(TestKind.TCP_RR, 3, UdpMode.NETPERF));
        assertThat(r.transactions()).isGreaterThan(3);
        assertThat(r.flowsSeen()).as("server connections that answered").isEqualTo(3);
        assertThat(r.setupSeconds()).isPositive();
        assertEarlyDemuxServedEveryPacket(r.lookups(), "TCP_RR over 3 connections");
        assertThat(r.lookups().packets()).as("a request and a response per transaction at least")
                .isGreaterThanOrEqualTo(2 * r.transactions() - 2);
    }

    @Test
    void tcpRrWithEarlyDemuxOffLooksUpTheRouteOfEveryPacket() throws Exception {
        RunResult r = run(vethDemuxOff, spec(TestKind.TCP_RR, 3, UdpMode.NETPERF));
        LookupCounts l = r.lookups();
        assertThat(l.socketPerPacket()).isCloseTo(1.0, within(0.01));
        assertThat(l.routePerPacket()).isCloseTo(1.0, within(0.01));
        assertThat(l.hits() + l.misses()).isZero();
        assertThat(l.lookupsPerPacket()).isCloseTo(2.0, within(0.02));
    }

    @Test
    void tcpRrOnLoopbackBindsTheFlowsToAddressesOfTheirOwn() throws Exception {
        PerfPath lo = JnetPaths.loopback(Map.of());
        try {
            RunResult r = run(lo, spec(TestKind.TCP_RR, 3, UdpMode.NETPERF));
            assertThat(r.flowsSeen()).isEqualTo(3);
            assertThat(r.lookups().socketPerPacket()).isCloseTo(1.0, within(0.01));
        } finally {
            lo.close();
        }
    }

    @Test
    void connectedUdpRrUsesEverySocketPairAndEarlyDemuxFindsBothEnds() throws Exception {
        RunResult r = run(veth, spec(TestKind.UDP_RR, 3, UdpMode.CONNECTED));
        assertThat(r.transactions()).isGreaterThan(3);
        assertThat(r.flowsSeen()).as("server sockets that received").isEqualTo(3);
        assertEarlyDemuxServedEveryPacket(r.lookups(), "connected UDP_RR over 3 pairs");
        assertThat(r.lookups().packets()).isGreaterThanOrEqualTo(2 * r.transactions() - 2);
    }

    @Test
    void connectedUdpStreamReachesEveryServerSocket() throws Exception {
        RunResult r = run(veth, spec(TestKind.UDP_STREAM, 3, UdpMode.CONNECTED));
        assertThat(r.datagrams().received()).isGreaterThan(3);
        assertThat(r.flowsSeen()).isEqualTo(3);
        assertEarlyDemuxServedEveryPacket(r.lookups(), "connected UDP_STREAM over 3 pairs");
        assertThat(r.lookups().packets()).as("every datagram sent in the timed part reached IP")
                .isGreaterThanOrEqualTo(r.datagrams().received());
    }

    @Test
    void unconnectedUdpStreamComesFromEverySourceAndCostsOneSocketLookupWithTheSwitchOnOrOff() throws Exception {
        for (PerfPath path : List.of(veth, vethDemuxOff)) {
            boolean on = path == veth;
            RunResult r = run(path, spec(TestKind.UDP_STREAM, 1000, UdpMode.UNCONNECTED));
            String what = "early demux " + (on ? "on" : "off");
            assertThat(r.datagrams().received()).as(what).isGreaterThan(2000);
            assertThat(r.flowsSeen()).as(what + ": sources the server saw").isEqualTo(1000);
            LookupCounts l = r.lookups();
            assertThat(l.packets()).as(what).isGreaterThanOrEqualTo(r.datagrams().received());
            assertThat(l.socketPerPacket()).as(what + ": socket lookups per packet").isCloseTo(1.0, within(0.01));
            assertThat(l.routePerPacket()).as(what + ": route lookups per packet").isCloseTo(1.0, within(0.01));
            assertThat(l.hits()).as(what).isZero();
            assertThat(l.missesPerPacket()).as(what + ": early-demux misses per packet").isCloseTo(on ? 1.0 : 0.0, within(0.01));
        }
    }

    @Test
    void unconnectedUdpRrIsAnsweredThroughTheVethToEachSource() throws Exception {
        RunResult r = run(veth, spec(TestKind.UDP_RR, 1000, UdpMode.UNCONNECTED));
        assertThat(r.transactions()).isPositive();
        assertThat(r.flowsSeen()).isEqualTo(Math.min(1000, r.transactions()));
        assertThat(r.latencyNanos().getTotalCount()).isEqualTo(r.transactions());
        assertThat(r.lookups().socketPerPacket()).isCloseTo(1.0, within(0.01));
    }

    @Test
    void theKernelRunsConnectedUdpRrAndTcpRrOverFlowsWithoutLookupCounts() throws Exception {
        RunResult tcp = run(kernel, spec(TestKind.TCP_RR, 3, UdpMode.NETPERF));
        assertThat(tcp.flowsSeen()).isEqualTo(3);
        assertThat(tcp.lookups()).isNull();
        RunResult udp = run(kernel, spec(TestKind.UDP_RR, 3, UdpMode.CONNECTED));
        assertThat(udp.flowsSeen()).isEqualTo(3);
        assertThat(udp.lookups()).isNull();
        assertThat(FlowSummary.of(new Series("kernel", "", null, List.of(udp))).line("kernel")).contains("lookups -");
    }

    @Test
    void pathsSayWhatTheyCannotRun() {
        PathRegistry.Entry k = PathRegistry.standard().get(PathRegistry.KERNEL_TCP);
        assertThat(k.notApplicableTo(spec(TestKind.UDP_STREAM, 10, UdpMode.UNCONNECTED))).contains("jnet paths only");
        assertThat(k.notApplicableTo(spec(TestKind.UDP_STREAM, 10, UdpMode.CONNECTED))).contains("jnet paths only");
        assertThat(k.notApplicableTo(spec(TestKind.TCP_RR, 3, UdpMode.NETPERF))).isNull();
        long limit = PathRegistry.descriptorLimit();
        if (limit > 0 && limit < 2L * TestSpec.MAX_FLOWS) {
            assertThat(k.notApplicableTo(spec(TestKind.TCP_RR, TestSpec.MAX_FLOWS, UdpMode.NETPERF)))
                    .contains("file descriptors").contains("ulimit -n");
        }
        assertThat(PathRegistry.standard().get(PathRegistry.JNET_VETH)
                .notApplicableTo(spec(TestKind.UDP_STREAM, TestSpec.MAX_SOURCES, UdpMode.UNCONNECTED))).isNull();
        for (String id : List.of(PathRegistry.JNET_LOOPBACK, PathRegistry.JNET_FRIENDS, PathRegistry.JNET_ROUTED)) {
            PathRegistry.Entry e = PathRegistry.standard().get(id);
            assertThat(e.notApplicableTo(spec(TestKind.UDP_RR, 10, UdpMode.UNCONNECTED))).as(id)
                    .contains("measures jnet:veth only").contains(id);
            assertThat(e.notApplicableTo(spec(TestKind.UDP_RR, 10, UdpMode.CONNECTED))).as(id).isNull();
        }
    }

    @Test
    void badFlowCountsAreRefusedWithTheirLimit() {
        assertThat(TestSpec.flowsProblem(TestKind.TCP_RR, 0, UdpMode.NETPERF)).contains("at least 1");
        assertThat(TestSpec.flowsProblem(TestKind.TCP_RR, -5, UdpMode.NETPERF)).contains("at least 1");
        assertThat(TestSpec.flowsProblem(TestKind.TCP_RR, 100_001, UdpMode.NETPERF)).contains("100000").contains("TCP");
        assertThat(TestSpec.flowsProblem(TestKind.UDP_RR, 100_001, UdpMode.CONNECTED)).contains("100000").contains("connected UDP");
        assertThat(TestSpec.flowsProblem(TestKind.UDP_STREAM, 1_000_000, UdpMode.UNCONNECTED)).isNull();
        assertThat(TestSpec.flowsProblem(TestKind.UDP_STREAM, 1_000_001, UdpMode.UNCONNECTED)).contains("1000000");
        assertThat(TestSpec.flowsProblem(TestKind.TCP_STREAM, 2, UdpMode.NETPERF)).contains("only TCP_RR, UDP_RR and UDP_STREAM");
        assertThat(TestSpec.flowsProblem(TestKind.TCP_CRR, 2, UdpMode.NETPERF)).contains("not TCP_CRR");
        assertThat(TestSpec.flowsProblem(TestKind.UDP_RR, 2, UdpMode.NETPERF)).contains("--udp connected");
        assertThat(TestSpec.flowsProblem(TestKind.TCP_RR, 1, UdpMode.CONNECTED)).contains("applies to UDP_STREAM and UDP_RR");
        assertThatThrownBy(() -> spec(TestKind.TCP_RR, 0, UdpMode.NETPERF)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--flows must be at least 1");
        assertThatThrownBy(() -> UdpMode.parse("sometimes")).hasMessageContaining("netperf, connected or unconnected");
    }

    @Test
    void reportsCarryFlowsAndLookupsPerPacket() throws Exception {
        TestSpec spec = spec(TestKind.UDP_RR, 3, UdpMode.CONNECTED);
        Comparison c = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, new Warmup(0), Progress.NONE)
                .run(spec, "veth", veth, kernel, null);
        assertThat(c.failure()).isNull();
        SuiteResult suite = new SuiteResult(PerfPlan.of(List.of(spec), List.of("jnet:veth", "kernel:tcp"), "veth",
                Iterations.exactly(3), Confidence.DEFAULT), List.of(c), List.of());
        String text = ReportCapture.capture(ps -> new TextReport(ps, true).print(suite));
        assertThat(text).contains("jnet: 3 flows (3 seen by the server); per packet received: 1.00 lookups (socket 1.00, route 0.00)")
                .contains("kernel: 3 flows (3 seen by the server); per packet received: lookups -")
                .contains("flows opened in");
        List<String> csv = ReportCapture.capture(ps -> new CsvReport(ps).print(suite)).lines().toList();
        assertThat(csv.getFirst()).endsWith(",flows,udp,flows_seen,setup_s,lookups_per_packet,socket_lookups_per_packet,"
                + "route_lookups_per_packet,demux_hits_per_packet,demux_misses_per_packet,packets_received");
        assertThat(csv.get(1)).contains(",3,connected,3,").contains(",1.000");
        assertThat(csv.get(2)).contains(",3,connected,3,").endsWith(",,,,,,");
        String json = ReportCapture.capture(ps -> new JsonReport(ps).print(suite));
        assertThat(json).contains("\"flows\":3,\"udp\":\"connected\"").contains("\"socket_lookups_per_packet\":1")
                .contains("\"lookups\":null");
    }
}
