package io.jnet.tcp;

/**
 * Loss detection and repair by acknowledgements: when duplicate or partial ACKs mean a segment was lost, which
 * segment to retransmit, entering and leaving fast recovery, and the congestion window while recovery lasts
 * (gVisor's recovery interface with the sender's enterRecovery and leaveRecovery; Linux tcp_fastretrans_alert
 * and its helpers). The {@link CongestionControl} only chooses ssthresh ({@link CongestionControl#onLossDetected})
 * and hears of the end ({@link CongestionControl#afterRecovery}); the recovery sets cwnd in between.
 *
 * <p>An implementation keeps its own state (RFC 6582 recover, the duplicate ACK count, ...) and sets the
 * connection's congestion state {@link TcpConnection#caState} (Linux icsk_ca_state: Open, Disorder, Recovery,
 * Loss). The retransmission timer itself stays in {@link TcpTimers}, which tells the recovery through
 * {@link #onRto}. One instance per connection; every method runs with the connection locked and allocates nothing.
 */
interface LossRecovery {
    /**
     * Duplicate ACKs, or SACKed segments above a hole, that make it lost (RFC 5681 3.2, RFC 6675 DupThresh; Linux's
     * TCP_FASTRETRANS_THRESH, the default of net.ipv4.tcp_reordering). With RACK (net.ipv4.tcp_recovery bit 0x1, the
     * default) losses are found by time and this threshold is not used with SACK. Without RACK the SACK recovery keeps
     * it at 3, where Linux uses the connection's reordering degree (tp->reordering); without SACK the duplicate ACKs
     * are counted against that degree ({@link NewRenoRecovery}, as Linux's tcp_newreno_mark_lost).
     */
    int TCP_FASTRETRANS_THRESH = 3;

    /**
     * An ACK advanced SND.UNA to {@code ack}, acknowledging {@code acked} new bytes; the write queue is already
     * cleaned of what it covers. In fast recovery it is a full or a partial acknowledgement (RFC 6582 3.2 step 3).
     *
     * @return true when the ACK arrived in fast recovery (ending it or not): cwnd is the recovery's on this ACK
     *         and the congestion control must not grow it (RFC 5681 3.2 step 6); false outside recovery and when
     *         the ACK undid it (the restored window then grows by what the ACK delivered, as Linux's
     *         tcp_cong_control once the state is Open again)
     */
    boolean onNewAck(TcpConnection c, int ack, long acked);

    /**
     * A duplicate ACK (RFC 5681 section 2; the caller checked the definition): counts it, and at the threshold
     * enters fast retransmit and fast recovery (RFC 5681 3.2 steps 2-4, RFC 6582 3.2 steps 1-2).
     *
     * @param newlySacked segments this ACK SACKed that were not SACKed before (0 without SACK)
     */
    void onDupAck(TcpConnection c, int newlySacked);

    /**
     * The retransmission timer expired and the congestion control has set the loss window
     * ({@link CongestionControl#onRto}): leave fast recovery, take everything outstanding as to be repaired
     * (RFC 6582 3.2 step 4), congestion state Loss. The caller resends from SND.UNA.
     */
    void onRto(TcpConnection c);

    /**
     * Every ACK, after {@link #onNewAck} or {@link #onDupAck} and the congestion control's growth: a recovery that
     * looks at the SACK scoreboard detects losses and sends here (RFC 6675 section 5). Nothing by default.
     */
    default void afterAck(TcpConnection c) { }

    /**
     * After {@link #onRto} and the timeout's lost marks: resend what the timeout took as lost itself and return
     * true, or return false to let the timer go back N from SND.UNA (the default).
     */
    default boolean resendAfterRto(TcpConnection c) { return false; }

    /**
     * RACK's reordering timer expired ({@link RackLossDetection}; Linux tcp_rack_reo_timeout): detect losses by
     * time, enter recovery when some are found, and resend them. Nothing by default.
     */
    default void onReoTimeout(TcpConnection c) { }

    /** Fast recovery in progress (Linux TCP_CA_Recovery). */
    boolean inRecovery();

    /** Duplicate ACKs since SND.UNA last advanced or the last timeout. */
    int dupAcks();

    /**
     * Every segment taken for lost has been sent again (Linux lost_out &lt;= retrans_out, as tcp_rate_check_app_limited
     * asks before calling the connection application-limited).
     */
    boolean lostRetransmitted(TcpConnection c);
}
