package io.jnet.stack;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The MIB counters of one jnet namespace ({@link MibCounter}); lock-free, safe from any thread.
 * TcpCurrEstab is a gauge (incremented and decremented).
 */
public final class Mib {
    private static final MibCounter[] ALL = MibCounter.values();
    private final AtomicLongArray values = new AtomicLongArray(ALL.length * 8); // spread over cache lines

    private static int slot(MibCounter c) { return c.ordinal() * 8; }

    public void inc(MibCounter c) { values.getAndIncrement(slot(c)); }

    public void add(MibCounter c, long n) { values.getAndAdd(slot(c), n); }

    public void dec(MibCounter c) { values.getAndDecrement(slot(c)); }

    public long get(MibCounter c) { return values.get(slot(c)); }

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
