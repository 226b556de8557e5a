package io.jnet.link.impair;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * Parsing and printing of the value forms of {@link ImpairmentConfig}: probabilities ({@code 2%},
 * {@code 0.02}), durations ({@code 5ms}, {@code 250us}, {@code 1.5s}), bit rates with tc's decimal units
 * ({@code 100mbit}) and counts. Printing yields the shortest exact form, so a printed value parses back
 * to the same number.
 */
final class ConfigText {
    /** Longest accepted delay, jitter or hold: one hour in ns (larger values are surely mistakes). */
    static final long MAX_NANOS = 3_600_000_000_000L;

    private ConfigText() {}

    /** {@code 2%} or {@code 0.02} to 0.02; must lie in [0, 1]. */
    static double parseProbability(String key, String text) {
        boolean percent = text.endsWith("%");
        BigDecimal v = decimal(key, text, percent ? text.substring(0, text.length() - 1) : text,
                "a probability such as 2% or 0.02");
        if (percent) v = v.movePointLeft(2);
        if (v.signum() < 0 || v.compareTo(BigDecimal.ONE) > 0) {
            throw bad(key, text, "a probability must lie between 0% and 100%");
        }
        return v.doubleValue();
    }

    /** 0.02 to {@code 2%}. */
    static String formatProbability(double p) {
        return plain(BigDecimal.valueOf(p).movePointRight(2)) + "%";
    }

    /** {@code 5ms}, {@code 250us}, {@code 100ns}, {@code 1.5s} or {@code 0} to nanoseconds; at most one hour. */
    static long parseNanos(String key, String text) {
        String t = text.toLowerCase(Locale.ROOT);
        long unit;
        String num;
        if (t.endsWith("ns")) { unit = 1; num = t.substring(0, t.length() - 2); }
        else if (t.endsWith("us")) { unit = 1_000; num = t.substring(0, t.length() - 2); }
        else if (t.endsWith("ms")) { unit = 1_000_000; num = t.substring(0, t.length() - 2); }
        else if (t.endsWith("s")) { unit = 1_000_000_000; num = t.substring(0, t.length() - 1); }
        else if (isZero(t)) { return 0; }
        else throw bad(key, text, "a duration needs a unit: ns, us, ms or s (e.g. 5ms)");
        BigDecimal v = decimal(key, text, num, "a duration such as 5ms").multiply(BigDecimal.valueOf(unit));
        if (v.signum() < 0) throw bad(key, text, "a duration cannot be negative");
        if (v.compareTo(BigDecimal.valueOf(MAX_NANOS)) > 0) throw bad(key, text, "at most 1 hour");
        try {
            return v.setScale(0, RoundingMode.UNNECESSARY).longValueExact();
        } catch (ArithmeticException e) {
            throw bad(key, text, "finer than a nanosecond");
        }
    }

    /** Nanoseconds in the largest unit that keeps them whole: {@code 5ms}, {@code 1500us}, {@code 0}. */
    static String formatNanos(long ns) {
        if (ns == 0) return "0";
        if (ns % 1_000_000_000L == 0) return ns / 1_000_000_000L + "s";
        if (ns % 1_000_000L == 0) return ns / 1_000_000L + "ms";
        if (ns % 1_000L == 0) return ns / 1_000L + "us";
        return ns + "ns";
    }

    /** Nanoseconds as milliseconds for reports: {@code 5ms}, {@code 5.213ms} (rounded to microseconds). */
    static String formatMillis(long ns) {
        return plain(BigDecimal.valueOf(ns).movePointLeft(6).setScale(3, RoundingMode.HALF_EVEN)) + "ms";
    }

    /** tc's rate units, decimal: {@code bit}, {@code kbit}, {@code mbit}, {@code gbit}; or {@code 0}. Returns bits/s. */
    static long parseRate(String key, String text) {
        String t = text.toLowerCase(Locale.ROOT);
        long unit;
        String num;
        if (t.endsWith("gbit")) { unit = 1_000_000_000L; num = t.substring(0, t.length() - 4); }
        else if (t.endsWith("mbit")) { unit = 1_000_000L; num = t.substring(0, t.length() - 4); }
        else if (t.endsWith("kbit")) { unit = 1_000L; num = t.substring(0, t.length() - 4); }
        else if (t.endsWith("bit")) { unit = 1L; num = t.substring(0, t.length() - 3); }
        else if (isZero(t)) { return 0; }
        else throw bad(key, text, "a rate needs a unit: bit, kbit, mbit or gbit per second (e.g. 100mbit)");
        BigDecimal v = decimal(key, text, num, "a rate such as 100mbit").multiply(BigDecimal.valueOf(unit));
        if (v.signum() < 0) throw bad(key, text, "a rate cannot be negative");
        if (v.compareTo(BigDecimal.valueOf(1_000_000_000_000L)) > 0) throw bad(key, text, "at most 1000gbit");
        try {
            return v.setScale(0, RoundingMode.UNNECESSARY).longValueExact();
        } catch (ArithmeticException e) {
            throw bad(key, text, "finer than 1 bit/s");
        }
    }

    /** Bits per second in the largest unit that keeps them whole: {@code 100mbit}, {@code 1500kbit}. */
    static String formatRate(long bitsPerSecond) {
        if (bitsPerSecond == 0) return "0";
        if (bitsPerSecond % 1_000_000_000L == 0) return bitsPerSecond / 1_000_000_000L + "gbit";
        if (bitsPerSecond % 1_000_000L == 0) return bitsPerSecond / 1_000_000L + "mbit";
        if (bitsPerSecond % 1_000L == 0) return bitsPerSecond / 1_000L + "kbit";
        return bitsPerSecond + "bit";
    }

    /** A decimal integer in [min, max]. */
    static long parseLong(String key, String text, long min, long max) {
        long v;
        try {
            v = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw bad(key, text, "expected a whole number");
        }
        if (v < min || v > max) throw bad(key, text, "must lie between " + min + " and " + max);
        return v;
    }

    static IllegalArgumentException bad(String key, String text, String why) {
        return new IllegalArgumentException("bad impairment '" + key + "=" + text + "': " + why);
    }

    private static BigDecimal decimal(String key, String text, String num, String expected) {
        // BigDecimal would accept exponents and '+'; allow plain decimals only (a minus is reported by the caller)
        if (!num.matches("-?(\\d+(\\.\\d*)?|\\.\\d+)")) throw bad(key, text, "expected " + expected);
        return new BigDecimal(num);
    }

    private static boolean isZero(String t) {
        return t.matches("0+(\\.0*)?");
    }

    private static String plain(BigDecimal v) {
        return v.signum() == 0 ? "0" : v.stripTrailingZeros().toPlainString();
    }
}
