package io.jnet.tcp;

/**
 * Congestion control per RFC 5681 (slow start, congestion avoidance, fast retransmit and fast
 * recovery) with RFC 6582 NewReno partial-ACK handling, in bytes. Initial window 10 segments
 * (RFC 6928, as Linux's TCP_INIT_CWND); loss window 1 segment.
 */
final class RenoCongestion {
    static final int INIT_CWND_SEGMENTS = 10;

    int mss;
    /** Congestion window in bytes. */
    long cwnd;
    /** Slow-start threshold in bytes (initially "arbitrarily high"). */
    long ssthresh = Long.MAX_VALUE / 4;
    /** Bytes acknowledged in congestion avoidance since cwnd last grew (RFC 3465 byte counting). */
    long bytesAcked;
    boolean inRecovery;
    /** RFC 6582 "recover": highest sequence sent when recovery started. */
    int recover;

    void init(int mss) {
        this.mss = mss;
        this.cwnd = (long) INIT_CWND_SEGMENTS * mss;
    }

    void setMss(int mss) {
        if (this.mss > 0 && mss != this.mss) cwnd = Math.max(mss, cwnd / this.mss * mss);
        this.mss = mss;
    }

    boolean inSlowStart() { return cwnd < ssthresh; }

    /** New data acknowledged outside recovery (RFC 5681 3.1). {@code cwndLimited}: the sender was using the window. */
    void onAck(long acked, boolean cwndLimited) {
        if (!cwndLimited) return; // RFC 7661 spirit, as Linux's tcp_is_cwnd_limited
        if (cwnd < ssthresh) {
            cwnd += Math.min(acked, 2L * mss); // RFC 3465 L = 2
        } else {
            bytesAcked += acked;
            if (bytesAcked >= cwnd) {
                bytesAcked -= cwnd;
                cwnd += mss;
            }
        }
        cwnd = Math.min(cwnd, 1L << 30);
    }

    /** Third duplicate ACK (RFC 5681 3.2 steps 2-3). */
    void enterRecovery(long flightSize, int sndMax) {
        ssthresh = Math.max(flightSize / 2, 2L * mss);
        cwnd = ssthresh + 3L * mss;
        inRecovery = true;
        recover = sndMax;
        bytesAcked = 0;
    }

    /** Each further duplicate ACK in recovery inflates the window (step 4). */
    void onDupAckInRecovery() { cwnd += mss; }

    /** RFC 6582 partial ACK: deflate by the amount acked, add back one segment. */
    void onPartialAck(long acked) { cwnd = Math.max(mss, cwnd - acked + (acked >= mss ? mss : 0)); }

    /** Full ACK ends recovery (RFC 6582 3.2 step 3, option 1). */
    void exitRecovery(long flightSize) {
        cwnd = Math.min(ssthresh, Math.max(flightSize, mss) + mss);
        inRecovery = false;
    }

    /** Retransmission timeout (RFC 5681 3.1, eqn 4; loss window). */
    void onRto(long flightSize) {
        ssthresh = Math.max(flightSize / 2, 2L * mss);
        cwnd = mss;
        inRecovery = false;
        bytesAcked = 0;
    }

    /** Restart after idle longer than an RTO (RFC 5681 4.1). */
    void restartAfterIdle() { cwnd = Math.min(cwnd, (long) INIT_CWND_SEGMENTS * mss); }
}
