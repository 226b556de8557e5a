package io.jnet.perf;

import java.util.Locale;

/**
 * What a series' measured runs say about flows and lookups: the flows used, the fewest of them the server saw
 * traffic on in any run, the median set-up time, and the lookup counts summed over the runs (so the per-packet
 * figures weigh each packet alike). {@link #lookups} is null on a stack without counters (the kernel's).
 *
 * @param flows        flows per run ({@code --flows})
 * @param flowsSeen    the fewest flows with traffic at the server in any run, or -1 when not counted
 * @param setupSeconds median time to open the flows, in seconds
 * @param lookups      counts summed over the runs, or null
 * @param threads      client threads (and server threads) per run ({@code --threads})
 * @param allocator    the packet allocator of the path's namespaces, or null when not recorded (no allocator)
 * @param allocation   heap bytes and allocator lock entries summed over the runs, or null when not counted
 * @param transactions transactions summed over the runs (what {@code allocation} is divided by)
 */
public record FlowSummary(int flows, long flowsSeen, double setupSeconds, LookupCounts lookups, int threads,
        String allocator, AllocationCounts allocation, long transactions) {

    /** Heap bytes the JVM allocated per transaction over the runs, NaN when not counted. */
    public double bytesPerTransaction() {
        return allocation == null ? Double.NaN : allocation.bytesPer(transactions);
    }

    /** Packet allocator lock entries per transaction over the runs, NaN when not counted (the kernel). */
    public double lockEntriesPerTransaction() {
        return allocation == null ? Double.NaN : allocation.lockEntriesPer(transactions);
    }

    /** Contended packet allocator lock entries per transaction over the runs, NaN when not counted. */
    public double contendedPerTransaction() {
        return allocation == null ? Double.NaN : allocation.contendedPer(transactions);
    }

    /** The summary of {@code s}'s runs, or null without runs. */
    public static FlowSummary of(Series s) {
        if (s == null || s.runs().isEmpty()) return null;
        LookupCounts sum = LookupCounts.ZERO;
        boolean counted = true;
        long seen = Long.MAX_VALUE;
        AllocationCounts alloc = new AllocationCounts(0, 0, 0);
        long transactions = 0;
        for (RunResult r : s.runs()) {
            if (r.lookups() == null) counted = false;
            else sum = sum.plus(r.lookups());
            seen = Math.min(seen, r.flowsSeen());
            if (alloc != null && r.allocation() != null) alloc = alloc.plus(r.allocation());
            else alloc = null;
            transactions += r.transactions();
        }
        double setup = Stats.median(s.runs().stream().map(RunResult::setupSeconds).toList());
        RunResult first = s.runs().getFirst();
        return new FlowSummary(first.flows(), seen, setup, counted ? sum : null, first.threads(), first.allocator(),
                alloc, transactions);
    }

    /**
     * One line for the text report, e.g. {@code jnet: 1000 flows (1000 seen by the server); per packet: 1.00
     * lookups (socket 1.00, route 0.00), early demux 1.00 hits, 0.00 misses}; {@code -} for each figure on a
     * stack without counters.
     */
    public String line(String stack) {
        StringBuilder sb = new StringBuilder(stack).append(": ").append(flows).append(flows == 1 ? " flow" : " flows");
        if (threads > 1) sb.append(" over ").append(threads).append(" client and ").append(threads).append(" server threads");
        if (flowsSeen >= 0) sb.append(" (").append(flowsSeen).append(" seen by the server)");
        sb.append("; per packet received: ");
        if (lookups == null || lookups.packets() <= 0) {
            sb.append("lookups - (no counters on this stack)");
        } else {
            sb.append(String.format(Locale.ROOT, "%.2f lookups (socket %.2f, route %.2f), early demux %.2f hits, "
                    + "%.2f misses; %d packets", lookups.lookupsPerPacket(), lookups.socketPerPacket(),
                    lookups.routePerPacket(), lookups.hitsPerPacket(), lookups.missesPerPacket(), lookups.packets()));
        }
        return sb.append(allocationLine()).toString();
    }

    /**
     * The allocation part of {@link #line}, e.g. {@code ; per transaction: 1234 bytes allocated, 4.00 allocator
     * lock entries (0.01 contended), allocator pool}; empty when the runs did not count allocation.
     */
    private String allocationLine() {
        if (allocation == null) return "";
        StringBuilder sb = new StringBuilder("; per transaction: ");
        double bytes = bytesPerTransaction();
        sb.append(Double.isNaN(bytes) ? "-" : String.format(Locale.ROOT, "%.0f", bytes)).append(" bytes allocated, ");
        double locks = lockEntriesPerTransaction();
        if (Double.isNaN(locks)) {
            sb.append("allocator lock entries -");
        } else {
            sb.append(String.format(Locale.ROOT, "%.2f allocator lock entries (%.4f contended)", locks,
                    contendedPerTransaction()));
        }
        if (allocator != null) sb.append(", allocator ").append(allocator);
        return sb.toString();
    }
}
