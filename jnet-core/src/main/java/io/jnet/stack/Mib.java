package io.jnet.stack;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The MIB counters of one jnet namespace ({@link MibCounter}); lock-free, safe from any thread.
 * TcpCurrEstab is a gauge (incremented and decremented).
 *
 * <p>As Linux keeps its SNMP MIBs per CPU ({@code SNMP_INC_STATS}, {@code this_cpu_inc}) and sums them when
 * read, each counter is split over a few stripes, and a thread increments the stripe its id selects: two threads
 * counting the same counter at once (a router's IpInReceives and IpForwDatagrams, counted by the thread of
 * each direction, since veth delivers in the sender's thread) do not pull one cache line between their cores.
 * Each stripe holds every counter and is padded so that no two stripes share a 64-byte line; a read sums the
 * stripes, so a counter read while others count is a value it had at some moment or later, never lower than an
 * earlier read (the gauge, which also falls, is kept in one stripe).
 */
public final class Mib {
    private static final MibCounter[] ALL = MibCounter.values();
    /** Longs per stripe: every counter, rounded up to whole 64-byte lines, plus a line between stripes. */
    private static final int STRIPE = ((ALL.length + 7) & ~7) + 8;
    /** Stripes: twice the processors (so threads on different cores rarely share one), a power of two, 2 to 16. */
    private static final int STRIPES =
            Math.min(16, Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors())) * 2);
    private final AtomicLongArray values = new AtomicLongArray(STRIPE * STRIPES);
    /** Per counter, a part of its value still accruing (a duration going on), or null: see {@link #addLive}. */
    private final java.util.function.LongSupplier[] live = new java.util.function.LongSupplier[ALL.length];

    /** The slot of {@code c} in the calling thread's stripe. */
    private static int slot(MibCounter c) {
        if (c == MibCounter.TcpCurrEstab) return c.ordinal(); // a gauge: one stripe, so a read never sees it below 0
        return ((int) Thread.currentThread().threadId() & (STRIPES - 1)) * STRIPE + c.ordinal();
    }

    public void inc(MibCounter c) { values.getAndIncrement(slot(c)); }

    public void add(MibCounter c, long n) { values.getAndAdd(slot(c), n); }

    public void dec(MibCounter c) { values.getAndDecrement(slot(c)); }

    /**
     * Adds {@code source} to what {@link #get} reads for {@code c}: the part of a duration counter still accruing
     * (TcpExtTCPMemoryPressuresChrono while under pressure), which is added to the counter itself when it ends.
     */
    public void addLive(MibCounter c, java.util.function.LongSupplier source) {
        live[c.ordinal()] = java.util.Objects.requireNonNull(source);
    }

    /** The counter's value: the sum of its stripes (plus what is still accruing, see {@link #addLive}). */
    public long get(MibCounter c) {
        java.util.function.LongSupplier l = live[c.ordinal()];
        long sum = l == null ? 0 : l.getAsLong();
        for (int s = 0, i = c.ordinal(); s < STRIPES; s++, i += STRIPE) sum += values.get(i);
        return sum;
    }

    /** Value by Linux name, e.g. {@code get("TcpRetransSegs")}; throws IllegalArgumentException for an unknown name. */
    public long get(String name) { return get(MibCounter.valueOf(name)); }

    /** A snapshot of every counter. */
    public Map<MibCounter, Long> snapshot() {
        Map<MibCounter, Long> m = new EnumMap<>(MibCounter.class);
        for (MibCounter c : ALL) m.put(c, get(c));
        return m;
    }

    /** Prints non-zero counters as {@code nstat} does: NAME VALUE per line. */
    public String toNstatString() {
        StringBuilder sb = new StringBuilder();
        for (MibCounter c : ALL) {
            long v = get(c);
            if (v != 0) sb.append(String.format("%-32s %d%n", c.name(), v));
        }
        return sb.toString();
    }
}
