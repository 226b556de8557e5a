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
 */
public record FlowSummary(int flows, long flowsSeen, double setupSeconds, LookupCounts lookups) {

    /** The summary of {@code s}'s runs, or null without runs. */
    public static FlowSummary of(Series s) {
        if (s == null || s.runs().isEmpty()) return null;
        LookupCounts sum = LookupCounts.ZERO;
        boolean counted = true;
        long seen = Long.MAX_VALUE;
        for (RunResult r : s.runs()) {
            if (r.lookups() == null) counted = false;
            else sum = sum.plus(r.lookups());
            seen = Math.min(seen, r.flowsSeen());
        }
        double setup = Stats.median(s.runs().stream().map(RunResult::setupSeconds).toList());
        return new FlowSummary(s.runs().getFirst().flows(), seen, setup, counted ? sum : null);
    }

    /**
     * One line for the text report, e.g. {@code jnet: 1000 flows (1000 seen by the server); per packet: 1.00
     * lookups (socket 1.00, route 0.00), early demux 1.00 hits, 0.00 misses}; {@code -} for each figure on a
     * stack without counters.
     */
    public String line(String stack) {
        StringBuilder sb = new StringBuilder(stack).append(": ").append(flows).append(flows == 1 ? " flow" : " flows");
        if (flowsSeen >= 0) sb.append(" (").append(flowsSeen).append(" seen by the server)");
        sb.append("; per packet received: ");
        if (lookups == null || lookups.packets() <= 0) {
            return sb.append("lookups - (no counters on this stack)").toString();
        }
        return sb.append(String.format(Locale.ROOT, "%.2f lookups (socket %.2f, route %.2f), early demux %.2f hits, "
                + "%.2f misses; %d packets", lookups.lookupsPerPacket(), lookups.socketPerPacket(),
                lookups.routePerPacket(), lookups.hitsPerPacket(), lookups.missesPerPacket(), lookups.packets())).toString();
    }
}
