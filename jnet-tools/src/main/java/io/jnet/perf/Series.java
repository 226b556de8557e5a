package io.jnet.perf;

import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * The runs of one stack in one comparison.
 *
 * @param stack       stack name ({@code jnet}, {@code kernel})
 * @param description where its traffic went ({@link PerfPath#description()})
 * @param warmup      the warm-up run, not counted; null if it failed
 * @param runs        the measured runs in order
 */
public record Series(String stack, String description, RunResult warmup, List<RunResult> runs) {

    public Series {
        runs = List.copyOf(runs);
    }

    /** The figures of merit of the measured runs, in order. */
    public List<Double> values() {
        return runs.stream().map(RunResult::value).toList();
    }

    /** True when at least one run was measured. */
    public boolean hasRuns() { return !runs.isEmpty(); }

    /** Median figure of merit. */
    public double median() { return Stats.median(values()); }

    /** Median elapsed seconds. */
    public double medianElapsedSeconds() {
        return Stats.median(runs.stream().map(RunResult::elapsedSeconds).toList());
    }

    /** Confidence interval of the mean figure of merit, or null with fewer than two runs. */
    public ConfidenceInterval interval(Confidence confidence) {
        return runs.size() < 2 ? null : ConfidenceInterval.of(values(), confidence.level());
    }

    /** Socket sizes of the first measured run. */
    public SocketSizes sizes() {
        return runs.isEmpty() ? SocketSizes.UNKNOWN : runs.getFirst().sizes();
    }

    /** Transaction latencies of all measured runs together (nanoseconds), or null for stream tests. */
    public Histogram latency() {
        Histogram all = null;
        for (RunResult r : runs) {
            if (r.latencyNanos() == null) continue;
            if (all == null) all = new Histogram(3);
            all.add(r.latencyNanos());
        }
        return all;
    }

    /** The latency figures of all measured runs together, or null for stream tests (or when none was recorded). */
    public LatencySummary latencySummary() {
        return LatencySummary.of(latency());
    }
}
