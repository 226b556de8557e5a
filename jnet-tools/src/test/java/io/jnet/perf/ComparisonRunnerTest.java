package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ComparisonRunnerTest {

    private static final TestSpec RR = TestSpec.defaults(TestKind.TCP_RR, Duration.ofMillis(100));

    /** Records every progress event as "lane pair" (pair 0 = warm-up). */
    private static final class Recorder implements Progress {
        final List<String> started = new ArrayList<>();
        final List<String> finished = new ArrayList<>();

        @Override
        public synchronized void starting(Run run) { started.add(run.lane() + " " + run.pair()); }

        @Override
        public synchronized void finished(Run run, double value) { finished.add(run.describe()); }
    }

    /** A lane labelled {@code label} running {@code test} on an in-memory path of the same name, in this JVM. */
    private static ComparisonRunner.Lane lane(String label, PerfTest test) {
        return new ComparisonRunner.Lane(label, new InProcessLane(new InMemoryPath(label), k -> test));
    }

    @Test
    void alternatesPairsAndComputesRatios() {
        Recorder log = new Recorder();
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, Warmup.NONE, log);
        Comparison c = runner.run(RR, "loopback", new InMemoryPath("fake"), KernelPaths.tcp(), null);
        assertThat(c.succeeded()).isTrue();
        assertThat(c.candidate().runs()).hasSize(3);
        assertThat(c.reference().runs()).hasSize(3);
        assertThat(c.candidate().warmup()).isNull();
        assertThat(c.ratios()).hasSize(3).allSatisfy(r -> assertThat(r).isPositive());
        assertThat(c.ratioMin()).isLessThanOrEqualTo(c.ratioMedian());
        assertThat(c.ratioMedian()).isLessThanOrEqualTo(c.ratioMax());
        // two lanes rotate: A B, B A, A B
        assertThat(log.started).containsExactly("fake 1", "kernel 1", "kernel 2", "fake 2", "fake 3", "kernel 3");
        assertThat(log.finished.getFirst()).startsWith("TCP_RR fake pair 1/3");
    }

    @Test
    void threeLanesRotateABCThenBCAThenCAB() {
        Recorder log = new Recorder();
        PerfTest test = (path, spec) -> Fixtures.run(path.stack(), spec.kind(), 100);
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(4), Confidence.DEFAULT, Warmup.NONE, log);
        Measurement m = runner.measure(RR, 64, List.of(lane("A", test), lane("B", test), lane("C", test)));
        assertThat(m.succeeded()).isTrue();
        assertThat(log.started).containsExactly("A 1", "B 1", "C 1", "B 2", "C 2", "A 2", "C 3", "A 3", "B 3",
                "A 4", "B 4", "C 4");
    }

    @Test
    void progressSaysRunWhenOneLaneIsMeasuredAndPairWithTwo() {
        PerfTest test = (path, spec) -> Fixtures.run(path.stack(), spec.kind(), 100);
        Recorder alone = new Recorder();
        new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, Warmup.NONE, alone)
                .measure(RR, -1, List.of(lane("A", test), new ComparisonRunner.Lane("K", null, "not here")));
        assertThat(alone.finished).containsExactly("TCP_RR A run 1/3", "TCP_RR A run 2/3", "TCP_RR A run 3/3");
        Recorder both = new Recorder();
        new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, Warmup.NONE, both)
                .measure(RR, -1, List.of(lane("A", test), lane("B", test)));
        assertThat(both.finished).contains("TCP_RR A pair 1/3", "TCP_RR B pair 3/3").noneMatch(d -> d.contains(" run "));
    }

    @Test
    void notApplicableLanesDoNotRunAndTheOthersStillRotate() {
        Recorder log = new Recorder();
        PerfTest test = (path, spec) -> Fixtures.run(path.stack(), spec.kind(), 100);
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, Warmup.NONE, log);
        Measurement m = runner.measure(RR, -1, List.of(lane("A", test),
                new ComparisonRunner.Lane("U", null, "UDP over AF_UNIX"), lane("C", test)));
        assertThat(log.started).containsExactly("A 1", "C 1", "C 2", "A 2", "A 3", "C 3");
        assertThat(m.lanes().get(1).series()).isNull();
        assertThat(m.lanes().get(1).notApplicable()).isEqualTo("UDP over AF_UNIX");
        assertThat(m.ratios(1)).isEmpty();
        assertThat(m.ratios(2)).containsExactly(1.0, 1.0, 1.0);
    }

    @Test
    void aLaneLostInAnEarlierMeasurementIsLeftOutWithANoteAndTheOthersRun() {
        Recorder log = new Recorder();
        PerfTest test = (path, spec) -> Fixtures.run(path.stack(), spec.kind(), 100);
        LaneRunner dead = new LaneRunner() {
            @Override
            public RunResult run(TestSpec spec) { throw new AssertionError("a lost lane ran"); }

            @Override
            public String lost() { return "lane JVM (pid 1) ended; it exited with status 137"; }

            @Override
            public String description() { return "B"; }

            @Override
            public void close() {}
        };
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, Warmup.NONE, log);
        Measurement m = runner.measure(RR, 64, List.of(lane("A", test), new ComparisonRunner.Lane("B", dead), lane("C", test)));
        assertThat(log.started).containsExactly("A 1", "C 1", "C 2", "A 2", "A 3", "C 3");
        assertThat(m.succeeded()).isTrue();
        assertThat(m.lanes().get(1).series()).isNull();
        assertThat(m.notes()).contains("B not measured: lane JVM (pid 1) ended; it exited with status 137");

        Measurement none = runner.measure(RR, 64, List.of(new ComparisonRunner.Lane("B", dead)));
        assertThat(none.succeeded()).isFalse();
    }

    @Test
    void percentagesAreMediansOfPerPairRatiosNotRatiosOfMedians() {
        // per pair: A/B = 10/10, 20/40, 30/15 -> 1.0, 0.5, 2.0: median 1.0; the ratio of medians would be 20/15
        Map<String, double[]> script = Map.of("A", new double[] {10, 20, 30}, "B", new double[] {10, 40, 15});
        Map<String, Integer> calls = new HashMap<>();
        PerfTest test = (path, spec) -> {
            int i;
            synchronized (calls) {
                i = calls.merge(path.stack(), 1, Integer::sum) - 1;
            }
            return Fixtures.run(path.stack(), spec.kind(), script.get(path.stack())[i]);
        };
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, Warmup.NONE, Progress.NONE);
        Measurement m = runner.measure(RR, 1024, List.of(lane("A", test), lane("B", test)));
        assertThat(m.ratios(1)).containsExactly(1.0, 0.5, 2.0);
        assertThat(m.ratioMedian(1)).isEqualTo(1.0);
        assertThat(m.lanes().get(0).series().median() / m.lanes().get(1).series().median()).isNotEqualTo(1.0);
        String table = ReportCapture.capture(ps -> new SizeTable(ps).printTable(
                PerfPlan.of(List.of(RR), List.of("A", "B"), "loopback", Iterations.exactly(3), Confidence.DEFAULT), List.of(m)));
        assertThat(table).containsPattern("\\n +1024 +20\\.00[ *] +15\\.00[ *] +100%\\n");
    }

    @Test
    void warmUpRunsUntilTheRateStopsRising() {
        // warm-up figures rise 10, 20, 40 then level off at 41 (< 3% above 40): four warm-up runs, then pairs
        double[] script = {10, 20, 40, 41, 50, 50, 50};
        int[] calls = new int[1];
        List<Duration> lengths = new ArrayList<>();
        PerfTest test = (path, spec) -> {
            lengths.add(spec.duration());
            return Fixtures.run(path.stack(), spec.kind(), script[calls[0]++]);
        };
        TestSpec long10 = RR.withDuration(Duration.ofSeconds(10));
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, new Warmup(600), Progress.NONE);
        Measurement m = runner.measure(long10, -1, List.of(lane("jnet", test)));
        assertThat(calls[0]).isEqualTo(7);
        assertThat(m.lanes().getFirst().series().warmup().value()).isEqualTo(41);
        assertThat(m.lanes().getFirst().series().values()).containsExactly(50.0, 50.0, 50.0);
        // warm-up runs are a quarter of the budget, capped at -l; measured runs are -l
        assertThat(lengths.subList(0, 4)).containsOnly(Duration.ofSeconds(10));
        assertThat(lengths.subList(4, 7)).containsOnly(Duration.ofSeconds(10));
    }

    @Test
    void laterTestsOfAPathGetAQuarterOfTheWarmUpBudget() {
        List<Duration> lengths = new ArrayList<>();
        PerfTest test = (path, spec) -> {
            lengths.add(spec.duration());
            return Fixtures.run(path.stack(), spec.kind(), 100);
        };
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, new Warmup(4), Progress.NONE);
        ComparisonRunner.Lane jnet = lane("jnet", test);
        TestSpec spec = RR.withDuration(Duration.ofSeconds(5));
        runner.measure(spec, -1, List.of(jnet));
        runner.measure(spec, -1, List.of(jnet));
        // first: runs of 4/4 = 1 s; later: budget 1 s, runs of 0.25 s; two warm-up runs each (figures flat)
        assertThat(lengths).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(5),
                Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofMillis(250), Duration.ofMillis(250),
                Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(5));
    }

    @Test
    void stopsAtMinWhenConfidentAndGoesOnToMaxWhenNot() {
        // jnet's figures swing widely, kernel's are steady
        Comparison wide = scripted(new double[] {10, 100, 10, 100, 10, 100}, Iterations.clipped(6, 3));
        assertThat(wide.candidate().runs()).hasSize(6);
        assertThat(wide.candidate().values()).containsExactly(10.0, 100.0, 10.0, 100.0, 10.0, 100.0);
        assertThat(wide.reference().runs()).hasSize(6);
        Comparison steady = scripted(new double[] {50, 50, 50, 50, 50, 50}, Iterations.clipped(6, 3));
        assertThat(steady.candidate().runs()).hasSize(3);
        assertThat(steady.reference().runs()).hasSize(3);
        assertThat(steady.ratios()).containsExactly(0.5, 0.5, 0.5);
    }

    /** A comparison whose candidate returns {@code jnet[i]} on its i-th measured run and whose reference always returns 100. */
    private static Comparison scripted(double[] jnet, Iterations its) {
        int[] calls = new int[1];
        PerfTest test = (path, spec) -> {
            double v = path.stack().equals("jnet") ? jnet[calls[0]++] : 100;
            return Fixtures.run(path.stack(), spec.kind(), v);
        };
        ComparisonRunner runner = new ComparisonRunner(its, Confidence.DEFAULT, Warmup.NONE, Progress.NONE);
        return runner.run(RR, "loopback", lane("jnet", test), lane("kernel", test), null);
    }

    @Test
    void unavailableCandidateLeavesTheReferenceAlone() {
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, Warmup.DEFAULT, Progress.NONE);
        Comparison c = runner.run(RR, "loopback", new InMemoryPath("jnet", Long.MAX_VALUE, true), new InMemoryPath("kernel"), null);
        assertThat(c.succeeded()).isTrue();
        assertThat(c.candidate()).isNull();
        assertThat(c.reference().runs()).hasSize(3);
        assertThat(c.notes()).singleElement().asString().contains("jnet not available");
        assertThat(c.ratios()).isEmpty();
    }

    @Test
    void unavailableStackAloneIsAFailure() {
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, Warmup.DEFAULT, Progress.NONE);
        Comparison c = runner.run(RR, "loopback", new InMemoryPath("jnet", Long.MAX_VALUE, true), null, null);
        assertThat(c.succeeded()).isFalse();
        assertThat(c.failure()).contains("jnet not available");
    }

    @Test
    void aFailingRunStopsTheComparisonAndIsRecorded() {
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, new Warmup(0.4), Progress.NONE);
        TestSpec stream = TestSpec.defaults(TestKind.TCP_STREAM, Duration.ofMillis(300));
        Comparison c = runner.run(stream, "loopback", new InMemoryPath("jnet", 100_000, false), new InMemoryPath("kernel"), null);
        assertThat(c.succeeded()).isFalse();
        assertThat(c.failure()).contains("TCP_STREAM jnet warm-up").contains("injected failure");
    }

    /** A registry of fakes: jnet:loopback opened by {@code jnet}, kernel:tcp an in-memory path. */
    private static PathRegistry fakes(PathRegistry.Opener jnet) {
        return new PathRegistry()
                .register(new PathRegistry.Entry("jnet:loopback", "jnet", "fake", true, jnet, null))
                .register(new PathRegistry.Entry("kernel:tcp", "kernel", "fake", false, s -> new InMemoryPath("kernel"), null));
    }

    @Test
    void suiteRunsEveryTestAndFallsBackWhenJnetIsMissing() {
        PerfPlan plan = PerfPlan.of(PerfPlan.defaultSuite(PerfPlan.defaultBase().withDuration(Duration.ofMillis(50))),
                List.of("jnet:loopback", "kernel:tcp"), "veth", Iterations.exactly(3), Confidence.DEFAULT);
        List<Comparison> streamed = new ArrayList<>();
        SuiteResult r = new PerfSuite(fakes(s -> {
            throw new UnsupportedOperationException("not part of this build");
        }), Progress.NONE).run(plan, streamed::add);
        assertThat(r.succeeded()).isTrue();
        assertThat(streamed).isEqualTo(r.comparisons());
        assertThat(r.comparisons()).extracting(c -> c.spec().kind()).containsExactlyElementsOf(PerfPlan.DEFAULT_SUITE);
        assertThat(r.notes()).anySatisfy(n -> assertThat(n).contains("jnet not available"));
        assertThat(r.comparisons()).allSatisfy(c -> assertThat(c.reference().runs()).hasSize(3));
        assertThat(r.comparisons()).allSatisfy(c -> assertThat(c.candidate()).isNull());
    }

    @Test
    void suiteOpensThePathWithTheSysctlsAndClosesIt() {
        List<InMemoryPath> opened = new ArrayList<>();
        PathRegistry registry = fakes(sysctls -> {
            assertThat(sysctls).containsEntry("net.ipv4.tcp_sack", "0");
            InMemoryPath p = new InMemoryPath("jnet");
            opened.add(p);
            return p;
        });
        PerfPlan plan = new PerfPlan(List.of(new PerfPlan.Cell(RR, -1)), List.of("jnet:loopback"), "loopback",
                Map.of("net.ipv4.tcp_sack", "0"), Iterations.exactly(3), Confidence.DEFAULT, Warmup.NONE, false, List.of());
        SuiteResult r = new PerfSuite(registry, Progress.NONE).run(plan);
        assertThat(r.succeeded()).isTrue();
        assertThat(r.comparisons().getFirst().candidate().runs()).hasSize(3);
        assertThat(r.comparisons().getFirst().reference()).isNull();
        assertThat(opened).singleElement().satisfies(p -> assertThat(p.closed).isTrue());
    }

    @Test
    void jnetAloneWithoutJnetFailsEveryTest() {
        PerfPlan plan = PerfPlan.of(List.of(RR), List.of("jnet:loopback"), "loopback", Iterations.exactly(3), Confidence.DEFAULT);
        SuiteResult r = new PerfSuite(fakes(s -> {
            throw new UnsupportedOperationException("not part of this build");
        }), Progress.NONE).run(plan);
        assertThat(r.succeeded()).isFalse();
        assertThat(r.comparisons().getFirst().failure()).contains("not part of this build");
    }

    @Test
    void theSinglePathReportSaysWhyTheKernelColumnIsNotApplicable() {
        PathRegistry registry = new PathRegistry()
                .register(new PathRegistry.Entry("jnet:loopback", "jnet", "fake", true, s -> new InMemoryPath("jnet"), null))
                .register(new PathRegistry.Entry("kernel:tcp", "kernel", "fake", false, s -> new InMemoryPath("kernel"),
                        spec -> "no such socket here"));
        PerfPlan plan = PerfPlan.of(List.of(RR.withDuration(Duration.ofMillis(50))), List.of("jnet:loopback", "kernel:tcp"),
                "loopback", Iterations.exactly(3), Confidence.DEFAULT);
        SuiteResult r = new PerfSuite(registry, Progress.NONE).run(plan);
        Comparison c = r.comparisons().getFirst();
        assertThat(c.reference()).isNull();
        assertThat(c.notes()).contains("n/a: kernel: no such socket here");
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
        new TextReport(new java.io.PrintStream(buf, true, java.nio.charset.StandardCharsets.UTF_8), false).print(r);
        assertThat(buf.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("Note: n/a: kernel: no such socket here");
    }

    @Test
    void compareModeRunsEverySizeOnEveryPathAndMarksWhatDoesNotApply() throws IOException {
        PathRegistry registry = fakes(s -> new InMemoryPath("jnet"))
                .register(new PathRegistry.Entry("kernel:unix", "kernel", "fake", false, s -> new InMemoryPath("unix"),
                        PathRegistry::unixNotApplicable));
        TestSpec udp = TestSpec.defaults(TestKind.UDP_RR, Duration.ofMillis(50));
        TestSpec rr = RR.withDuration(Duration.ofMillis(50));
        List<PerfPlan.Cell> cells = List.of(new PerfPlan.Cell(rr.withMessageSize(1, false), 1),
                new PerfPlan.Cell(rr.withMessageSize(1024, false), 1024), new PerfPlan.Cell(udp.withMessageSize(1, false), 1));
        PerfPlan plan = new PerfPlan(cells, List.of("jnet:loopback", "kernel:tcp", "kernel:unix"), "loopback", Map.of(),
                Iterations.exactly(3), Confidence.DEFAULT, Warmup.NONE, true, List.of());
        CompareResult r = new PerfSuite(registry, Progress.NONE).compare(plan, m -> {});
        assertThat(r.succeeded()).isTrue();
        assertThat(r.measurements()).extracting(Measurement::size).containsExactly(1, 1024, 1);
        assertThat(r.measurements().get(1).spec().requestSize()).isEqualTo(1024);
        assertThat(r.measurements().get(1).spec().responseSize()).isEqualTo(1024);
        assertThat(r.measurements().getFirst().lanes()).extracting(Measurement.LaneResult::label)
                .containsExactly("jnet:loopback", "kernel:tcp", "kernel:unix");
        assertThat(r.measurements().getFirst().lanes()).allSatisfy(l -> assertThat(l.series().runs()).hasSize(3));
        assertThat(r.measurements().get(2).lanes().get(2).notApplicable()).contains("UDP");
        assertThat(r.measurements().get(2).lanes().get(1).series().runs()).hasSize(3);
    }
}
