package io.jnet.perf.plot;

/**
 * One measurement on a size chart.
 *
 * @param sizeBytes the message size in bytes, at least 1 (the x axis is logarithmic)
 * @param value     the figure at that size in the chart's unit (10^6 bits/s, transactions/s...); NaN or an
 *                  infinity for a size that does not apply or whose run failed: such a point is not drawn
 */
public record Point(long sizeBytes, double value) {

    /** @throws IllegalArgumentException if {@code sizeBytes} is below 1 */
    public Point {
        if (sizeBytes < 1) throw new IllegalArgumentException("message size must be at least 1 byte: " + sizeBytes);
    }

    /** True when the point is drawn: its value is finite. */
    public boolean drawn() {
        return Double.isFinite(value);
    }
}
