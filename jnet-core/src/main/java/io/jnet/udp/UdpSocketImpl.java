package io.jnet.udp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.buffer.PacketQueue;
import io.jnet.ip.DstCache;
import io.jnet.ip.Route;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.ReadinessListener;
import io.jnet.socket.SocketOption;
import io.jnet.socket.SocketOptionValues;
import io.jnet.socket.UdpSocket;
import io.jnet.stack.Interface;
import io.jnet.stack.MibCounter;
import io.jnet.stack.SockLock;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Udp;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A UDP socket (Linux's {@code udp_sock}) with Linux's semantics for bind, connect, send and receive.
 *
 * <p>Locking follows {@link SockLock}: application calls own the socket for the whole call; the receive
 * path enqueues a datagram under the short lock, or appends it to the backlog while an application owns
 * the socket, and never waits. ICMP errors are recorded through deferred work so a waiting receiver always
 * sees them.
 *
 * <p>Memory: queued datagrams are charged by their buffer size (truesize); a datagram is dropped (counted
 * in UdpRcvbufErrors and UdpInErrors) when the charge already exceeds SO_RCVBUF, as Linux's
 * {@code __udp_enqueue_schedule_skb} does, so the queue may overshoot by one datagram. SO_RCVBUF defaults
 * to net.core.rmem_default; a value set is doubled and capped by net.core.rmem_max, as Linux does.
 *
 * <p>Sending never waits: a datagram is built and handed to IPv4 (and on to the device) within the call,
 * so the send buffer never fills. SO_SNDBUF (net.core.wmem_default, doubled and capped by wmem_max when
 * set) and SO_SNDTIMEO are therefore accepted and reported but do not change behaviour.
 */
final class UdpSocketImpl implements UdpSocket {
    private static final int DEFER_ICMP_ERROR = 1;
    /** Linux SOCK_MIN_RCVBUF / SOCK_MIN_SNDBUF in bytes. */
    static final int SOCK_MIN_RCVBUF = 2304, SOCK_MIN_SNDBUF = 4608;
    private static final int LOOPBACK = 0x7F000001;

    private final UdpProtocol udp;
    private final SockLock lock;
    private final PacketQueue receiveQueue = new PacketQueue();
    private final DstCache dst = new DstCache();
    private final CopyOnWriteArrayList<ReadinessListener> listeners = new CopyOnWriteArrayList<>();

    // addressing: written under the port table's lock (rehash) or by the owner before hashing, read lock-free by lookups
    volatile int boundAddr;
    volatile int localPort;
    volatile int remoteAddr;
    volatile int remotePort;
    volatile boolean connected;
    /** The input route of the connected flow (Linux's sk_rx_dst), used by early demux. */
    final io.jnet.ip.InputRouteCache rxDst = new io.jnet.ip.InputRouteCache();
    volatile boolean reuseAddr;
    /** bind() fixed the address / the port (Linux SOCK_BINDADDR_LOCK / SOCK_BINDPORT_LOCK). */
    private boolean bindAddrLocked;
    private boolean bindPortLocked;

    private volatile boolean blocking = true;
    private volatile boolean closed;
    private volatile int rcvbuf;
    private int sndbuf;
    private long rcvTimeoNs;
    /** SO_BUSY_POLL in microseconds (net.core.busy_read at creation). */
    private int busyPollUs;
    private long sndTimeoNs;
    /** Pending error (Linux sk_err), reported once by the next send or receive; 0 when none. */
    private volatile int soError;
    /** Error recorded by the receive path, moved to {@link #soError} by deferred work. */
    private volatile int icmpPending;
    /** Datagrams and truesize bytes in the receive queue, for lock-free readiness and the memory check. */
    private volatile int queuedDatagrams;
    private volatile long rmemAlloc;

    UdpSocketImpl(UdpProtocol udp) {
        this.udp = udp;
        this.lock = new SockLock(udp.ns.clock()); // timed waits on the namespace's clock
        this.rcvbuf = udp.sysctl.rmemDefault.intValue();
        this.sndbuf = udp.sysctl.wmemDefault.intValue();
        this.busyPollUs = udp.sysctl.busyRead.intValue();
        lock.setProcessor(this::enqueue);
        lock.setDeferredWork(this::deferred);
        lock.setWakeListener(this::notifyReadiness);
    }

    // ======================================================================================== API

    @Override
    public void bind(InetSocketAddress local) throws IOException {
        Objects.requireNonNull(local, "local");
        int addr = address(local, "bind");
        int port = local.getPort();
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "bind");
            if (localPort != 0) throw new ErrnoException(Errno.EINVAL, "bind: already bound");
            if (addr != 0 && !bindable(addr)) throw new ErrnoException(Errno.EADDRNOTAVAIL, "bind");
            udp.bind(this, addr, port);
            bindAddrLocked = addr != 0;
            bindPortLocked = port != 0;
        } finally {
            lock.release();
        }
    }

    /** Local, limited broadcast, an interface's broadcast or a multicast group (Linux inet_bind's address check). */
    private boolean bindable(int addr) {
        if (udp.ns.isLocalAddress(addr) || addr == -1 || Ipv4.isMulticast(addr)) return true;
        for (Interface i : udp.ns.interfaces()) if (i.isBroadcast(addr)) return true;
        return false;
    }

    /**
     * Sets the peer (Linux's {@code ip4_datagram_connect}): binds an ephemeral port if unbound, takes the
     * route's source address as the bound address if none was bound, and from then on receives only from
     * the peer. Address 0.0.0.0 means 127.0.0.1. {@code remote == null} disconnects (AF_UNSPEC), undoing the
     * implicit address and port. Throws ENETUNREACH, EBADF, EAGAIN (no ephemeral port).
     */
    @Override
    public void connect(InetSocketAddress remote) throws IOException {
        int raddr = remote == null ? 0 : address(remote, "connect");
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "connect");
            if (remote == null) {
                disconnect();
                return;
            }
            if (raddr == 0) raddr = LOOPBACK;
            Route r = udp.ip.route(raddr, dst);
            if (r == null) {
                udp.mib.inc(MibCounter.IpOutNoRoutes);
                throw new ErrnoException(Errno.ENETUNREACH, "connect");
            }
            autobind("connect");
            int bound = boundAddr != 0 ? boundAddr : r.source(raddr);
            udp.ports.rehash(this, bound, raddr, remote.getPort(), true);
            rxDst.invalidate();
        } finally {
            lock.release();
        }
    }

    /** Linux's {@code __udp_disconnect}. */
    private void disconnect() {
        if (!connected) return;
        udp.ports.rehash(this, bindAddrLocked ? boundAddr : 0, 0, 0, false);
        if (!bindPortLocked) udp.ports.unbind(this);
        dst.invalidate();
        rxDst.invalidate();
    }

    @Override
    public void send(byte[] b, int off, int len, InetSocketAddress to) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        sendDatagram(b, off, null, len, to);
    }

    @Override
    public int send(ByteBuffer src, InetSocketAddress to) throws IOException {
        int len = src.remaining();
        if (src.hasArray()) sendDatagram(src.array(), src.arrayOffset() + src.position(), null, len, to);
        else sendDatagram(null, 0, src, len, to);
        src.position(src.position() + len);
        return len;
    }

    /** Builds and sends one datagram of {@code len} bytes from {@code b} at {@code off}, or from {@code bb}'s position (not moved). */
    private void sendDatagram(byte[] b, int off, ByteBuffer bb, int len, InetSocketAddress to) throws IOException {
        if (len > Udp.MAX_PAYLOAD) throw new ErrnoException(Errno.EMSGSIZE, "send: " + len + " > " + Udp.MAX_PAYLOAD + " bytes");
        int daddr = to == null ? 0 : address(to, "send");
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "send");
            int dport;
            if (to != null) {
                dport = to.getPort();
                if (dport == 0) throw new ErrnoException(Errno.EINVAL, "send: port 0");
                if (daddr == 0) daddr = LOOPBACK;
            } else {
                if (!connected) throw new ErrnoException(Errno.EDESTADDRREQ, "send");
                daddr = remoteAddr;
                dport = remotePort;
            }
            throwPendingError("send");
            autobind("send");
            Route r = udp.ip.route(daddr, dst);
            if (r == null) {
                udp.mib.inc(MibCounter.IpOutNoRoutes);
                throw new ErrnoException(Errno.ENETUNREACH, "send");
            }
            int saddr = boundAddr != 0 && !Ipv4.isMulticast(boundAddr) && boundAddr != -1 ? boundAddr : r.source(daddr);
            int ulen = Udp.HEADER_LENGTH + len;
            PacketBuffer p = udp.ns.allocator().allocate(PacketBuffer.DEFAULT_HEADROOM, ulen);
            int hoff = p.put(ulen);
            if (bb != null) bb.get(bb.position(), p.array(), hoff + Udp.HEADER_LENGTH, len);
            else System.arraycopy(b, off, p.array(), hoff + Udp.HEADER_LENGTH, len);
            Udp.write(p.array(), hoff, localPort, dport, ulen, saddr, daddr);
            p.setTransportOffset(hoff);
            p.setOwner(this);
            int rc = udp.ip.output(p, saddr, daddr, Ipv4.PROTO_UDP, 0, 0, false, dst);
            if (rc < 0) throw errno(-rc, "send");
            udp.mib.inc(MibCounter.UdpOutDatagrams);
        } finally {
            lock.release();
        }
    }

    @Override
    public Datagram receive(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        lock.lock();
        try {
            PacketBuffer p = dequeue();
            if (p == null) return null;
            return datagram(p, copyOut(p, b, off, len, null));
        } finally {
            lock.release();
        }
    }

    @Override
    public Datagram receive(ByteBuffer dst) throws IOException {
        if (dst.isReadOnly()) throw new java.nio.ReadOnlyBufferException();
        lock.lock();
        try {
            PacketBuffer p = dequeue();
            if (p == null) return null;
            return datagram(p, copyOut(p, null, 0, dst.remaining(), dst));
        } finally {
            lock.release();
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (dst.isReadOnly()) throw new java.nio.ReadOnlyBufferException();
        lock.lock();
        try {
            PacketBuffer p = dequeue();
            if (p == null) return -1;
            int n = copyOut(p, null, 0, dst.remaining(), dst);
            p.release();
            return n;
        } finally {
            lock.release();
        }
    }

    /** The next queued datagram, waiting for one in blocking mode (null when non-blocking and none). Call owning the lock. */
    private PacketBuffer dequeue() throws IOException {
        long deadline = rcvTimeoNs > 0 ? udp.ns.clock().nanoTime() + rcvTimeoNs : 0;
        while (true) {
            if (closed) throw new ErrnoException(Errno.EBADF, "receive");
            throwPendingError("receive");
            PacketBuffer p = receiveQueue.poll();
            if (p != null) return p;
            if (!blocking) return null;
            if (!waitEvent(deadline, busyPollUs * 1000L)) throw new ErrnoException(Errno.EAGAIN, "receive timed out (SO_RCVTIMEO)");
        }
    }

    /** Copies up to {@code len} bytes of {@code p} into {@code b} at {@code off}, or into {@code bb} (position advances); returns the count. */
    private int copyOut(PacketBuffer p, byte[] b, int off, int len, ByteBuffer bb) {
        queuedDatagrams = receiveQueue.size();
        rmemAlloc = receiveQueue.bytes();
        int n = Math.min(p.length(), len);
        if (bb != null) bb.put(p.array(), p.dataStart(), n);
        else System.arraycopy(p.array(), p.dataStart(), b, off, n);
        udp.mib.inc(MibCounter.UdpInDatagrams);
        return n;
    }

    /** The result of a receive of {@code copied} bytes from {@code p}, which it releases. */
    private static Datagram datagram(PacketBuffer p, int copied) {
        Datagram d = new Datagram(copied, p.length(), new InetSocketAddress(Ipv4.toInet(p.seq), p.flags));
        p.release();
        return d;
    }

    @Override
    public <T> void setOption(SocketOption<T> option, T value) throws IOException {
        if (value == null) throw new ErrnoException(Errno.EINVAL, "setsockopt " + option);
        lock.lock();
        try {
            if (option == SocketOption.SO_RCVBUF) {
                rcvbuf = SocketOptionValues.clampBuf((Integer) value, udp.sysctl.rmemMax.intValue(), SOCK_MIN_RCVBUF);
            } else if (option == SocketOption.SO_SNDBUF) {
                sndbuf = SocketOptionValues.clampBuf((Integer) value, udp.sysctl.wmemMax.intValue(), SOCK_MIN_SNDBUF);
            } else if (option == SocketOption.SO_RCVTIMEO) {
                rcvTimeoNs = SocketOptionValues.timeout((Duration) value);
            } else if (option == SocketOption.SO_SNDTIMEO) {
                sndTimeoNs = SocketOptionValues.timeout((Duration) value);
            } else if (option == SocketOption.SO_REUSEADDR) {
                reuseAddr = (Boolean) value;
            } else if (option == SocketOption.SO_BUSY_POLL) {
                int us = (Integer) value;
                if (us < 0) throw new ErrnoException(Errno.EINVAL, "SO_BUSY_POLL " + us);
                busyPollUs = us;
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
        else if (option == SocketOption.SO_REUSEADDR) v = reuseAddr;
        else if (option == SocketOption.SO_BUSY_POLL) v = busyPollUs;
        else throw new ErrnoException(Errno.ENOPROTOOPT, "getsockopt " + option);
        return (T) v;
    }

    @Override
    public InetSocketAddress localAddress() { return new InetSocketAddress(Ipv4.toInet(boundAddr), localPort); }

    /** The connected peer, or null (getpeername ENOTCONN). */
    InetSocketAddress remoteAddress() {
        return connected ? new InetSocketAddress(Ipv4.toInet(remoteAddr), remotePort) : null;
    }

    @Override
    public void setBlocking(boolean blocking) { this.blocking = blocking; }

    @Override
    public boolean isBlocking() { return blocking; }

    /**
     * POLLIN while a datagram is queued, POLLOUT while open (UDP sends never wait for buffer space here:
     * datagrams go to the device synchronously), POLLERR while an error is pending; POLLHUP once closed.
     */
    @Override
    public int readyEvents() {
        if (closed) return Events.POLLHUP;
        int ev = Events.POLLOUT;
        if (queuedDatagrams > 0) ev |= Events.POLLIN;
        if (soError != 0 || icmpPending != 0) ev |= Events.POLLERR;
        return ev;
    }

    @Override
    public void addReadinessListener(ReadinessListener l) { listeners.add(Objects.requireNonNull(l)); }

    @Override
    public void removeReadinessListener(ReadinessListener l) { listeners.remove(l); }

    /** Closes: unbinds, drops queued datagrams, wakes blocked receivers (they throw EBADF). Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) return;
            closed = true;
            udp.ports.unbind(this);
            receiveQueue.purge();
            queuedDatagrams = 0;
            rmemAlloc = 0;
            lock.wakeUp();
        } finally {
            lock.release();
        }
    }

    @Override
    public boolean isClosed() { return closed; }

    @Override
    public String toString() {
        return "UdpSocket[" + Ipv4.addressToString(boundAddr) + ":" + localPort
                + (connected ? " -> " + Ipv4.addressToString(remoteAddr) + ":" + remotePort : "") + "]";
    }

    // ================================================================================ receive path

    /** True when connected with exactly this 4-tuple (validates an early-demux result). */
    boolean matchesExactly(int daddr, int dport, int saddr, int sport) {
        return connected && localPort == dport && remotePort == sport && boundAddr == daddr && remoteAddr == saddr;
    }

    /** A datagram for this socket from the receive path (data starts at the UDP header). Never blocks. */
    void datagramArrived(PacketBuffer pkt, int src, int sport) {
        long rmem = rmemAlloc;
        int limit = rcvbuf;
        if (rmem > limit) { // Linux: the queue already holds more than SO_RCVBUF
            pkt.release();
            rcvbufDrop();
            return;
        }
        // backlog + queue may exceed SO_RCVBUF by this one datagram (Linux sk_rcvqueues_full)
        long backlogLimit = limit - rmem + pkt.truesize();
        if (!lock.backlogOrProcess(tag(pkt, src, sport), backlogLimit)) rcvbufDrop();
    }

    private PacketBuffer tag(PacketBuffer pkt, int src, int sport) {
        pkt.pull(Udp.HEADER_LENGTH);
        pkt.setOwner(this); // charged to this socket (Linux skb_set_owner_r)
        pkt.seq = src; // control block: sender address and port for receive()
        pkt.flags = sport;
        pkt.setSocket(null);
        return pkt;
    }

    /** Queues one datagram (under the short lock, or by the owner draining the backlog). */
    private void enqueue(PacketBuffer pkt) {
        if (closed) {
            pkt.release();
            return;
        }
        if (receiveQueue.bytes() > rcvbuf) {
            pkt.release();
            rcvbufDrop();
            return;
        }
        receiveQueue.add(pkt);
        queuedDatagrams = receiveQueue.size();
        rmemAlloc = receiveQueue.bytes();
        lock.wakeUp();
    }

    private void rcvbufDrop() {
        udp.mib.inc(MibCounter.UdpRcvbufErrors);
        udp.mib.inc(MibCounter.UdpInErrors);
    }

    /** An ICMP hard error about a datagram this connected socket sent (called from the receive path). */
    void icmpError(Errno err) {
        icmpPending = err.number();
        lock.deferOrRun(DEFER_ICMP_ERROR);
    }

    private void deferred(int flags) {
        if ((flags & DEFER_ICMP_ERROR) != 0) {
            int e = icmpPending;
            icmpPending = 0;
            if (e != 0) soError = e;
            lock.wakeUp();
        }
    }

    // ===================================================================================== helpers

    private void notifyReadiness() {
        if (listeners.isEmpty()) return; // no iterator on the common path
        for (ReadinessListener l : listeners) {
            try {
                l.readinessChanged(this);
            } catch (RuntimeException e) {
                udp.ns.reportInternalError(e);
            }
        }
    }

    private void throwPendingError(String op) throws ErrnoException {
        int e = soError;
        if (e != 0) {
            soError = 0;
            throw errno(e, op);
        }
    }

    /** Binds an ephemeral port if none is bound (Linux inet_autobind: EAGAIN when none is free). */
    private void autobind(String op) throws ErrnoException {
        if (localPort != 0) return;
        try {
            udp.bind(this, boundAddr, 0);
        } catch (ErrnoException e) {
            throw new ErrnoException(Errno.EAGAIN, op + ": no free ephemeral port");
        }
    }

    /** Waits with ownership given up; false once the deadline (namespace clock) has passed. */
    private boolean waitEvent(long deadline) throws IOException {
        return waitEvent(deadline, 0);
    }

    /** {@link #waitEvent(long)}, spinning up to {@code spinNanos} before sleeping (busy polling, receives only). */
    private boolean waitEvent(long deadline, long spinNanos) throws IOException {
        long timeout = 0;
        if (deadline != 0) {
            timeout = deadline - udp.ns.clock().nanoTime();
            if (timeout <= 0) return false;
        }
        try {
            lock.await(timeout, spinNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("receive interrupted");
        }
        return true;
    }

    private static int address(InetSocketAddress a, String op) throws ErrnoException {
        if (a.isUnresolved()) throw new ErrnoException(Errno.EINVAL, op + ": unresolved address " + a);
        try {
            return Ipv4.fromInet(a.getAddress());
        } catch (IllegalArgumentException e) {
            throw new ErrnoException(Errno.EAFNOSUPPORT, op + ": " + a);
        }
    }

    static ErrnoException errno(int err, String op) {
        for (Errno e : Errno.values()) if (e.number() == err) return new ErrnoException(e, op);
        return new ErrnoException(Errno.EINVAL, op + " (errno " + err + ")");
    }
}
