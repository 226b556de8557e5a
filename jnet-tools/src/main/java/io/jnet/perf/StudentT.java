package io.jnet.perf;

/**
 * Student's t distribution: its cumulative distribution function and quantiles, computed from the
 * regularized incomplete beta function (continued fraction by the modified Lentz method, log-gamma by the
 * Lanczos approximation). Accurate to about 1e-10, far beyond what confidence intervals need.
 */
public final class StudentT {
    private StudentT() {}

    /**
     * P(T &lt;= t) for {@code df} degrees of freedom.
     *
     * @throws IllegalArgumentException if {@code df <= 0}
     */
    public static double cdf(double t, double df) {
        requireDf(df);
        double x = df / (df + t * t);
        double tail = 0.5 * regularizedBeta(x, df / 2, 0.5);
        return t >= 0 ? 1 - tail : tail;
    }

    /**
     * The value {@code t} with P(T &lt;= t) = {@code p}, e.g. {@code quantile(0.975, 4) = 2.776}.
     *
     * @param p probability in (0, 1)
     * @throws IllegalArgumentException if {@code p} is outside (0, 1) or {@code df <= 0}
     */
    public static double quantile(double p, double df) {
        requireDf(df);
        if (!(p > 0 && p < 1)) throw new IllegalArgumentException("probability must be in (0,1): " + p);
        if (p < 0.5) return -quantile(1 - p, df);
        if (p == 0.5) return 0;
        double lo = 0;
        double hi = 1;
        while (cdf(hi, df) < p) {
            lo = hi;
            hi *= 2;
        }
        for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
            double mid = (lo + hi) / 2;
            if (cdf(mid, df) < p) lo = mid;
            else hi = mid;
        }
        return (lo + hi) / 2;
    }

    /**
     * The two-sided critical value for a confidence level: {@code quantile(1 - (1 - level) / 2, df)}.
     *
     * @param level confidence level as a fraction, e.g. 0.99
     */
    public static double critical(double level, double df) {
        if (!(level > 0 && level < 1)) throw new IllegalArgumentException("confidence level must be in (0,1): " + level);
        return quantile(1 - (1 - level) / 2, df);
    }

    private static void requireDf(double df) {
        if (!(df > 0)) throw new IllegalArgumentException("degrees of freedom must be positive: " + df);
    }

    /** I_x(a, b), the regularized incomplete beta function. */
    static double regularizedBeta(double x, double a, double b) {
        if (x <= 0) return 0;
        if (x >= 1) return 1;
        double lnFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
        double front = Math.exp(lnFront);
        if (x < (a + 1) / (a + b + 2)) {
            return front * betaContinuedFraction(x, a, b) / a;
        }
        return 1 - front * betaContinuedFraction(1 - x, b, a) / b;
    }

    private static double betaContinuedFraction(double x, double a, double b) {
        final double tiny = 1e-300;
        final double eps = 1e-15;
        double qab = a + b;
        double qap = a + 1;
        double qam = a - 1;
        double c = 1;
        double d = 1 - qab * x / qap;
        if (Math.abs(d) < tiny) d = tiny;
        d = 1 / d;
        double h = d;
        for (int m = 1; m <= 10_000; m++) {
            int m2 = 2 * m;
            double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
            d = 1 + aa * d;
            if (Math.abs(d) < tiny) d = tiny;
            c = 1 + aa / c;
            if (Math.abs(c) < tiny) c = tiny;
            d = 1 / d;
            h *= d * c;
            aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
            d = 1 + aa * d;
            if (Math.abs(d) < tiny) d = tiny;
            c = 1 + aa / c;
            if (Math.abs(c) < tiny) c = tiny;
            d = 1 / d;
            double del = d * c;
            h *= del;
            if (Math.abs(del - 1) < eps) break;
        }
        return h;
    }

    private static final double[] LANCZOS = {
        0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
        -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
        1.5056327351493116e-7
    };

    /** ln Γ(x) for x &gt; 0 (Lanczos, g = 7, n = 9). */
    static double logGamma(double x) {
        if (x < 0.5) {
            return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
        }
        double z = x - 1;
        double sum = LANCZOS[0];
        double t = z + 7.5;
        for (int i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i] / (z + i);
        return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
    }
}
