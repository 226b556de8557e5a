package io.jnet.perf.plot;

import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.Locale;

/**
 * Formats a byte count with binary prefixes for the size axis: {@code 64 B}, {@code 1 KiB}, {@code 1.5 MiB}
 * (IEC 80000-13 prefixes, powers of 1024). Whole multiples print without decimals, others with one.
 */
final class ByteSizeFormat extends NumberFormat {

    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

    /** The label of {@code bytes}, e.g. {@code 16 KiB}. */
    static String label(double bytes) {
        double v = bytes;
        int u = 0;
        while (Math.abs(v) >= 1024 && u < UNITS.length - 1) {
            v /= 1024;
            u++;
        }
        double rounded = Math.rint(v);
        String number = Math.abs(v - rounded) < 1e-9 ? Long.toString((long) rounded)
                : String.format(Locale.ROOT, "%.1f", v);
        return number + " " + UNITS[u];
    }

    @Override
    public StringBuffer format(double number, StringBuffer toAppendTo, FieldPosition pos) {
        return toAppendTo.append(label(number));
    }

    @Override
    public StringBuffer format(long number, StringBuffer toAppendTo, FieldPosition pos) {
        return toAppendTo.append(label(number));
    }

    /** Not parsed back: axis labels only. */
    @Override
    public Number parse(String source, ParsePosition parsePosition) {
        return null;
    }
}
