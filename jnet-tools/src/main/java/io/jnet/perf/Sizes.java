package io.jnet.perf;

import java.util.ArrayList;
import java.util.List;

/** The message sizes of a {@code --compare} table: {@code --sizes LIST} or {@code --sweep}. */
public final class Sizes {
    private Sizes() {}

    /** Largest size of {@link #sweep()}: 1 MiB, as in the netperf tables of the TCP friends patches. */
    public static final int SWEEP_MAX = 1 << 20;

    /** Powers of two from 1 byte to {@value #SWEEP_MAX} bytes: 1, 2, 4, ..., 1048576 (21 sizes). */
    public static List<Integer> sweep() {
        List<Integer> out = new ArrayList<>();
        for (int s = 1; s <= SWEEP_MAX; s <<= 1) out.add(s);
        return out;
    }

    /**
     * Parses a comma-separated list of sizes with netperf's suffixes, as {@code -m} takes them
     * ({@code 1,64,1K,64K,1M}), in the order given.
     *
     * @throws IllegalArgumentException for an empty list or item, a malformed size, one below 1 byte or
     *     above 1G, or a size given twice
     */
    public static List<Integer> parse(String list) {
        List<Integer> out = new ArrayList<>();
        for (String item : list.split(",", -1)) {
            if (item.isBlank()) throw new IllegalArgumentException("--sizes: empty size in '" + list + "'");
            int size = NetperfArgs.bufferSize("--sizes", item);
            if (out.contains(size)) throw new IllegalArgumentException("--sizes: " + item.trim() + " given twice");
            out.add(size);
        }
        return out;
    }
}
