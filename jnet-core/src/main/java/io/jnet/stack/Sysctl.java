package io.jnet.stack;

import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/**
 * One sysctl: a Linux name, a unit, a default, bounds, and a value of one or more integers (e.g.
 * {@code net.ipv4.tcp_rmem = "4096 131072 6291456"}). Reads are a volatile load; writes validate and
 * swap the whole value atomically, so a reader on the packet path sees either the old or the new value
 * (read it once per packet).
 */
public final class Sysctl {
    private final String name;
    private final String unit;
    private final String description;
    private final int[] defaults;
    private final long min;
    private final long max;
    private final boolean ascending;
    private volatile int[] values;
    /** For a sysctl whose value is a name (unit "name"): the names, by value; null for a numeric one. */
    private final String[] names;
    /** Counts reads through {@link #intValue} and {@link #enabled} while set ({@link #countReads}); null normally. */
    private volatile LongAdder reads;
    private final java.util.List<Runnable> writeListeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    Sysctl(String name, String unit, String description, long min, long max, boolean ascending, int... defaults) {
        this(name, unit, description, min, max, ascending, null, defaults);
    }

    /** A sysctl whose single value is one of {@code names} (written and printed as the name; value = its index). */
    Sysctl(String name, String description, String[] names, int def) {
        this(name, "name", description, 0, names.length - 1, false, names.clone(), def);
    }

    private Sysctl(String name, String unit, String description, long min, long max, boolean ascending, String[] names,
                   int... defaults) {
        this.names = names;
        this.name = name;
        this.unit = unit;
        this.description = description;
        this.min = min;
        this.max = max;
        this.ascending = ascending;
        this.defaults = defaults.clone();
        this.values = defaults.clone();
    }

    public String name() { return name; }
    /** Unit of the values: "bytes", "seconds", "ms", "us", "boolean", "count", "port", "enum", "name". */
    public String unit() { return unit; }
    public String description() { return description; }
    public int arity() { return defaults.length; }

    /** The first (or only) value. */
    public int intValue() {
        countRead();
        return values[0];
    }

    /** Value {@code i} of a multi-value sysctl (e.g. tcp_rmem min/default/max). */
    public int intValue(int i) {
        countRead();
        return values[i];
    }

    public boolean enabled() {
        countRead();
        return values[0] != 0;
    }

    private void countRead() {
        LongAdder r = reads;
        if (r != null) r.increment();
    }

    /**
     * Starts counting the reads of this sysctl's value ({@link #intValue}, {@link #enabled}) from any thread, for
     * tests that check a packet path reads a switch once per packet; {@link #stopCountingReads} ends it.
     *
     * @return the counter, from zero
     */
    public LongAdder countReads() {
        LongAdder r = new LongAdder();
        reads = r;
        return r;
    }

    /** Stops counting reads ({@link #countReads}). */
    public void stopCountingReads() { reads = null; }

    /** The default as Linux prints it. */
    public String defaultString() { return names != null ? names[defaults[0]] : format(defaults); }

    /** The value as Linux prints it (values separated by a tab). */
    public String get() { return names != null ? names[values[0]] : format(values); }

    /**
     * Sets the value from text as written to /proc/sys (numbers separated by whitespace).
     *
     * @throws IllegalArgumentException (EINVAL) when the count, a number, the bounds or the ordering is wrong
     */
    public void set(String text) {
        if (names != null) {
            int i = java.util.Arrays.asList(names).indexOf(text.trim());
            // Linux: writing a congestion control that is not available fails with ENOENT
            if (i < 0) throw new IllegalArgumentException(name + ": no such choice '" + text.trim() + "' (No such file or directory); available: "
                    + String.join(" ", names));
            values = new int[] {i};
            for (Runnable r : writeListeners) r.run();
            return;
        }
        String[] parts = text.trim().split("\\s+");
        if (parts.length != defaults.length)
            throw new IllegalArgumentException(name + ": expected " + defaults.length + " value(s), got '" + text + "'");
        int[] v = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            long x;
            try {
                x = Long.parseLong(parts[i]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + ": not a number: '" + parts[i] + "'");
            }
            if (x < min || x > max)
                throw new IllegalArgumentException(name + ": " + x + " is outside " + min + ".." + max
                        + (unit.equals("enum") || unit.equals("boolean") ? "" : " " + unit));
            v[i] = (int) x;
        }
        if (ascending) {
            for (int i = 1; i < v.length; i++) {
                if (v[i] < v[i - 1]) throw new IllegalArgumentException(name + ": values must not decrease: '" + text + "'");
            }
        }
        values = v;
        for (Runnable r : writeListeners) r.run();
    }

    /**
     * Runs {@code r} in the writing thread after every successful {@link #set} or {@link #reset} (Linux's
     * proc handlers that propagate a write, e.g. {@code net.ipv4.ip_forward} to every device's forwarding).
     */
    public void onWrite(Runnable r) { writeListeners.add(r); }

    /** Stores a single value without running the write listeners (propagation from another sysctl). */
    void store(int v) { values = new int[] {v}; }

    public void set(int... v) {
        StringBuilder sb = new StringBuilder();
        for (int x : v) sb.append(x).append(' ');
        set(sb.toString());
    }

    public void reset() {
        values = defaults.clone();
        for (Runnable r : writeListeners) r.run();
    }

    private static String format(int[] v) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < v.length; i++) {
            if (i > 0) sb.append('\t');
            sb.append(v[i]);
        }
        return sb.toString();
    }

    @Override
    public String toString() { return name + " = " + get() + " (" + unit + "; default " + defaultString() + ")"; }

    @Override
    public boolean equals(Object o) { return o instanceof Sysctl s && s.name.equals(name) && Arrays.equals(s.values, values); }

    @Override
    public int hashCode() { return name.hashCode(); }
}
