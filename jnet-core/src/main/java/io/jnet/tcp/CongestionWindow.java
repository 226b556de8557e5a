package io.jnet.tcp;

/**
 * The sender's congestion state variables of RFC 5681 section 2 and 3.1, in bytes: the congestion window
 * (cwnd), the slow-start threshold (ssthresh) and the sender MSS they count in. Linux keeps them in tcp_sock
 * (snd_cwnd, snd_ssthresh, in segments), gVisor in its sender (SndCwnd, Ssthresh).
 *
 * <p>Two mechanisms write them: the {@link CongestionControl} grows cwnd on new ACKs and sets ssthresh on a loss,
 * the {@link LossRecovery} sets cwnd while it repairs a loss (fast recovery inflation and deflation, RFC 5681
 * 3.2, RFC 6582 3.2). Everything else only reads them.
 */
final class CongestionWindow {
    /** Initial window in segments (RFC 6928, Linux TCP_INIT_CWND). */
    static final int INIT_CWND_SEGMENTS = 10;

    /** The sender MSS cwnd counts in, bytes; 0 before {@link #init}. */
    int mss;
    /** Congestion window, bytes. */
    long cwnd;
    /** Slow-start threshold, bytes; initially "arbitrarily high" (RFC 5681 3.1). */
    long ssthresh = Long.MAX_VALUE / 4;

    /** The initial window once the MSS is negotiated: {@link #INIT_CWND_SEGMENTS} segments (RFC 6928 2). */
    void init(int mss) {
        this.mss = mss;
        this.cwnd = (long) INIT_CWND_SEGMENTS * mss;
    }

    /**
     * A new sender MSS (path MTU discovery): cwnd keeps its number of segments, at least one (Linux counts cwnd in
     * segments, so tcp_sync_mss leaves it as it is).
     */
    void setMss(int mss) {
        if (this.mss > 0 && mss != this.mss) cwnd = Math.max(mss, cwnd / this.mss * mss);
        this.mss = mss;
    }

    /** Slow start while cwnd &lt; ssthresh (RFC 5681 3.1). */
    boolean inSlowStart() { return cwnd < ssthresh; }
}
