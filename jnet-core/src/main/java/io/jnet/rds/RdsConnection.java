package io.jnet.rds;

import io.jnet.stack.Timer;
import io.jnet.wire.Ipv4;
import io.jnet.wire.RdsHeader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One RDS connection between a local and a remote address (Linux's {@code struct rds_connection} with its single
 * path, {@code rds_conn_path}), shared by every RDS socket of the namespace that sends from that local address
 * to that remote one.
 *
 * <p>Send side (net/rds/send.c): messages get their sequence number from {@code c_next_tx_seq} (from 1, kept
 * across reconnects) as they are queued on the send queue; {@link #sendXmit} (rds_send_xmit) moves them to the
 * retransmit queue as the transport starts writing them, and the transport frees them when TCP acknowledges
 * their last byte. Only one thread transmits at a time (Linux's RDS_IN_XMIT bit): a sender that finds another
 * transmitting leaves its message to it. After a reconnect, every message of the retransmit queue is resent
 * first, with RDS_FLAG_RETRANSMITTED (rds_send_path_reset).
 *
 * <p>State ({@link RdsConnState}) changes by compare-and-set as rds_conn_path_transition. A failure drops the
 * connection (ERROR, then shutdown on the worker: DISCONNECTING, transport shutdown, DOWN); then the side that
 * made the connection by sending ({@link #isOutgoing()}, Linux's c_outgoing) reconnects, and the accepting side
 * too while it has messages queued or unacknowledged (as Linux since 4.11), after a delay as
 * rds_queue_reconnect: at once the first time, then uniformly random in [0, jitter) with the jitter doubling from
 * 1 ms to 1 s, back to 0 once UP.
 */
public final class RdsConnection {
    /** rds_sysctl_reconnect_min_jiffies (HZ / 1000) and _max_jiffies (HZ), in nanoseconds. */
    static final long RECONNECT_MIN_NANOS = 1_000_000L, RECONNECT_MAX_NANOS = 1_000_000_000L;

    /** Pongs waiting to be sent or acknowledged at most (jnet's cap; see {@link #sendPong}). */
    static final int MAX_PONGS = 256;

    final RdsProtocol proto;
    final int laddr;
    final int faddr;
    final boolean outgoing;
    final RdsTransport trans;
    /** The TCP transport's state (rds_tcp_connection); null for loopback. */
    final RdsTcpConnection tc;
    private final AtomicReference<RdsConnState> state = new AtomicReference<>(RdsConnState.DOWN);

    // send side: the queues under this object's monitor
    private final ArrayDeque<RdsOutMessage> sendQueue = new ArrayDeque<>();
    private final ArrayDeque<RdsOutMessage> retrans = new ArrayDeque<>();
    private long nextTxSeq = 1;
    /** Pongs queued or unacknowledged. */
    private final AtomicInteger pongs = new AtomicInteger();
    /** RDS_IN_XMIT. */
    private final AtomicBoolean inXmit = new AtomicBoolean();
    /** Messages {@link #freeAcked} frees once out of the monitor; holder of the guard only. */
    private final ArrayDeque<RdsOutMessage> ackedScratch = new ArrayDeque<>();
    /** The message the transport is writing (cp_xmit_rm); holder of the guard only. */
    private RdsOutMessage xmitMsg;
    /** RCMG_MAP_QUEUED: the local congestion map goes out before the next message. */
    private final AtomicBoolean mapQueued = new AtomicBoolean();

    /** c_next_rx_seq; receiving thread only. */
    long nextRxSeq;

    // connect and work scheduling
    private final AtomicBoolean connectPending = new AtomicBoolean();
    private final AtomicBoolean workQueued = new AtomicBoolean();
    private final AtomicBoolean shutdownQueued = new AtomicBoolean();
    private volatile boolean resetOnShutdown;
    private long reconnectJitterNanos;
    private final Timer reconnectTimer;
    private volatile boolean destroyed;

    RdsConnection(RdsProtocol proto, int laddr, int faddr, boolean outgoing, RdsTransport trans) {
        this.proto = proto;
        this.laddr = laddr;
        this.faddr = faddr;
        this.outgoing = outgoing;
        this.trans = trans;
        this.tc = trans instanceof RdsTcpTransport ? new RdsTcpConnection(this) : null;
        this.reconnectTimer = proto.ns.timers().newTimer(() -> proto.worker.execute(this::connectWork));
    }

    // ---- observation ---------------------------------------------------------------------------------

    public RdsConnState state() { return state.get(); }

    /** Linux's c_outgoing: made by a send here (true) or by an accepted TCP connection (false). */
    public boolean isOutgoing() { return outgoing; }

    /** True for a connection to one of the namespace's own addresses (rds_loop). */
    public boolean isLoopback() { return tc == null; }

    public InetAddress localAddress() { return Ipv4.toInet(laddr); }

    public InetAddress remoteAddress() { return Ipv4.toInet(faddr); }

    /** The local end of the TCP connection underneath, or null when there is none. */
    public InetSocketAddress tcpLocalAddress() { return tc == null ? null : tc.localAddress(); }

    /** The remote end of the TCP connection underneath, or null when there is none. */
    public InetSocketAddress tcpRemoteAddress() { return tc == null ? null : tc.remoteAddress(); }

    /** c_next_tx_seq: the sequence number of the next message queued. */
    public synchronized long nextTxSequence() { return nextTxSeq; }

    /** c_next_rx_seq: one past the last sequence number received. */
    public long nextRxSequence() { return nextRxSeq; }

    /** Messages queued, not yet written. */
    public synchronized int sendQueueSize() { return sendQueue.size(); }

    /** Messages written (or being written), not yet acknowledged by TCP. */
    public synchronized int retransmitQueueSize() { return retrans.size(); }

    /** The current reconnect jitter in nanoseconds (cp_reconnect_jiffies): 0 until a first reconnect, after UP. */
    public synchronized long reconnectJitterNanos() { return reconnectJitterNanos; }

    /**
     * rds_conn_drop with a reset: the TCP connection is aborted (RST), the connection goes through shutdown and,
     * when outgoing, reconnects; unacknowledged messages are resent.
     */
    public void drop() { drop(true); }

    @Override
    public String toString() {
        return "RdsConnection[" + Ipv4.addressToString(laddr) + " -> " + Ipv4.addressToString(faddr) + " "
                + state.get() + (outgoing ? " outgoing" : "") + "]";
    }

    // ---- send ------------------------------------------------------------------------------------------

    /** rds_send_queue_rm: queues a message with the next sequence number. */
    void queue(RdsSocketImpl rs, int sport, int dport, byte[] payload) {
        synchronized (this) {
            RdsMessage m = new RdsMessage(nextTxSeq++, sport, dport, 0, payload);
            sendQueue.addLast(new RdsOutMessage(m, rs));
        }
        proto.stats.inc(RdsStatistics.Counter.s_send_queued);
    }

    /**
     * rds_send_pong / rds_send_probe: a pong to {@code dport}; a probe pong carries NPATHS 1 and GEN_NUM. Pongs
     * are charged to no socket's send buffer, so at most {@link #MAX_PONGS} may wait to be sent or acknowledged;
     * a ping beyond that is not answered (jnet_s_send_pong_dropped), so a peer that pings without reading cannot
     * fill memory with them. Linux has no such cap; jnet's addition.
     */
    void sendPong(int dport) {
        if (pongs.incrementAndGet() > MAX_PONGS) {
            pongs.decrementAndGet();
            proto.stats.inc(RdsStatistics.Counter.jnet_s_send_pong_dropped);
            return;
        }
        byte[] ext = null;
        if (dport == RdsHeader.PROBE_PORT) {
            ext = new byte[RdsHeader.EXT_SPACE];
            RdsHeader.addExtension(ext, 0, RdsHeader.EXTHDR_NPATHS, 1);
            RdsHeader.addExtension(ext, 0, RdsHeader.EXTHDR_GEN_NUM, proto.genNum & 0xFFFFFFFFL);
        }
        synchronized (this) {
            byte[] none = new byte[0];
            RdsMessage m = new RdsMessage(nextTxSeq++, 0, 0, dport, 0, 0, ext, none, 0, 0);
            sendQueue.addLast(RdsOutMessage.pong(m, pongs));
        }
        proto.stats.inc(RdsStatistics.Counter.s_send_pong);
        sendXmit();
    }

    /**
     * A probe ping (Linux's rds_send_ping: sport RDS_FLAG_PROBE_PORT, dport 0) on the current TCP connection: a
     * live peer answers with a probe pong, a peer that lost the connection (a restarted node) answers the segment
     * with an RST, which drops the connection here. Not charged to any socket.
     */
    void sendProbePing() {
        synchronized (this) {
            RdsMessage m = new RdsMessage(nextTxSeq++, RdsHeader.PROBE_PORT, 0, 0, new byte[0]);
            sendQueue.addLast(new RdsOutMessage(m, null));
        }
        proto.stats.inc(RdsStatistics.Counter.jnet_s_send_probe_ping);
        sendXmit();
    }

    /** rds_cong_queue_updates for this connection: the local map goes out before the next message. */
    void queueCongUpdate() {
        // counted when it becomes queued only (rds_cong_queue_updates' test_and_set_bit of RCMG_MAP_QUEUED)
        if (!mapQueued.getAndSet(true)) proto.stats.inc(RdsStatistics.Counter.s_cong_update_queued);
        kick();
    }

    /**
     * Messages one call of {@link #sendXmit} takes from the send queue before it leaves the rest to the worker
     * (Linux's send_batch_count module parameter, default 64), so that a sender's thread does not transmit for
     * everybody else for as long as they keep queueing.
     */
    static final int SEND_BATCH_COUNT = 64;

    /**
     * rds_send_xmit: transmits queued messages in the calling thread until the queue is empty, the transport is
     * full or {@link #SEND_BATCH_COUNT} messages went. Only one thread transmits at a time (RDS_IN_XMIT): one that
     * finds another transmitting leaves its message to it and returns (s_send_lock_contention). A full transport
     * ends the pass; its write-space callback resumes it on the worker (rds_tcp_write_space). When messages were
     * queued after the queue was last looked at and no other thread took the connection over since (cp_send_gen),
     * the pass starts again; after a full batch the worker takes over (cp_send_w). The transport may bracket a
     * pass (rds_tcp_xmit_path_prepare and _complete: TCP_CORK around it).
     */
    void sendXmit() {
        while (true) {
            xmitWanted = true; // before the attempt: a holder that already looked at it looks again on release
            if (!inXmit.compareAndSet(false, true)) {
                proto.stats.inc(RdsStatistics.Counter.s_send_lock_contention);
                return;
            }
            xmitWanted = false;
            long gen = sendGen.incrementAndGet();
            int pass;
            try {
                pass = xmitPass();
            } finally {
                inXmit.set(false);
            }
            if (gen != sendGen.get()) { // another thread took the connection over since, and the queue with it
                proto.stats.inc(RdsStatistics.Counter.s_send_lock_queue_raced);
                return;
            }
            if (pass == PASS_FULL || pass == PASS_DOWN) {
                // a transmit asked for while this one held the guard (write space, say) may have been this one's
                // to do: the worker tries once more (Linux queues cp_send_w after a contended rds_send_xmit)
                if (xmitWanted) kick();
                return;
            }
            if (xmitWanted || mapQueued.get() || hasUnsent()) {
                if (pass == PASS_DONE) continue; // queued meanwhile: go round (batch_count < send_batch_count)
                kick(); // queue_delayed_work(cp_send_w)
            }
            return;
        }
    }

    /** Results of {@link #xmitPass}. */
    private static final int PASS_DONE = 0, PASS_BATCH = 1, PASS_FULL = 2, PASS_DOWN = 3;

    /** A transmit was asked for since the guard's holder took it (it looks again, or leaves it to the worker). */
    private volatile boolean xmitWanted;

    /** cp_send_gen: bumped by every thread that takes the transmit guard in {@link #sendXmit}. */
    private final java.util.concurrent.atomic.AtomicLong sendGen = new java.util.concurrent.atomic.AtomicLong();

    private synchronized boolean hasUnsent() { return !sendQueue.isEmpty(); }

    /** One pass of rds_send_xmit's loop; holder of the transmit guard. */
    private int xmitPass() {
        if (state.get() != RdsConnState.UP) return PASS_DOWN;
        boolean keep = trans.keepsRetransmitQueue();
        trans.dropAcked(this);
        int batch = 0;
        int result = PASS_DONE;
        boolean prepared = false;
        try {
            while (true) {
                if (state.get() != RdsConnState.UP) {
                    result = PASS_DOWN;
                    break;
                }
                RdsOutMessage m = xmitMsg;
                if (m == null) {
                    if (mapQueued.getAndSet(false)) {
                        RdsMessage cm = new RdsMessage(0, 0, 0, RdsHeader.FLAG_CONG_BITMAP, proto.congMap(laddr).toBytes());
                        m = new RdsOutMessage(cm, null);
                        if (tc != null) m.end = tc.written + m.total();
                    } else {
                        if (batch >= SEND_BATCH_COUNT) {
                            result = PASS_BATCH;
                            break;
                        }
                        synchronized (this) {
                            m = sendQueue.pollFirst();
                            if (m == null) break;
                            if (keep) {
                                retrans.addLast(m);
                                m.end = tc.written + m.total() - m.off;
                            }
                        }
                        batch++;
                    }
                    xmitMsg = m;
                }
                if (!prepared) {
                    trans.xmitPrepare(this);
                    prepared = true;
                }
                int r = trans.xmit(this, m);
                if (r == RdsTransport.XMIT_PARTIAL) {
                    proto.stats.inc(RdsStatistics.Counter.s_tcp_sndbuf_full);
                    result = PASS_FULL;
                    break;
                }
                if (r == RdsTransport.XMIT_ERROR) {
                    result = PASS_DOWN;
                    break;
                }
                xmitMsg = null;
                if (!keep) m.free();
            }
        } finally {
            if (prepared) trans.xmitComplete(this);
        }
        trans.dropAcked(this);
        return result;
    }

    /**
     * rds_send_path_drop_acked: frees retransmit-queue messages that end at or before {@code acked}. They are
     * taken off under this object's monitor and freed after it (freeing wakes the sending socket, whose readiness
     * listeners are the application's). Holder of the transmit guard.
     */
    void freeAcked(long acked) {
        ArrayDeque<RdsOutMessage> done = ackedScratch;
        synchronized (this) {
            RdsOutMessage m;
            while ((m = retrans.peekFirst()) != null && m.end <= acked && m != xmitMsg) {
                done.addLast(retrans.pollFirst());
            }
        }
        int n = done.size();
        if (n == 0) return;
        RdsOutMessage m;
        while ((m = done.pollFirst()) != null) m.free();
        proto.stats.add(RdsStatistics.Counter.s_send_drop_acked, n);
    }

    /**
     * rds_send_drop_to for a closing socket: its messages not yet written are dropped (freed after leaving this
     * object's monitor).
     */
    void dropQueuedFrom(RdsSocketImpl rs) {
        ArrayList<RdsOutMessage> dropped = new ArrayList<>();
        synchronized (this) {
            for (Iterator<RdsOutMessage> it = sendQueue.iterator(); it.hasNext(); ) {
                RdsOutMessage m = it.next();
                if (m.rs == rs && m.off == 0) {
                    it.remove();
                    dropped.add(m);
                }
            }
        }
        for (RdsOutMessage m : dropped) m.free();
    }

    /**
     * rds_send_path_reset: the message being written and every unacknowledged one go back to the head of the
     * send queue, marked retransmitted, to be sent from their start on the next TCP connection. A congestion
     * update being written is dropped (the map goes out again once UP). Holder of the transmit guard.
     */
    void pathReset() {
        RdsOutMessage x = xmitMsg;
        xmitMsg = null;
        mapQueued.set(false);
        int n;
        synchronized (this) {
            n = retrans.size();
            for (Iterator<RdsOutMessage> it = retrans.descendingIterator(); it.hasNext(); ) {
                RdsOutMessage m = it.next();
                m.retransmitted = true;
                m.off = 0;
                sendQueue.addFirst(m);
            }
            retrans.clear();
        }
        if (n > 0) proto.stats.add(RdsStatistics.Counter.jnet_s_send_retransmitted, n);
        assert x == null || x.rs == null || x.retransmitted;
    }

    /**
     * Takes the transmit guard, waiting for a transmitting thread to finish its pass (it never blocks, and a pass
     * ends after {@link #SEND_BATCH_COUNT} messages): a short spin, then yielding the core, then 50 us naps, so a
     * long pass does not cost the waiter a core.
     */
    void lockXmit() {
        for (int spins = 0; !inXmit.compareAndSet(false, true); spins++) {
            if (spins < 100) Thread.onSpinWait();
            else if (spins < 200) Thread.yield();
            else java.util.concurrent.locks.LockSupport.parkNanos(50_000L);
        }
    }

    /** Gives the transmit guard back; what was queued meanwhile goes on the worker. */
    void unlockXmit() {
        inXmit.set(false);
        if (xmitWanted || hasUnsent() || mapQueued.get()) kick();
    }

    // ---- state -----------------------------------------------------------------------------------------

    boolean transition(RdsConnState from, RdsConnState to) { return state.compareAndSet(from, to); }

    /** rds_conn_path_connect_if_down: a send on a DOWN connection starts connecting it. */
    void connectIfDown() {
        if (state.get() == RdsConnState.DOWN && connectPending.compareAndSet(false, true)) {
            if (tc == null) connectWork(); // rds_loop_conn_connect only marks the connection UP
            else proto.worker.execute(this::connectWork);
        }
    }

    /** rds_connect_worker, on the worker. */
    void connectWork() {
        connectPending.set(false);
        if (destroyed || proto.isClosed()) return;
        if (!transition(RdsConnState.DOWN, RdsConnState.CONNECTING)) return;
        proto.stats.inc(RdsStatistics.Counter.jnet_s_conn_connect);
        try {
            trans.connect(this);
        } catch (Exception e) {
            // the connect could not start: back to DOWN and try again later (rds_connect_worker)
            lockXmit();
            try {
                trans.shutdown(this, false);
            } finally {
                unlockXmit();
            }
            if (transition(RdsConnState.CONNECTING, RdsConnState.DOWN)) queueReconnect();
        }
    }

    /**
     * rds_connect_path_complete: {@code from} -> UP; the reconnect delay starts over, the local congestion map is
     * queued (rds_cong_add_conn) and what waits in the send queue goes. A failed transition drops the connection.
     */
    void connectComplete(RdsConnState from) {
        if (!transition(from, RdsConnState.UP)) {
            drop(false);
            return;
        }
        synchronized (this) {
            reconnectJitterNanos = 0;
        }
        if (tc != null) {
            if (!mapQueued.getAndSet(true)) proto.stats.inc(RdsStatistics.Counter.s_cong_update_queued);
        }
        sendXmit();
    }

    /**
     * rds_conn_path_drop: ERROR (by compare-and-set from the state read, so that a shutdown in progress or done
     * is not overwritten), then shutdown on the worker. {@code reset}: abort the TCP connection (RST).
     */
    void drop(boolean reset) {
        while (true) {
            RdsConnState s = state.get();
            if (s == RdsConnState.DOWN || s == RdsConnState.DISCONNECTING) return;
            if (reset) resetOnShutdown = true;
            if (s == RdsConnState.ERROR || state.compareAndSet(s, RdsConnState.ERROR)) break;
        }
        if (shutdownQueued.compareAndSet(false, true)) proto.worker.execute(this::shutdown);
    }

    /** True once the namespace closed this connection ({@link #destroy}). */
    boolean isDestroyed() { return destroyed; }

    /** The state becomes {@code to} from whatever it is, by compare-and-set from the state read. */
    void moveTo(RdsConnState to) {
        RdsConnState s;
        do s = state.get(); while (!state.compareAndSet(s, to));
    }

    /**
     * rds_conn_shutdown, on the worker: DISCONNECTING, transport shutdown, unacknowledged messages back to the
     * send queue, DOWN; then a reconnect when this side made the connection (c_outgoing), when it is loopback, or
     * when messages wait to be sent or acknowledged. An idle accepted connection stays DOWN (the seed's c_outgoing
     * rule); one with queued messages reconnects as Linux since 4.11 does (rds_queue_reconnect and
     * rds_send_xmit's reconnect for a non-empty queue), else its messages, and senders waiting for send-buffer
     * room they hold, would wait for a connection the peer may never make.
     */
    void shutdown() {
        shutdownQueued.set(false);
        if (!transition(RdsConnState.ERROR, RdsConnState.DISCONNECTING)) return; // replaced meanwhile (accept)
        boolean reset = resetOnShutdown;
        resetOnShutdown = false;
        lockXmit();
        try {
            trans.shutdown(this, reset);
            pathReset();
        } finally {
            unlockXmit();
        }
        proto.stats.inc(RdsStatistics.Counter.s_conn_reset);
        state.set(RdsConnState.DOWN);
        if (destroyed || proto.isClosed()) return;
        if (outgoing || tc == null || hasQueued()) queueReconnect();
    }

    /**
     * True while messages wait to be sent or acknowledged. Read after the state went DOWN: a message queued later
     * finds the connection DOWN and starts the connect itself ({@link #connectIfDown}).
     */
    private synchronized boolean hasQueued() { return !sendQueue.isEmpty() || !retrans.isEmpty(); }

    /** rds_queue_reconnect. */
    void queueReconnect() {
        if (!connectPending.compareAndSet(false, true)) return;
        long delay;
        synchronized (this) {
            if (reconnectJitterNanos == 0) {
                reconnectJitterNanos = RECONNECT_MIN_NANOS;
                delay = 0;
            } else {
                delay = Math.floorMod(proto.ns.randomLong(), reconnectJitterNanos);
                reconnectJitterNanos = Math.min(reconnectJitterNanos * 2, RECONNECT_MAX_NANOS);
            }
        }
        if (delay == 0) proto.worker.execute(this::connectWork);
        else reconnectTimer.schedule(delay);
    }

    /** Schedules the transport's work (receive, write space, connect completion) on the worker; never blocks. */
    void kick() {
        if (workQueued.compareAndSet(false, true)) proto.worker.execute(this::work);
    }

    private void work() {
        workQueued.set(false);
        if (tc != null) tc.work();
        else sendXmit();
    }

    /** The namespace closes: no more reconnects, the TCP connection goes, queued messages are freed. */
    void destroy() {
        destroyed = true;
        reconnectTimer.cancel();
        lockXmit();
        try {
            if (tc != null) tc.closeSocket(false); // no read-out: the namespace is going
            pathReset();
            ArrayList<RdsOutMessage> dropped;
            synchronized (this) {
                dropped = new ArrayList<>(sendQueue);
                sendQueue.clear();
            }
            for (RdsOutMessage m : dropped) m.free();
        } finally {
            inXmit.set(false);
        }
        state.set(RdsConnState.DOWN);
    }
}
