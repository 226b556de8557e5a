package io.jnet.rds;

/**
 * An RDS transport, Linux's {@code struct rds_transport} ops that jnet needs: connect, xmit, drop of
 * acknowledged messages, shutdown. Two: {@link RdsLoopTransport} (rds_loop) and {@link RdsTcpTransport}
 * (rds_tcp). All but {@link #xmit} and {@link #dropAcked} run on the namespace's RDS worker.
 */
interface RdsTransport {
    /** Results of {@link #xmit}. */
    int XMIT_DONE = 0, XMIT_PARTIAL = 1, XMIT_ERROR = 2;

    /** Starts connecting {@code c} (state CONNECTING); completion calls {@link RdsConnection#connectComplete}. */
    void connect(RdsConnection c) throws java.io.IOException;

    /**
     * Sends what is left of {@code m}, never blocking (rds_tcp_xmit with MSG_DONTWAIT). Called by the one thread
     * that holds the connection's transmit guard.
     *
     * @return {@link #XMIT_DONE} when all of it went, {@link #XMIT_PARTIAL} when the transport's buffer is
     *         full (go on when it has room), {@link #XMIT_ERROR} when the connection failed (it was dropped)
     */
    int xmit(RdsConnection c, RdsOutMessage m);

    /**
     * Before the first {@link #xmit} of a transmit pass (rds_tcp_xmit_path_prepare: TCP_CORK on, so that what the
     * pass writes leaves in full-sized segments). Holder of the transmit guard. Nothing by default.
     */
    default void xmitPrepare(RdsConnection c) { }

    /** After the last {@link #xmit} of a pass (rds_tcp_xmit_path_complete: TCP_CORK off, pushing the rest). */
    default void xmitComplete(RdsConnection c) { }

    /** True when written messages wait in the retransmit queue for an acknowledgement (TCP), false when delivered at once. */
    boolean keepsRetransmitQueue();

    /** Frees the messages the peer has acknowledged (rds_send_path_drop_acked); holder of the transmit guard. */
    void dropAcked(RdsConnection c);

    /** Tears the transport's connection down (rds_tcp_conn_path_shutdown); holder of the transmit guard. */
    void shutdown(RdsConnection c, boolean reset);
}
