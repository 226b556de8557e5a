package io.jnet.perf;

/**
 * What a run's timed part cost in memory management, at one moment or as the difference over the timed part:
 * heap bytes the JVM allocated (all its threads: the test's, the stack's, the harness's) and the packet
 * allocator's lock entries and contended entries ({@link io.jnet.buffer.PacketAllocator#lockEntries()},
 * {@link io.jnet.buffer.PacketAllocator#contendedLockEntries()}), summed over the distinct allocators of the
 * path's namespaces.
 *
 * @param allocatedBytes heap bytes allocated (com.sun.management.ThreadMXBean), or -1 when the JVM does not count
 * @param lockEntries    allocator lock acquisitions, or -1 on a stack without packet allocators (the kernel's)
 * @param contended      of those, the ones that found the lock held, or -1 as {@code lockEntries}
 */
public record AllocationCounts(long allocatedBytes, long lockEntries, long contended) implements java.io.Serializable {

    /** This minus {@code earlier}, a figure unknown (-1) in either staying unknown. */
    public AllocationCounts minus(AllocationCounts earlier) {
        return new AllocationCounts(diff(allocatedBytes, earlier.allocatedBytes), diff(lockEntries, earlier.lockEntries),
                diff(contended, earlier.contended));
    }

    /** The sum of this and {@code o}, a figure unknown (-1) in either staying unknown. */
    public AllocationCounts plus(AllocationCounts o) {
        return new AllocationCounts(sum(allocatedBytes, o.allocatedBytes), sum(lockEntries, o.lockEntries),
                sum(contended, o.contended));
    }

    /**
     * The counts of a timed part: {@code after} minus {@code before}, or null when either reading is null.
     */
    public static AllocationCounts between(AllocationCounts before, AllocationCounts after) {
        return before == null || after == null ? null : after.minus(before);
    }

    /** Heap bytes allocated per transaction, NaN when not counted or without transactions. */
    public double bytesPer(long transactions) { return per(allocatedBytes, transactions); }

    /** Allocator lock entries per transaction, NaN when not counted or without transactions. */
    public double lockEntriesPer(long transactions) { return per(lockEntries, transactions); }

    /** Contended allocator lock entries per transaction, NaN when not counted or without transactions. */
    public double contendedPer(long transactions) { return per(contended, transactions); }

    private static double per(long n, long transactions) {
        return n < 0 || transactions <= 0 ? Double.NaN : (double) n / transactions;
    }

    private static long diff(long a, long b) { return a < 0 || b < 0 ? -1 : a - b; }

    private static long sum(long a, long b) { return a < 0 || b < 0 ? -1 : a + b; }

    /**
     * Heap bytes this JVM has allocated so far, all threads together, terminated ones included
     * ({@code com.sun.management.ThreadMXBean#getTotalThreadAllocatedBytes}); the sum over the live threads
     * ({@code getThreadAllocatedBytes}) where the total is not supported; -1 when the JVM does not count.
     */
    static long jvmAllocatedBytes() {
        if (!(java.lang.management.ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t)) {
            return -1;
        }
        try {
            if (!t.isThreadAllocatedMemorySupported()) return -1;
            if (!t.isThreadAllocatedMemoryEnabled()) t.setThreadAllocatedMemoryEnabled(true);
            long total = t.getTotalThreadAllocatedBytes();
            if (total >= 0) return total;
            long sum = 0;
            for (long b : t.getThreadAllocatedBytes(t.getAllThreadIds())) if (b > 0) sum += b;
            return sum;
        } catch (UnsupportedOperationException | SecurityException e) {
            return -1;
        }
    }
}
