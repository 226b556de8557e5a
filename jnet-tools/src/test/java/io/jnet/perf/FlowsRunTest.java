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
    private static PerfPath loopback;
    private static PerfPath friends;

    @BeforeAll
    static void open() throws Exception {
        veth = JnetPaths.veth(Map.of());
        vethDemuxOff = JnetPaths.veth(Map.of("net.ipv4.ip_early_demux", "0"));
        kernel = KernelPaths.tcp();
        loopback = PathRegistry.standard().get(PathRegistry.JNET_LOOPBACK).open(Map.of());
        friends = PathRegistry.standard().get(PathRegistry.JNET_FRIENDS).open(Map.of());
    }

    @AfterAll
    static void close() {
        veth.close();
        vethDemuxOff.close();
        kernel.close();
        loopback.close();
        friends.close();
    }

    /** Runs {@code spec} as a lane does: the spec's allocator first, then the test. */
    private static RunResult runInLane(PerfPath path, TestSpec spec) throws PerfException {
        path.useAllocator(spec.allocator());
        return run(path, spec);
    }

    @Test
    void threadsShareTheFlowsAndEachThreadServesItsOwn() {
        assertThat(FlowsRequestResponseTest.flowsOf(0, 2, 8)).containsExactly(0, 2, 4, 6);
        assertThat(FlowsRequestResponseTest.flowsOf(1, 2, 8)).containsExactly(1, 3, 5, 7);
        assertThat(FlowsRequestResponseTest.flowsOf(0, 3, 8)).containsExactly(0, 3, 6);
        assertThat(FlowsRequestResponseTest.flowsOf(2, 3, 8)).containsExactly(2, 5);
        assertThat(FlowsRequestResponseTest.flowsOf(0, 1, 3)).containsExactly(0, 1, 2);
    }

    @Test
    void tcpRrOverTwoThreadsUsesEveryFlowAndCountsAllocationOnEveryJnetPath() throws Exception {
        for (Map.Entry<String, PerfPath> e : Map.of("loopback", loopback, "veth", veth, "friends", friends).entrySet()) {
            String what = e.getKey();
            PerfPath path = e.getValue();
            TestSpec pool = spec(TestKind.TCP_RR, 8, UdpMode.NETPERF).withThreads(2).withAllocator("pool");
            RunResult r = runInLane(path, pool);
            assertThat(r.transactions()).as(what + ": transactions").isGreaterThan(8);
            assertThat(r.flowsSeen()).as(what + ": flows the servers answered on").isEqualTo(8);
            assertThat(r.threads()).isEqualTo(2);
            assertThat(r.allocator()).isEqualTo("pool");
            assertThat(r.latencyNanos().getTotalCount()).isEqualTo(r.transactions());
            assertThat(r.allocation()).as(what).isNotNull();
            assertThat(r.allocation().bytesPer(r.transactions())).as(what + ": bytes per transaction").isNotNaN()
                    .isGreaterThanOrEqualTo(0);
            if (path == friends) {
                // paired friends hand the bytes to the peer's receive queue: no packet buffer per transaction
                assertThat(r.allocation().lockEntriesPer(r.transactions())).as(what).isGreaterThanOrEqualTo(0);
            } else {
                assertThat(r.allocation().lockEntriesPer(r.transactions()))
                        .as(what + ": pool lock entries per transaction").isGreaterThan(0);
            }
            assertThat(r.allocation().contended()).as(what).isBetween(0L, r.allocation().lockEntries());
            assertThat(JnetPaths.namespaces(path)).allSatisfy(ns ->
                    assertThat(ns.allocator()).isInstanceOf(io.jnet.buffer.PacketPool.class));

            RunResult heap = runInLane(path, pool.withAllocator("heap"));
            assertThat(heap.transactions()).as(what).isGreaterThan(8);
            assertThat(heap.flowsSeen()).isEqualTo(8);
            assertThat(heap.allocator()).isEqualTo("heap");
            assertThat(heap.allocation().lockEntries()).as(what + ": the heap allocator takes no lock").isZero();
            assertThat(heap.allocation().contended()).isZero();
            assertThat(heap.allocation().bytesPer(heap.transactions())).as(what).isGreaterThanOrEqualTo(0);
            assertThat(JnetPaths.namespaces(path)).allSatisfy(ns ->
                    assertThat(ns.allocator()).isSameAs(io.jnet.buffer.PacketAllocator.HEAP));
        }
    }

    @Test
    void oneThreadIsTheFlowsTestAsBefore() throws Exception {
        RunResult r = run(veth, spec(TestKind.TCP_RR, 3, UdpMode.NETPERF));
        assertThat(r.threads()).isEqualTo(1);
        assertThat(r.flowsSeen()).isEqualTo(3);
        assertThat(r.allocation()).isNotNull();
        assertThat(r.allocation().lockEntries()).isGreaterThanOrEqualTo(0);
    }

    @Test
    void theKernelRunsTcpRrOverThreadsWithoutAllocatorCounts() throws Exception {
        RunResult r = run(kernel, spec(TestKind.TCP_RR, 8, UdpMode.NETPERF).withThreads(2));
        assertThat(r.transactions()).isGreaterThan(8);
        assertThat(r.flowsSeen()).isEqualTo(8);
        assertThat(r.allocator()).isNull();
        assertThat(r.allocation().bytesPer(r.transactions())).isGreaterThanOrEqualTo(0);
        assertThat(r.allocation().lockEntriesPer(r.transactions())).isNaN();
        FlowSummary f = FlowSummary.of(new Series("kernel", "", null, List.of(r)));
        assertThat(f.line("kernel")).contains("8 flows over 2 client and 2 server threads")
                .contains("bytes allocated, allocator lock entries -");
    }

    @Test
    void badThreadCountsAreRefused() {
        assertThat(TestSpec.threadsProblem(TestKind.TCP_RR, 8, 0)).isEqualTo("--threads must be at least 1: 0");
        assertThat(TestSpec.threadsProblem(TestKind.TCP_RR, 8, 9)).contains("above --flows 8");
        assertThat(TestSpec.threadsProblem(TestKind.UDP_RR, 8, 2)).contains("only TCP_RR").contains("not UDP_RR");
        assertThat(TestSpec.threadsProblem(TestKind.TCP_RR, 8, 8)).isNull();
        assertThat(TestSpec.threadsProblem(TestKind.TCP_STREAM, 1, 1)).isNull();
        assertThatThrownBy(() -> spec(TestKind.TCP_RR, 2, UdpMode.NETPERF).withThreads(3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("every thread needs a connection");
        assertThatThrownBy(() -> spec(TestKind.TCP_RR, 2, UdpMode.NETPERF).withAllocator("slab"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not 'slab'");
    }

    @Test
    void reportsCarryThreadsAndAllocationPerTransaction() throws Exception {
        TestSpec spec = spec(TestKind.TCP_RR, 8, UdpMode.NETPERF).withThreads(2).withAllocator("pool");
        Comparison c = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, new Warmup(0), Progress.NONE)
                .run(spec, "loopback", loopback, null, null);
        assertThat(c.failure()).isNull();
        SuiteResult suite = new SuiteResult(PerfPlan.of(List.of(spec), List.of("jnet:loopback"), "loopback",
                Iterations.exactly(3), Confidence.DEFAULT), List.of(c), List.of());
        String text = ReportCapture.capture(ps -> new TextReport(ps, false).print(suite));
        assertThat(text).contains("jnet: 8 flows over 2 client and 2 server threads (8 seen by the server)")
                .containsPattern("per transaction: \\d+ bytes allocated, \\d+\\.\\d\\d allocator lock entries "
                        + "\\(\\d+\\.\\d{4} contended\\), allocator pool");
        List<String> csv = ReportCapture.capture(ps -> new CsvReport(ps).print(suite)).lines().toList();
        assertThat(csv.getFirst()).endsWith(",packets_received,threads,allocator,bytes_per_transaction,"
                + "lock_entries_per_transaction,contended_lock_entries_per_transaction");
        String[] row = csv.get(1).split(",", -1);
        String[] head = csv.getFirst().split(",", -1);
        assertThat(row).hasSameSizeAs(head);
        assertThat(row[head.length - 5]).isEqualTo("2");
        assertThat(row[head.length - 4]).isEqualTo("pool");
        assertThat(Double.parseDouble(row[head.length - 3])).isGreaterThanOrEqualTo(0);
        assertThat(Double.parseDouble(row[head.length - 2])).isGreaterThan(0);
        assertThat(Double.parseDouble(row[head.length - 1])).isGreaterThanOrEqualTo(0);
        String json = ReportCapture.capture(ps -> new JsonReport(ps).print(suite));
        assertThat(json).contains("\"threads\":2,\"allocator\":\"pool\",\"allocation\":{\"transactions\":")
                .contains("\"bytes_per_transaction\":").contains("\"lock_entries_per_transaction\":");
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
        assertThat(csv.getFirst()).contains(",flows,udp,flows_seen,setup_s,lookups_per_packet,socket_lookups_per_packet,"
                + "route_lookups_per_packet,demux_hits_per_packet,demux_misses_per_packet,packets_received,");
        assertThat(csv.get(1)).contains(",3,connected,3,").contains(",1.000");
        assertThat(csv.get(2)).contains(",3,connected,3,").endsWith(",,,,,,1,,,,");
        String json = ReportCapture.capture(ps -> new JsonReport(ps).print(suite));
        assertThat(json).contains("\"flows\":3,\"udp\":\"connected\"").contains("\"socket_lookups_per_packet\":1")
                .contains("\"lookups\":null");
    }
}
