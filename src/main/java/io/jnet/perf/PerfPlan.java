package io.jnet.perf;

import java.time.Duration;
import java.util.List;

/**
 * Everything a {@code jnet perf} invocation runs.
 *
 * @param tests      the tests, in order
 * @param path       the jnet topology and sysctls
 * @param stacks     which stacks to measure
 * @param iterations pairs per test ({@code -i})
 * @param confidence interval to aim for ({@code -I})
 */
public record PerfPlan(List<TestSpec> tests, PathConfig path, StackChoice stacks, Iterations iterations,
        Confidence confidence) {

    /** Default {@code -l} in seconds: short, so that the default suite finishes in well under a minute. */
    public static final double DEFAULT_LENGTH_SECONDS = 1.0;
    /** Pairs per test when {@code -i} is not given and one test runs. */
    public static final Iterations SINGLE_TEST_ITERATIONS = Iterations.exactly(5);
    /** Pairs per test when {@code -i} is not given and the default suite runs (netperf's floor). */
    public static final Iterations SUITE_ITERATIONS = Iterations.exactly(3);

    /**
     * The tests {@code jnet perf} runs without {@code -t}, in netperf's manual order (bulk transfer, then
     * request/response): every test but UDP_RR, which would take the suite past a minute and, like TCP_RR,
     * measures one round trip at a time (its UDP path is what UDP_STREAM measures).
     */
    public static final List<TestKind> DEFAULT_SUITE = List.of(TestKind.TCP_STREAM, TestKind.TCP_MAERTS,
            TestKind.TCP_SENDFILE, TestKind.UDP_STREAM, TestKind.TCP_RR, TestKind.TCP_CRR);

    public PerfPlan {
        tests = List.copyOf(tests);
        if (tests.isEmpty()) throw new IllegalArgumentException("no tests");
    }

    /**
     * The default suite: every test of {@link #DEFAULT_SUITE} with {@code base}'s sizes, length and socket
     * settings (UDP sizes clipped to one datagram, {@link TestSpec#forKind}).
     */
    public static List<TestSpec> defaultSuite(TestSpec base) {
        return DEFAULT_SUITE.stream().map(base::forKind).toList();
    }

    /** The spec the suite starts from when nothing is given: {@code -l 1 -m 64K -M 128K -r 1,1}. */
    public static TestSpec defaultBase() {
        return TestSpec.defaults(TestKind.TCP_STREAM, Duration.ofNanos((long) (DEFAULT_LENGTH_SECONDS * 1e9)));
    }
}
