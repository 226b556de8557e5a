package io.jnet.tcp;

import io.jnet.buffer.SendFileWindow;
import io.jnet.buffer.PacketBuffer;
import io.jnet.ip.InputRouteCache;
import io.jnet.ip.IpProtocolHandler;
import io.jnet.ip.Ipv4Layer;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.Sysctls;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * TCP for one namespace: demultiplexing (connection table, listeners), port binding (bind conflicts as
 * Linux's inet_csk_get_port; ephemeral ports per RFC 6056 with a keyed offset, as Linux's
 * __inet_hash_connect), initial sequence numbers per RFC 6528, resets for segments without a socket
 * (RFC 9293 3.10.7.1), TIME-WAIT remnants and tcp_tw_reuse.
 */
public final class TcpProtocol implements IpProtocolHandler {
    static final int ISN_PURPOSE = 1, PORT_PURPOSE = 2, TS_PURPOSE = 3;

    final NetNamespace ns;
    final Ipv4Layer ip;
    final Mib mib;
    final Sysctls sysctl;
    final SecretHash secret;
    final ConnTable table = new ConnTable();
    private final TcpListenerImpl[] listeners = new TcpListenerImpl[65536];
    private final Map<Integer, List<Binder>> bindings = new HashMap<>();
    private final int[] portPerturb = new int[256];
    private final TcpReset reset;
    /** The namespace's TCP memory (net.ipv4.tcp_mem): pages charged, memory pressure. */
    final TcpMemory memory;
    /** Counts a read of a sendfile mapping that faulted because its file shrank ({@link SendFileWindow}). */
    final Runnable sendfileFault;
    private int timeWaitCount;
    private long timeWaitEntered;
    /** The second the challenge ACK budget was drawn for, and what is left of it (Linux tcp_challenge_timestamp, tcp_challenge_count). */
    private long challengeSecond = Long.MIN_VALUE;
    private long challengeCount;

    /** Something holding a local port: a socket, listener or TIME-WAIT remnant. */
    interface Binder {
        int boundAddress();
        boolean reuseAddress();
        boolean isListening();
        /** True when bound by bind() (not an ephemeral port chosen at connect()). */
        boolean explicitBind();
    }

    public TcpProtocol(NetNamespace ns) {
        this.ns = ns;
        this.ip = ns.extension(Ipv4Layer.class);
        this.mib = ns.mib();
        this.sendfileFault = () -> mib.inc(MibCounter.TcpExtJnetSendfileFaults);
        this.sysctl = ns.sysctl();
        this.reset = new TcpReset(this);
        this.memory = new TcpMemory(sysctl.tcpMem, sysctl.tcpWmem, sysctl.tcpRmem, mib, ns.clock());
        this.secret = new SecretHash(ns::randomLong);
        ip.registerProtocol(Ipv4.PROTO_TCP, this);
        ns.registerSocketFactory(io.jnet.socket.TcpSocket.class, () -> new TcpConnection(this));
        ns.registerSocketFactory(io.jnet.socket.TcpServerSocket.class, () -> new TcpListenerImpl(this));
        ns.onClose(this::closeAll);
    }

    /**
     * The namespace-wide challenge ACK limit (RFC 5961 7, the second check of Linux's tcp_send_challenge_ack): with
     * net.ipv4.tcp_challenge_ack_limit at INT_MAX (the default) always true; otherwise each second draws a budget of
     * [half, limit + half - 1] challenge ACKs, half = (limit + 1) / 2, and this takes one from it.
     */
    synchronized boolean challengeAckAllowed() {
        int limit = sysctl.tcpChallengeAckLimit.intValue();
        if (limit == Integer.MAX_VALUE) return true;
        long second = ns.clock().nanoTime() / 1_000_000_000L; // jiffies / HZ
        if (second != challengeSecond) {
            long half = (limit + 1L) >> 1;
            challengeSecond = second;
            challengeCount = half + (limit > 0 ? ns.randomInt(limit) : 0);
        }
        if (challengeCount <= 0) return false;
        challengeCount--;
        return true;
    }

    // ---- receive ---------------------------------------------------------------------------------

    @Override
    public void receive(PacketBuffer pkt, int src, int dst) {
        if (!pkt.checksumUnnecessary()) pkt.linearize(); // the checksum is computed over the array
        byte[] b = pkt.array();
        int off = pkt.dataStart();
        int len = pkt.length();
        mib.inc(MibCounter.TcpInSegs); // every segment, errors included (Linux tcp_v4_rcv); TcpInErrs is a subset
        int v = Tcp.validate(b, off, len, !pkt.checksumUnnecessary(), src, dst);
        if (v != Tcp.OK) {
            if (v == Tcp.ERR_CHECKSUM) mib.inc(MibCounter.TcpInCsumErrors);
            mib.inc(MibCounter.TcpInErrs);
            pkt.release();
            return;
        }
        int sport = Tcp.sourcePort(b, off);
        int dport = Tcp.destinationPort(b, off);
        int flags = Tcp.flags(b, off);
        int hl = Tcp.headerLength(b, off);
        pkt.seq = Tcp.seq(b, off);
        pkt.endSeq = pkt.seq + len - hl + ((flags & Tcp.SYN) != 0 ? 1 : 0) + ((flags & Tcp.FIN) != 0 ? 1 : 0);
        pkt.flags = flags;
        TcpEndpoint ep = demuxed(pkt, src, sport, dst, dport);
        if (ep instanceof TcpConnection c) {
            c.segmentArrived(pkt);
            return;
        }
        if (ep instanceof TimeWaitSock tw) {
            if (!tw.process(pkt, src, dst)) return; // consumed
            // an acceptable SYN ended TIME-WAIT: fall through to the listener
        }
        TcpListenerImpl l = findListener(dst, dport);
        if (l != null) {
            l.segmentArrived(pkt, src, dst);
            return;
        }
        reset.sendForNoSocket(pkt, src, dst);
        pkt.release();
    }

    /**
     * The endpoint for a segment: early demux's result when it ran ({@link #earlyDemux}, no second lookup; its
     * "nothing found" too), else one lookup in the connection table. An endpoint that left the table since early
     * demux found it is looked up again.
     */
    private TcpEndpoint demuxed(PacketBuffer pkt, int src, int sport, int dst, int dport) {
        Object demuxed = pkt.socket();
        pkt.setSocket(null); // consumed: a buffer sent on again must not carry it
        if (demuxed == NO_ENDPOINT) return null;
        if (demuxed instanceof TcpEndpoint e && e.hashed && e.matches(dst, dport, src, sport)) return e;
        mib.inc(MibCounter.IpExtJnetSocketLookups);
        return table.lookup(dst, dport, src, sport);
    }

    /** Early demux's result for a segment whose 4-tuple is in no connection or TIME-WAIT remnant. */
    private static final Object NO_ENDPOINT = new Object();

    /**
     * Early demux (Linux's {@code tcp_v4_early_demux}, gated by net.ipv4.tcp_early_demux, read once here): one
     * lookup in the connection table; the endpoint found, or {@link #NO_ENDPOINT}, goes with the segment to
     * {@link #receive}, which does not look again. A connection is a hit (IpExtJnetEarlyDemuxHits) and its
     * cached input route is returned; a TIME-WAIT remnant or nothing is a miss (IpExtJnetEarlyDemuxMisses).
     */
    @Override
    public InputRouteCache earlyDemux(PacketBuffer pkt, int src, int dst) {
        if (!sysctl.tcpEarlyDemux.enabled() || pkt.length() < Tcp.MIN_HEADER_LENGTH) return null;
        byte[] b = pkt.array();
        int off = pkt.dataStart();
        mib.inc(MibCounter.IpExtJnetSocketLookups);
        TcpEndpoint ep = table.lookup(dst, Tcp.destinationPort(b, off), src, Tcp.sourcePort(b, off));
        if (ep instanceof TcpConnection c) {
            mib.inc(MibCounter.IpExtJnetEarlyDemuxHits);
            pkt.setSocket(c);
            return c.rxDst;
        }
        mib.inc(MibCounter.IpExtJnetEarlyDemuxMisses);
        pkt.setSocket(ep != null ? ep : NO_ENDPOINT);
        return null;
    }

    @Override
    public void icmpError(int type, int code, int info, byte[] b, int off, int len) {
        int hl = Ipv4.headerLength(b, off);
        int src = Ipv4.source(b, off);
        int dst = Ipv4.destination(b, off);
        int sport = Tcp.sourcePort(b, off + hl);
        int dport = Tcp.destinationPort(b, off + hl);
        int seq = Tcp.seq(b, off + hl);
        mib.inc(MibCounter.IpExtJnetSocketLookups);
        TcpEndpoint ep = table.lookup(src, sport, dst, dport);
        if (ep instanceof TcpConnection c) c.icmpError(type, code, info, seq);
        else mib.inc(MibCounter.TcpExtOutOfWindowIcmps);
    }

    TcpReset reset() { return reset; }

    /**
     * The namespace's TCP memory: {@link TcpMemory#allocatedPages()} (what /proc/net/sockstat prints as
     * "TCP: ... mem N") and {@link TcpMemory#underPressure()}, which per-socket caches check to purge themselves.
     */
    public TcpMemory memory() { return memory; }

    // ---- listeners -------------------------------------------------------------------------------

    TcpListenerImpl findListener(int addr, int port) {
        TcpListenerImpl any = null;
        synchronized (listeners) {
            for (TcpListenerImpl l = listeners[port]; l != null; l = l.nextListener) {
                if (l.boundAddress() == addr) return l;
                if (l.boundAddress() == 0) any = l;
            }
        }
        return any;
    }

    void addListener(TcpListenerImpl l) {
        synchronized (listeners) {
            l.nextListener = listeners[l.localPort()];
            listeners[l.localPort()] = l;
        }
    }

    void removeListener(TcpListenerImpl l) {
        synchronized (listeners) {
            TcpListenerImpl prev = null;
            for (TcpListenerImpl x = listeners[l.localPort()]; x != null; prev = x, x = x.nextListener) {
                if (x == l) {
                    if (prev == null) listeners[l.localPort()] = x.nextListener; else prev.nextListener = x.nextListener;
                    x.nextListener = null;
                    return;
                }
            }
        }
    }

    // ---- ports -----------------------------------------------------------------------------------

    /**
     * bind(): claims {@code port} (0 = any free ephemeral port) on {@code addr} for {@code who}.
     * Returns the port. Conflicts as Linux: overlapping addresses conflict unless both set SO_REUSEADDR
     * and the other is not listening.
     *
     * @throws ErrnoException EADDRINUSE
     */
    synchronized int bind(Binder who, int addr, int port) throws ErrnoException {
        if (port != 0) {
            if (conflicts(who, addr, port)) throw new ErrnoException(Errno.EADDRINUSE, "bind");
            bindings.computeIfAbsent(port, p -> new ArrayList<>()).add(who);
            return port;
        }
        int lo = sysctl.ipLocalPortRange.intValue(0);
        int hi = sysctl.ipLocalPortRange.intValue(1);
        int n = hi - lo + 1;
        int start = ns.randomInt(n);
        for (int i = 0; i < n; i++) {
            int p = lo + (start + i) % n;
            List<Binder> l = bindings.get(p);
            if (l == null || l.isEmpty()) {
                bindings.computeIfAbsent(p, x -> new ArrayList<>()).add(who);
                return p;
            }
        }
        throw new ErrnoException(Errno.EADDRINUSE, "bind: no free port");
    }

    private boolean conflicts(Binder who, int addr, int port) {
        List<Binder> l = bindings.get(port);
        if (l == null) return false;
        for (Binder o : l) {
            if (o == who) continue;
            boolean overlap = addr == 0 || o.boundAddress() == 0 || addr == o.boundAddress();
            if (!overlap) continue;
            if (who.reuseAddress() && o.reuseAddress() && !o.isListening()) continue;
            if (o instanceof TimeWaitSock && who.reuseAddress()) continue;
            return true;
        }
        return false;
    }

    /** True when listen() may proceed on the bound port (no other listener with overlapping address). */
    synchronized boolean canListen(Binder who, int addr, int port) {
        List<Binder> l = bindings.get(port);
        if (l == null) return true;
        for (Binder o : l) {
            if (o == who || !o.isListening()) continue;
            if (addr == 0 || o.boundAddress() == 0 || addr == o.boundAddress()) return false;
        }
        return true;
    }

    synchronized void unbind(Binder who, int port) {
        List<Binder> l = bindings.get(port);
        if (l == null) return;
        l.remove(who);
        if (l.isEmpty()) bindings.remove(port);
    }

    /** Transfers a port holding from one binder to another (socket to TIME-WAIT remnant). */
    synchronized void rebind(Binder from, Binder to, int port) {
        List<Binder> l = bindings.get(port);
        if (l == null) {
            l = new ArrayList<>();
            bindings.put(port, l);
        }
        if (from != null) l.remove(from);
        l.add(to);
    }

    /**
     * connect() on an unbound socket: picks an ephemeral port whose 4-tuple is unique (RFC 6056
     * algorithm 3: keyed offset plus a perturbation counter), and inserts {@code c} in the connection
     * table. A TIME-WAIT remnant of the same tuple may be taken over when tcp_tw_reuse allows
     * (timestamps on, idle for more than 1 second; mode 2 only for loopback traffic).
     *
     * @throws ErrnoException EADDRNOTAVAIL when every port is in use
     */
    int connectPort(TcpConnection c) throws ErrnoException {
        int lo = sysctl.ipLocalPortRange.intValue(0);
        int hi = sysctl.ipLocalPortRange.intValue(1);
        int n = hi - lo + 1;
        int offset = secret.hash(PORT_PURPOSE, c.localAddr, 0, c.remoteAddr, c.remotePort);
        int idx = (offset >>> 24) & (portPerturb.length - 1);
        int perturb;
        synchronized (portPerturb) {
            perturb = portPerturb[idx];
        }
        // Linux steps by 2 from an even start first, then odd ports
        for (int i = 0; i < n; i++) {
            int p = lo + (int) (((offset & 0xFFFFFFFFL) + perturb + i) % n);
            synchronized (this) {
                List<Binder> l = bindings.get(p);
                boolean explicit = false;
                if (l != null) {
                    for (Binder o : l) {
                        if (o.explicitBind() || o.isListening()) { explicit = true; break; }
                    }
                }
                if (explicit) continue;
                c.localPort = p;
                TcpEndpoint existing = table.insertIfAbsent(c);
                if (existing == null) {
                    bindings.computeIfAbsent(p, x -> new ArrayList<>()).add(c);
                } else if (existing instanceof TimeWaitSock tw && tw.reusableFor(c) && table.replace(tw, c)) {
                    tw.handOver(c); // moves the port holding from the remnant to c
                } else {
                    continue;
                }
            }
            synchronized (portPerturb) {
                portPerturb[idx] += i + 2;
            }
            return p;
        }
        c.localPort = 0;
        throw new ErrnoException(Errno.EADDRNOTAVAIL, "connect: no free ephemeral port");
    }

    /** Inserts a connection whose local port is already bound; EADDRNOTAVAIL when the tuple is taken. */
    void hashConnection(TcpConnection c) throws ErrnoException {
        TcpEndpoint existing = table.insertIfAbsent(c);
        if (existing == null) return;
        if (existing instanceof TimeWaitSock tw && tw.reusableFor(c) && table.replace(tw, c)) {
            tw.handOver(c);
            return;
        }
        throw new ErrnoException(Errno.EADDRNOTAVAIL, "connect: 4-tuple in use");
    }

    /** RFC 6528 ISN: a 64 ns clock plus a keyed hash of the tuple. */
    int initialSequence(int laddr, int lport, int raddr, int rport) {
        int m = (int) (ns.clock().nanoTime() >>> 6);
        return m + secret.hash(ISN_PURPOSE, laddr, lport, raddr, rport);
    }

    /** RFC 7323 timestamp offset per tuple (0 with tcp_timestamps=2). */
    int timestampOffset(int laddr, int lport, int raddr, int rport) {
        return sysctl.tcpTimestamps.intValue() == 2 ? 0 : secret.hash(TS_PURPOSE, laddr, lport, raddr, rport);
    }

    /** Timestamp clock in ms (Linux's tcp_time_stamp_ms), without offset. */
    int tsClock() { return (int) (ns.clock().nanoTime() / 1_000_000L); }

    // ---- TIME-WAIT accounting --------------------------------------------------------------------

    /** True while the namespace's TCP memory is under pressure (net.ipv4.tcp_mem). */
    boolean underMemoryPressure() { return memory.underPressure(); }

    synchronized boolean admitTimeWait() {
        if (timeWaitCount >= sysctl.tcpMaxTwBuckets.intValue()) {
            mib.inc(MibCounter.TcpExtTCPTimeWaitOverflow);
            return false;
        }
        timeWaitCount++;
        timeWaitEntered++;
        return true;
    }

    synchronized void timeWaitGone() { timeWaitCount--; }

    public synchronized int timeWaitCount() { return timeWaitCount; }

    /** TIME-WAIT remnants created since the namespace started (Linux's TcpExtTW counts those that ended). */
    public synchronized long timeWaitEntered() { return timeWaitEntered; }

    /** Number of entries in the connection table (connections + TIME-WAIT). */
    public int connectionCount() { return table.size(); }

    /** Every connection as {@code ss -tan} would show them. */
    public List<String> describeConnections() {
        List<String> out = new ArrayList<>();
        for (TcpEndpoint e : table.snapshot()) {
            String st = e instanceof TcpConnection c ? c.state() : "TIME-WAIT";
            out.add(st + " " + e.tuple());
        }
        return out;
    }

    private void closeAll() {
        for (TcpEndpoint e : table.snapshot()) {
            if (e instanceof TcpConnection c) c.abortOnNamespaceClose();
            else if (e instanceof TimeWaitSock tw) tw.kill();
        }
        List<TcpListenerImpl> ls = new ArrayList<>();
        synchronized (listeners) {
            for (TcpListenerImpl l : listeners) for (TcpListenerImpl x = l; x != null; x = x.nextListener) ls.add(x);
        }
        for (TcpListenerImpl l : ls) l.close();
    }

    /** Options parser reused per thread by paths without a socket (resets, listeners use their own). */
    static final ThreadLocal<TcpOptions> SCRATCH_OPTIONS = ThreadLocal.withInitial(TcpOptions::new);
}
