package io.jnet.rds;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.RdsSocket;
import io.jnet.socket.ReadinessListener;
import io.jnet.socket.SocketOption;
import io.jnet.socket.SocketOptionValues;
import io.jnet.stack.SockLock;
import io.jnet.wire.Ipv4;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An RDS socket (Linux's {@code struct rds_sock}, net/rds/af_rds.c, send.c, recv.c); the contract is
 * {@link RdsSocket}'s.
 *
 * <p>Send buffer: rs_snd_bytes, the payload bytes of this socket's messages not yet acknowledged, may grow while
 * it is below half of SO_SNDBUF (rds_sk_sndbuf; a message is admitted while the count is below, so the count may
 * overshoot by one message, as Linux). SO_SNDBUF defaults to net.core.wmem_default; a value set is doubled and
 * capped by net.core.wmem_max, as Linux. Receive buffer: rs_rcv_bytes, the payload bytes queued; above half of
 * SO_RCVBUF (rds_sk_rcvbuf) the port is congested in the local congestion map and peers are told
 * (rds_recv_rcvbuf_delta); messages are never dropped for it. A peer that ignores the map meets a hard cap,
 * {@link #hardCap()}: while the queue holds that many bytes, the TCP connections that delivered to it stop
 * reading (jnet_s_recv_throttled), so that TCP's receive window closes on the peer; they read on once the
 * application took the queue below it (or closed the socket). Linux has no such cap (its queue grows).
 *
 * <p>Locking: application calls own the socket through a {@link SockLock} (blocking waits give it up); the
 * receive queue and the counters have their own short monitor, so the delivering thread (the RDS worker, or a
 * sender on loopback) never waits for an application. A send transmits after giving up the socket.
 */
final class RdsSocketImpl implements RdsSocket {
    /** Linux SOCK_MIN_RCVBUF / SOCK_MIN_SNDBUF in bytes. */
    static final int SOCK_MIN_RCVBUF = 2304, SOCK_MIN_SNDBUF = 4608;

    /** The least hard cap of the receive queue, bytes (1 MiB, the largest message). */
    static final int RCV_HARD_MIN = 1 << 20;

    private final RdsProtocol rds;
    private final SockLock lock;
    private final CopyOnWriteArrayList<ReadinessListener> listeners = new CopyOnWriteArrayList<>();

    private volatile int boundAddr;
    /** Bound port; 0 while unbound. */
    private volatile int boundPort;
    private int connAddr, connPort;
    private volatile boolean blocking = true;
    private volatile boolean closed;
    private volatile int sndbuf, rcvbuf;
    private long sndTimeoNs, rcvTimeoNs;
    private volatile boolean congMonitor;

    /** rs_snd_bytes. */
    private final AtomicLong sndBytes = new AtomicLong();
    /** rs_recv_queue, with rs_rcv_bytes and rs_congested, under its own monitor. */
    private final ArrayDeque<RdsMessage> rq = new ArrayDeque<>();
    /** TCP connections that stopped reading because this queue reached its hard cap; under rq's monitor. */
    private final ArrayList<RdsConnection> throttled = new ArrayList<>();
    private long rcvBytes;
    private boolean congested;
    private volatile int rqCount;
    /** rs_cong_mask: ports (bit port % 64) refused with ENOBUFS, under RDS_CONG_MONITOR. */
    private final AtomicLong congMask = new AtomicLong();
    /** rs_cong_notify: of those, the ones uncongested since, reported by the next receive. */
    private final AtomicLong congNotifyBits = new AtomicLong();
    /** rs_cong_track: the congestion-map generation this socket's last poll saw. */
    private volatile long congTrack;
    /** rs_seen_congestion: a send was refused with ENOBUFS; map updates then wake this socket's pollers. */
    private volatile boolean seenCongestion;
    /** The last sender's address, reused while messages come from the same one; under the socket's lock. */
    private InetSocketAddress lastSender;
    private int lastSenderAddr;

    RdsSocketImpl(RdsProtocol rds) {
        this.rds = rds;
        this.lock = new SockLock(rds.ns.clock()); // timed waits on the namespace's clock
        this.sndbuf = rds.sysctl.wmemDefault.intValue();
        this.rcvbuf = rds.sysctl.rmemDefault.intValue();
        this.congTrack = rds.congGeneration.get();
        lock.setWakeListener(this::notifyReadiness);
    }

    // ================================================================================== bind/connect

    @Override
    public void bind(InetSocketAddress local) throws IOException {
        Objects.requireNonNull(local, "local");
        int addr = address(local, "bind");
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "bind");
            if (boundPort != 0) throw new ErrnoException(Errno.EINVAL, "bind: already bound");
            if (addr == 0) throw new ErrnoException(Errno.EINVAL, "bind: RDS has no wildcard address");
            if (!rds.ns.isLocalAddress(addr)) throw new ErrnoException(Errno.EADDRNOTAVAIL, "bind " + local);
            int port = rds.bind(this, addr, local.getPort());
            boundAddr = addr;
            boundPort = port;
        } finally {
            lock.release();
        }
    }

    @Override
    public void connect(InetSocketAddress remote) throws IOException {
        Objects.requireNonNull(remote, "remote");
        int addr = address(remote, "connect");
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "connect");
            if (addr == 0) throw new ErrnoException(Errno.EDESTADDRREQ, "connect " + remote);
            if (multicastOrBroadcast(addr)) throw new ErrnoException(Errno.EINVAL, "connect " + remote);
            connAddr = addr;
            connPort = remote.getPort();
        } finally {
            lock.release();
        }
    }

    // ========================================================================================== send

    @Override
    public void send(byte[] b, int off, int len, InetSocketAddress to) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        doSend(b, off, null, len, to);
    }

    @Override
    public void send(ByteBuffer src, InetSocketAddress to) throws IOException {
        int len = src.remaining();
        doSend(null, 0, src, len, to);
        src.position(src.position() + len);
    }

    /** rds_sendmsg. */
    private void doSend(byte[] b, int off, ByteBuffer bb, int len, InetSocketAddress to) throws IOException {
        int daddr = to == null ? 0 : address(to, "send");
        RdsConnection conn;
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "send");
            if (len > MAX_MESSAGE_SIZE) throw new ErrnoException(Errno.EMSGSIZE, "send: " + len + " > " + MAX_MESSAGE_SIZE + " bytes");
            int dport;
            if (to != null) {
                dport = to.getPort();
                if (daddr == 0 || multicastOrBroadcast(daddr)) throw new ErrnoException(Errno.EINVAL, "send to " + to);
            } else {
                if (connAddr == 0) throw new ErrnoException(Errno.ENOTCONN, "send: no destination");
                daddr = connAddr;
                dport = connPort;
            }
            if (boundPort == 0) throw new ErrnoException(Errno.ENOTCONN, "send: not bound");
            if (len > sndbuf / 2) throw new ErrnoException(Errno.EMSGSIZE, "send: " + len + " > SO_SNDBUF/2 = " + sndbuf / 2);
            if (!rds.routable(daddr)) throw new ErrnoException(Errno.EHOSTUNREACH, "send to " + to);
            conn = rds.connFor(boundAddr, daddr, true);
            conn.connectIfDown();
            long deadline = sndTimeoNs > 0 ? rds.ns.clock().nanoTime() + sndTimeoNs : 0;
            congWait(rds.congMap(daddr), dport, deadline);
            byte[] payload = new byte[len];
            if (bb != null) bb.get(bb.position(), payload, 0, len);
            else System.arraycopy(b, off, payload, 0, len);
            while (!reserveSend(len)) { // rds_send_queue_rm refused: the send buffer is full
                rds.stats.inc(RdsStatistics.Counter.s_send_queue_full);
                if (!blocking) throw new ErrnoException(Errno.EAGAIN, "send: send buffer full");
                await(deadline, "send");
                if (closed) throw new ErrnoException(Errno.EBADF, "send");
            }
            conn.queue(this, boundPort, dport, payload);
        } finally {
            lock.release();
        }
        conn.connectIfDown();
        conn.sendXmit(); // rds_send_xmit from sendmsg
    }

    /**
     * rds_cong_wait: a congested destination port refuses a non-blocking send (ENOBUFS, remembered in
     * rs_cong_mask under RDS_CONG_MONITOR) and makes a blocking one wait (up to SO_SNDTIMEO, then ETIMEDOUT;
     * Linux's rds_cong_wait has no timeout).
     */
    private void congWait(RdsCongMap map, int dport, long deadline) throws IOException {
        if (!map.isCongested(dport)) return;
        if (!blocking) {
            if (congMonitor) congMask.getAndUpdate(m -> m | 1L << (dport & 63));
            if (!seenCongestion) {
                seenCongestion = true;
                rds.congPollers.add(this);
            }
            rds.stats.inc(RdsStatistics.Counter.s_cong_send_error);
            throw new ErrnoException(Errno.ENOBUFS, "send: port " + dport + " congested");
        }
        rds.stats.inc(RdsStatistics.Counter.s_cong_send_blocked);
        rds.congWaiters.add(this);
        try {
            while (map.isCongested(dport)) {
                await(deadline, "send");
                if (closed) throw new ErrnoException(Errno.EBADF, "send");
            }
        } finally {
            rds.congWaiters.remove(this);
        }
    }

    private boolean reserveSend(int len) {
        long limit = sndbuf / 2;
        while (true) {
            long cur = sndBytes.get();
            if (cur >= limit) return false;
            if (sndBytes.compareAndSet(cur, cur + len)) return true;
        }
    }

    /** A message of {@code len} payload bytes was acknowledged or dropped: its bytes leave rs_snd_bytes. */
    void sendFreed(int len) {
        long before = sndBytes.getAndAdd(-len);
        if (before >= sndbuf / 2 && before - len < sndbuf / 2) lock.wakeUp(); // room again (POLLOUT)
    }

    // ======================================================================================= receive

    /** {@link #deliver}'s results. */
    static final int DELIVER_DEAD = 0, DELIVER_QUEUED = 1, DELIVER_OVER_CAP = 2;

    /**
     * rds_recv_incoming's last step: queues {@code m} from {@code saddr}. Never waits for the application.
     *
     * @return {@link #DELIVER_DEAD} when the socket is closed (not queued), {@link #DELIVER_OVER_CAP} when queued
     *         and the queue reached its {@link #hardCap()}, else {@link #DELIVER_QUEUED}
     */
    int deliver(RdsMessage m, int saddr) {
        boolean changed, over;
        synchronized (rq) {
            if (closed) return DELIVER_DEAD;
            m.saddr = saddr;
            rq.addLast(m);
            rqCount = rq.size();
            rcvBytes += m.payloadLength();
            changed = rcvbufDelta();
            over = rcvBytes >= hardCap();
        }
        rds.stats.inc(RdsStatistics.Counter.s_recv_queued);
        rds.stats.add(RdsStatistics.Counter.s_recv_bytes_added_to_socket, m.payloadLength());
        if (changed) rds.congQueueUpdates(rds.congMap(boundAddr));
        lock.wakeUp();
        return over ? DELIVER_OVER_CAP : DELIVER_QUEUED;
    }

    /**
     * The hard cap of the receive queue in bytes: SO_RCVBUF (twice the congestion threshold), at least
     * {@link #RCV_HARD_MIN}. jnet's; see the class comment.
     */
    long hardCap() { return Math.max(rcvbuf, RCV_HARD_MIN); }

    /**
     * True when {@code c} must stop reading: the queue holds at least {@link #hardCap()} bytes and the socket is
     * open; {@code c} is then kicked once the queue is below the cap again. Counts jnet_s_recv_throttled when
     * {@code c} newly stops.
     */
    boolean throttle(RdsConnection c) {
        synchronized (rq) {
            if (closed || rcvBytes < hardCap()) return false;
            if (!throttled.contains(c)) {
                throttled.add(c);
                rds.stats.inc(RdsStatistics.Counter.jnet_s_recv_throttled);
            }
            return true;
        }
    }

    /** Under rq's monitor: the throttled connections to resume when below the cap (or closed), else null. */
    private RdsConnection[] resumable() {
        if (throttled.isEmpty() || (!closed && rcvBytes >= hardCap())) return null;
        RdsConnection[] r = throttled.toArray(new RdsConnection[0]);
        throttled.clear();
        return r;
    }

    private static void resume(RdsConnection[] cs) {
        if (cs != null) for (RdsConnection c : cs) c.kick();
    }

    /** rds_recv_rcvbuf_delta, under the queue's monitor: true when the port's congestion bit changed. */
    private boolean rcvbufDelta() {
        boolean now = rcvBytes > rcvbuf / 2;
        if (now == congested || boundPort == 0) return false;
        congested = now;
        RdsCongMap map = rds.congMap(boundAddr);
        if (now) map.set(boundPort);
        else map.clear(boundPort);
        return true;
    }

    @Override
    public Received receive(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        return doReceive(b, off, len, null);
    }

    @Override
    public Received receive(ByteBuffer dst) throws IOException {
        if (dst.isReadOnly()) throw new java.nio.ReadOnlyBufferException();
        return doReceive(null, 0, dst.remaining(), dst);
    }

    /** rds_recvmsg. */
    private Received doReceive(byte[] b, int off, int len, ByteBuffer bb) throws IOException {
        lock.lock();
        try {
            long deadline = rcvTimeoNs > 0 ? rds.ns.clock().nanoTime() + rcvTimeoNs : 0;
            while (true) {
                if (closed) throw new ErrnoException(Errno.EBADF, "receive");
                long notify = congNotifyBits.getAndSet(0);
                if (notify != 0) return new Received(0, 0, null, notify);
                RdsMessage m;
                boolean changed = false;
                RdsConnection[] resume = null;
                synchronized (rq) {
                    m = rq.pollFirst();
                    if (m != null) {
                        rqCount = rq.size();
                        rcvBytes -= m.payloadLength();
                        changed = rcvbufDelta();
                        resume = resumable();
                    }
                }
                if (m != null) {
                    int full = m.payloadLength();
                    rds.stats.add(RdsStatistics.Counter.s_recv_bytes_removed_from_socket, full);
                    if (changed) rds.congQueueUpdates(rds.congMap(boundAddr));
                    resume(resume);
                    int n = Math.min(full, len);
                    if (bb != null) bb.put(m.payload(), m.payloadOffset(), n);
                    else System.arraycopy(m.payload(), m.payloadOffset(), b, off, n);
                    rds.stats.inc(RdsStatistics.Counter.s_recv_delivered);
                    return new Received(n, full, sender(m.saddr, m.sourcePort()), 0);
                }
                if (!blocking) return null;
                await(deadline, "receive");
            }
        } finally {
            lock.release();
        }
    }

    /** The sender's address, the last one's object when it is the same; under the socket's lock. */
    private InetSocketAddress sender(int saddr, int sport) {
        InetSocketAddress a = lastSender;
        if (a == null || lastSenderAddr != saddr || a.getPort() != sport) {
            a = new InetSocketAddress(Ipv4.toInet(saddr), sport);
            lastSender = a;
            lastSenderAddr = saddr;
        }
        return a;
    }

    /**
     * Waits (owning the socket) for a wake-up; ETIMEDOUT at the deadline (0: none), as rds_sendmsg and
     * rds_recvmsg return when SO_SNDTIMEO / SO_RCVTIMEO expire.
     */
    private void await(long deadline, String op) throws IOException {
        long timeout = 0;
        if (deadline != 0) {
            timeout = deadline - rds.ns.clock().nanoTime();
            if (timeout <= 0) throw new ErrnoException(Errno.ETIMEDOUT, op + " timed out");
        }
        try {
            lock.await(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(op + " interrupted");
        }
    }

    /** rds_cong_map_updated for a monitoring socket: refused ports of {@code portmask} are reported. */
    void congNotify(long portmask) {
        long hit = congMask.getAndUpdate(m -> m & ~portmask) & portmask;
        if (hit == 0) return;
        congNotifyBits.getAndUpdate(n -> n | hit);
        lock.wakeUp();
    }

    /** Wakes waiters and pollers (a congestion map changed: rds_cong_map_updated's m_waitq and rds_poll_waitq). */
    void wake() { lock.wakeUp(); }

    // ======================================================================================= options

    @Override
    public <T> void setOption(SocketOption<T> option, T value) throws IOException {
        if (value == null) throw new ErrnoException(Errno.EINVAL, "setsockopt " + option);
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "setsockopt");
            if (option == SocketOption.SO_RCVBUF) {
                RdsConnection[] resume;
                synchronized (rq) {
                    rcvbuf = SocketOptionValues.clampBuf((Integer) value, rds.sysctl.rmemMax.intValue(), SOCK_MIN_RCVBUF);
                    resume = resumable();
                }
                resume(resume);
            } else if (option == SocketOption.SO_SNDBUF) {
                sndbuf = SocketOptionValues.clampBuf((Integer) value, rds.sysctl.wmemMax.intValue(), SOCK_MIN_SNDBUF);
                lock.wakeUp();
            } else if (option == SocketOption.SO_RCVTIMEO) {
                rcvTimeoNs = SocketOptionValues.timeout((Duration) value);
            } else if (option == SocketOption.SO_SNDTIMEO) {
                sndTimeoNs = SocketOptionValues.timeout((Duration) value);
            } else if (option == SocketOption.RDS_CONG_MONITOR) {
                congMonitor = (Boolean) value;
                if (congMonitor) rds.congMonitors.add(this);
                else rds.congMonitors.remove(this);
            } else {
                throw new ErrnoException(Errno.ENOPROTOOPT, "setsockopt " + option);
            }
        } finally {
            lock.release();
        }
    }



    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(SocketOption<T> option) throws IOException {
        Object v;
        if (option == SocketOption.SO_RCVBUF) v = rcvbuf;
        else if (option == SocketOption.SO_SNDBUF) v = sndbuf;
        else if (option == SocketOption.SO_RCVTIMEO) v = Duration.ofNanos(rcvTimeoNs);
        else if (option == SocketOption.SO_SNDTIMEO) v = Duration.ofNanos(sndTimeoNs);
        else if (option == SocketOption.RDS_CONG_MONITOR) v = congMonitor;
        else throw new ErrnoException(Errno.ENOPROTOOPT, "getsockopt " + option);
        return (T) v;
    }

    @Override
    public InetSocketAddress localAddress() {
        int p = boundPort;
        return p == 0 ? null : new InetSocketAddress(Ipv4.toInet(boundAddr), p);
    }

    // ===================================================================================== readiness

    @Override public void setBlocking(boolean blocking) { this.blocking = blocking; }

    @Override public boolean isBlocking() { return blocking; }

    /**
     * rds_poll: POLLIN while a message waits; for an RDS_CONG_MONITOR socket also while a congestion update
     * waits (rs_cong_notify), for any other socket once after each congestion-map change since its last poll
     * (rds_cong_updated_since, "for historical reasons"; Linux adds POLLWRBAND, which jnet's {@link Events}
     * lacks); POLLOUT while the send buffer has room; POLLHUP once closed. A socket whose send was refused with
     * ENOBUFS hears of every map change (Linux's rds_poll_waitq once rs_seen_congestion is set), so a poller
     * waiting for POLLIN wakes when a congested port may have cleared. Unlike Linux, a new socket starts at the
     * current generation, so it does not report that POLLIN for changes from before it was made.
     */
    @Override
    public int readyEvents() {
        if (closed) return Events.POLLHUP;
        int ev = 0;
        if (!congMonitor) {
            long g = rds.congGeneration.get();
            if (g != congTrack) {
                congTrack = g;
                ev |= Events.POLLIN;
            }
        }
        if (rqCount > 0 || congNotifyBits.get() != 0) ev |= Events.POLLIN;
        if (sndBytes.get() < sndbuf / 2) ev |= Events.POLLOUT;
        return ev;
    }

    @Override public void addReadinessListener(ReadinessListener l) { listeners.add(Objects.requireNonNull(l)); }

    @Override public void removeReadinessListener(ReadinessListener l) { listeners.remove(l); }

    private void notifyReadiness() {
        if (listeners.isEmpty()) return;
        for (ReadinessListener l : listeners) {
            try {
                l.readinessChanged(this);
            } catch (RuntimeException e) {
                rds.ns.reportInternalError(e);
            }
        }
    }

    /**
     * rds_release: unbinds, frees the receive queue (uncongesting the port), drops this socket's messages not yet
     * written (rds_send_drop_to; those being written or awaiting their acknowledgement stay with the connection)
     * and wakes blocked callers, which throw EBADF. Idempotent.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) return;
            boolean changed;
            RdsConnection[] resume;
            synchronized (rq) {
                closed = true;
                long bytes = rcvBytes;
                rq.clear();
                rqCount = 0;
                rcvBytes = 0;
                changed = rcvbufDelta();
                resume = resumable();
                rds.stats.add(RdsStatistics.Counter.s_recv_bytes_removed_from_socket, bytes);
            }
            resume(resume);
            int port = boundPort;
            if (port != 0) rds.unbind(this, boundAddr, port);
            if (changed) rds.congQueueUpdates(rds.congMap(boundAddr));
            rds.socketClosed(this);
            lock.wakeUp();
        } finally {
            lock.release();
        }
    }

    @Override public boolean isClosed() { return closed; }

    @Override
    public String toString() {
        return "RdsSocket[" + Ipv4.addressToString(boundAddr) + ":" + boundPort + "]";
    }

    /** A multicast or the limited broadcast address: RDS is unicast (Linux's rds_sendmsg / rds_connect: EINVAL). */
    private static boolean multicastOrBroadcast(int addr) { return Ipv4.isMulticast(addr) || addr == -1; }

    private static int address(InetSocketAddress a, String op) throws ErrnoException {
        if (a.isUnresolved()) throw new ErrnoException(Errno.EINVAL, op + ": unresolved address " + a);
        try {
            return Ipv4.fromInet(a.getAddress());
        } catch (IllegalArgumentException e) {
            throw new ErrnoException(Errno.EAFNOSUPPORT, op + ": " + a);
        }
    }

    /** For tests: rs_snd_bytes. */
    long sendBytes() { return sndBytes.get(); }

    /** For tests: rs_rcv_bytes. */
    long receiveBytes() {
        synchronized (rq) {
            return rcvBytes;
        }
    }
}
