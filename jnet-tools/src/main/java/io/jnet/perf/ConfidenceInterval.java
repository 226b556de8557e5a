package io.jnet.perf;

import java.util.List;

/**
 * The Student-t confidence interval of a mean over iterations, the way netperf's {@code -I} judges a
 * result: {@code mean ± t(1 - (1 - level)/2, n - 1) · s / √n}, with its full width (both sides) given as a
 * percentage of the mean. netperf's {@code -I 99,5} asks for a 99% interval no wider than 5% of the mean,
 * i.e. ±2.5%.
 *
 * @param mean         the sample mean
 * @param halfWidth    t · s / √n, in the values' unit
 * @param level        confidence level as a fraction (0.95, 0.99)
 * @param samples      the number of values
 */
public record ConfidenceInterval(double mean, double halfWidth, double level, int samples) {

    /**
     * Computes the interval of {@code values}.
     *
     * @param level confidence level as a fraction (0.95 or 0.99 in netperf)
     * @throws IllegalArgumentException with fewer than two values
     */
    public static ConfidenceInterval of(List<Double> values, double level) {
        if (values.size() < 2) {
            throw new IllegalArgumentException("a confidence interval needs at least 2 values, got " + values.size());
        }
        int n = values.size();
        double t = StudentT.critical(level, n - 1);
        double half = t * Stats.sampleStdDev(values) / Math.sqrt(n);
        return new ConfidenceInterval(Stats.mean(values), half, level, n);
    }

    /** Lower bound. */
    public double low() { return mean - halfWidth; }

    /** Upper bound. */
    public double high() { return mean + halfWidth; }

    /** The full width as a percentage of the mean (netperf's "Confidence interval width"); infinite for a zero mean. */
    public double widthPercent() {
        if (mean == 0) return halfWidth == 0 ? 0 : Double.POSITIVE_INFINITY;
        return 100 * 2 * halfWidth / Math.abs(mean);
    }
}
