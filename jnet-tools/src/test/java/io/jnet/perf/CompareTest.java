package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The --compare pieces: registry, sizes, the table and its CSV/JSON, the progress line, kernel:unix. */
@Timeout(120)
class CompareTest {

    private static final Duration ONE_SECOND = Duration.ofSeconds(1);

    @Test
    void registryKnowsThePathsAndNamesThemInErrors() {
        PathRegistry r = PathRegistry.standard();
        assertThat(r.ids()).containsExactly("jnet:loopback", "jnet:friends", "jnet:veth", "jnet:routed", "kernel:tcp", "kernel:unix", "jnet:unix");
        assertThat(r.parseList("jnet:loopback, KERNEL:unix")).extracting(PathRegistry.Entry::id)
                .containsExactly("jnet:loopback", "kernel:unix");
        assertThatThrownBy(() -> r.parseList("jnet:loopback,kernel:friends"))
                .hasMessageContaining("unknown path 'kernel:friends'")
                .hasMessageContaining("jnet:loopback, jnet:friends, jnet:veth, jnet:routed, kernel:tcp, kernel:unix, jnet:unix")
                .hasMessageContaining("aliases: base = jnet:loopback, friends = jnet:friends");
        assertThatThrownBy(() -> r.parseList("kernel:tcp,kernel:tcp")).hasMessageContaining("given twice");
        assertThatThrownBy(() -> r.parseList("kernel:tcp,")).hasMessageContaining("empty path");
        assertThatThrownBy(() -> r.register(r.get("kernel:tcp"))).hasMessageContaining("registered twice");
    }

    @Test
    void aNewPathIsOneRegistration() {
        PathRegistry r = PathRegistry.standard()
                .register(new PathRegistry.Entry("jnet:fake", "jnet", "test", true, s -> new InMemoryPath("f"), null));
        assertThat(r.parseList("jnet:fake,kernel:unix")).hasSize(2);
    }

    @Test
    void aliasesNameTheFriendsPatchsPathsAndFullIdsStillWork() {
        PathRegistry r = PathRegistry.standard();
        assertThat(r.aliases()).containsExactly(Map.entry("base", "jnet:loopback"), Map.entry("friends", "jnet:friends"),
                Map.entry("unix", "jnet:unix"));
        assertThat(r.get("base").id()).isEqualTo("jnet:loopback");
        assertThat(r.get(" FRIENDS ").id()).isEqualTo("jnet:friends");
        assertThat(r.isAlias("Base")).isTrue();
        assertThat(r.isAlias("jnet:loopback")).isFalse();
        assertThat(r.parseList("friends,base,kernel:tcp")).extracting(PathRegistry.Entry::id)
                .containsExactly("jnet:friends", "jnet:loopback", "kernel:tcp");
        assertThat(r.parseList("jnet:friends,jnet:loopback")).extracting(PathRegistry.Entry::id)
                .containsExactly("jnet:friends", "jnet:loopback");
        assertThat(r.ids()).as("aliases are not paths").doesNotContain("base", "friends", "unix");
    }

    @Test
    void aPathNamedTwiceByIdAndAliasIsAnError() {
        PathRegistry r = PathRegistry.standard();
        assertThatThrownBy(() -> r.parseList("base,jnet:loopback"))
                .hasMessage("path jnet:loopback given twice in 'base,jnet:loopback' (base and jnet:loopback are both jnet:loopback)");
        assertThatThrownBy(() -> r.parseList("friends,FRIENDS")).hasMessage("path jnet:friends given twice in 'friends,FRIENDS'");
        assertThatThrownBy(() -> r.parseList("basic")).hasMessageContaining("unknown path 'basic'");
    }

    @Test
    void anAliasOfAPathNotInThisBuildSaysSo() {
        PathRegistry r = new PathRegistry()
                .register(new PathRegistry.Entry("jnet:loopback", "jnet", "fake", true, s -> new InMemoryPath("b"), null))
                .alias("base", "jnet:loopback")
                .alias("unix", "jnet:unix");
        assertThatThrownBy(() -> r.parseList("base,unix"))
                .hasMessageStartingWith("path 'unix' is jnet:unix, which is not in this build (known paths: jnet:loopback")
                .hasMessageContaining("aliases: base = jnet:loopback")
                .hasMessageNotContaining("unix = jnet:unix");
        // the same alias resolves once the path is registered
        r.register(new PathRegistry.Entry("jnet:unix", "jnet", "fake", true, s -> new InMemoryPath("u"), null));
        assertThat(r.get("unix").id()).isEqualTo("jnet:unix");
        assertThatThrownBy(() -> r.get("nope")).hasMessageContaining("aliases: base = jnet:loopback, unix = jnet:unix");
    }

    @Test
    void aliasesAreCheckedWhenRegistered() {
        PathRegistry r = new PathRegistry().alias("base", "jnet:loopback");
        assertThatThrownBy(() -> r.alias("base", "jnet:veth")).hasMessage("alias base registered twice");
        assertThatThrownBy(() -> r.alias("jnet:base", "jnet:loopback")).hasMessageContaining("without a colon");
        assertThatThrownBy(() -> r.alias("Base2", "jnet:loopback")).hasMessageContaining("lower-case");
        assertThatThrownBy(() -> r.alias("lo", "loopback")).hasMessageContaining("stack:name");
    }

    @Test
    void unixPathRunsTheTcpTestsOnly() {
        PathRegistry.Entry unix = PathRegistry.standard().get("kernel:unix");
        assertThat(unix.notApplicableTo(TestSpec.defaults(TestKind.TCP_STREAM, ONE_SECOND))).isNull();
        assertThat(unix.notApplicableTo(TestSpec.defaults(TestKind.TCP_CRR, ONE_SECOND))).isNull();
        assertThat(unix.notApplicableTo(TestSpec.defaults(TestKind.UDP_STREAM, ONE_SECOND))).contains("UDP");
        assertThat(unix.notApplicableTo(TestSpec.defaults(TestKind.UDP_RR, ONE_SECOND))).contains("UDP");
        TestSpec noDelay = new TestSpec(TestKind.TCP_RR, ONE_SECOND, 1, 1, 1, 1, new SocketSettings(-1, -1, true),
                new SocketSettings(-1, -1, true));
        assertThat(unix.notApplicableTo(noDelay)).contains("TCP_NODELAY");
        assertThat(PathRegistry.standard().get("kernel:tcp").notApplicableTo(noDelay)).isNull();
    }

    @Test
    void sizesParseWithNetperfSuffixesAndTheSweepIsPowersOfTwoTo1M() {
        assertThat(Sizes.parse("1,2,64K,1M,1k")).containsExactly(1, 2, 65536, 1 << 20, 1000);
        assertThatThrownBy(() -> Sizes.parse("1,,2")).hasMessageContaining("empty size");
        assertThatThrownBy(() -> Sizes.parse("0")).hasMessageContaining("--sizes");
        assertThatThrownBy(() -> Sizes.parse("lots")).hasMessageContaining("not a size");
        assertThatThrownBy(() -> Sizes.parse("1K,1024")).hasMessageContaining("given twice");
        List<Integer> sweep = Sizes.sweep();
        assertThat(sweep).hasSize(21).startsWith(1, 2, 4, 8).endsWith(524288, 1048576);
        for (int i = 1; i < sweep.size(); i++) assertThat(sweep.get(i)).isEqualTo(2 * sweep.get(i - 1));
    }

    @Test
    void theSizeSetsMandMOfStreamTestsAndRequestAndResponseOfTheOthers() {
        TestSpec stream = TestSpec.defaults(TestKind.TCP_STREAM, ONE_SECOND).withMessageSize(512, false);
        assertThat(stream.sendSize()).isEqualTo(512);
        assertThat(stream.recvSize()).isEqualTo(512);
        assertThat(TestSpec.defaults(TestKind.TCP_STREAM, ONE_SECOND).withMessageSize(512, true).recvSize())
                .isEqualTo(TestSpec.DEFAULT_RECV_SIZE);
        TestSpec rr = TestSpec.defaults(TestKind.TCP_CRR, ONE_SECOND).withMessageSize(4096, false);
        assertThat(rr.requestSize()).isEqualTo(4096);
        assertThat(rr.responseSize()).isEqualTo(4096);
        assertThat(rr.sendSize()).isEqualTo(TestSpec.DEFAULT_SEND_SIZE);
    }

    /** Two sizes of TCP_RR on three paths; kernel:unix not applicable at the second; fixed figures. */
    private static CompareResult result() {
        TestSpec rr = TestSpec.defaults(TestKind.TCP_RR, ONE_SECOND);
        Measurement small = new Measurement(rr.withMessageSize(1, false), 1, Confidence.DEFAULT, List.of(
                new Measurement.LaneResult("jnet:loopback", Fixtures.series("jnet:loopback", TestKind.TCP_RR, 100, 200, 300), null),
                new Measurement.LaneResult("kernel:tcp", Fixtures.series("kernel:tcp", TestKind.TCP_RR, 200, 200, 200), null),
                new Measurement.LaneResult("kernel:unix", Fixtures.series("kernel:unix", TestKind.TCP_RR, 400, 400, 400), null)),
                List.of(), null);
        Measurement big = new Measurement(rr.withMessageSize(1024, false), 1024, Confidence.DEFAULT, List.of(
                new Measurement.LaneResult("jnet:loopback", Fixtures.series("jnet:loopback", TestKind.TCP_RR, 50, 50, 50), null),
                new Measurement.LaneResult("kernel:tcp", Fixtures.series("kernel:tcp", TestKind.TCP_RR, 100, 100, 100), null),
                new Measurement.LaneResult("kernel:unix", null, "not here")),
                List.of(), null);
        PerfPlan plan = new PerfPlan(List.of(new PerfPlan.Cell(small.spec(), 1), new PerfPlan.Cell(big.spec(), 1024)),
                List.of("jnet:loopback", "kernel:tcp", "kernel:unix"), "loopback", Map.of(), Iterations.exactly(3),
                Confidence.DEFAULT, Warmup.DEFAULT, true, List.of());
        return new CompareResult(plan, List.of(small, big), List.of("run note"));
    }

    @Test
    void tableHasARowPerSizeAColumnPerPathAndThePercentagesOfTheFirst() {
        String text = ReportCapture.capture(ps -> new SizeTable(ps).print(result()));
        assertThat(text).contains("p1 = jnet:loopback / kernel:tcp").contains("p2 = jnet:loopback / kernel:unix");
        assertThat(text).containsPattern("RR +jnet:loopback +kernel:tcp +kernel:unix +p1 +p2");
        // per pair 100/200, 200/200, 300/200 -> median 100%; 100/400 .. 300/400 -> 50%; jnet's spread misses -I
        assertThat(text).containsPattern("\\n +1 +200\\.00\\* +200\\.00 +400\\.00 +100% +50%");
        assertThat(text).containsPattern("\\n +1024 +50\\.00 +100\\.00 +n/a +50% +-");
        assertThat(text).contains("Note: n/a: kernel:unix: not here").contains("* confidence not met")
                .contains("Note: run note");
    }

    @Test
    void compareCsvHasOneRowPerTestSizeAndPathWithCiMet() {
        List<String> lines = ReportCapture.capture(ps -> new CsvReport(ps).print(result())).lines().toList();
        assertThat(lines).hasSize(7);
        assertThat(lines.getFirst()).isEqualTo(CsvReport.COMPARE_HEADER);
        assertThat(lines.get(1)).startsWith("TCP_RR,1,jnet:loopback,Trans/s,3,200.0000,200.0000,99,").contains(",false,,,,")
                .contains(",100.0000;200.0000;300.0000,ok,0,1,netperf,");
        assertThat(lines.get(2)).startsWith("TCP_RR,1,kernel:tcp,Trans/s,3,200.0000,200.0000,99,0.0000,0.0000,true,1.0000,0.5000,1.5000,");
        assertThat(lines.get(3)).contains(",true,0.5000,0.2500,0.7500,");
        assertThat(lines.get(6)).isEqualTo("TCP_RR,1024,kernel:unix,Trans/s,0,,,,,,false,,,,,not applicable: not here,0,"
                + "1,netperf,,,,,,,,,1,,,,");
        for (String l : lines) assertThat(l.split(",", -1)).hasSize(CsvReport.COMPARE_HEADER.split(",").length).hasSize(32);
    }

    /** A series of UDP_RR runs over {@code flows} flows with the given lookup counts per run (null: none). */
    private static Series flowSeries(String path, int flows, LookupCounts perRun) {
        Series plain = Fixtures.series(path, TestKind.UDP_RR, 1000, 1000, 1000);
        List<RunResult> runs = plain.runs().stream().map(r -> r.withFlows(flows, flows, 0.5).withLookups(perRun)).toList();
        return new Series(path, path + " path", runs.getFirst(), runs);
    }

    /** UDP_RR --udp connected --flows 100 on jnet:routed, jnet:veth and the kernel (no counters). */
    private static CompareResult flowsResult() {
        TestSpec rr = TestSpec.defaults(TestKind.UDP_RR, ONE_SECOND).withFlows(100, UdpMode.CONNECTED);
        Measurement m = new Measurement(rr.withMessageSize(1, false), 1, Confidence.DEFAULT, List.of(
                new Measurement.LaneResult("jnet:routed", flowSeries("jnet:routed", 100, new LookupCounts(400, 200, 600, 0, 0)), null),
                new Measurement.LaneResult("jnet:veth", flowSeries("jnet:veth", 100, new LookupCounts(200, 0, 0, 200, 0)), null),
                new Measurement.LaneResult("kernel:tcp", flowSeries("kernel:tcp", 100, null), null)),
                List.of(), null);
        PerfPlan plan = new PerfPlan(List.of(new PerfPlan.Cell(m.spec(), 1)), List.of("jnet:routed", "jnet:veth", "kernel:tcp"),
                "routed", Map.of(), Iterations.exactly(3), Confidence.DEFAULT, Warmup.DEFAULT, true, List.of());
        return new CompareResult(plan, List.of(m), List.of());
    }

    @Test
    void compareReportsCarryEachPathsFlowsAndLookups() {
        String text = ReportCapture.capture(ps -> new SizeTable(ps).print(flowsResult()));
        assertThat(text).contains("Flows and lookups per packet received")
                .contains("jnet:routed: 100 flows (100 seen by the server); per packet received: 2.00 lookups "
                        + "(socket 0.50, route 1.50), early demux 0.00 hits, 0.00 misses; 1200 packets")
                .contains("jnet:veth: 100 flows (100 seen by the server); per packet received: 0.00 lookups "
                        + "(socket 0.00, route 0.00), early demux 1.00 hits, 0.00 misses")
                .contains("kernel:tcp: 100 flows (100 seen by the server); per packet received: lookups -");
        List<String> csv = ReportCapture.capture(ps -> new CsvReport(ps).print(flowsResult())).lines().toList();
        assertThat(csv.getFirst()).isEqualTo(CsvReport.COMPARE_HEADER).endsWith(",flows,udp,flows_seen,setup_s,"
                + "lookups_per_packet,socket_lookups_per_packet,route_lookups_per_packet,demux_hits_per_packet,"
                + "demux_misses_per_packet,packets_received,threads,allocator,bytes_per_transaction,"
                + "lock_entries_per_transaction,contended_lock_entries_per_transaction");
        assertThat(csv.get(1)).startsWith("UDP_RR,1,jnet:routed,")
                .endsWith(",ok,0,100,connected,100,0.5000,2.0000,0.5000,1.5000,0.0000,0.0000,1200,1,,,,");
        assertThat(csv.get(3)).startsWith("UDP_RR,1,kernel:tcp,").endsWith(",ok,0,100,connected,100,0.5000,,,,,,,1,,,,");
        String json = ReportCapture.capture(ps -> new JsonReport(ps).print(flowsResult()));
        assertThat(json).contains("\"path\":\"jnet:routed\"").contains("\"flows\":{\"flows\":100,\"flows_seen\":100,"
                + "\"setup_s\":0.5,\"lookups\":{\"packets_received\":1200,\"socket_lookups\":600,\"route_lookups\":1800")
                .contains("\"route_lookups_per_packet\":1.5").contains("\"flows_seen\":100,\"setup_s\":0.5,\"lookups\":null,\"threads\":1,\"allocator\":null,"
                        + "\"allocation\":null}");
    }

    @Test
    void compareJsonHoldsPathsCiMetAndRatios() {
        String json = ReportCapture.capture(ps -> new JsonReport(ps).print(result()));
        assertThat(json).startsWith("{\"mode\":\"compare\",\"paths\":[\"jnet:loopback\",\"kernel:tcp\",\"kernel:unix\"]");
        assertThat(json).contains("{\"path\":\"jnet:loopback\",\"runs\":3,\"median\":200.0,\"values\":[100.0,200.0,300.0]");
        assertThat(json).contains("\"ci_met\":false,\"ratio\":null");
        assertThat(json).contains("\"ci_met\":true,\"ratio\":{\"median\":1.0,\"min\":0.5,\"max\":1.5,\"values\":[0.5,1.0,1.5]}");
        assertThat(json).contains("\"not_applicable\":\"not here\"");
        assertThat(json.trim()).endsWith("\"busy_cores\":0,\"notes\":[\"run note\"],\"succeeded\":true}");
    }

    @Test
    void chartsHaveOneLinePerPathAndAPointPerSizeWhereThePathRan(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        List<io.jnet.perf.plot.SizeChart> charts = CompareCharts.of(result());
        assertThat(charts).singleElement().satisfies(c -> {
            assertThat(c.test()).isEqualTo("TCP_RR");
            assertThat(c.unit()).isEqualTo("Trans/s");
            assertThat(c.lines()).extracting(io.jnet.perf.plot.Line::path)
                    .containsExactly("jnet:loopback", "kernel:tcp", "kernel:unix");
            // the medians the table prints, at the swept sizes; kernel:unix was not applicable at 1024
            assertThat(c.lines().get(0).points()).containsExactly(new io.jnet.perf.plot.Point(1, 200.0),
                    new io.jnet.perf.plot.Point(1024, 50.0));
            assertThat(c.lines().get(2).points()).containsExactly(new io.jnet.perf.plot.Point(1, 400.0));
        });
        Path png = dir.resolve("rr.png");
        assertThat(io.jnet.perf.plot.SizePlot.write(png, charts)).containsExactly(png);
        java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(png.toFile());
        assertThat(image).isNotNull();
        assertThat(image.getWidth()).isEqualTo(io.jnet.perf.plot.SizePlot.WIDTH);
    }

    private static Progress.Run run(int pair) {
        return new Progress.Run(TestKind.TCP_RR, 1024, "kernel:unix", pair, 5, false, 1.0);
    }

    @Test
    void progressRedrawsOneLineInPlaceAndClearsIt() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        long[] now = {0};
        ProgressMeter m = new ProgressMeter(new PrintStream(buf, true, StandardCharsets.UTF_8), ProgressMeter.Mode.REDRAW,
                90, () -> now[0]);
        m.starting(run(1));
        now[0] = 12_000_000_000L;
        m.finished(run(1), 123);
        m.starting(run(2));
        m.clear();
        String s = buf.toString(StandardCharsets.UTF_8);
        assertThat(s).startsWith("\rTCP_RR kernel:unix pair 1/5 size 1024  0:00 of ~1:30")
                .contains("\rTCP_RR kernel:unix pair 2/5 size 1024  0:12 of ~1:30").doesNotContain("\n")
                .endsWith("\r");
    }

    @Test
    void progressLinesGiveEachRunsFigureAndOffSaysNothing() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        ProgressMeter lines = new ProgressMeter(new PrintStream(buf, true, StandardCharsets.UTF_8), ProgressMeter.Mode.LINES,
                10, () -> 0);
        lines.starting(run(0));
        lines.finished(run(0), 12.5);
        assertThat(buf.toString(StandardCharsets.UTF_8)).isEqualTo("  TCP_RR kernel:unix warm-up size 1024: 12.50 Trans/s  0:00 of ~0:10"
                + System.lineSeparator());
        buf.reset();
        ProgressMeter off = new ProgressMeter(new PrintStream(buf, true, StandardCharsets.UTF_8), ProgressMeter.Mode.OFF, 10, () -> 0);
        off.starting(run(1));
        off.finished(run(1), 1);
        off.clear();
        assertThat(buf.size()).isZero();
    }

    @Test
    void kernelUnixRunsTcpStreamAndTcpRrAndRemovesItsDirectory() throws Exception {
        PerfPath unix = KernelPaths.unix();
        Path dir = Path.of(unix.description().replaceFirst("^AF_UNIX stream sockets in ", "").replaceFirst(" \\(host kernel\\)$", ""));
        assertThat(dir).isDirectory();
        try {
            ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, new Warmup(0.2), Progress.NONE);
            for (TestKind k : List.of(TestKind.TCP_STREAM, TestKind.TCP_RR)) {
                TestSpec spec = TestSpec.defaults(k, Duration.ofMillis(200)).withMessageSize(k.isStream() ? 16384 : 64, false);
                Measurement m = runner.measure(spec, -1, List.of(new ComparisonRunner.Lane("kernel:unix", unix)));
                assertThat(m.failure()).as(k.name()).isNull();
                assertThat(m.lanes().getFirst().series().values()).as(k.name()).hasSize(3)
                        .allSatisfy(v -> assertThat(v).isPositive());
            }
        } finally {
            unix.close();
        }
        assertThat(Files.exists(dir)).isFalse();
    }
}
