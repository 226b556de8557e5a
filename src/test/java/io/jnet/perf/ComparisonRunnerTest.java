package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ComparisonRunnerTest {

    private static final TestSpec RR = TestSpec.defaults(TestKind.TCP_RR, Duration.ofMillis(100));

    @Test
    void alternatesPairsAndComputesRatios() {
        List<String> log = new ArrayList<>();
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, log::add);
        Comparison c = runner.run(RR, PathKind.LOOPBACK, new InMemoryPath("fake"), new KernelPaths().open(PathConfig.of(PathKind.LOOPBACK)), null);
        assertThat(c.succeeded()).isTrue();
        assertThat(c.candidate().runs()).hasSize(3);
        assertThat(c.reference().runs()).hasSize(3);
        assertThat(c.candidate().warmup()).isNotNull();
        assertThat(c.ratios()).hasSize(3).allSatisfy(r -> assertThat(r).isPositive());
        assertThat(c.ratioMin()).isLessThanOrEqualTo(c.ratioMedian());
        assertThat(c.ratioMedian()).isLessThanOrEqualTo(c.ratioMax());
        assertThat(log).hasSize(8);
        assertThat(log.get(0)).startsWith("TCP_RR fake warm-up");
        assertThat(log.get(1)).startsWith("TCP_RR kernel warm-up");
        assertThat(log.get(2)).startsWith("TCP_RR fake pair 1");
        assertThat(log.get(3)).startsWith("TCP_RR kernel pair 1");
    }

    @Test
    void stopsAtMinWhenConfidentAndGoesOnToMaxWhenNot() {
        // runs alternate jnet, kernel: jnet's figures swing widely, kernel's are steady
        Comparison wide = scripted(new double[] {0, 10, 100, 10, 100, 10, 100}, Iterations.clipped(6, 3));
        assertThat(wide.candidate().runs()).hasSize(6);
        assertThat(wide.candidate().values()).containsExactly(10.0, 100.0, 10.0, 100.0, 10.0, 100.0);
        assertThat(wide.reference().runs()).hasSize(6);
        Comparison steady = scripted(new double[] {0, 50, 50, 50, 50, 50, 50}, Iterations.clipped(6, 3));
        assertThat(steady.candidate().runs()).hasSize(3);
        assertThat(steady.reference().runs()).hasSize(3);
        assertThat(steady.ratios()).containsExactly(0.5, 0.5, 0.5);
    }

    /** A comparison whose candidate returns {@code jnet[i]} on its i-th run (0 = warm-up) and whose reference always returns 100. */
    private static Comparison scripted(double[] jnet, Iterations its) {
        int[] calls = new int[1];
        PerfTest test = (path, spec) -> {
            double v = path.stack().equals("jnet") ? jnet[calls[0]++] : 100;
            return Fixtures.run(path.stack(), spec.kind(), v);
        };
        ComparisonRunner runner = new ComparisonRunner(its, Confidence.DEFAULT, s -> {}, k -> test);
        return runner.run(RR, PathKind.LOOPBACK, new InMemoryPath("jnet"), new InMemoryPath("kernel"), null);
    }

    @Test
    void unavailableCandidateLeavesTheReferenceAlone() {
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, s -> {});
        Comparison c = runner.run(RR, PathKind.LOOPBACK, new InMemoryPath("jnet", Long.MAX_VALUE, true), new InMemoryPath("kernel"), null);
        assertThat(c.succeeded()).isTrue();
        assertThat(c.candidate()).isNull();
        assertThat(c.reference().runs()).hasSize(3);
        assertThat(c.notes()).singleElement().asString().contains("jnet not available");
        assertThat(c.ratios()).isEmpty();
    }

    @Test
    void unavailableStackAloneIsAFailure() {
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, s -> {});
        Comparison c = runner.run(RR, PathKind.LOOPBACK, new InMemoryPath("jnet", Long.MAX_VALUE, true), null, null);
        assertThat(c.succeeded()).isFalse();
        assertThat(c.failure()).contains("jnet not available");
    }

    @Test
    void aFailingRunStopsTheComparisonAndIsRecorded() {
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, s -> {});
        TestSpec stream = TestSpec.defaults(TestKind.TCP_STREAM, Duration.ofMillis(300));
        Comparison c = runner.run(stream, PathKind.LOOPBACK, new InMemoryPath("jnet", 100_000, false), new InMemoryPath("kernel"), null);
        assertThat(c.succeeded()).isFalse();
        assertThat(c.failure()).contains("TCP_STREAM jnet warm-up").contains("injected failure");
    }

    @Test
    void suiteRunsEveryTestAndFallsBackWhenJnetIsMissing() {
        PerfPathFactory fakeKernel = new PerfPathFactory() {
            @Override
            public String stack() { return "kernel"; }

            @Override
            public PerfPath open(PathConfig config) { return new InMemoryPath("kernel"); }
        };
        PerfPlan plan = new PerfPlan(PerfPlan.defaultSuite(PerfPlan.defaultBase().withDuration(Duration.ofMillis(50))),
                PathConfig.of(PathKind.VETH), StackChoice.BOTH, Iterations.exactly(3), Confidence.DEFAULT);
        List<Comparison> streamed = new ArrayList<>();
        SuiteResult r = new PerfSuite(Optional.empty(), fakeKernel, s -> {}).run(plan, streamed::add);
        assertThat(r.succeeded()).isTrue();
        assertThat(streamed).isEqualTo(r.comparisons());
        assertThat(r.comparisons()).extracting(c -> c.spec().kind()).containsExactlyElementsOf(PerfPlan.DEFAULT_SUITE);
        assertThat(r.notes()).anySatisfy(n -> assertThat(n).contains("jnet not available"));
        assertThat(r.comparisons()).allSatisfy(c -> assertThat(c.reference().runs()).hasSize(3));
    }

    @Test
    void suiteAsksTheCandidateFactoryForThePathAndClosesIt() {
        List<InMemoryPath> opened = new ArrayList<>();
        PerfPathFactory fakeJnet = new PerfPathFactory() {
            @Override
            public String stack() { return "jnet"; }

            @Override
            public PerfPath open(PathConfig config) {
                assertThat(config.kind()).isEqualTo(PathKind.VETH);
                assertThat(config.sysctls()).containsEntry("net.ipv4.tcp_sack", "0");
                InMemoryPath p = new InMemoryPath("jnet");
                opened.add(p);
                return p;
            }
        };
        PerfPlan plan = new PerfPlan(List.of(RR), new PathConfig(PathKind.VETH, java.util.Map.of("net.ipv4.tcp_sack", "0")),
                StackChoice.JNET, Iterations.exactly(3), Confidence.DEFAULT);
        SuiteResult r = new PerfSuite(Optional.of(fakeJnet), new KernelPaths(), s -> {}).run(plan);
        assertThat(r.succeeded()).isTrue();
        assertThat(r.comparisons().getFirst().candidate().runs()).hasSize(3);
        assertThat(r.comparisons().getFirst().reference()).isNull();
        assertThat(opened).singleElement().satisfies(p -> assertThat(p.closed).isTrue());
    }

    @Test
    void jnetAloneWithoutJnetFailsEveryTest() {
        PerfPlan plan = new PerfPlan(List.of(RR), PathConfig.of(PathKind.LOOPBACK), StackChoice.JNET,
                Iterations.exactly(3), Confidence.DEFAULT);
        SuiteResult r = new PerfSuite(Optional.empty(), new KernelPaths(), s -> {}).run(plan);
        assertThat(r.succeeded()).isFalse();
        assertThat(r.comparisons().getFirst().failure()).contains("not part of this build");
    }
}
