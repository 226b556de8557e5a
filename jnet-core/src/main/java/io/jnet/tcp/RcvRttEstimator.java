package io.jnet.tcp;

import io.jnet.wire.Tcp;

/**
 * The receiver's estimate of the round-trip time (Linux's {@code rcv_rtt_est}, RFC 7323 appendix and
 * tcp_rcv_rtt_update): a receiver that sends no data takes no RTT samples of its own, so it measures
 * either the age of the timestamp echoed in a full-sized segment, or, without timestamps, the time
 * until the peer sends beyond the window advertised when the measurement began (one sample per window,
 * an upper bound, which can only lower the estimate). Microseconds, stored × 8 as Linux; no allocation.
 */
final class RcvRttEstimator {
    /** The estimate in µs × 8, 0 before the first sample. */
    private long rttUs8;
    private boolean timing;
    private int seq;
    private long timeNs;
    private int lastTsEcr;
    private boolean haveTsEcr;

    /** The estimate in µs, 0 before the first sample. */
    long rttUs() { return rttUs8 >> 3; }

    /**
     * In-order data arrived and RCV.NXT is now {@code rcvNxt} (tcp_rcv_rtt_measure): ends a window-based
     * measurement that started one window ({@code rcvWnd} bytes) ago, and starts the next.
     */
    void dataReceived(int rcvNxt, int rcvWnd, long nowNs) {
        if (timing) {
            if (Tcp.seqLt(rcvNxt, seq)) return;
            update(Math.max(1, (nowNs - timeNs) / 1000), true);
        }
        timing = true;
        seq = rcvNxt + rcvWnd;
        timeNs = nowNs;
    }

    /**
     * A segment with {@code len} bytes of payload echoed {@code tsEcr}; {@code ageMs} is how long ago we
     * sent that timestamp (tcp_rcv_rtt_measure_ts). Only full-sized segments ({@code len >= rcvMss}) count,
     * once per distinct echo.
     */
    void timestampEchoed(int tsEcr, long ageMs, int len, int rcvMss) {
        if (haveTsEcr && tsEcr == lastTsEcr) return;
        haveTsEcr = true;
        lastTsEcr = tsEcr;
        if (len >= rcvMss && ageMs >= 0 && ageMs < Integer.MAX_VALUE / 1000) {
            update(Math.max(1, ageMs) * 1000, false);
        }
    }

    /**
     * tcp_rcv_rtt_update: a lower sample replaces the estimate; a higher one is ignored when window-based
     * (those over-estimate) and smoothed in with weight 1/8 when timestamp-based.
     */
    private void update(long sampleUs, boolean windowBased) {
        long m = sampleUs << 3;
        if (rttUs8 == 0 || m < rttUs8) {
            rttUs8 = m;
        } else if (!windowBased) {
            rttUs8 = rttUs8 - (rttUs8 >> 3) + sampleUs;
        }
    }
}
