package io.jnet.tcp;

/**
 * A congestion control algorithm: how the congestion window grows on new ACKs and how far it falls on a loss
 * (Linux struct tcp_congestion_ops; gVisor's congestionControl). It owns cwnd growth and the choice of ssthresh
 * only: detecting losses, fast retransmit and fast recovery belong to the {@link LossRecovery}, which calls
 * {@link #onLossDetected} and {@link #afterRecovery} around a recovery and sets cwnd meanwhile. The state it
 * works on is the connection's {@link CongestionWindow}; an implementation keeps only its own variables (Linux's
 * inet_csk_ca). One instance per connection; every method runs with the connection locked and allocates nothing.
 *
 * <p>Lookup by name as Linux's tcp_ca_find: {@link #newInstance}. Names are Linux's ({@code net.ipv4.
 * tcp_congestion_control}, TCP_CONGESTION); jnet implements "reno".
 */
interface CongestionControl {
    /** The algorithm jnet connections use. */
    String DEFAULT_NAME = RenoCongestion.NAME;

    /**
     * A new instance of the algorithm called {@code name} (Linux's name, e.g. "reno").
     *
     * @throws IllegalArgumentException when jnet has no algorithm of that name (Linux: ENOENT)
     */
    static CongestionControl newInstance(String name) {
        if (RenoCongestion.NAME.equals(name)) return new RenoCongestion();
        throw new IllegalArgumentException("no TCP congestion control algorithm " + name);
    }

    /** The algorithm's name, as Linux's tcp_congestion_ops.name. */
    String name();

    /** The connection's window was just initialised to the initial window (Linux .init, tcp_init_congestion_control). */
    void init(CongestionWindow w);

    /**
     * New data was acknowledged outside loss recovery (Linux .cong_avoid; RFC 5681 3.1): grow cwnd, by slow start
     * below ssthresh, by congestion avoidance above it.
     *
     * @param acked bytes newly delivered: acknowledged or SACKed by this ACK and not SACKed before (Linux's
     *     acked_sacked)
     * @param cwndLimited the sender was using the window, so it may grow (Linux tcp_is_cwnd_limited, RFC 7661)
     */
    void onAck(CongestionWindow w, long acked, boolean cwndLimited);

    /**
     * A loss was detected by duplicate ACKs and recovery begins (Linux .ssthresh from tcp_init_cwnd_reduction; gVisor
     * HandleLossDetected; RFC 5681 3.2 step 2): set ssthresh. cwnd is left to the loss recovery.
     *
     * @param flightSize bytes outstanding (RFC 5681 FlightSize)
     */
    void onLossDetected(CongestionWindow w, long flightSize);

    /**
     * The retransmission timer expired (Linux tcp_enter_loss with .ssthresh; gVisor HandleRTOExpired; RFC 5681 3.1
     * equation 4): set ssthresh and cwnd to the loss window. A timeout within a loss episode whose cut was made (a
     * fast recovery not yet recovered, or a repeated timeout with no progress) keeps ssthresh, as Linux.
     *
     * @param flightSize bytes outstanding (RFC 5681 FlightSize)
     * @param reduceSsthresh a new loss episode begins: ssthresh is cut; false: only cwnd goes to the loss window
     */
    void onRto(CongestionWindow w, long flightSize, boolean reduceSsthresh);

    /**
     * Fast recovery ended with everything outstanding at its start acknowledged and the loss recovery has set cwnd
     * (gVisor PostRecovery; Linux's set_state to TCP_CA_Open). A spurious reduction is undone by {@link #undoCwnd}.
     */
    void afterRecovery(CongestionWindow w);

    /**
     * A reduction proved spurious is undone (Linux .undo_cwnd, called by tcp_undo_cwnd_reduction): the window to
     * use now, bytes, given {@code priorCwnd}, cwnd when the reduction began. ssthresh is restored by the caller.
     */
    long undoCwnd(CongestionWindow w, long priorCwnd);

    /**
     * Data is sent after an idle period longer than an RTO (RFC 5681 4.1; Linux tcp_cwnd_restart and
     * CA_EVENT_CWND_RESTART): restart from no more than the initial window.
     */
    void onRestartAfterIdle(CongestionWindow w);
}
