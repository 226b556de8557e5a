package io.jnet.perf;

import java.util.List;

/**
 * One test run on two stacks in alternating pairs: the candidate (jnet) against the reference (kernel).
 *
 * @param spec        what each run did
 * @param path        the path name asked for ({@code loopback}, {@code veth})
 * @param confidence  the {@code -I} request the intervals are judged against
 * @param candidate   the candidate's runs, or null when that stack was not available
 * @param reference   the reference's runs, or null when that stack was not run
 * @param notes       things the reader must know (stack not available, ...)
 * @param failure     the error that stopped the comparison, or null when it completed
 */
public record Comparison(TestSpec spec, String path, Confidence confidence, Series candidate, Series reference,
        List<String> notes, String failure) {

    public Comparison {
        notes = List.copyOf(notes);
    }

    /** True when the comparison ran to the end without an error. */
    public boolean succeeded() { return failure == null; }

    /** The series that have measured runs, candidate first. */
    public List<Series> measured() {
        return java.util.stream.Stream.of(candidate, reference).filter(s -> s != null && s.hasRuns()).toList();
    }

    /** Per-pair ratios candidate/reference over the pairs where both were measured; empty if there are none. */
    public List<Double> ratios() {
        if (candidate == null || reference == null) return List.of();
        int n = Math.min(candidate.runs().size(), reference.runs().size());
        if (n == 0) return List.of();
        return Stats.ratios(candidate.values().subList(0, n), reference.values().subList(0, n));
    }

    /** True when {@code s} ran and its confidence interval is no wider than asked. */
    public boolean confidenceMet(Series s) {
        ConfidenceInterval ci = s == null ? null : s.interval(confidence);
        return ci != null && confidence.isMet(ci);
    }

    /** Median of the per-pair ratios, or NaN without pairs. */
    public double ratioMedian() {
        List<Double> r = ratios();
        return r.isEmpty() ? Double.NaN : Stats.median(r);
    }

    /** Smallest per-pair ratio, or NaN. */
    public double ratioMin() {
        List<Double> r = ratios();
        return r.isEmpty() ? Double.NaN : Stats.min(r);
    }

    /** Largest per-pair ratio, or NaN. */
    public double ratioMax() {
        List<Double> r = ratios();
        return r.isEmpty() ? Double.NaN : Stats.max(r);
    }
}
