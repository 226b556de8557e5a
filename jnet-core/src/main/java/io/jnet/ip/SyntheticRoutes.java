package io.jnet.ip;

import io.jnet.wire.Ipv4;
import java.util.SplittableRandom;

/**
 * Seeded synthetic IPv4 routing tables shaped like a public BGP table (the prefix-length histogram of
 * the default-free zone, e.g. the CIDR report / bgp.potaroo.net, 2024): /24 about 59 %, /22-/23 about
 * 20 %, /16-/21 about 19 %, /8-/15 about 1 %, /25-/32 about 0.3 %. Prefixes are uniform over the
 * unicast space 1.0.0.0-223.255.255.255 without 10/8 and 127/8, masked to their length and
 * distinct; the same seed and count always give the same prefixes in the same order. Real tables
 * cluster more (fewer distinct /18s), so trie figures measured with these tables are on the heavy side.
 */
public final class SyntheticRoutes {
    private SyntheticRoutes() {}

    /** Weights (per 100,000) of prefix lengths 0..32. */
    private static final int[] WEIGHTS = new int[33];

    static {
        int[][] w = {
            {8, 2}, {9, 5}, {10, 10}, {11, 20}, {12, 60}, {13, 120}, {14, 250}, {15, 400},
            {16, 1500}, {17, 1000}, {18, 2000}, {19, 4000}, {20, 5000}, {21, 5500},
            {22, 10500}, {23, 9500},
            {24, 59833},
            {25, 60}, {26, 60}, {27, 50}, {28, 40}, {29, 40}, {30, 30}, {31, 5}, {32, 15},
        };
        int sum = 0;
        for (int[] x : w) {
            WEIGHTS[x[0]] = x[1];
            sum += x[1];
        }
        if (sum != 100_000) throw new AssertionError("weights sum to " + sum);
    }

    /** Packs a prefix and its length: {@code (prefix << 8) | length}, unsigned prefix. */
    public static long pack(int prefix, int length) { return ((prefix & 0xFFFF_FFFFL) << 8) | length; }

    public static int prefixOf(long packed) { return (int) (packed >>> 8); }

    public static int lengthOf(long packed) { return (int) (packed & 0xFF); }

    /**
     * {@code n} distinct prefixes (packed, see {@link #pack}) for {@code seed}. Throws
     * IllegalArgumentException when {@code n} is negative or above 16,000,000.
     */
    public static long[] prefixes(long seed, int n) {
        if (n < 0 || n > 16_000_000) throw new IllegalArgumentException("bad prefix count: " + n);
        SplittableRandom rnd = new SplittableRandom(seed);
        long[] out = new long[n];
        int cap = Integer.highestOneBit(Math.max(4, n) * 2) << 1;
        long[] seen = new long[cap]; // open addressing, 0 = empty (a packed prefix is never 0: length >= 8)
        int mask = cap - 1;
        for (int k = 0; k < n; ) {
            int len = length(rnd.nextInt(100_000));
            int first = 1 + rnd.nextInt(223);
            if (first == 10 || first == 127) continue;
            int addr = (first << 24) | rnd.nextInt(1 << 24);
            long packed = pack(addr & Ipv4.prefixMask(len), len);
            int h = (int) ((packed * 0x9E3779B97F4A7C15L) >>> 32) & mask;
            while (seen[h] != 0 && seen[h] != packed) h = (h + 1) & mask;
            if (seen[h] == packed) continue; // duplicate: draw again, length included
            seen[h] = packed;
            out[k++] = packed;
        }
        return out;
    }

    /** An address inside the packed prefix, uniform over its host bits. */
    public static int addressIn(long packed, SplittableRandom rnd) {
        int len = lengthOf(packed);
        return prefixOf(packed) | (rnd.nextInt() & ~Ipv4.prefixMask(len));
    }

    private static int length(int draw) {
        for (int len = 0; len <= 32; len++) {
            draw -= WEIGHTS[len];
            if (draw < 0) return len;
        }
        throw new AssertionError();
    }
}
