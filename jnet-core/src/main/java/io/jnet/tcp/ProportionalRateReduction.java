package io.jnet.tcp;

/**
 * Proportional Rate Reduction (RFC 6937) with the slow-start reduction bound, PRR-SSRB, as Linux's
 * tcp_cwnd_reduction: how many bytes fast recovery may send on each ACK so that what is in flight falls smoothly
 * to ssthresh by the end of recovery, in bytes.
 *
 * <p>While the pipe is above ssthresh, sends in proportion to what is delivered: sndcnt = ceil(prr_delivered *
 * ssthresh / RecoverFS) - prr_out, the ceiling taken in whole segments as Linux's packet counts do (with Reno's
 * halving, one segment for every two delivered). At or below
 * ssthresh, catches up towards it no faster than slow start: sndcnt = min(ssthresh - pipe, max(prr_delivered -
 * prr_out, DeliveredData) + SMSS when SND.UNA advanced and no new loss was found on this ACK (Linux's "safe"
 * ACK; without it, only the data delivered)). The first ACK of a recovery always lets one segment go, the fast
 * retransmit (Linux: max(sndcnt, prr_out ? 0 : 1)). RecoverFS is the FlightSize when recovery began (RFC 6937
 * section 3; Linux uses the prior cwnd, which a sender that fills its window makes the same).
 *
 * <p>One instance per connection, used by {@link SackRecovery} under the socket lock; allocates nothing.
 */
final class ProportionalRateReduction {
    /** RFC 6937 RecoverFS: bytes outstanding when recovery began (at least 1). */
    private long recoverFs = 1;
    /** RFC 6937 prr_delivered: bytes delivered to the receiver since recovery began. */
    private long prrDelivered;
    /** RFC 6937 prr_out: bytes sent (new or retransmitted) since recovery began. */
    private long prrOut;

    /** Recovery begins with {@code flightSize} bytes outstanding (RFC 6937 section 3, "on entering recovery"). */
    void init(long flightSize) {
        recoverFs = Math.max(1, flightSize);
        prrDelivered = 0;
        prrOut = 0;
    }

    /**
     * An ACK in recovery: how many bytes may be sent now.
     *
     * @param deliveredData bytes this ACK newly acknowledged cumulatively or SACKed (RFC 6937 DeliveredData:
     *        change in SND.UNA plus change in SACKed bytes)
     * @param pipe bytes in flight after the ACK's scoreboard update (RFC 6675 pipe)
     * @param ssthresh the slow-start threshold, bytes
     * @param mss the sender MSS, bytes
     * @param safeAck SND.UNA advanced and the ACK found no new loss (Linux: FLAG_SND_UNA_ADVANCED and not newly_lost)
     * @return bytes that may go, &gt;= 0
     */
    long sndcnt(long deliveredData, long pipe, long ssthresh, int mss, boolean safeAck) {
        prrDelivered += Math.max(0, deliveredData);
        long sndcnt;
        if (pipe > ssthresh) {
            // proportional: ceil(prr_delivered * ssthresh / RecoverFS) - prr_out, rounded up to whole segments as
            // Linux counts in packets (segments can only go whole)
            long allowed = ceilDiv(prrDelivered, ssthresh, recoverFs);
            sndcnt = Math.ceilDiv(allowed, Math.max(1, mss)) * Math.max(1, mss) - prrOut;
        } else {
            // PRR-SSRB: catch up to ssthresh, no faster than slow start
            long limit = Math.max(prrDelivered - prrOut, deliveredData);
            if (safeAck) limit += mss;
            sndcnt = Math.min(ssthresh - pipe, limit);
        }
        if (prrOut == 0) sndcnt = Math.max(sndcnt, mss); // the fast retransmit
        return Math.max(0, sndcnt);
    }

    /** Bytes sent in recovery, new data or retransmissions (RFC 6937 "prr_out += (data sent)"). */
    void onSent(long bytes) { prrOut += bytes; }

    /** RFC 6937 prr_delivered, bytes. */
    long delivered() { return prrDelivered; }

    /** RFC 6937 prr_out, bytes. */
    long out() { return prrOut; }

    /** RFC 6937 RecoverFS, bytes. */
    long recoverFs() { return recoverFs; }

    /** ceil(a * b / d) for a, b &gt;= 0, d &gt; 0; in floating point if a * b would not fit in a long. */
    private static long ceilDiv(long a, long b, long d) {
        if (Math.multiplyHigh(a, b) != 0 || a * b < 0) return (long) Math.ceil((double) a * b / d);
        return Math.ceilDiv(a * b, d);
    }
}
