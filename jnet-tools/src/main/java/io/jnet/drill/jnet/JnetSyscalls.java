package io.jnet.drill.jnet;

import io.jnet.drill.target.SyscallException;
import io.jnet.drill.target.Syscalls;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.PollableSocket;
import io.jnet.socket.Poller;
import io.jnet.socket.SocketOption;
import io.jnet.socket.SocketOptionValues;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.socket.UdpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.SockLock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Linux's socket system calls on a jnet namespace: a descriptor table (the lowest free number from 3, as Linux
 * allocates them after stdin, stdout and stderr) over jnet's sockets and pollers.
 *
 * <p>What jnet cannot express fails as a kernel without the feature would: an option jnet lacks gives
 * ENOPROTOOPT, an {@code ioctl} it lacks ENOTTY, a flag it lacks EOPNOTSUPP (a script that passes on Linux then
 * fails here, which is what the suite's expected failures record). Errors jnet raises keep their errno.
 *
 * <p>Threads: any thread may call; the player makes blocking calls from threads of its own. {@link #callsEntered}
 * and {@link #callsReturned} let the target see when every call in progress is parked.
 */
final class JnetSyscalls implements Syscalls {
    // Linux x86_64 numbers (include/uapi/linux/socket.h, in.h, tcp.h, asm-generic/socket.h, fcntl.h, ioctls.h)
    static final int AF_INET = 2, SOCK_STREAM = 1, SOCK_DGRAM = 2, SOCK_NONBLOCK = 0x800, SOCK_CLOEXEC = 0x80000;
    static final int IPPROTO_TCP = 6, IPPROTO_UDP = 17, SOL_SOCKET = 1;
    static final int SO_REUSEADDR = 2, SO_TYPE = 3, SO_ERROR = 4, SO_SNDBUF = 7, SO_RCVBUF = 8, SO_KEEPALIVE = 9,
            SO_OOBINLINE = 10, SO_LINGER = 13, SO_RCVLOWAT = 18, SO_RCVTIMEO = 20, SO_SNDTIMEO = 21, SO_BUSY_POLL = 46;
    static final int TCP_NODELAY = 1, TCP_MAXSEG = 2, TCP_CORK = 3, TCP_KEEPIDLE = 4, TCP_KEEPINTVL = 5, TCP_KEEPCNT = 6,
            TCP_DEFER_ACCEPT = 9, TCP_INFO = 11, TCP_QUICKACK = 12, TCP_USER_TIMEOUT = 18;
    static final int O_RDWR = 2, O_NONBLOCK = 0x800, F_GETFL = 3, F_SETFL = 4, F_GETFD = 1, F_SETFD = 2;
    static final long FIONREAD = 0x541B, SIOCOUTQ = 0x5411, SIOCOUTQNSD = 0x894B, SIOCATMARK = 0x8905;
    static final int SHUT_RD = 0, SHUT_WR = 1, SHUT_RDWR = 2;
    static final int EPOLL_CTL_ADD = 1, EPOLL_CTL_DEL = 2, EPOLL_CTL_MOD = 3;
    static final int MSG_OOB = 0x1, MSG_PEEK = 0x2, MSG_DONTWAIT = 0x40, MSG_WAITALL = 0x100, MSG_NOSIGNAL = 0x4000,
            MSG_MORE = 0x8000;
    static final int EPOLLIN = 0x1, EPOLLPRI = 0x2, EPOLLOUT = 0x4, EPOLLERR = 0x8, EPOLLHUP = 0x10, EPOLLRDHUP = 0x2000,
            EPOLLEXCLUSIVE = 1 << 28, EPOLLONESHOT = 1 << 30, EPOLLET = 1 << 31;
    /** What EPOLLEXCLUSIVE may come with (Linux EPOLLEXCLUSIVE_OK_BITS, less EPOLLWAKEUP). */
    static final int EPOLLEXCLUSIVE_OK_BITS = EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLET | EPOLLEXCLUSIVE;

    // errno numbers used here
    private static final int EBADF = 9, EAGAIN = 11, EINVAL = 22, ENOTTY = 25, ENOTSOCK = 88, ENOPROTOOPT = 92,
            EPROTONOSUPPORT = 93, EOPNOTSUPP = 95, EAFNOSUPPORT = 97, EEXIST = 17, ENOENT = 2, ENOTCONN = 107,
            EISCONN = 106, EDESTADDRREQ = 89;

    private final NetNamespace ns;
    private final TreeMap<Integer, Object> files = new TreeMap<>();
    private final AtomicLong entered = new AtomicLong(), returned = new AtomicLong();
    /** Threads inside a call now. */
    private final java.util.Set<Thread> inCall = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Threads that made a call (see {@link #callersIdle}). */
    private final java.util.Set<Thread> callers = java.util.concurrent.ConcurrentHashMap.newKeySet();

    JnetSyscalls(NetNamespace ns) { this.ns = ns; }

    long callsEntered() { return entered.get(); }

    long callsReturned() { return returned.get(); }

    /**
     * True when no thread that made a call (other than the calling one) is running: one that returned from a call
     * may still be handing its result over, and the time it reads then must be the time the call returned.
     */
    boolean callersIdle() {
        Thread me = Thread.currentThread();
        for (Thread t : callers) {
            if (t == me) continue;
            Thread.State st = t.getState();
            if (st == Thread.State.TERMINATED) callers.remove(t);
            else if (st != Thread.State.WAITING && st != Thread.State.TIMED_WAITING) return false;
        }
        return true;
    }

    /** True when {@code t} is inside a call now. */
    boolean inCall(Thread t) { return inCall.contains(t); }

    /**
     * True when every thread inside a call is parked (waiting for data, a connection, room or a timeout) and none
     * was woken without having run yet (a loaded machine may leave a woken thread without a core for a while).
     */
    boolean callersParked() {
        for (Thread t : inCall) {
            Thread.State st = t.getState();
            if (st != Thread.State.WAITING && st != Thread.State.TIMED_WAITING && st != Thread.State.TERMINATED) return false;
            if (st != Thread.State.TERMINATED && (SockLock.wakeupPending(t) || Poller.wakeupPending(t))) return false;
        }
        return true;
    }

    /**
     * True when every thread inside a call is parked where only a packet, a timer or its own timeout wakes it (in
     * {@link SockLock#await} or a poll), not woken yet: the clock may then move straight to the next of those. A
     * thread parked elsewhere (for a lock another thread just let go, say) may be about to run.
     */
    boolean callersWaitForTime() {
        for (Thread t : inCall) {
            if (t.getState() == Thread.State.TERMINATED) continue;
            if (!SockLock.parkedInAwait(t) && !Poller.parkedInPoll(t)) return false;
        }
        return true;
    }

    // ------------------------------------------------------------------ descriptors

    private synchronized int install(Object file) {
        int fd = 3;
        for (int used : files.keySet()) {
            if (used == fd) fd++;
            else if (used > fd) break;
        }
        files.put(fd, file);
        return fd;
    }

    private synchronized Object file(int fd) throws SyscallException {
        Object f = files.get(fd);
        if (f == null) throw new SyscallException(EBADF);
        return f;
    }

    private SocketFile sock(int fd) throws SyscallException {
        if (file(fd) instanceof SocketFile s) return s;
        throw new SyscallException(ENOTSOCK);
    }

    private EpollFile epoll(int fd) throws SyscallException {
        if (file(fd) instanceof EpollFile e) return e;
        throw new SyscallException(EINVAL);
    }

    /** Closes every descriptor (the target is closing). */
    synchronized void closeAll() {
        for (Object f : files.values()) closeQuietly(f);
        files.clear();
    }

    private static void closeQuietly(Object f) {
        if (f instanceof SocketFile s) {
            PollableSocket p = s.socket();
            if (p != null) p.close();
        } else if (f instanceof EpollFile e) {
            e.poller.close();
        }
    }

    // ------------------------------------------------------------------ the calls

    @Override
    public int socket(int domain, int type, int protocol) throws SyscallException {
        return call(() -> {
            if (domain != AF_INET) throw new SyscallException(EAFNOSUPPORT);
            int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
            boolean nonBlocking = (type & SOCK_NONBLOCK) != 0;
            if (base == SOCK_STREAM) {
                if (protocol != 0 && protocol != IPPROTO_TCP) throw new SyscallException(EPROTONOSUPPORT);
                return install(new SocketFile(true, nonBlocking, null));
            }
            if (base == SOCK_DGRAM) {
                if (protocol != 0 && protocol != IPPROTO_UDP) throw new SyscallException(EPROTONOSUPPORT);
                UdpSocket u = ns.openUdpSocket();
                u.setBlocking(!nonBlocking);
                return install(new SocketFile(false, nonBlocking, u));
            }
            throw new SyscallException(EPROTONOSUPPORT);
        });
    }

    @Override
    public void bind(int fd, InetSocketAddress addr) throws SyscallException {
        run(() -> {
            SocketFile s = sock(fd);
            if (s.udp != null) {
                s.udp.bind(addr);
                return;
            }
            if (s.socket() != null || s.bound != null) throw new SyscallException(EINVAL); // already bound
            InetAddress a = addr.getAddress();
            if (!a.isAnyLocalAddress() && !ns.isLocalAddress(io.jnet.wire.Ipv4.fromInet(a))) {
                throw new SyscallException(99); // EADDRNOTAVAIL
            }
            s.bound = addr;
        });
    }

    @Override
    public void listen(int fd, int backlog) throws SyscallException {
        run(() -> {
            SocketFile s = sock(fd);
            if (!s.stream) throw new SyscallException(EOPNOTSUPP);
            if (s.connection != null) throw new SyscallException(EINVAL);
            TcpServerSocket l = s.listener;
            if (l == null) {
                l = ns.openTcpServerSocket();
                l.setBlocking(!s.nonBlocking);
                for (Map.Entry<SocketOption<?>, Object> o : s.pendingOptions.entrySet()) setOption(l, o.getKey(), o.getValue());
                l.bind(s.bound == null ? new InetSocketAddress("0.0.0.0", 0) : s.bound);
                s.listener = l;
            }
            l.listen(backlog);
        });
    }

    @Override
    public Accepted accept(int fd, int flags) throws SyscallException {
        return call(() -> {
            SocketFile s = sock(fd);
            TcpServerSocket l = s.listener;
            if (l == null) throw new SyscallException(EINVAL);
            TcpSocket c = l.accept();
            if (c == null) throw new SyscallException(EAGAIN);
            boolean nonBlocking = (flags & SOCK_NONBLOCK) != 0;
            c.setBlocking(!nonBlocking);
            SocketFile child = new SocketFile(true, nonBlocking, null);
            child.connection = c;
            return new Accepted(install(child), c.remoteAddress());
        });
    }

    @Override
    public void connect(int fd, InetSocketAddress addr) throws SyscallException {
        run(() -> {
            SocketFile s = sock(fd);
            if (s.udp != null) {
                s.udp.connect(addr);
                return;
            }
            if (s.listener != null) throw new SyscallException(EISCONN);
            TcpSocket c = s.connection;
            if (c == null) {
                c = ns.openTcpSocket();
                c.setBlocking(!s.nonBlocking);
                for (Map.Entry<SocketOption<?>, Object> o : s.pendingOptions.entrySet()) setOption(c, o.getKey(), o.getValue());
                if (s.bound != null) c.bind(s.bound);
                s.connection = c;
            }
            c.connect(addr);
        });
    }

    @Override
    public byte[] read(int fd, int len) throws SyscallException {
        return recvfrom(fd, len, 0).data();
    }

    @Override
    public int write(int fd, byte[] data) throws SyscallException {
        return sendto(fd, data, 0, null);
    }

    @Override
    public byte[] readv(int fd, int[] iovLengths) throws SyscallException {
        int total = 0;
        for (int l : iovLengths) {
            if (l < 0) throw new SyscallException(EINVAL);
            total += l;
        }
        return read(fd, total);
    }

    @Override
    public int writev(int fd, byte[][] iov) throws SyscallException {
        return sendmsg(fd, iov, 0, null);
    }

    @Override
    public int sendto(int fd, byte[] data, int flags, InetSocketAddress to) throws SyscallException {
        return call(() -> {
            SocketFile s = sock(fd);
            if (s.udp != null) {
                if ((flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL)) != 0) throw new SyscallException(EOPNOTSUPP);
                s.udp.send(data, 0, data.length, to);
                return data.length;
            }
            TcpSocket c = s.connection;
            if (c == null) throw new SyscallException(s.listener != null ? ENOTCONN : 32); // EPIPE before connect, as Linux
            if (to != null) throw new SyscallException(EISCONN);
            int n = c.write(data, 0, data.length, flags);
            if (n == 0 && data.length > 0) throw new SyscallException(EAGAIN);
            return n;
        });
    }

    @Override
    public Received recvfrom(int fd, int len, int flags) throws SyscallException {
        if (len < 0) throw new SyscallException(EINVAL); // a huge size_t: refused, as the kernel target reports
        return call(() -> {
            SocketFile s = sock(fd);
            if (s.udp != null) {
                if ((flags & ~MSG_DONTWAIT) != 0) throw new SyscallException(EOPNOTSUPP); // MSG_PEEK, MSG_WAITALL ...
                byte[] b = new byte[len];
                UdpSocket.Datagram d = withMode(s, s.udp, (flags & MSG_DONTWAIT) != 0, () -> s.udp.receive(b, 0, len));
                if (d == null) throw new SyscallException(EAGAIN);
                return new Received(Arrays.copyOf(b, d.length()), d.sender(), 0);
            }
            if ((flags & ~(MSG_OOB | MSG_PEEK | MSG_DONTWAIT | MSG_WAITALL)) != 0) throw new SyscallException(EOPNOTSUPP); // MSG_TRUNC ...
            TcpSocket c = s.connection;
            if (c == null) {
                // tcp_recvmsg_locked: ENOTCONN on a listener; a socket never connected has no urgent data
                throw new SyscallException((flags & MSG_OOB) != 0 && s.listener == null ? EINVAL : ENOTCONN);
            }
            byte[] b = new byte[len];
            int n = c.read(b, 0, len, flags); // MsgFlags has Linux's values
            if (n == 0 && len > 0 && (flags & MSG_OOB) == 0) throw new SyscallException(EAGAIN);
            return new Received(n < 0 ? new byte[0] : Arrays.copyOf(b, n), null, (flags & MSG_OOB) != 0 && n > 0 ? MSG_OOB : 0);
        });
    }

    @Override
    public int sendmsg(int fd, byte[][] iov, int flags, InetSocketAddress to) throws SyscallException {
        int total = 0;
        for (byte[] b : iov) total += b.length;
        byte[] all = new byte[total];
        int at = 0;
        for (byte[] b : iov) {
            System.arraycopy(b, 0, all, at, b.length);
            at += b.length;
        }
        return sendto(fd, all, flags, to);
    }

    @Override
    public Received recvmsg(int fd, int[] iovLengths, int flags) throws SyscallException {
        int total = 0;
        for (int l : iovLengths) {
            if (l < 0) throw new SyscallException(EINVAL);
            total += l;
        }
        return recvfrom(fd, total, flags);
    }

    @Override
    public void setsockopt(int fd, int level, int name, byte[] value) throws SyscallException {
        run(() -> {
            SocketFile s = sock(fd);
            SocketOption<?> option = option(level, name);
            if (option == SocketOption.SO_ERROR) throw new SyscallException(ENOPROTOOPT); // read-only, as Linux
            Object v = decode(option, value);
            PollableSocket p = s.socket();
            if (p == null && option == SocketOption.SO_RCVLOWAT) {
                // kept as tcp_set_rcvlowat stores it, for a getsockopt before the jnet socket exists (a pending
                // SO_RCVBUF is not taken into account); the jnet socket caps it again when it takes it
                int lowat = (Integer) v < 0 ? Integer.MAX_VALUE : (Integer) v;
                v = Math.max(1, Math.min(lowat, ns.sysctl().tcpRmem.intValue(2) >> 1));
            }
            if (p == null && option == SocketOption.TCP_DEFER_ACCEPT) {
                // kept as the seconds getsockopt reads back (retrans_to_secs of secs_to_retrans), which the jnet
                // socket turns into the same number of SYN-ACK timeouts
                v = SocketOptionValues.deferAcceptSeconds(SocketOptionValues.deferAcceptRetrans((Integer) v));
            }
            if (p == null) {
                checkPending(option, v);
                s.pendingOptions.put(option, v);
            } else {
                setOption(p, option, v);
            }
        });
    }

    @Override
    public byte[] getsockopt(int fd, int level, int name, int len) throws SyscallException {
        return call(() -> {
            SocketFile s = sock(fd);
            if (level == SOL_SOCKET && name == SO_TYPE) return intBytes(s.stream ? SOCK_STREAM : SOCK_DGRAM, len);
            if (level == IPPROTO_TCP && name == TCP_INFO) {
                if (!s.stream) throw new SyscallException(EOPNOTSUPP);
                PollableSocket p = s.socket();
                byte[] info;
                if (p instanceof TcpSocket c) info = TcpInfoBytes.of(c.info());
                else if (p instanceof TcpServerSocket l) info = TcpInfoBytes.of(l.info());
                else {
                    info = io.jnet.drill.target.TcpInfoLayout.newInfo();
                    io.jnet.drill.target.TcpInfoLayout.set(info, "tcpi_state", 7); // TCP_CLOSE, as a new Linux socket
                }
                return Arrays.copyOf(info, Math.min(len, info.length));
            }
            SocketOption<?> option = option(level, name);
            PollableSocket p = s.socket();
            Object v = p == null ? s.pendingOptions.getOrDefault(option, null) : getOption(p, option);
            if (v == null && p == null) v = defaultOf(option);
            return Arrays.copyOf(encode(option, v), Math.min(len, encode(option, v).length));
        });
    }

    @Override
    public int fcntl(int fd, int cmd, int arg) throws SyscallException {
        return call(() -> {
            Object f = file(fd);
            if (cmd == F_GETFD || cmd == F_SETFD) return 0;
            if (!(f instanceof SocketFile s)) {
                if (cmd == F_GETFL) return O_RDWR;
                throw new SyscallException(EINVAL);
            }
            if (cmd == F_GETFL) return O_RDWR | (s.nonBlocking ? O_NONBLOCK : 0);
            if (cmd == F_SETFL) {
                s.nonBlocking = (arg & O_NONBLOCK) != 0;
                PollableSocket p = s.socket();
                if (p != null) p.setBlocking(!s.nonBlocking);
                return 0;
            }
            throw new SyscallException(EINVAL);
        });
    }

    @Override
    public int ioctlInt(int fd, long request) throws SyscallException {
        return call(() -> {
            SocketFile s = sock(fd);
            if (s.udp != null) throw new SyscallException(ENOTTY); // jnet's UDP socket has no FIONREAD yet
            TcpSocket c = s.connection;
            TcpServerSocket l = s.listener;
            // tcp_ioctl: EINVAL on a listener (the listener's calls throw it); 0 on a socket that never connected
            if (request == FIONREAD) return c != null ? c.inq() : l != null ? l.inq() : 0;
            if (request == SIOCOUTQ) return c != null ? c.outq() : l != null ? l.outq() : 0;
            if (request == SIOCOUTQNSD) return c != null ? c.outqNotSent() : l != null ? l.outqNotSent() : 0;
            if (request == SIOCATMARK) return c != null && c.atMark() ? 1 : 0; // a listener: no urgent data, 0
            throw new SyscallException(ENOTTY);
        });
    }

    @Override
    public int poll(PollFd[] fds, int timeoutMillis) throws SyscallException {
        return call(() -> {
            try (Poller poller = Poller.open(ns)) {
                int ready = 0;
                for (PollFd p : fds) {
                    p.revents = 0;
                    PollableSocket sock = pollable(p.fd);
                    if (sock == null) {
                        p.revents = 0x20; // POLLNVAL
                        ready++;
                    } else {
                        poller.register(sock, (p.events & (EPOLLIN | EPOLLPRI | EPOLLOUT | EPOLLRDHUP)) , p);
                    }
                }
                if (ready > 0) return ready;
                List<Poller.Ready> out = new ArrayList<>();
                poller.poll(out, timeoutMillis < 0 ? null : Duration.ofMillis(timeoutMillis));
                for (Poller.Ready r : out) {
                    PollFd p = (PollFd) r.attachment();
                    p.revents = r.events();
                    if (p.revents != 0) ready++;
                }
                return ready;
            }
        });
    }

    @Override
    public int epollCreate(int flags) throws SyscallException {
        return call(() -> install(new EpollFile(Poller.open(ns))));
    }

    @Override
    public void epollCtl(int epfd, int op, int fd, int events, long data) throws SyscallException {
        run(() -> {
            EpollFile e = epoll(epfd);
            Object target = file(fd);
            if ((events & EPOLLEXCLUSIVE) != 0) {
                // do_epoll_ctl: not with EPOLL_CTL_MOD, nor with bits outside EPOLLEXCLUSIVE_OK_BITS; jnet lacks the rest
                if (op == EPOLL_CTL_MOD || (op == EPOLL_CTL_ADD && (events & ~EPOLLEXCLUSIVE_OK_BITS) != 0))
                    throw new SyscallException(EINVAL);
                if (op == EPOLL_CTL_ADD) throw new SyscallException(EOPNOTSUPP);
            }
            if (!(target instanceof SocketFile s)) throw new SyscallException(1); // EPERM: not pollable
            PollableSocket p = s.socket();
            if (p == null) {
                // a TCP socket that has neither listened nor connected: Linux reports it as EPOLLOUT | EPOLLHUP; jnet
                // has nothing to watch yet, a runner limit (the player reports it unsupported)
                throw new UnsupportedOperationException("epoll_ctl on a socket that has neither connected nor listened");
            }
            int interest = events & (EPOLLIN | EPOLLPRI | EPOLLOUT | EPOLLRDHUP | EPOLLET | EPOLLONESHOT);
            synchronized (e) {
                switch (op) {
                    case EPOLL_CTL_ADD -> {
                        if (e.data.containsKey(fd)) throw new SyscallException(EEXIST);
                        e.poller.register(p, interest, fd);
                        e.data.put(fd, data);
                    }
                    case EPOLL_CTL_MOD -> {
                        if (!e.data.containsKey(fd)) throw new SyscallException(ENOENT);
                        e.poller.modify(p, interest, fd);
                        e.data.put(fd, data);
                    }
                    case EPOLL_CTL_DEL -> {
                        if (e.data.remove(fd) == null) throw new SyscallException(ENOENT);
                        e.poller.unregister(p);
                    }
                    default -> throw new SyscallException(EINVAL);
                }
            }
        });
    }

    @Override
    public List<EpollEvent> epollWait(int epfd, int maxEvents, int timeoutMillis) throws SyscallException {
        return call(() -> {
            EpollFile e = epoll(epfd);
            if (maxEvents <= 0) throw new SyscallException(EINVAL);
            List<Poller.Ready> out = new ArrayList<>();
            e.poller.poll(out, maxEvents, timeoutMillis < 0 ? null : Duration.ofMillis(timeoutMillis));
            List<EpollEvent> events = new ArrayList<>(out.size());
            synchronized (e) {
                for (Poller.Ready r : out) events.add(new EpollEvent(r.events(), e.data.getOrDefault((Integer) r.attachment(), 0L)));
            }
            return events;
        });
    }

    @Override
    public void shutdown(int fd, int how) throws SyscallException {
        run(() -> {
            SocketFile s = sock(fd);
            if (how < SHUT_RD || how > SHUT_RDWR) throw new SyscallException(EINVAL);
            if (s.listener != null) { // inet_shutdown on TCP_LISTEN: the read side stops the listener
                if (how != SHUT_WR) s.listener.shutdownInput();
                else s.listener.shutdownOutput();
                return;
            }
            TcpSocket c = s.connection;
            if (c == null) throw new SyscallException(ENOTCONN);
            if (how != SHUT_WR) c.shutdownInput();
            if (how != SHUT_RD) c.shutdownOutput();
        });
    }

    @Override
    public void close(int fd) throws SyscallException {
        run(() -> {
            Object f;
            synchronized (this) {
                f = files.remove(fd);
            }
            if (f == null) throw new SyscallException(EBADF);
            closeQuietly(f);
        });
    }

    // ------------------------------------------------------------------ helpers

    /** The pollable socket of a descriptor, or null when there is none (POLLNVAL). */
    private PollableSocket pollable(int fd) {
        Object f;
        synchronized (this) {
            f = files.get(fd);
        }
        return f instanceof SocketFile s ? s.socket() : null;
    }

    private static SocketOption<?> option(int level, int name) throws SyscallException {
        if (level == SOL_SOCKET) {
            return switch (name) {
                case SO_REUSEADDR -> SocketOption.SO_REUSEADDR;
                case SO_SNDBUF -> SocketOption.SO_SNDBUF;
                case SO_RCVBUF -> SocketOption.SO_RCVBUF;
                case SO_KEEPALIVE -> SocketOption.SO_KEEPALIVE;
                case SO_OOBINLINE -> SocketOption.SO_OOBINLINE;
                case SO_LINGER -> SocketOption.SO_LINGER;
                case SO_RCVTIMEO -> SocketOption.SO_RCVTIMEO;
                case SO_SNDTIMEO -> SocketOption.SO_SNDTIMEO;
                case SO_BUSY_POLL -> SocketOption.SO_BUSY_POLL;
                case SO_ERROR -> SocketOption.SO_ERROR;
                case SO_RCVLOWAT -> SocketOption.SO_RCVLOWAT;
                default -> throw new SyscallException(ENOPROTOOPT);
            };
        }
        if (level == IPPROTO_TCP) {
            return switch (name) {
                case TCP_NODELAY -> SocketOption.TCP_NODELAY;
                case TCP_CORK -> SocketOption.TCP_CORK;
                case TCP_KEEPIDLE -> SocketOption.TCP_KEEPIDLE;
                case TCP_KEEPINTVL -> SocketOption.TCP_KEEPINTVL;
                case TCP_KEEPCNT -> SocketOption.TCP_KEEPCNT;
                case TCP_MAXSEG -> SocketOption.TCP_MAXSEG;
                case TCP_USER_TIMEOUT -> SocketOption.TCP_USER_TIMEOUT;
                case TCP_QUICKACK -> SocketOption.TCP_QUICKACK;
                case TCP_DEFER_ACCEPT -> SocketOption.TCP_DEFER_ACCEPT;
                default -> throw new SyscallException(ENOPROTOOPT);
            };
        }
        throw new SyscallException(ENOPROTOOPT);
    }

    /** The option's value from the bytes the kernel would read (an int, struct linger or struct timeval). */
    private static Object decode(SocketOption<?> option, byte[] v) throws SyscallException {
        ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
        if (option == SocketOption.SO_LINGER) {
            if (v.length < 8) throw new SyscallException(EINVAL);
            int onoff = b.getInt(0), linger = b.getInt(4);
            return onoff == 0 ? null : Duration.ofSeconds(Math.max(linger, 0));
        }
        if (option == SocketOption.SO_RCVTIMEO || option == SocketOption.SO_SNDTIMEO) {
            if (v.length < 16) throw new SyscallException(EINVAL);
            return Duration.ofSeconds(b.getLong(0)).plusNanos(b.getLong(8) * 1000);
        }
        if (v.length < 4) throw new SyscallException(EINVAL);
        int i = b.getInt(0);
        if (option.type() == Boolean.class) return i != 0;
        return i;
    }

    /** The bytes the kernel would write for the option's value. */
    private static byte[] encode(SocketOption<?> option, Object v) {
        ByteBuffer b;
        if (option == SocketOption.SO_LINGER) {
            Duration d = (Duration) v;
            b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            b.putInt(d == null || d.isNegative() ? 0 : 1).putInt(d == null || d.isNegative() ? 0 : (int) d.toSeconds());
        } else if (option == SocketOption.SO_RCVTIMEO || option == SocketOption.SO_SNDTIMEO) {
            Duration d = v == null ? Duration.ZERO : (Duration) v;
            b = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            b.putLong(d.toSeconds()).putLong(d.toNanosPart() / 1000);
        } else {
            b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            b.putInt(v instanceof Boolean bool ? (bool ? 1 : 0) : v == null ? 0 : (Integer) v);
        }
        return b.array();
    }

    /** EINVAL for a value jnet would refuse once the socket exists (Linux checks at once, do_tcp_setsockopt). */
    private static void checkPending(SocketOption<?> option, Object v) throws SyscallException {
        int max = option == SocketOption.TCP_KEEPIDLE || option == SocketOption.TCP_KEEPINTVL ? 32767
                : option == SocketOption.TCP_KEEPCNT ? 127 : 0;
        if (max != 0 && ((Integer) v < 1 || (Integer) v > max)) throw new SyscallException(EINVAL);
        if (option == SocketOption.TCP_USER_TIMEOUT && (Integer) v < 0) throw new SyscallException(EINVAL);
        if (option == SocketOption.TCP_MAXSEG && (Integer) v != 0 && ((Integer) v < 88 || (Integer) v > 32767))
            throw new SyscallException(EINVAL);
    }

    /** The value a new socket reports: the sysctl an option starts from, or false, 0, none. */
    private Object defaultOf(SocketOption<?> option) {
        var sysctl = ns.sysctl();
        if (option == SocketOption.TCP_KEEPIDLE) return sysctl.tcpKeepaliveTime.intValue();
        if (option == SocketOption.TCP_KEEPINTVL) return sysctl.tcpKeepaliveIntvl.intValue();
        if (option == SocketOption.TCP_KEEPCNT) return sysctl.tcpKeepaliveProbes.intValue();
        if (option == SocketOption.TCP_MAXSEG) return 536; // TCP_MSS_DEFAULT
        if (option == SocketOption.SO_RCVLOWAT) return 1; // sock_init_data
        if (option == SocketOption.TCP_QUICKACK) return true; // not in pingpong mode
        if (option.type() == Boolean.class) return false;
        if (option.type() == Integer.class) return 0;
        return null;
    }

    private static byte[] intBytes(int v, int len) {
        byte[] b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array();
        return Arrays.copyOf(b, Math.min(len, 4));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void setOption(PollableSocket p, SocketOption option, Object v) throws IOException {
        if (p instanceof TcpSocket c) c.setOption(option, v);
        else if (p instanceof TcpServerSocket l) l.setOption(option, v);
        else if (p instanceof UdpSocket u) u.setOption(option, v);
    }

    private static Object getOption(PollableSocket p, SocketOption<?> option) throws IOException {
        if (p instanceof TcpSocket c) return c.getOption(option);
        if (p instanceof TcpServerSocket l) return l.getOption(option);
        return ((UdpSocket) p).getOption(option);
    }

    /** Runs {@code body} with the socket non-blocking for this call only (MSG_DONTWAIT). */
    private static <T> T withMode(SocketFile s, PollableSocket p, boolean dontWait, IoCall<T> body) throws Exception {
        if (!dontWait || s.nonBlocking) return body.call();
        p.setBlocking(false);
        try {
            return body.call();
        } finally {
            p.setBlocking(!s.nonBlocking);
        }
    }

    @FunctionalInterface
    private interface IoCall<T> {
        T call() throws Exception;
    }

    @FunctionalInterface
    private interface IoRun {
        void run() throws Exception;
    }

    /** Makes one call: counts it, and turns jnet's errors into errnos. */
    private <T> T call(IoCall<T> body) throws SyscallException {
        Thread me = Thread.currentThread();
        inCall.add(me);
        callers.add(me);
        entered.incrementAndGet();
        try {
            return body.call();
        } catch (SyscallException | UnsupportedOperationException e) {
            throw e;
        } catch (ErrnoException e) {
            throw new SyscallException(e.errno().number());
        } catch (IllegalStateException e) {
            throw new SyscallException(EBADF); // a poller or socket closed under the call
        } catch (IOException e) {
            throw new SyscallException(5); // EIO: jnet reported an I/O error without an errno
        } catch (Exception e) {
            throw new IllegalStateException("jnet raised " + e + " in a system call", e);
        } finally {
            inCall.remove(me);
            returned.incrementAndGet();
        }
    }

    private void run(IoRun body) throws SyscallException {
        call(() -> {
            body.run();
            return null;
        });
    }
}
