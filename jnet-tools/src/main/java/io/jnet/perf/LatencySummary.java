package io.jnet.perf;

import org.HdrHistogram.Histogram;

/**
 * Transaction latency of a series in microseconds: shortest, 10th percentile, median, mean (the reciprocal
 * of the rate, per connection), 99th percentile and longest.
 */
public record LatencySummary(double min, double p10, double p50, double mean, double p99, double max) {

    /** Summarises {@code h} (nanoseconds); null when it is null or empty. */
    static LatencySummary of(Histogram h) {
        if (h == null || h.getTotalCount() == 0) return null;
        return new LatencySummary(h.getMinValue() / 1000.0, h.getValueAtPercentile(10) / 1000.0,
                h.getValueAtPercentile(50) / 1000.0, h.getMean() / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                h.getMaxValue() / 1000.0);
    }
}
