package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/** Runs a short jnet-against-kernel comparison of one test and renders its three reports, for the run tests. */
final class RunReports {
    private RunReports() {}

    /** The comparison and what each report printed. */
    record Rendered(Comparison comparison, String text, List<String> csv, String json) {}

    /** Three pairs of {@code spec} (plus a warm-up run each) on {@code jnet} and {@code kernel}, rendered. */
    static Rendered compare(TestSpec spec, PerfPath jnet, PerfPath kernel) {
        Comparison c = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, new Warmup(0.2), Progress.NONE)
                .run(spec, "loopback", jnet, kernel, null);
        assertThat(c.failure()).isNull();
        SuiteResult suite = new SuiteResult(PerfPlan.of(List.of(spec), java.util.List.of("jnet:loopback", "kernel:tcp"), "loopback", Iterations.exactly(3), Confidence.DEFAULT), List.of(c), List.of());
        return new Rendered(c, capture(ps -> new TextReport(ps, true).print(suite)),
                capture(ps -> new CsvReport(ps).print(suite)).lines().toList(),
                capture(ps -> new JsonReport(ps).print(suite)));
    }

    /** What every comparison's reports show: both stacks measured three times, positive figures, one CSV row each. */
    static void assertShape(Rendered r, TestKind kind) {
        Comparison c = r.comparison();
        assertThat(c.candidate().runs()).hasSize(3);
        assertThat(c.reference().runs()).hasSize(3);
        assertThat(c.candidate().values()).allSatisfy(v -> assertThat(v).isPositive());
        assertThat(c.reference().values()).allSatisfy(v -> assertThat(v).isPositive());
        assertThat(c.ratios()).hasSize(3).allSatisfy(v -> assertThat(v).isPositive());
        assertThat(r.text()).startsWith(kind.banner() + " on jnet ").contains(" vs kernel ")
                .containsPattern(kind.name() + " +loopback +\\d+\\.\\d\\d +\\d+\\.\\d\\d +" + java.util.regex.Pattern.quote(kind.unit().label()));
        assertThat(r.csv()).hasSize(3);
        assertThat(r.csv().get(1)).startsWith(kind.name() + ",loopback,jnet,candidate," + kind.unit().label() + ",3,");
        assertThat(r.csv().get(2)).startsWith(kind.name() + ",loopback,kernel,reference," + kind.unit().label() + ",3,");
        assertThat(r.json()).startsWith("{\"results\":[{\"test\":\"" + kind.name() + "\"").contains("\"succeeded\":true");
    }

    /** A short spec of {@code kind} with the given sizes and default socket options. */
    static TestSpec spec(TestKind kind, Duration length, int sendSize, int requestSize, int responseSize) {
        return new TestSpec(kind, length, sendSize, TestSpec.DEFAULT_RECV_SIZE, requestSize, responseSize,
                SocketSettings.defaults(), SocketSettings.defaults());
    }

    private static String capture(Consumer<PrintStream> print) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        print.accept(new PrintStream(buf, true, StandardCharsets.UTF_8));
        return buf.toString(StandardCharsets.UTF_8);
    }
}
