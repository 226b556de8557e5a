package io.jnet.tcp;

/**
 * Reno congestion control (Linux tcp_reno_* in tcp_cong.c; gVisor reno.go), in bytes: slow start and congestion
 * avoidance with appropriate byte counting (RFC 5681 3.1, RFC 3465 with L = 2), ssthresh = max(FlightSize / 2,
 * 2 * SMSS) on a loss (RFC 5681 equation 4), loss window of one segment after a timeout, cwnd capped at 2^30 bytes.
 * Fast retransmit and fast recovery are not here but in the {@link LossRecovery}.
 */
final class RenoCongestion implements CongestionControl {
    /** Linux's name for it. */
    static final String NAME = "reno";

    /** Bytes acknowledged in congestion avoidance since cwnd last grew (RFC 3465 bytes_acked). */
    long bytesAcked;

    @Override
    public String name() { return NAME; }

    @Override
    public void init(CongestionWindow w) { }

    @Override
    public void onAck(CongestionWindow w, long acked, boolean cwndLimited) {
        if (!cwndLimited) return; // RFC 7661 spirit, as Linux's tcp_is_cwnd_limited
        if (w.cwnd < w.ssthresh) {
            w.cwnd += Math.min(acked, 2L * w.mss); // RFC 3465 L = 2
        } else {
            bytesAcked += acked;
            if (bytesAcked >= w.cwnd) {
                bytesAcked -= w.cwnd;
                w.cwnd += w.mss;
            }
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

    /** RFC 5681 equation 4: ssthresh = max(FlightSize / 2, 2 * SMSS) (Linux tcp_reno_ssthresh, in segments). */
    private static long lossSsthresh(CongestionWindow w, long flightSize) {
        return Math.max(flightSize / 2, 2L * w.mss);
    }
}
