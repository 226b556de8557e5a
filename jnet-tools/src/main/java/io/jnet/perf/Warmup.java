package io.jnet.perf;

/**
 * How long each path runs a test, unmeasured, before the first measured pair: until the JIT has compiled
 * the hot paths, which a single run does not reach (jnet's first run used to come in at a quarter of its
 * steady rate). A path runs short warm-up runs of the test until the rate stops rising (a run less than
 * {@value #RISE_PERCENT}% above the best so far, after at least two runs) or its budget is spent; the budget
 * counts from the end of the first run, which in a fresh JVM is mostly class loading and interpretation.
 *
 * <p>The budget is per path: {@code firstSeconds} for the first test (or size) a path runs in an
 * invocation, when nothing of it is compiled yet; a quarter of that for every later one, where the shared
 * code is warm and only the test's own paths are new.
 *
 * @param firstSeconds budget of a path's first test, 0 for no warm-up at all
 */
public record Warmup(double firstSeconds) {

    /** The default {@code --warmup}: 1 s per path (2 s for two stacks) on the first test, 0.25 s later. */
    public static final Warmup DEFAULT = new Warmup(1.0);
    /** No warm-up runs. */
    public static final Warmup NONE = new Warmup(0);
    /** A run less than this many percent above the best run so far ends the warm-up. */
    public static final double RISE_PERCENT = 3;
    /** Shortest warm-up run in seconds. */
    public static final double MIN_RUN_SECONDS = 0.1;

    public Warmup {
        if (!(firstSeconds >= 0) || firstSeconds > 3600) {
            throw new IllegalArgumentException("--warmup must be between 0 and 3600 seconds: " + firstSeconds);
        }
    }

    /** The budget in seconds of a path's first test ({@code first}) or of a later one. */
    public double budgetSeconds(boolean first) {
        return first ? firstSeconds : firstSeconds / 4;
    }

    /** Length of each warm-up run within {@code budget}: a quarter of it, at least 0.1 s, at most {@code -l}. */
    public static double runSeconds(double budget, double testSeconds) {
        return Math.min(testSeconds, Math.max(MIN_RUN_SECONDS, budget / 4));
    }

    /** True when {@code value} is still rising: more than {@value #RISE_PERCENT}% above {@code best}. */
    public static boolean rising(double value, double best) {
        return value > best * (1 + RISE_PERCENT / 100);
    }
}
