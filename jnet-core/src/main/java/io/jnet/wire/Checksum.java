package io.jnet.wire;

/**
 * The Internet checksum (RFC 1071): the 16-bit one's complement of the one's complement sum of
 * 16-bit big-endian words, plus incremental update (RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m')).
 *
 * <p>{@link #sum} returns an unfolded partial sum (a long) that can be chained over several ranges
 * (pseudo-header, header, payload); {@link #fold} turns it into the final 16-bit checksum value.
 * A range of odd length is padded with a zero byte, so only the last range of a chain may be odd.
 */
public final class Checksum {
    private static final java.lang.invoke.VarHandle LONG_BE =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);

    private Checksum() {}

    /** Adds the 16-bit words of {@code b[off, off+len)} to {@code initial}; returns the unfolded sum. */
    public static long sum(byte[] b, int off, int len, long initial) {
        long s = initial;
        int i = off;
        int end = off + len;
        // 8 bytes at a time as two 32-bit big-endian words: 2^16 = 1 (mod 0xFFFF), so summing 32-bit
        // words and folding later gives the 16-bit one's complement sum (RFC 1071 2.(B), deferred carries)
        while (end - i >= 8) {
            long v = (long) LONG_BE.get(b, i);
            s += (v >>> 32) + (v & 0xFFFFFFFFL);
            i += 8;
        }
        while (end - i >= 2) {
            s += (b[i] & 0xFF) << 8 | (b[i + 1] & 0xFF);
            i += 2;
        }
        if (i < end) s += (b[i] & 0xFF) << 8;
        return s;
    }

    /** Folds a partial sum to 16 bits and complements it: the value to put in a checksum field. */
    public static int fold(long sum) {
        sum = (sum & 0xFFFFFFFFL) + (sum >>> 32);
        sum = (sum & 0xFFFFFFFFL) + (sum >>> 32);
        while ((sum >>> 16) != 0) sum = (sum & 0xFFFF) + (sum >>> 16);
        return (int) (~sum & 0xFFFF);
    }

    /** The checksum of one range. */
    public static int compute(byte[] b, int off, int len) { return fold(sum(b, off, len, 0)); }

    /** True when a range that includes its checksum field sums to 0xFFFF (checksum verifies). */
    public static boolean verify(byte[] b, int off, int len, long initial) { return fold(sum(b, off, len, initial)) == 0; }

    /**
     * Partial sum of the IPv4 pseudo-header (RFC 793 / 768): source, destination, zero, protocol, length.
     *
     * @param src source address (host int holding the network-order value)
     * @param dst destination address
     * @param protocol IP protocol number
     * @param length transport header + payload length in bytes
     */
    public static long pseudoHeaderSum(int src, int dst, int protocol, int length) {
        return (src >>> 16) + (src & 0xFFFF) + (dst >>> 16) + (dst & 0xFFFF) + protocol + length;
    }

    /**
     * Incremental update (RFC 1624 eqn. 3) of checksum {@code hc} when a 16-bit field changes from
     * {@code oldWord} to {@code newWord}.
     */
    public static int update16(int hc, int oldWord, int newWord) {
        long s = (~hc & 0xFFFF) + (~oldWord & 0xFFFF) + (newWord & 0xFFFF);
        return fold(s);
    }

    /** Incremental update for a 32-bit field (e.g. an address). */
    public static int update32(int hc, int oldValue, int newValue) {
        long s = (~hc & 0xFFFF) + (~(oldValue >>> 16) & 0xFFFF) + (~oldValue & 0xFFFF)
                + (newValue >>> 16) + (newValue & 0xFFFF);
        return fold(s);
    }
}
