package io.jnet.perf;

import java.util.Arrays;
import java.util.List;

/** Descriptive statistics over iteration results. */
public final class Stats {
    private Stats() {}

    /**
     * The median: the middle value, or the mean of the two middle values for an even count.
     *
     * @throws IllegalArgumentException for no values
     */
    public static double median(List<Double> values) {
        requireSome(values);
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }

    /** The arithmetic mean. */
    public static double mean(List<Double> values) {
        requireSome(values);
        double sum = 0;
        for (double x : values) sum += x;
        return sum / values.size();
    }

    /** The sample standard deviation (n - 1 in the denominator); 0 for a single value. */
    public static double sampleStdDev(List<Double> values) {
        requireSome(values);
        if (values.size() == 1) return 0;
        double m = mean(values);
        double ss = 0;
        for (double x : values) ss += (x - m) * (x - m);
        return Math.sqrt(ss / (values.size() - 1));
    }

    /** The smallest value. */
    public static double min(List<Double> values) {
        requireSome(values);
        return values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    }

    /** The largest value. */
    public static double max(List<Double> values) {
        requireSome(values);
        return values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    }

    /**
     * Element-wise {@code a[i] / b[i]}: the ratio of each pair.
     *
     * @throws IllegalArgumentException if the lists differ in length
     */
    public static List<Double> ratios(List<Double> a, List<Double> b) {
        if (a.size() != b.size()) {
            throw new IllegalArgumentException("unpaired values: " + a.size() + " vs " + b.size());
        }
        Double[] r = new Double[a.size()];
        for (int i = 0; i < r.length; i++) r[i] = a.get(i) / b.get(i);
        return Arrays.asList(r);
    }

    private static void requireSome(List<Double> values) {
        if (values.isEmpty()) throw new IllegalArgumentException("no values");
    }
}
