package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.MibCounter;

/**
 * The per-socket packet-buffer caches of Linux 5.1 (net.ipv4.tcp_tx_skb_cache and net.ipv4.tcp_rx_skb_cache,
 * {@code sk_tx_skb_cache} and {@code sk_rx_skb_cache}; removed again in Linux 5.15), one buffer each, so that a
 * buffer allocated on one thread is not freed on another:
 * <ul>
 *   <li>TX: a write-queue segment that an ACK frees is parked on the socket instead (sk_wmem_free_skb), when
 *       nothing else holds its data (no clone on a device queue or in a receiver, Linux's !skb_cloned), and
 *       the next write takes it instead of a new buffer (sk_stream_alloc_skb), when it is large enough and
 *       still not shared;</li>
 *   <li>RX: the reader parks the buffer it consumed instead of freeing it (sk_eat_skb), and the receive path
 *       frees it when it processes the socket's next segment (tcp_v4_rcv), on the receiving thread.</li>
 * </ul>
 * Both are emptied when the connection ends (tcp_done, TIME-WAIT; Linux: tcp_disconnect and
 * sk_stream_kill_queues), and not used, and emptied, while TCP is under memory pressure
 * ({@link TcpProtocol#underMemoryPressure()}). Counters (jnet's own; Linux counts none):
 * TcpExtJnetTxSkbCacheHits (writes that took the parked buffer), TcpExtJnetRxSkbCacheFrees (parked buffers
 * freed by the receive path), TcpExtJnetSkbCachePurges (parked buffers freed at the end or under pressure).
 *
 * <p>Every method runs with the connection locked.
 */
final class SkbCache {
    private PacketBuffer tx;
    private PacketBuffer rx;

    /**
     * A buffer for a new write-queue segment of {@code size} payload bytes behind {@code headroom}: the parked TX
     * buffer when the cache is on and it fits, else a new one from the namespace's allocator.
     */
    PacketBuffer allocTx(TcpConnection c, int headroom, int size) {
        PacketBuffer b = tx;
        if (b != null) {
            tx = null;
            if (b.capacity() >= headroom + size && !b.dataShared() && c.tcp.sysctl.tcpTxSkbCache.enabled()) {
                c.tcp.mib.inc(MibCounter.TcpExtJnetTxSkbCacheHits);
                return b.recycle(headroom, size);
            }
            b.release();
        }
        return c.tcp.ns.allocator().allocate(headroom, size);
    }

    /** Frees a fully acknowledged write-queue segment, or parks it (see the class). */
    void freeAcked(TcpConnection c, PacketBuffer seg) {
        if (tx == null && c.tcp.sysctl.tcpTxSkbCache.enabled() && !seg.dataShared() && seg.payloadRegion() == null
                && !c.tcp.underMemoryPressure() && c.state != TcpState.CLOSED) {
            tx = seg;
            return;
        }
        seg.release();
    }

    /** Frees a buffer the reader consumed, or parks it (see the class). */
    void eat(TcpConnection c, PacketBuffer p) {
        if (rx == null && c.tcp.sysctl.tcpRxSkbCache.enabled() && !c.tcp.underMemoryPressure()
                && c.state != TcpState.CLOSED) {
            rx = p;
            return;
        }
        p.release();
    }

    /** The receive path, for each segment of the connection: frees the buffer the reader parked, if any. */
    void receivedSegment(TcpConnection c) {
        PacketBuffer p = rx;
        if (p != null) {
            rx = null;
            p.release();
            c.tcp.mib.inc(MibCounter.TcpExtJnetRxSkbCacheFrees);
        }
        if (tx != null && c.tcp.underMemoryPressure()) purge(c);
    }

    /** Frees what is parked (connection end, memory pressure). */
    void purge(TcpConnection c) {
        if (tx != null) {
            tx.release();
            tx = null;
            c.tcp.mib.inc(MibCounter.TcpExtJnetSkbCachePurges);
        }
        if (rx != null) {
            rx.release();
            rx = null;
            c.tcp.mib.inc(MibCounter.TcpExtJnetSkbCachePurges);
        }
    }

    /** Buffers parked now (0 to 2), for tests. */
    int parked() { return (tx == null ? 0 : 1) + (rx == null ? 0 : 1); }
}
