package io.jnet.perf;

import java.util.List;

/**
 * One test (at one size) measured on N paths in rotated pairs by {@link ComparisonRunner}.
 *
 * @param spec       what each run did
 * @param size       the swept size in bytes ({@code --sizes}), or -1 outside a sweep
 * @param confidence the {@code -I} request the intervals are judged against
 * @param lanes      one per path, in the order given
 * @param notes      things the reader must know (a stack not available, ...)
 * @param failure    the error that stopped the measurement, or null when it completed
 */
public record Measurement(TestSpec spec, int size, Confidence confidence, List<LaneResult> lanes, List<String> notes,
        String failure) {

    /**
     * One path's part.
     *
     * @param label         the path's label ({@code jnet} in the two-stack mode, the path id when comparing)
     * @param series        its runs, or null when it did not run (not applicable, not available)
     * @param notApplicable why the path cannot run this test, or null
     */
    public record LaneResult(String label, Series series, String notApplicable) {

        /** True when at least one run was measured. */
        public boolean measured() { return series != null && series.hasRuns(); }
    }

    public Measurement {
        lanes = List.copyOf(lanes);
        notes = List.copyOf(notes);
    }

    /** True when the measurement ran to the end without an error. */
    public boolean succeeded() { return failure == null; }

    /**
     * The per-pair ratios of the first path's figure to path {@code k}'s (netperf's FRIENDS/BASE), over the
     * pairs where both were measured: pair i's runs of both paths ran back to back, so drift between pairs
     * cancels. Empty when either has no runs or {@code k} is 0.
     */
    public List<Double> ratios(int k) {
        return k == 0 ? List.of() : ratios(0, k);
    }

    /** Median of {@link #ratios(int)}, or NaN without pairs. */
    public double ratioMedian(int k) {
        return k == 0 ? Double.NaN : ratioMedian(0, k);
    }

    /** Smallest of {@link #ratios(int)}, or NaN. */
    public double ratioMin(int k) {
        return k == 0 ? Double.NaN : ratioMin(0, k);
    }

    /** Largest of {@link #ratios(int)}, or NaN. */
    public double ratioMax(int k) {
        return k == 0 ? Double.NaN : ratioMax(0, k);
    }

    /**
     * The per-pair ratios of path {@code i}'s figure to path {@code k}'s, as {@link #ratios(int)} does for the
     * first path. Empty when either has no runs, either index is out of range, or {@code i == k}.
     */
    public List<Double> ratios(int i, int k) {
        if (i == k || i < 0 || k < 0 || i >= lanes.size() || k >= lanes.size()) return List.of();
        Series num = lanes.get(i).series();
        Series den = lanes.get(k).series();
        if (num == null || den == null) return List.of();
        int n = Math.min(num.runs().size(), den.runs().size());
        if (n == 0) return List.of();
        return Stats.ratios(num.values().subList(0, n), den.values().subList(0, n));
    }

    /** Median of {@link #ratios(int, int)}, or NaN without pairs. */
    public double ratioMedian(int i, int k) {
        List<Double> r = ratios(i, k);
        return r.isEmpty() ? Double.NaN : Stats.median(r);
    }

    /** Smallest of {@link #ratios(int, int)}, or NaN. */
    public double ratioMin(int i, int k) {
        List<Double> r = ratios(i, k);
        return r.isEmpty() ? Double.NaN : Stats.min(r);
    }

    /** Largest of {@link #ratios(int, int)}, or NaN. */
    public double ratioMax(int i, int k) {
        List<Double> r = ratios(i, k);
        return r.isEmpty() ? Double.NaN : Stats.max(r);
    }
}
