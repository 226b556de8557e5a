package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.ip.Route;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.ReadinessListener;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpInfo;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.SockLock;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A listening TCP socket (RFC 9293 LISTEN; Linux inet_csk_listen): answers SYNs with SYN-ACKs from
 * a child connection in SYN-RECEIVED, counted against the backlog (the SYN queue); children that
 * complete the handshake wait in the accept queue (at most backlog + 1, as Linux). A final ACK that
 * finds the accept queue full is dropped (TcpExtListenOverflows, TcpExtListenDrops) so the peer
 * retries, or answered with RST when net.ipv4.tcp_abort_on_overflow is set.
 */
final class TcpListenerImpl implements TcpServerSocket, TcpProtocol.Binder {
    private final TcpProtocol tcp;
    private final SockLock lock;
    private final ArrayDeque<TcpConnection> acceptQueue = new ArrayDeque<>();
    private final CopyOnWriteArrayList<ReadinessListener> listeners = new CopyOnWriteArrayList<>();
    private final TcpOptions rxOpts = new TcpOptions();
    private final TcpOptions txOpts = new TcpOptions();
    /** True once this listener answered a SYN with a cookie: only then may a bare ACK carry one. */
    private boolean cookiesSent;
    TcpListenerImpl nextListener;
    private int boundAddress;
    private int localPort;
    private boolean bound;
    /** bind() gave a port (Linux SOCK_BINDPORT_LOCK): it stays when the listener stops; an ephemeral one is released. */
    private boolean portLocked;
    private volatile boolean listening;
    /** Listened, then stopped by shutdown(SHUT_RD): Linux's TCP_CLOSE after tcp_disconnect, polled as POLLHUP. */
    private volatile boolean stopped;
    private volatile boolean closed;
    private boolean reuseAddr;
    private int backlog;
    private int synQueue;
    private volatile boolean blocking = true;
    private long rcvTimeoNs;
    // inherited by children
    private int sndbuf = -1;
    private int rcvbuf = -1;
    private boolean nodelay;
    /** TCP_CORK for accepted connections (Linux copies tp->nonagle into the child). */
    private boolean cork;
    private boolean keepalive;
    /** SO_OOBINLINE for accepted connections (Linux's sk_clone_lock copies SOCK_URGINLINE). */
    private boolean oobInline;
    /** SO_RCVLOWAT for accepted connections, capped as Linux's tcp_set_rcvlowat caps it (1: the default). */
    private int rcvLowat = 1;
    private long lingerNs = -1;
    /** TCP_KEEPIDLE, TCP_KEEPINTVL (seconds), TCP_KEEPCNT for children; 0 = the sysctl. */
    private int keepIdleS, keepIntvlS, keepCnt;
    /** TCP_MAXSEG for children (Linux rx_opt.user_mss), 0 = none. */
    private int userMss;
    /** TCP_USER_TIMEOUT for children (ms), 0 = none. */
    private int userTimeoutMs;
    /**
     * TCP_QUICKACK off: the listener's pingpong mode, which children inherit (Linux's sk_clone_lock copies icsk_ack);
     * cleared by the first listen() (inet_csk_listen_start's inet_csk_delack_init).
     */
    private boolean pingpong;
    /**
     * TCP_DEFER_ACCEPT as SYN-ACK timeouts (Linux rskq_defer_accept, secs_to_retrans), 0 = off: read by requests
     * as they go ({@link TcpInput}'s final-ACK check, {@link TcpTimers}' SYN-ACK timer). Not inherited.
     */
    private volatile int deferAccept;

    TcpListenerImpl(TcpProtocol tcp) {
        this.tcp = tcp;
        this.lock = new SockLock(tcp.ns.clock()); // timed waits on the namespace's clock
        lock.setProcessor(this::process);
        lock.setDeferredWork(f -> { });
        lock.setWakeListener(this::notifyReadiness);
    }

    int localPort() { return localPort; }

    @Override public int boundAddress() { return boundAddress; }
    @Override public boolean reuseAddress() { return reuseAddr; }
    @Override public boolean isListening() { return listening; }
    @Override public boolean explicitBind() { return true; }

    @Override
    public void bind(InetSocketAddress local) throws IOException {
        if (local.isUnresolved()) throw new java.nio.channels.UnresolvedAddressException();
        int addr = Ipv4.fromInet(local.getAddress());
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "bind");
            if (bound) throw new ErrnoException(Errno.EINVAL, "bind");
            if (addr != 0 && !tcp.ns.isLocalAddress(addr)) throw new ErrnoException(Errno.EADDRNOTAVAIL, "bind");
            boundAddress = addr;
            localPort = tcp.bind(this, addr, local.getPort());
            bound = true;
            portLocked = local.getPort() != 0;
        } finally {
            lock.release();
        }
    }

    @Override
    public void listen(int backlog) throws IOException {
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "listen");
            if (!bound) {
                localPort = tcp.bind(this, 0, 0);
                bound = true;
            }
            int max = tcp.sysctl.somaxconn.intValue();
            this.backlog = Math.max(0, Math.min(backlog, max));
            if (listening) return;
            if (!tcp.canListen(this, boundAddress, localPort)) throw new ErrnoException(Errno.EADDRINUSE, "listen");
            pingpong = false; // inet_csk_listen_start: inet_csk_delack_init
            listening = true;
            stopped = false;
            tcp.addListener(this);
        } finally {
            lock.release();
        }
    }

    @Override
    public TcpSocket accept() throws IOException {
        lock.lock();
        try {
            if (!listening && !closed) throw new ErrnoException(Errno.EINVAL, "accept");
            long deadline = rcvTimeoNs > 0 ? tcp.ns.clock().nanoTime() + rcvTimeoNs : 0;
            while (true) {
                if (closed) throw new ErrnoException(Errno.EBADF, "accept");
                if (!listening) throw new ErrnoException(Errno.EINVAL, "accept"); // stopped meanwhile
                TcpConnection c;
                synchronized (acceptQueue) {
                    c = acceptQueue.poll();
                }
                if (c != null) {
                    c.accepted = true;
                    notifyReadiness();
                    return c;
                }
                if (!blocking) return null;
                long timeout = 0;
                if (deadline != 0) {
                    timeout = deadline - tcp.ns.clock().nanoTime();
                    if (timeout <= 0) throw new ErrnoException(Errno.EAGAIN, "accept timed out (SO_RCVTIMEO)");
                }
                try {
                    lock.await(timeout);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("accept interrupted");
                }
            }
        } finally {
            lock.release();
        }
    }

    // ---- receive path -------------------------------------------------------------------------------

    void segmentArrived(PacketBuffer pkt, int src, int dst) {
        if (!lock.backlogOrProcess(pkt, 1L << 20)) tcp.mib.inc(MibCounter.TcpExtTCPBacklogDrop);
    }

    private void process(PacketBuffer pkt) {
        boolean handedOn = false;
        try {
            handedOn = processSegment(pkt);
        } catch (RuntimeException e) {
            tcp.ns.reportInternalError(e);
        } finally {
            if (!handedOn) pkt.release();
        }
    }

    /** Returns true when the segment was handed on to a connection, which then owns (and releases) it. */
    private boolean processSegment(PacketBuffer pkt) {
        byte[] b = pkt.array();
        int off = pkt.dataStart();
        int noff = pkt.networkOffset();
        int src = Ipv4.source(b, noff);
        int dst = Ipv4.destination(b, noff);
        int flags = pkt.flags;
        if ((flags & Tcp.RST) != 0) return false;
        if ((flags & (Tcp.ACK | Tcp.SYN)) == Tcp.ACK && listening && tcp.sysctl.tcpSyncookies.enabled()
                && cookiesSent) {
            int cookie = acceptCookie(pkt, src, dst);
            if (cookie != COOKIE_INVALID) return cookie == COOKIE_HANDED_ON;
        }
        if ((flags & Tcp.ACK) != 0 || !listening) {
            tcp.reset().sendForNoSocket(pkt, src, dst);
            return false;
        }
        if ((flags & Tcp.SYN) == 0) return false;
        if (Ipv4.isMulticast(dst) || dst == -1 || Ipv4.isMulticast(src) || src == 0) return false;
        int hl = Tcp.headerLength(b, off);
        rxOpts.parse(b, off + Tcp.MIN_HEADER_LENGTH, hl - Tcp.MIN_HEADER_LENGTH); // malformed: parsing stops, SYN kept
        boolean synQueueFull;
        synchronized (acceptQueue) {
            if (acceptQueue.size() > backlog) {
                tcp.mib.inc(MibCounter.TcpExtListenOverflows);
                tcp.mib.inc(MibCounter.TcpExtListenDrops);
                return false;
            }
            synQueueFull = synQueue >= Math.max(backlog, 1) || synQueue >= tcp.sysctl.tcpMaxSynBacklog.intValue();
        }
        int syncookies = tcp.sysctl.tcpSyncookies.intValue();
        if ((synQueueFull || syncookies == 2) && pkt.twIsn == 0) {
            // tcp_conn_request -> tcp_syn_flood_action: a cookie when the SYN queue is full (tcp_syncookies=1) or
            // for every SYN (2), except one that reopens a TIME-WAIT connection; none (0): the SYN is dropped
            if (syncookies == 0) {
                tcp.mib.inc(MibCounter.TcpExtTCPReqQFullDrop);
                tcp.mib.inc(MibCounter.TcpExtListenDrops);
                return false;
            }
            tcp.mib.inc(MibCounter.TcpExtTCPReqQFullDoCookies);
            // answer statelessly with a SYN cookie (RFC 4987 3.6)
            SynCookies.sendCookie(tcp, pkt, src, dst, rxOpts, txOpts, TcpOutput.chooseWscale(tcp, rcvbuf > 0, rcvbuf));
            cookiesSent = true;
            return false;
        }
        TcpConnection c = newChild(src, dst, Tcp.sourcePort(b, off));
        if (c == null) return false;
        TcpInput.negotiate(c, rxOpts, false);
        c.irs = pkt.seq;
        c.rcvNxt = pkt.seq + 1;
        c.copiedSeq = c.rcvNxt;
        c.rcvWup = c.rcvNxt;
        c.lastAckSent = c.rcvNxt;
        c.iss = pkt.twIsn != 0 ? pkt.twIsn : tcp.initialSequence(dst, localPort, src, c.remotePort); // tcp_conn_request
        c.tsOffset = tcp.timestampOffset(dst, localPort, src, c.remotePort);
        c.sndUna = c.iss;
        c.sndNxt = c.iss + 1;
        c.sndMax = c.sndNxt;
        c.writeSeq = c.iss + 1;
        c.sndSml = c.writeSeq;
        c.cwndUsageSeq = c.sndUna;
        c.pushedSeq = c.writeSeq;
        c.sndWnd = Tcp.window(b, off);
        c.sndWl1 = pkt.seq;
        c.maxSndWnd = c.sndWnd;
        long now = tcp.ns.clock().nanoTime();
        if (c.tsEnabled) {
            c.tsRecent = rxOpts.tsVal;
            c.tsRecentStamp = now;
        }
        c.lastRecvNs = now;
        c.segsIn = 1; // the SYN
        c.rcvWnd = TcpOutput.initialWindow(c);
        c.rcvSsthresh = c.rcvWnd; // tcp_openreq_init_rwin: the window starts at the one the SYN-ACK offers
        TcpInput.setState(c, TcpState.SYN_RECEIVED);
        if (tcp.table.insertIfAbsent(c) != null) {
            c.state = TcpState.CLOSED;
            return false;
        }
        tcp.rebind(null, c, localPort);
        c.portHeld = true;
        synchronized (acceptQueue) {
            synQueue++;
        }
        tcp.mib.inc(MibCounter.TcpPassiveOpens);
        TcpFriends.offer(c, pkt);
        TcpOutput.sendSyn(c, true);
        c.rtoTimer.schedule(c.rtt.currentRtoUs() * 1000);
        return false;
    }

    /** A child connection for a peer, with the listener's inherited options and our MSS/window scale; null without a route. */
    private TcpConnection newChild(int src, int dst, int sport) {
        TcpConnection c = new TcpConnection(tcp);
        c.localAddr = dst;
        c.localPort = localPort;
        c.remoteAddr = src;
        c.remotePort = sport;
        c.parent = this;
        c.boundAddress = boundAddress;
        c.explicitBind = true;
        c.reuseAddr = reuseAddr;
        if (sndbuf > 0) { c.sndbuf = sndbuf; c.sndbufLocked = true; }
        if (rcvbuf > 0) { c.rcvbuf = rcvbuf; c.rcvbufLocked = true; }
        if (rcvLowat > 1) TcpSocketOptions.setRcvLowat(c, rcvLowat); // sk_clone_lock copies sk_rcvlowat (and sk_rcvbuf it grew)
        c.nonagle = (nodelay ? TcpOutput.TCP_NAGLE_OFF : 0) | (cork ? TcpOutput.TCP_NAGLE_CORK : 0);
        c.keepalive = keepalive;
        c.urgInline = oobInline;
        c.keepIdleS = keepIdleS;
        c.keepIntvlS = keepIntvlS;
        c.keepCnt = keepCnt;
        c.lingerNs = lingerNs;
        c.userMss = userMss;
        c.userTimeoutMs = userTimeoutMs;
        c.pingpong = pingpong ? 1 : 0;
        Route r = tcp.ip.route(src, c.dst);
        if (r == null) return null;
        c.advMss = TcpOutput.advMss(c, r.itf().device().mtu());
        int ws = TcpOutput.chooseWscale(c);
        c.wscaleEnabled = ws >= 0;
        c.rcvWscale = Math.max(ws, 0);
        c.tsEnabled = tcp.sysctl.tcpTimestamps.intValue() != 0;
        c.sackOk = tcp.sysctl.tcpSack.enabled();
        return c;
    }

    private static final int COOKIE_INVALID = 0;
    private static final int COOKIE_TAKEN = 1;
    private static final int COOKIE_HANDED_ON = 2;

    /**
     * The final ACK of a handshake answered with a SYN cookie: rebuilds the connection from the cookie
     * (RFC 4987 3.6) straight into ESTABLISHED and the accept queue, and hands a segment carrying data or a FIN
     * on to it (Linux cookie_v4_check, then tcp_child_process). Returns {@link #COOKIE_INVALID} when it is no
     * valid cookie (the caller then resets as for any stray ACK), {@link #COOKIE_HANDED_ON} when the new
     * connection took the segment, {@link #COOKIE_TAKEN} when the segment is consumed here.
     */
    private int acceptCookie(PacketBuffer pkt, int src, int dst) {
        byte[] b = pkt.array();
        int off = pkt.dataStart();
        int sport = Tcp.sourcePort(b, off);
        int ack = Tcp.ack(b, off);
        int peerIsn = pkt.seq - 1;
        int mss = SynCookies.check(tcp, dst, localPort, src, sport, peerIsn, ack - 1);
        if (mss < 0) {
            tcp.mib.inc(MibCounter.TcpExtSyncookiesFailed);
            return COOKIE_INVALID;
        }
        synchronized (acceptQueue) {
            if (acceptQueue.size() > backlog) {
                tcp.mib.inc(MibCounter.TcpExtListenOverflows);
                tcp.mib.inc(MibCounter.TcpExtListenDrops);
                return COOKIE_TAKEN; // dropped: the peer retransmits
            }
        }
        int hl = Tcp.headerLength(b, off);
        rxOpts.parse(b, off + Tcp.MIN_HEADER_LENGTH, hl - Tcp.MIN_HEADER_LENGTH);
        int tsOptions = SynCookies.decodeTimestampOptions(tcp, rxOpts);
        if (tsOptions == SynCookies.TS_OPT_INVALID) {
            tcp.mib.inc(MibCounter.TcpExtSyncookiesFailed);
            return COOKIE_INVALID;
        }
        TcpConnection c = newChild(src, dst, sport);
        if (c == null) return COOKIE_TAKEN;
        // no state was kept: what the options were is in the echoed timestamp, if any (Linux cookie_v4_check); our
        // window scale is the one newChild chose again, as the SYN-ACK offered it
        int peerWscale = tsOptions & SynCookies.TS_OPT_WSCALE_MASK;
        if (peerWscale == SynCookies.TS_OPT_WSCALE_MASK || !c.wscaleEnabled) {
            c.wscaleEnabled = false;
            c.rcvWscale = 0;
            c.sndWscale = 0;
        } else {
            c.sndWscale = Math.min(14, peerWscale);
        }
        c.tsEnabled = rxOpts.hasTimestamp;
        c.sackOk = rxOpts.hasTimestamp && (tsOptions & SynCookies.TS_OPT_SACK) != 0;
        if (c.tsEnabled) {
            c.tsOffset = tcp.timestampOffset(dst, localPort, src, sport);
            c.tsRecent = rxOpts.tsVal;
            c.tsRecentStamp = tcp.ns.clock().nanoTime();
        }
        c.peerMss = mss;
        c.mss = Math.min(mss, c.advMss) - (c.tsEnabled ? 12 : 0);
        c.rcvMss = Math.min(c.advMss, 536);
        c.win.init(c.mss);
        c.cc.init(c.win);
        c.irs = peerIsn;
        c.rcvNxt = pkt.seq;
        c.copiedSeq = c.rcvNxt;
        c.rcvWup = c.rcvNxt;
        c.lastAckSent = c.rcvNxt;
        c.iss = ack - 1;
        c.sndUna = ack;
        c.sndNxt = ack;
        c.sndMax = ack;
        c.writeSeq = ack;
        c.sndSml = ack;
        c.cwndUsageSeq = ack;
        c.pushedSeq = ack;
        c.sndWnd = (long) Tcp.window(b, off) << c.sndWscale; // not a SYN: scaled
        c.sndWl1 = pkt.seq;
        c.sndWl2 = ack;
        c.maxSndWnd = c.sndWnd;
        c.lastRecvNs = tcp.ns.clock().nanoTime();
        c.segsIn = 1; // the ACK that carried the cookie
        c.pmtu = tcp.ip.mtuFor(src);
        c.rcvWnd = Math.min(65535, TcpOutput.initialWindow(c));
        c.rcvSsthresh = c.rcvWnd;
        TcpSocketOptions.expandSndbuf(c);
        if (tcp.table.insertIfAbsent(c) != null) return COOKIE_TAKEN;
        tcp.rebind(null, c, localPort);
        c.portHeld = true;
        tcp.mib.inc(MibCounter.TcpExtSyncookiesRecv);
        tcp.mib.inc(MibCounter.TcpPassiveOpens);
        TcpInput.establish(c);
        synchronized (acceptQueue) {
            c.inAcceptQueue = true;
            acceptQueue.add(c);
        }
        lock.wakeUp();
        if (pkt.endSeq == pkt.seq) return COOKIE_TAKEN;
        c.segmentArrived(pkt); // its data (or FIN) is the new connection's first
        return COOKIE_HANDED_ON;
    }

    /** TCP_DEFER_ACCEPT now, in SYN-ACK timeouts (READ_ONCE(rskq_defer_accept)). */
    int deferAcceptRetrans() { return deferAccept; }

    /**
     * Before a child completes: false (and the ACK is dropped) when the accept queue is full; the request is then
     * marked acked (tcp_check_req's listen_overflow), unless net.ipv4.tcp_abort_on_overflow resets it.
     */
    boolean admitChild(TcpConnection c) {
        synchronized (acceptQueue) {
            if (!closed && listening && acceptQueue.size() <= backlog) return true;
        }
        tcp.mib.inc(MibCounter.TcpExtListenOverflows);
        tcp.mib.inc(MibCounter.TcpExtListenDrops);
        if (closed || !listening || tcp.sysctl.tcpAbortOnOverflow.enabled()) TcpOutput.abort(c, 0, true);
        else c.reqAcked = true;
        return false;
    }

    /** Runs under the child's socket lock: the accepting thread is woken once the child's short lock is released. */
    void childEstablished(TcpConnection c) {
        synchronized (acceptQueue) {
            synQueue--;
            c.inAcceptQueue = true;
            acceptQueue.add(c);
        }
        c.lock.wakeUpAfterRelease(lock);
    }

    /** A child closed before accept(): forget it if it never completed the handshake. */
    void childGone(TcpConnection c) {
        synchronized (acceptQueue) {
            if (!c.inAcceptQueue && !c.countedGone) {
                c.countedGone = true;
                synQueue--;
            }
        }
    }

    // ---- options, readiness, close ------------------------------------------------------------------

    @Override
    public <T> void setOption(SocketOption<T> option, T value) throws IOException {
        lock.lock();
        try {
            if (value == null && option != SocketOption.SO_LINGER) throw new ErrnoException(Errno.EINVAL, "setsockopt");
            if (option == SocketOption.SO_REUSEADDR) reuseAddr = (Boolean) value;
            else if (option == SocketOption.SO_RCVTIMEO) rcvTimeoNs = ((Duration) value).toNanos();
            else if (option == SocketOption.SO_SNDTIMEO) { /* accepted, unused by listeners */ }
            else if (option == SocketOption.SO_SNDBUF)
                sndbuf = io.jnet.socket.SocketOptionValues.clampBuf((Integer) value, tcp.sysctl.wmemMax.intValue(), TcpSocketOptions.SOCK_MIN_SNDBUF);
            else if (option == SocketOption.SO_RCVBUF)
                rcvbuf = io.jnet.socket.SocketOptionValues.clampBuf((Integer) value, tcp.sysctl.rmemMax.intValue(), TcpSocketOptions.SOCK_MIN_RCVBUF);
            else if (option == SocketOption.TCP_NODELAY) nodelay = (Boolean) value;
            else if (option == SocketOption.TCP_CORK) cork = (Boolean) value;
            else if (option == SocketOption.SO_KEEPALIVE) keepalive = (Boolean) value;
            else if (option == SocketOption.SO_OOBINLINE) oobInline = (Boolean) value;
            else if (option == SocketOption.TCP_KEEPIDLE) keepIdleS = TcpSocketOptions.checked(option, (Integer) value);
            else if (option == SocketOption.TCP_KEEPINTVL) keepIntvlS = TcpSocketOptions.checked(option, (Integer) value);
            else if (option == SocketOption.TCP_KEEPCNT) keepCnt = TcpSocketOptions.checked(option, (Integer) value);
            else if (option == SocketOption.TCP_USER_TIMEOUT) {
                if ((Integer) value < 0) throw new ErrnoException(Errno.EINVAL, "TCP_USER_TIMEOUT " + value);
                userTimeoutMs = (Integer) value;
            } else if (option == SocketOption.TCP_MAXSEG) userMss = TcpSocketOptions.checked(option, (Integer) value);
            else if (option == SocketOption.TCP_QUICKACK) pingpong = !(Boolean) value;
            else if (option == SocketOption.TCP_DEFER_ACCEPT)
                deferAccept = io.jnet.socket.SocketOptionValues.deferAcceptRetrans((Integer) value);
            else if (option == SocketOption.SO_RCVLOWAT)
                rcvLowat = TcpSocketOptions.capRcvLowat((Integer) value, rcvbuf, tcp.sysctl.tcpRmem.intValue(2));
            else if (option == SocketOption.SO_LINGER) {
                Duration d = (Duration) value;
                lingerNs = d == null || d.isNegative() ? -1 : d.toNanos();
            } else throw new ErrnoException(Errno.ENOPROTOOPT, "setsockopt " + option);
        } finally {
            lock.release();
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(SocketOption<T> option) throws IOException {
        Object v;
        if (option == SocketOption.SO_REUSEADDR) v = reuseAddr;
        else if (option == SocketOption.SO_RCVTIMEO) v = Duration.ofNanos(rcvTimeoNs);
        else if (option == SocketOption.SO_SNDBUF) v = sndbuf > 0 ? sndbuf : tcp.sysctl.tcpWmem.intValue(1);
        else if (option == SocketOption.SO_RCVBUF) v = rcvbuf > 0 ? rcvbuf : tcp.sysctl.tcpRmem.intValue(1);
        else if (option == SocketOption.TCP_NODELAY) v = nodelay;
        else if (option == SocketOption.TCP_CORK) v = cork;
        else if (option == SocketOption.SO_KEEPALIVE) v = keepalive;
        else if (option == SocketOption.SO_OOBINLINE) v = oobInline;
        else if (option == SocketOption.TCP_KEEPIDLE) v = keepIdleS != 0 ? keepIdleS : tcp.sysctl.tcpKeepaliveTime.intValue();
        else if (option == SocketOption.TCP_KEEPINTVL) v = keepIntvlS != 0 ? keepIntvlS : tcp.sysctl.tcpKeepaliveIntvl.intValue();
        else if (option == SocketOption.TCP_KEEPCNT) v = keepCnt != 0 ? keepCnt : tcp.sysctl.tcpKeepaliveProbes.intValue();
        else if (option == SocketOption.TCP_USER_TIMEOUT) v = userTimeoutMs;
        else if (option == SocketOption.TCP_MAXSEG) v = userMss != 0 ? userMss : TcpSocketOptions.TCP_MSS_DEFAULT;
        else if (option == SocketOption.SO_RCVLOWAT) v = rcvLowat;
        else if (option == SocketOption.TCP_QUICKACK) v = !pingpong;
        else if (option == SocketOption.TCP_DEFER_ACCEPT) v = io.jnet.socket.SocketOptionValues.deferAcceptSeconds(deferAccept);
        else if (option == SocketOption.SO_LINGER) v = lingerNs < 0 ? null : Duration.ofNanos(lingerNs);
        else if (option == SocketOption.SO_SNDTIMEO) v = Duration.ZERO;
        else if (option == SocketOption.SO_ERROR) v = 0; // a listener has no pending error
        else throw new ErrnoException(Errno.ENOPROTOOPT, "getsockopt " + option);
        return (T) v;
    }

    @Override
    public InetSocketAddress localAddress() { return new InetSocketAddress(Ipv4.toInet(boundAddress), localPort); }

    @Override
    public TcpInfo info() {
        synchronized (acceptQueue) {
            return TcpInfoSnapshot.ofListener(listening, acceptQueue.size(), backlog);
        }
    }

    @Override
    public int inq() throws IOException { return ioctl("SIOCINQ"); }

    @Override
    public int outq() throws IOException { return ioctl("SIOCOUTQ"); }

    @Override
    public int outqNotSent() throws IOException { return ioctl("SIOCOUTQNSD"); }

    /** The queue ioctls of a listening socket fail with EINVAL (Linux tcp_ioctl); otherwise nothing is queued. */
    private int ioctl(String name) throws ErrnoException {
        if (listening) throw new ErrnoException(Errno.EINVAL, name + " on a listening socket");
        return 0;
    }

    @Override public void setBlocking(boolean blocking) { this.blocking = blocking; }
    @Override public boolean isBlocking() { return blocking; }

    @Override
    public int readyEvents() {
        if (closed || stopped) return Events.POLLHUP;
        synchronized (acceptQueue) {
            return acceptQueue.isEmpty() ? 0 : Events.POLLIN;
        }
    }

    @Override public void addReadinessListener(ReadinessListener l) { listeners.add(l); }
    @Override public void removeReadinessListener(ReadinessListener l) { listeners.remove(l); }

    private void notifyReadiness() {
        if (listeners.isEmpty()) return; // no iterator on the common path
        for (ReadinessListener l : listeners) {
            try {
                l.readinessChanged(this);
            } catch (RuntimeException e) {
                tcp.ns.reportInternalError(e);
            }
        }
    }

    @Override
    public void shutdownInput() throws IOException {
        TcpConnection[] pending;
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "shutdown");
            if (!listening) throw new ErrnoException(Errno.ENOTCONN, "shutdown");
            pending = stopListening();
            stopped = true;
            if (!portLocked) { // tcp_set_state(TCP_CLOSE): inet_put_port unless bind() chose the port
                tcp.unbind(this, localPort);
                bound = false;
            }
        } finally {
            lock.release();
        }
        resetUnaccepted(pending);
        notifyReadiness();
    }

    @Override
    public void shutdownOutput() throws IOException {
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "shutdown");
            if (!listening) throw new ErrnoException(Errno.ENOTCONN, "shutdown");
        } finally {
            lock.release();
        }
    }

    @Override
    public void close() {
        TcpConnection[] pending;
        lock.lock();
        try {
            if (closed) return;
            closed = true;
            pending = stopListening();
            if (bound) tcp.unbind(this, localPort);
        } finally {
            lock.release();
        }
        resetUnaccepted(pending);
    }

    /**
     * Under the lock: leaves the listener table and empties the accept queue, waking a blocked accept() (the first
     * half of Linux's inet_csk_listen_stop); the caller resets what it returns with {@link #resetUnaccepted}.
     */
    private TcpConnection[] stopListening() {
        if (listening) tcp.removeListener(this);
        listening = false;
        TcpConnection[] pending;
        synchronized (acceptQueue) {
            pending = acceptQueue.toArray(new TcpConnection[0]);
            acceptQueue.clear();
        }
        lock.wakeUp();
        return pending;
    }

    /** Connections nobody accepted are reset (Linux inet_csk_listen_stop: inet_child_forget, tcp_disconnect). */
    private static void resetUnaccepted(TcpConnection[] pending) {
        for (TcpConnection c : pending) {
            c.accepted = true;
            c.lingerNs = 0; // abortive: RST
            c.close();
        }
    }

    @Override
    public boolean isClosed() { return closed; }

    @Override
    public String toString() { return "TcpListener[" + Ipv4.addressToString(boundAddress) + ":" + localPort + "]"; }
}
