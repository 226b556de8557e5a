package io.jnet.perf;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a {@code jnet perf} invocation runs.
 *
 * @param cells      the tests, each at one size, in order
 * @param paths      the path ids ({@link PathRegistry}) in column order; in the two-stack mode the jnet
 *                   path (candidate) before {@code kernel:tcp} (reference)
 * @param pathName   the name of the jnet topology for the two-stack reports ({@code loopback}, {@code veth}, or
 *                   {@code unix} for netperf's AF_UNIX tests)
 * @param sysctls    sysctl name to value for the paths that apply them (jnet namespaces)
 * @param iterations pairs per test ({@code -i})
 * @param confidence interval to aim for ({@code -I})
 * @param warmup     warm-up budget ({@code --warmup})
 * @param compare    true for the size table of {@code --compare}/{@code --sizes}, false for the two-stack report
 * @param notes      remarks made while planning (sizes skipped), printed with the results
 * @param friendsTable true when the {@code --compare} reports take the layout of the TCP friends patch's
 *                   tables ({@link FriendsTable}: BASE, UNIX, FRIENDS, FRIENDS/BASE, FRIENDS/UNIX and the
 *                   kernel's columns) instead of a column per path; only with {@code compare}
 */
public record PerfPlan(List<Cell> cells, List<String> paths, String pathName, Map<String, String> sysctls,
        Iterations iterations, Confidence confidence, Warmup warmup, boolean compare, List<String> notes,
        boolean friendsTable) {

    /**
     * One test at one size.
     *
     * @param spec the test with the size applied
     * @param size the swept size in bytes, or -1 outside a sweep
     */
    public record Cell(TestSpec spec, int size) {}

    /** Default {@code -l} in seconds: short, so that the default suite finishes in well under a minute. */
    public static final double DEFAULT_LENGTH_SECONDS = 1.0;
    /** Pairs per test when {@code -i} is not given and one test runs. */
    public static final Iterations SINGLE_TEST_ITERATIONS = Iterations.exactly(5);
    /** Pairs per test when {@code -i} is not given and the default suite runs (netperf's floor). */
    public static final Iterations SUITE_ITERATIONS = Iterations.exactly(3);
    /** Estimated cost of a run beyond its {@code -l}: connection set-up, draining, thread start. */
    static final double RUN_OVERHEAD_SECONDS = 0.05;

    /**
     * The tests {@code jnet perf} runs without {@code -t}, in netperf's manual order (bulk transfer, then
     * request/response): every test but UDP_RR, which would take the suite past a minute and, like TCP_RR,
     * measures one round trip at a time (its UDP path is what UDP_STREAM measures).
     */
    public static final List<TestKind> DEFAULT_SUITE = List.of(TestKind.TCP_STREAM, TestKind.TCP_MAERTS,
            TestKind.TCP_SENDFILE, TestKind.UDP_STREAM, TestKind.TCP_RR, TestKind.TCP_CRR);

    public PerfPlan {
        cells = List.copyOf(cells);
        paths = List.copyOf(paths);
        notes = List.copyOf(notes);
        sysctls = Collections.unmodifiableMap(new LinkedHashMap<>(sysctls));
        Objects.requireNonNull(pathName, "pathName");
        if (cells.isEmpty()) throw new IllegalArgumentException("no tests");
        if (paths.isEmpty()) throw new IllegalArgumentException("no paths");
        if (friendsTable && !compare) throw new IllegalArgumentException("the friends table is a --compare layout");
    }

    /** A plan whose {@code --compare} reports (if any) have a column per path. */
    public PerfPlan(List<Cell> cells, List<String> paths, String pathName, Map<String, String> sysctls,
            Iterations iterations, Confidence confidence, Warmup warmup, boolean compare, List<String> notes) {
        this(cells, paths, pathName, sysctls, iterations, confidence, warmup, compare, notes, false);
    }

    /** A two-stack plan of whole tests (no sweep), no sysctls, the default warm-up. */
    public static PerfPlan of(List<TestSpec> tests, List<String> paths, String pathName, Iterations iterations,
            Confidence confidence) {
        return new PerfPlan(tests.stream().map(t -> new Cell(t, -1)).toList(), paths, pathName, Map.of(), iterations,
                confidence, Warmup.DEFAULT, false, List.of());
    }

    /** The specs of the cells in order. */
    public List<TestSpec> tests() {
        return cells.stream().map(Cell::spec).toList();
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

    /**
     * The estimated wall time in seconds: per cell and path that applies, the warm-up budget (the whole one
     * for a path's first cell, a quarter later) and {@code pairs} runs of {@code -l} plus
     * {@value #RUN_OVERHEAD_SECONDS} s.
     *
     * @param pairs  pairs per cell: {@code iterations.min()} for the expected time, {@code max()} for the most
     * @param runs   for a cell, how many paths can run it
     */
    public double estimateSeconds(int pairs, java.util.function.ToIntFunction<Cell> runs) {
        double total = 0;
        boolean first = true;
        for (Cell c : cells) {
            int lanes = runs.applyAsInt(c);
            total += lanes * (warmup.budgetSeconds(first)
                    + pairs * (c.spec().durationSeconds() + RUN_OVERHEAD_SECONDS));
            first = false;
        }
        return total;
    }
}
