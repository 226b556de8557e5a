package io.jnet.rds;

import io.jnet.ip.Ipv4Layer;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.RdsSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.Sysctls;
import io.jnet.wire.Ipv4;
import io.jnet.wire.RdsHeader;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * RDS for one namespace (Linux's net/rds with its TCP transport, per network namespace): the bind table
 * (bind.c), the connections by address pair (connection.c), the congestion maps (cong.c), the work queue
 * (threads.c, {@link RdsWorker}), the TCP listener on port 16385 (tcp_listen.c, opened with the first RDS
 * socket, as loading the module does) and the counters ({@link #statistics()}).
 *
 * <p>Incoming messages go through {@link #recvIncoming} (recv.c rds_recv_incoming): sequence check, ping and
 * pong, then the socket bound to the destination address and port.
 */
public final class RdsProtocol {
    final NetNamespace ns;
    final Sysctls sysctl;
    final Ipv4Layer ip;
    final RdsStatistics stats = new RdsStatistics();
    final RdsWorker worker;
    /** Bound sockets by {@link #bindKey}. */
    private final ConcurrentHashMap<Long, RdsSocketImpl> bound = new ConcurrentHashMap<>();
    /** Connections by {@link #connKey} (laddr, faddr). */
    private final ConcurrentHashMap<Long, RdsConnection> conns = new ConcurrentHashMap<>();
    /** Congestion maps by address (rds_cong_tree). */
    private final ConcurrentHashMap<Integer, RdsCongMap> congMaps = new ConcurrentHashMap<>();
    /** Sockets with RDS_CONG_MONITOR set (rds_cong_monitor). */
    final CopyOnWriteArraySet<RdsSocketImpl> congMonitors = new CopyOnWriteArraySet<>();
    /** Sockets waiting for a congested port (the maps' m_waitq), woken by any map update. */
    final CopyOnWriteArraySet<RdsSocketImpl> congWaiters = new CopyOnWriteArraySet<>();
    /** Sockets refused with ENOBUFS (rs_seen_congestion), whose pollers hear of every map update (rds_poll_waitq). */
    final CopyOnWriteArraySet<RdsSocketImpl> congPollers = new CopyOnWriteArraySet<>();
    /** rds_cong_generation: map updates so far. */
    final AtomicLong congGeneration = new AtomicLong();
    private final CopyOnWriteArraySet<RdsSocketImpl> sockets = new CopyOnWriteArraySet<>();
    final RdsLoopTransport loop = new RdsLoopTransport();
    final RdsTcpTransport tcp;
    private volatile RdsTcpListener listener;
    /** This namespace's generation number (RDS_EXTHDR_GEN_NUM of probe pongs): random, non-zero. */
    final int genNum;
    private volatile boolean closed;

    RdsProtocol(NetNamespace ns) {
        this.ns = ns;
        this.sysctl = ns.sysctl();
        this.ip = ns.extension(Ipv4Layer.class);
        this.worker = new RdsWorker(ns);
        this.tcp = new RdsTcpTransport(this);
        int g;
        do g = (int) ns.randomLong(); while (g == 0);
        this.genNum = g;
        ns.registerSocketFactory(RdsSocket.class, this::openSocket);
        ns.onClose(this::closeAll);
    }

    /** The RDS module of {@code ns}. */
    public static RdsProtocol of(NetNamespace ns) { return ns.extension(RdsProtocol.class); }

    /** The namespace's RDS counters. */
    public RdsStatistics statistics() { return stats; }

    /** Every connection, as {@code rds-info -n} lists them. */
    public List<RdsConnection> connections() { return new ArrayList<>(conns.values()); }

    /** The connection from local address {@code local} to {@code remote}, or null when none was made. */
    public RdsConnection connection(InetAddress local, InetAddress remote) {
        return conns.get(connKey(Ipv4.fromInet(local), Ipv4.fromInet(remote)));
    }

    /** Number of bound RDS sockets. */
    public int boundSocketCount() { return bound.size(); }

    /** True once the TCP listener on port 16385 is open. */
    public boolean isListening() { return listener != null && listener.isOpen(); }

    private RdsSocket openSocket() {
        if (closed) throw new IllegalStateException("namespace " + ns.name() + " is closed");
        ensureListener();
        RdsSocketImpl s = new RdsSocketImpl(this);
        sockets.add(s);
        return s;
    }

    private synchronized void ensureListener() {
        if (listener != null || closed) return;
        listener = new RdsTcpListener(this);
        listener.open();
    }

    // ---- bind table (bind.c) ------------------------------------------------------------------------

    static long bindKey(int addr, int port) { return (addr & 0xFFFFFFFFL) << 16 | port; }

    static long connKey(int laddr, int faddr) { return (laddr & 0xFFFFFFFFL) << 32 | (faddr & 0xFFFFFFFFL); }

    /**
     * rds_add_bound: binds {@code s} to {@code addr}:{@code port}; port 0 picks a free port from a random start
     * (ports 0 and 1 are never picked: 0 is ping, 1 the probe port).
     *
     * @return the bound port
     * @throws ErrnoException EADDRINUSE when taken, or when no port is free
     */
    int bind(RdsSocketImpl s, int addr, int port) throws ErrnoException {
        if (port != 0) {
            if (bound.putIfAbsent(bindKey(addr, port), s) != null) {
                throw new ErrnoException(Errno.EADDRINUSE, "bind: " + Ipv4.addressToString(addr) + ":" + port);
            }
            return port;
        }
        int start = 2 + ns.randomInt(65534);
        for (int i = 0; i < 65534; i++) {
            int p = 2 + (start - 2 + i) % 65534;
            if (bound.putIfAbsent(bindKey(addr, p), s) == null) return p;
        }
        throw new ErrnoException(Errno.EADDRINUSE, "bind: no free RDS port on " + Ipv4.addressToString(addr));
    }

    void unbind(RdsSocketImpl s, int addr, int port) { bound.remove(bindKey(addr, port), s); }

    /** rds_find_bound. */
    RdsSocketImpl findBound(int addr, int port) { return bound.get(bindKey(addr, port)); }

    void socketClosed(RdsSocketImpl s) {
        sockets.remove(s);
        congMonitors.remove(s);
        congWaiters.remove(s);
        congPollers.remove(s);
        for (RdsConnection c : conns.values()) c.dropQueuedFrom(s);
    }

    // ---- connections (connection.c) -----------------------------------------------------------------

    /**
     * __rds_conn_create: the connection for (laddr, faddr), made when absent with c_outgoing as given; the
     * transport is loopback when faddr is one of this namespace's addresses, else TCP.
     */
    RdsConnection connFor(int laddr, int faddr, boolean outgoing) {
        long key = connKey(laddr, faddr);
        RdsConnection c = conns.get(key);
        if (c != null) return c;
        return conns.computeIfAbsent(key, k -> {
            boolean isLoop = ns.isLocalAddress(faddr);
            return new RdsConnection(this, laddr, faddr, outgoing, isLoop ? loop : tcp);
        });
    }

    RdsConnection existingConn(int laddr, int faddr) { return conns.get(connKey(laddr, faddr)); }

    /** True when a route leads to {@code daddr} (or it is local). */
    boolean routable(int daddr) { return ns.isLocalAddress(daddr) || ip.route(daddr) != null; }

    // ---- congestion (cong.c) ------------------------------------------------------------------------

    RdsCongMap congMap(int addr) { return congMaps.computeIfAbsent(addr, RdsCongMap::new); }

    /**
     * rds_cong_queue_updates: the local map of {@code map.addr} changed; every connection from that address that
     * is UP sends it (a loopback connection just tells its waiters, as rds_loop_xmit_cong_map).
     */
    void congQueueUpdates(RdsCongMap map) {
        boolean loopWake = false;
        for (RdsConnection c : conns.values()) {
            if (c.laddr != map.addr) continue;
            if (c.isLoopback()) {
                loopWake = true;
            } else if (c.state() == RdsConnState.UP) {
                c.queueCongUpdate();
            }
        }
        if (loopWake) congMapUpdated(map, -1L);
    }

    /**
     * rds_cong_map_updated: counts s_cong_update_received (a peer's update, or a local change a loopback
     * connection sees, as rds_loop_xmit_cong_map), advances rds_cong_generation (POLLIN for pollers of sockets
     * without RDS_CONG_MONITOR), wakes senders waiting for a congested port and the pollers of sockets refused
     * with ENOBUFS (rds_poll_waitq), and moves the
     * monitor bits of {@code portmask} (bit k: a port p with p % 64 == k became uncongested) from rs_cong_mask
     * to rs_cong_notify.
     */
    void congMapUpdated(RdsCongMap map, long portmask) {
        stats.inc(RdsStatistics.Counter.s_cong_update_received);
        congGeneration.incrementAndGet();
        for (RdsSocketImpl s : congWaiters) s.wake();
        for (RdsSocketImpl s : congPollers) s.wake();
        if (portmask != 0) {
            for (RdsSocketImpl s : congMonitors) s.congNotify(portmask);
        }
    }

    // ---- receive (recv.c) ---------------------------------------------------------------------------

    /**
     * rds_recv_incoming for a message that arrived on {@code conn} (from conn.faddr to conn.laddr); on the
     * receiving thread of the transport (the worker for TCP, the sender for loopback).
     */
    void recvIncoming(RdsConnection conn, int saddr, int daddr, RdsMessage m) {
        if (m.isCongestionUpdate()) { // rds_tcp_cong_recv: no sequence, replaces the peer's map
            RdsCongMap map = congMap(saddr);
            long mask = map.replace(m.payload(), m.payloadOffset());
            congMapUpdated(map, mask);
            return;
        }
        long seq = m.sequence();
        if (Long.compareUnsigned(seq, conn.nextRxSeq) < 0 && (m.flags() & RdsHeader.FLAG_RETRANSMITTED) != 0) {
            stats.inc(RdsStatistics.Counter.s_recv_drop_old_seq);
            return;
        }
        conn.nextRxSeq = seq + 1;
        int sport = m.sourcePort(), dport = m.destinationPort();
        if (dport == 0) {
            if (sport != 0) { // a ping: answer it with a pong (rds_send_pong)
                stats.inc(RdsStatistics.Counter.s_recv_ping);
                conn.sendPong(sport);
            }
            return;
        }
        if (sport == 0 && dport == RdsHeader.PROBE_PORT) { // a probe pong: consumed (jnet has a single path)
            stats.inc(RdsStatistics.Counter.jnet_s_recv_pong);
            return;
        }
        // any other pong (sport 0) goes to the socket that pinged, bound at its dport, as Linux (rds-ping)
        RdsSocketImpl rs = findBound(daddr, dport);
        if (rs == null) {
            stats.inc(RdsStatistics.Counter.s_recv_drop_no_sock);
            return;
        }
        int r = rs.deliver(m, saddr);
        if (r == RdsSocketImpl.DELIVER_DEAD) stats.inc(RdsStatistics.Counter.s_recv_drop_dead_sock);
        else if (r == RdsSocketImpl.DELIVER_OVER_CAP && conn.tc != null) conn.tc.throttleFor(rs);
    }

    // ---- shutdown -----------------------------------------------------------------------------------

    boolean isClosed() { return closed; }

    private void closeAll() {
        closed = true;
        worker.stop(); // no more work items: what runs now is the last
        for (RdsSocketImpl s : sockets) s.close();
        RdsTcpListener l = listener;
        if (l != null) l.close();
        for (RdsConnection c : conns.values()) c.destroy();
    }
}
