package io.jnet.perf;

/**
 * The lookup counters of a jnet path's namespaces, summed over them, at one moment or as the difference over a
 * run: IP packets received (IpInReceives), socket lookups (IpExtJnetSocketLookups: early demux and the
 * protocols' own lookups), input route lookups (IpExtJnetRouteLookups) and early-demux hits and misses
 * (IpExtJnetEarlyDemuxHits, IpExtJnetEarlyDemuxMisses). Only jnet paths have them.
 *
 * @param packets       IP packets received
 * @param socketLookups socket table lookups
 * @param routeLookups  input route lookups
 * @param hits          early-demux lookups that found a socket
 * @param misses        early-demux lookups that found none
 */
public record LookupCounts(long packets, long socketLookups, long routeLookups, long hits, long misses)
        implements java.io.Serializable {

    /** All zero. */
    public static final LookupCounts ZERO = new LookupCounts(0, 0, 0, 0, 0);

    /** This minus {@code earlier}: the counts of what happened in between. */
    public LookupCounts minus(LookupCounts earlier) {
        return new LookupCounts(packets - earlier.packets, socketLookups - earlier.socketLookups,
                routeLookups - earlier.routeLookups, hits - earlier.hits, misses - earlier.misses);
    }

    /** The sum of this and {@code o}. */
    /**
     * The counts of a timed part: {@code after} minus {@code before}, or null when either reading is null (a
     * path without counters, the kernel's).
     */
    public static LookupCounts between(LookupCounts before, LookupCounts after) {
        return before == null || after == null ? null : after.minus(before);
    }

    public LookupCounts plus(LookupCounts o) {
        return new LookupCounts(packets + o.packets, socketLookups + o.socketLookups, routeLookups + o.routeLookups,
                hits + o.hits, misses + o.misses);
    }

    /** Socket lookups per received packet, NaN without packets. */
    public double socketPerPacket() { return per(socketLookups); }

    /** Input route lookups per received packet, NaN without packets. */
    public double routePerPacket() { return per(routeLookups); }

    /** Socket plus route lookups per received packet (the "lookups per packet" of the reports), NaN without packets. */
    public double lookupsPerPacket() { return per(socketLookups + routeLookups); }

    /** Early-demux hits per received packet, NaN without packets. */
    public double hitsPerPacket() { return per(hits); }

    /** Early-demux misses per received packet, NaN without packets. */
    public double missesPerPacket() { return per(misses); }

    private double per(long n) { return packets <= 0 ? Double.NaN : (double) n / packets; }
}
