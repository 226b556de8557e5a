package io.jnet.tcp;

/**
 * Reno congestion control (Linux tcp_reno_* in tcp_cong.c), in bytes: slow start adds every newly acknowledged
 * byte up to ssthresh (Linux tcp_slow_start, no RFC 3465 limit L), congestion avoidance one MSS per cwnd of bytes
 * acknowledged (tcp_cong_avoid_ai), ssthresh = max(FlightSize / 2, 2 * SMSS) on a loss (RFC 5681 equation 4; Linux's
 * tcp_reno_ssthresh halves cwnd, see {@link #lossSsthresh}), loss window of one segment after a timeout, cwnd capped
 * at 2^30 bytes.
 * Fast retransmit and fast recovery are not here but in the {@link LossRecovery}.
 */
final class RenoCongestion implements CongestionControl {
    /** Linux's name for it. */
    static final String NAME = "reno";

    /** Bytes acknowledged in congestion avoidance since cwnd last grew (Linux snd_cwnd_cnt, in bytes). */
    long bytesAcked;

    @Override
    public String name() { return NAME; }

    @Override
    public void init(CongestionWindow w) { }

    /**
     * Linux tcp_reno_cong_avoid: nothing unless cwnd-limited; in slow start tcp_slow_start (cwnd + acked, up to
     * ssthresh), the rest of {@code acked} in congestion avoidance (tcp_cong_avoid_ai with w = cwnd).
     */
    @Override
    public void onAck(CongestionWindow w, long acked, boolean cwndLimited) {
        if (!cwndLimited) return;
        if (w.cwnd < w.ssthresh) {
            long cwnd = Math.min(w.cwnd + acked, w.ssthresh); // tcp_slow_start
            acked -= cwnd - w.cwnd;
            w.cwnd = Math.min(cwnd, 1L << 30);
            if (acked <= 0) return;
        }
        // tcp_cong_avoid_ai: credits accumulated at a larger window are applied gently, one MSS
        if (bytesAcked >= w.cwnd) {
            bytesAcked = 0;
            w.cwnd += w.mss;
        }
        bytesAcked += acked;
        if (bytesAcked >= w.cwnd) {
            long delta = bytesAcked / w.cwnd;
            bytesAcked -= delta * w.cwnd;
            w.cwnd += delta * w.mss;
        }
        w.cwnd = Math.min(w.cwnd, 1L << 30);
    }

    @Override
    public void onLossDetected(CongestionWindow w, long flightSize) {
        w.ssthresh = lossSsthresh(w, flightSize);
        bytesAcked = 0;
    }

    @Override
    public void onRto(CongestionWindow w, long flightSize, boolean reduceSsthresh) {
        if (reduceSsthresh) w.ssthresh = lossSsthresh(w, flightSize);
        w.cwnd = w.mss;
        bytesAcked = 0;
    }

    @Override
    public void afterRecovery(CongestionWindow w) { }

    /** Linux tcp_reno_undo_cwnd: max(cwnd, prior_cwnd). */
    @Override
    public long undoCwnd(CongestionWindow w, long priorCwnd) {
        return Math.max(w.cwnd, priorCwnd);
    }

    @Override
    public void onRestartAfterIdle(CongestionWindow w) {
        w.cwnd = Math.min(w.cwnd, (long) CongestionWindow.INIT_CWND_SEGMENTS * w.mss);
    }

    /**
     * RFC 5681 equation 4: ssthresh = max(FlightSize / 2, 2 * SMSS). Linux's tcp_reno_ssthresh halves snd_cwnd
     * instead (max(cwnd &gt;&gt; 1, 2) segments); jnet keeps FlightSize: with Linux's rule its fast recovery over an
     * impaired link (5 % loss, reordering, duplication, corruption) took 16-23 s and 50-74 RTOs instead of 4-5 s and
     * 9-15 (BENCHMARKS.md, 2026-12-03 19:44-20:00), a difference to be understood with the congestion-control
     * interface (conformance: congestion/reno-ssthresh-half-cwnd-not-flight.pkt is an expected failure).
     */
    private static long lossSsthresh(CongestionWindow w, long flightSize) {
        return Math.max(flightSize / 2, 2L * w.mss);
    }
}
