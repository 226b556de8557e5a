package io.jnet.tcp;

/**
 * Round-trip time estimation and the retransmission timeout (RFC 6298), with Linux's floor: the
 * variance term is at least net.ipv4.tcp_rto_min_us, so RTO = SRTT + max(4 * RTTVAR, rto_min),
 * clamped to [rto_min, 120 s]. Initial RTO 1 s (RFC 6298 2.1). Units: microseconds.
 */
final class RttEstimator {
    static final long INITIAL_RTO_US = 1_000_000L;
    static final long MAX_RTO_US = 120_000_000L;

    /** Smoothed RTT (SRTT), 0 before the first sample. */
    long srttUs;
    /** RTT variance (RTTVAR). */
    long rttvarUs;
    /** Base RTO before backoff. */
    long rtoUs = INITIAL_RTO_US;
    /** Exponential backoff shift (RFC 6298 5.5). */
    int backoff;

    /** Adds a measurement (RFC 6298 2.2/2.3) and recomputes RTO. */
    void sample(long rttUs, long rtoMinUs) {
        if (rttUs <= 0) rttUs = 1;
        if (srttUs == 0) {
            srttUs = rttUs;
            rttvarUs = rttUs / 2;
        } else {
            long err = Math.abs(srttUs - rttUs);
            rttvarUs = (3 * rttvarUs + err) / 4;
            srttUs = (7 * srttUs + rttUs) / 8;
        }
        rtoUs = Math.min(MAX_RTO_US, Math.max(rtoMinUs, srttUs + Math.max(4 * rttvarUs, rtoMinUs)));
    }

    /** The RTO with backoff applied, in microseconds. */
    long currentRtoUs() {
        long r = rtoUs << Math.min(backoff, 20);
        return Math.min(MAX_RTO_US, r);
    }

    void resetBackoff() { backoff = 0; }
}
