package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.wire.Tcp;

/**
 * Delivery-rate estimation as Linux's {@code net/ipv4/tcp_rate.c}: each segment remembers, when sent, how
 * much had been delivered by then and when; the ACK that covers it yields a sample = data delivered
 * since / the longer of the send phase and the ACK phase. Samples shorter than the minimum RTT are
 * discarded (ACK compression), and a sample taken while the application left the connection idle
 * ("app-limited") replaces the current one only if it is higher. As Linux, delivery is counted in
 * segments of at most one MSS (a larger write-queue buffer counts as several, a bare FIN as one) and the
 * rate is that count times the MSS.
 *
 * <p>Per ACK: {@link #beginAck()}, {@link #delivered(PacketBuffer)} for each segment it covers, then
 * {@link #generate}. No allocation: the per-segment state lives in the buffer's control block.
 */
final class DeliveryRate {
    /** Marks a write-queue segment sent while the connection was app-limited (in the buffer's flags). */
    static final int APP_LIMITED = 0x800;

    /** Segments delivered (acknowledged) so far (Linux tp->delivered). */
    private long delivered;
    /** When {@link #delivered} last grew, ns (tp->delivered_mstamp). */
    private long deliveredNs;
    /** Send time of the most recently delivered segment, or of the first one of a flight (tp->first_tx_mstamp). */
    private long firstTxNs;
    /** Nonzero while app-limited: {@link #delivered} at the end of the bubble, in segments (tp->app_limited). */
    private long appLimited;

    // the current sample (struct rate_sample), rebuilt per ACK
    private boolean sampling;
    private long priorDelivered;
    private long priorNs;
    private long sndIntervalNs;
    private int lastEndSeq;
    private boolean sampleAppLimited;

    // the reported rate (tp->rate_delivered, tp->rate_interval_us, tp->rate_app_limited)
    private long rateDelivered;
    private long rateIntervalUs;
    private boolean rateAppLimited;

    /** A data segment is (re)transmitted at {@code nowNs}; {@code nothingInFlight}: no earlier segment is unacknowledged. */
    void sent(PacketBuffer seg, long nowNs, boolean nothingInFlight) {
        if (nothingInFlight) {
            firstTxNs = nowNs;
            deliveredNs = nowNs;
        }
        seg.txFirstTxNs = firstTxNs;
        seg.txDeliveredNs = deliveredNs;
        seg.txDelivered = delivered;
        if (appLimited != 0) seg.flags |= APP_LIMITED;
        else seg.flags &= ~APP_LIMITED;
    }

    /**
     * Segments delivered when the most recently sent segment the current ACK covers was sent (Linux
     * rs->prior_delivered), 0 when it covers none.
     */
    long ackPriorDelivered() { return sampling ? priorDelivered : 0; }

    /** Segments delivered so far (Linux tp->delivered). */
    long deliveredSegments() { return delivered; }

    /** Starts the sample of a new ACK. */
    void beginAck() {
        sampling = false;
    }

    /** {@code seg} (sent at {@code seg.when}) is acknowledged, wholly or in part, by the current ACK (tcp_rate_skb_delivered). */
    void delivered(PacketBuffer seg) {
        if (seg.txDeliveredNs == 0) return; // never sent with rate state
        long txNs = seg.when;
        // the most recently sent of the segments this ACK covers gives the sample
        if (!sampling || txNs > firstTxNs || (txNs == firstTxNs && Tcp.seqGt(seg.endSeq, lastEndSeq))) {
            sampling = true;
            priorDelivered = seg.txDelivered;
            priorNs = seg.txDeliveredNs;
            sampleAppLimited = (seg.flags & APP_LIMITED) != 0;
            lastEndSeq = seg.endSeq;
            firstTxNs = txNs;
            sndIntervalNs = txNs - seg.txFirstTxNs; // the send phase of this flight
        }
    }

    /**
     * Ends the ACK (tcp_rate_gen): {@code newlyDelivered} segments were acknowledged at {@code nowNs};
     * {@code minRttUs} is the windowed minimum RTT ({@link MinRttFilter#NONE} when unknown).
     */
    void generate(long newlyDelivered, long nowNs, long minRttUs) {
        delivered += newlyDelivered;
        if (appLimited != 0 && delivered > appLimited) appLimited = 0; // the bubble was acknowledged
        if (newlyDelivered > 0) deliveredNs = nowNs;
        if (!sampling) return;
        long sampleDelivered = delivered - priorDelivered;
        long intervalUs = Math.max(sndIntervalNs, nowNs - priorNs) / 1000; // the longer of send and ACK phase
        if (intervalUs < minRttUs) return; // shorter than an RTT: ACK compression or a spurious retransmission
        if (!sampleAppLimited || sampleDelivered * rateIntervalUs >= rateDelivered * intervalUs) {
            rateDelivered = sampleDelivered;
            rateIntervalUs = intervalUs;
            rateAppLimited = sampleAppLimited;
        }
    }

    /**
     * Marks the connection app-limited when the application leaves less than a segment unsent, the
     * congestion window is not full and every lost segment was retransmitted (tcp_rate_check_app_limited).
     */
    void checkAppLimited(long notSentBytes, int mss, long inFlightSegments, long cwndSegments, boolean lossesRepaired) {
        if (notSentBytes < mss && inFlightSegments < cwndSegments && lossesRepaired) {
            long mark = delivered + inFlightSegments;
            appLimited = mark != 0 ? mark : 1;
        }
    }

    /** The latest rate in bytes per second for segments of {@code mss} bytes, 0 before the first sample (tcp_compute_delivery_rate). */
    long rateBytesPerSecond(int mss) {
        if (rateDelivered <= 0 || rateIntervalUs <= 0) return 0;
        return rateDelivered * mss * 1_000_000L / rateIntervalUs;
    }

    /** True when the latest sample was app-limited. */
    boolean rateAppLimited() { return rateAppLimited; }
}
