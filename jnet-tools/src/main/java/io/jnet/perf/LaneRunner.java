package io.jnet.perf;

/**
 * One path ("lane") of a measurement as {@link ComparisonRunner} sees it: something that runs a test on the
 * path and says what it measured, wherever the path lives, in this JVM ({@link InProcessLane}) or in a JVM of
 * its own ({@link ChildJvmLane}).
 *
 * <p>A lane serves many runs, one at a time, for as long as it is open.
 */
public interface LaneRunner extends AutoCloseable {

    /**
     * Runs {@code spec} once on the lane's path ({@link PerfTest#run}).
     *
     * @throws StackUnavailableException when the path's stack cannot open sockets at all
     * @throws PerfException             when the run fails (a socket error, a count mismatch, a hang), or when
     *                                   the lane's own JVM died or stopped answering
     */
    RunResult run(TestSpec spec) throws PerfException;

    /**
     * Why the lane can run nothing more (its JVM died or was killed after a failed run), or null while it can:
     * later measurements leave it out with this as a note instead of failing at once.
     */
    default String lost() { return null; }

    /** Where the lane's traffic goes ({@link PerfPath#description()}), for report headings. */
    String description();

    /** Releases the path and whatever holds it (a JVM); never throws; idempotent. */
    @Override
    void close();
}
