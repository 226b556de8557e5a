package io.jnet.perf;

import java.time.Duration;
import java.util.Arrays;
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

    public PerfPlan {
        tests = List.copyOf(tests);
        if (tests.isEmpty()) throw new IllegalArgumentException("no tests");
    }

    /** The default suite: every {@link TestKind} with {@code base}'s sizes, length and socket settings. */
    public static List<TestSpec> defaultSuite(TestSpec base) {
        return Arrays.stream(TestKind.values()).map(base::withKind).toList();
    }

    /** The spec the suite starts from when nothing is given: {@code -l 1 -m 64K -M 128K -r 1,1}. */
    public static TestSpec defaultBase() {
        return TestSpec.defaults(TestKind.TCP_STREAM, Duration.ofNanos((long) (DEFAULT_LENGTH_SECONDS * 1e9)));
    }
}
