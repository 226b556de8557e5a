package io.jnet.wire;

/** Range checks for the values of the {@code *Repr} records (IllegalArgumentException naming the field). */
final class ReprChecks {
    private ReprChecks() {}

    /** Checks that {@code v} fits in {@code bits} unsigned bits; returns it. */
    static int unsigned(String field, int v, int bits) {
        if (v < 0 || (bits < 31 && v >>> bits != 0)) {
            throw new IllegalArgumentException(field + " out of range for " + bits + " bits: " + v);
        }
        return v;
    }

    /** Checks a 48-bit MAC value. */
    static long mac(String field, long v) {
        if (v < 0 || v >>> 48 != 0) throw new IllegalArgumentException(field + " is not a 48-bit MAC: " + v);
        return v;
    }
}
