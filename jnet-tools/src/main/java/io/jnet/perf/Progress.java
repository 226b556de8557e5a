package io.jnet.perf;

/**
 * Hears about every run as it starts and ends, for a progress line ({@link ProgressMeter}). Every method
 * defaults to doing nothing.
 */
public interface Progress {

    /** Ignores everything. */
    Progress NONE = new Progress() {};

    /**
     * One run about to start or just finished.
     *
     * @param kind     the test
     * @param size     the size being swept ({@code --sizes}), or -1 outside a sweep
     * @param lane     the path's label ({@code jnet}, {@code kernel:unix})
     * @param pair     1-based pair number, 0 for a warm-up run
     * @param maxPairs the most pairs this test may take ({@code -i max})
     * @param extra    true for a pair beyond {@code -i min}, which the estimate did not count
     * @param seconds  the run's length ({@code -l}, or the warm-up run's)
     * @param alone    true when this lane is the only one measured, so a "pair" is one run
     */
    record Run(TestKind kind, int size, String lane, int pair, int maxPairs, boolean extra, double seconds, boolean alone) {

        /** A run of a lane measured with others. */
        public Run(TestKind kind, int size, String lane, int pair, int maxPairs, boolean extra, double seconds) {
            this(kind, size, lane, pair, maxPairs, extra, seconds, false);
        }

        /**
         * E.g. {@code TCP_RR kernel pair 2/5}, {@code TCP_RR jnet run 2/5} when the lane runs alone, or
         * {@code TCP_STREAM jnet:loopback warm-up}, with the size when swept.
         */
        public String describe() {
            String what = pair == 0 ? "warm-up" : (alone ? "run " : "pair ") + pair + "/" + maxPairs;
            return kind + " " + lane + " " + what + (size >= 0 ? " size " + size : "");
        }
    }

    /** A run is about to start. */
    default void starting(Run run) {}

    /** A run finished with {@code value} in the test's unit. */
    default void finished(Run run, double value) {}

    /** A run could not start or failed. */
    default void failed(Run run, String why) {}

    /** Clears any line drawn in place, before results go to the same terminal. */
    default void clear() {}
}
