package io.jnet.drill.kernel;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jnet.drill.kernel.Descriptors.Kind;
import io.jnet.drill.target.SyscallException;
import io.jnet.drill.target.Syscalls;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The socket system calls of this machine's Linux kernel, made through the FFM API ({@code java.lang.foreign}) with
 * {@code errno} captured right after each call. A call that fails throws {@link SyscallException} with that errno;
 * a call interrupted by a signal ({@code EINTR}) is restarted (a blocking connect waits for its outcome instead), as a
 * process that handles no signals would see it.
 *
 * <p><b>Descriptors.</b> Only descriptors opened here ({@code socket}, {@code accept}, {@code epoll_create},
 * {@code fcntl(F_DUPFD)}) may be used: any other, including the JVM's own, is refused with {@code EBADF} (in
 * {@code poll} it is reported as {@code POLLNVAL}) without reaching the kernel.
 *
 * <p><b>Threads.</b> Any number of threads may call at once. {@code socket} runs on the target's namespace thread
 * (a socket belongs to the namespace of the thread that creates it) and waits for it; every other call runs on the
 * caller's thread, since a descriptor works from any thread once it exists. Blocking calls block the caller.
 *
 * <p><b>Closing.</b> {@link #closeAll} refuses new calls (EBADF), wakes every blocked one: {@code shutdown(SHUT_RDWR)}
 * on each socket ends blocking reads, writes, accepts and connects, and an internal eventfd that every {@code poll} and
 * {@code epoll_wait} also waits on ends those (they then fail with EBADF). Once no call is in progress (or after
 * {@value #CLOSE_WAIT_MS} ms) it closes every descriptor still open.
 */
public final class KernelSyscalls implements Syscalls {

    /** How long {@link #closeAll} waits for the calls in progress to return, ms. */
    static final long CLOSE_WAIT_MS = 2000;

    private static final int F_DUPFD = 0, F_GETFD = 1, F_SETFD = 2, F_GETFL = 3, F_SETFL = 4, F_SETOWN = 8,
            F_GETOWN = 9, F_SETSIG = 10, F_GETSIG = 11, F_DUPFD_CLOEXEC = 1030;
    /** Room for what an ioctl writes: more than any socket ioctl's int, so a request with a larger struct is harmless. */
    private static final int IOCTL_BUFFER = 256;
    /** Longest epoll_wait(2) slice after a spurious readiness of the epoll descriptor, ms (bounds the wake-up delay at close). */
    private static final int SPURIOUS_SLICE_MS = 50;

    private final Netns netns;
    private final Descriptors fds = new Descriptors();
    private final CallGate gate = new CallGate();
    private final WakeFd wake;

    /**
     * System calls whose sockets are created through {@code netns}.
     *
     * @throws IOException when the internal eventfd cannot be made
     */
    KernelSyscalls(Netns netns) throws IOException {
        this.netns = netns;
        this.wake = WakeFd.open();
    }

    /** The body of a call: gets an arena for its native memory and a call-state segment for errno. */
    @FunctionalInterface
    private interface Body<T> {
        T run(Arena arena, MemorySegment capture) throws SyscallException;
    }

    /** Kernel thread ids of the Java threads that made calls here (for {@link #threadId}). */
    private final java.util.Map<Thread, Integer> tids = new java.util.concurrent.ConcurrentHashMap<>();

    /** The kernel thread id of {@code t} if it has made a call here, else -1 (for telling a blocked call by /proc). */
    int threadId(Thread t) {
        Integer tid = tids.get(t);
        return tid == null ? -1 : tid;
    }

    private <T> T syscall(Body<T> body) throws SyscallException {
        tids.computeIfAbsent(Thread.currentThread(), t -> Libc.gettid());
        gate.enter();
        try (Arena arena = Arena.ofConfined()) {
            return body.run(arena, Libc.newCapture(arena));
        } finally {
            gate.exit();
        }
    }

    /** Runs {@code call} until it does not fail with EINTR (or the gate closes); its non-negative result. */
    private long restarting(MemorySegment capture, LongSupplier call) throws SyscallException {
        while (true) {
            long r = call.getAsLong();
            if (r >= 0) return r;
            int errno = Libc.errno(capture);
            if (errno != Libc.EINTR || gate.isClosed()) throw new SyscallException(errno);
        }
    }

    private static long check(long result, MemorySegment capture) throws SyscallException {
        if (result < 0) throw new SyscallException(Libc.errno(capture));
        return result;
    }

    private void requireOpen(int fd) throws SyscallException {
        if (!fds.contains(fd)) throw new SyscallException(Libc.EBADF);
    }

    private static MemorySegment bytes(Arena arena, byte[] data) {
        MemorySegment s = arena.allocate(Math.max(1, data.length), 8);
        MemorySegment.copy(data, 0, s, JAVA_BYTE, 0, data.length);
        return s;
    }

    private static byte[] firstBytes(MemorySegment s, long n) {
        byte[] out = new byte[(int) Math.max(0, Math.min(n, s.byteSize()))];
        MemorySegment.copy(s, JAVA_BYTE, 0, out, 0, out.length);
        return out;
    }

    private static void checkLength(int len) throws SyscallException {
        if (len < 0) throw new SyscallException(Libc.EINVAL);
    }

    @Override
    public int socket(int domain, int type, int protocol) throws SyscallException {
        gate.enter();
        try {
            int fd = netns.call(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment c = Libc.newCapture(arena);
                    return (int) check(Libc.socket(c, domain, type, protocol), c);
                }
            });
            fds.add(fd, Kind.SOCKET);
            return fd;
        } finally {
            gate.exit();
        }
    }

    @Override
    public void bind(int fd, InetSocketAddress addr) throws SyscallException {
        requireOpen(fd);
        syscall((a, c) -> {
            MemorySegment sa = SockAddrs.toNative(addr, a);
            return check(Libc.bind(c, fd, sa, (int) sa.byteSize()), c);
        });
    }

    @Override
    public void listen(int fd, int backlog) throws SyscallException {
        requireOpen(fd);
        syscall((a, c) -> check(Libc.listen(c, fd, backlog), c));
    }

    @Override
    public Accepted accept(int fd, int flags) throws SyscallException {
        requireOpen(fd);
        return syscall((a, c) -> {
            MemorySegment addr = a.allocate(SockAddrs.STORAGE_SIZE, 8);
            MemorySegment len = a.allocate(JAVA_INT);
            int newFd = (int) restarting(c, () -> {
                len.set(JAVA_INT, 0, SockAddrs.STORAGE_SIZE);
                return Libc.accept4(c, fd, addr, len, flags);
            });
            fds.add(newFd, Kind.SOCKET);
            return new Accepted(newFd, SockAddrs.fromNative(addr, len.get(JAVA_INT, 0)));
        });
    }

    @Override
    public void connect(int fd, InetSocketAddress addr) throws SyscallException {
        requireOpen(fd);
        syscall((a, c) -> {
            MemorySegment sa = SockAddrs.toNative(addr, a);
            if (Libc.connect(c, fd, sa, (int) sa.byteSize()) == 0) return null;
            int errno = Libc.errno(c);
            if (errno != Libc.EINTR || gate.isClosed()) throw new SyscallException(errno);
            awaitConnected(a, c, fd); // a blocking connect goes on in the kernel after EINTR: wait for its outcome
            return null;
        });
    }

    private void awaitConnected(Arena a, MemorySegment c, int fd) throws SyscallException {
        MemorySegment pfd = a.allocate(2 * Libc.POLLFD_SIZE, 8);
        pfd.set(JAVA_INT, 0, fd);
        pfd.set(JAVA_SHORT, 4, Libc.POLLOUT);
        pfd.set(JAVA_INT, 8, wake.fd());
        pfd.set(JAVA_SHORT, 12, Libc.POLLIN);
        restarting(c, () -> Libc.poll(c, pfd, 2, -1));
        if (pfd.get(JAVA_SHORT, 14) != 0) throw new SyscallException(Libc.EBADF);
        MemorySegment err = a.allocate(JAVA_INT);
        MemorySegment len = a.allocate(JAVA_INT);
        len.set(JAVA_INT, 0, 4);
        check(Libc.getsockopt(c, fd, Libc.SOL_SOCKET, Libc.SO_ERROR, err, len), c);
        int soError = err.get(JAVA_INT, 0);
        if (soError != 0) throw new SyscallException(soError);
    }

    @Override
    public byte[] read(int fd, int len) throws SyscallException {
        requireOpen(fd);
        checkLength(len);
        return syscall((a, c) -> {
            MemorySegment buf = a.allocate(Math.max(1, len), 8);
            long n = restarting(c, () -> Libc.read(c, fd, buf, len));
            return firstBytes(buf, n);
        });
    }

    @Override
    public int write(int fd, byte[] data) throws SyscallException {
        requireOpen(fd);
        return syscall((a, c) -> {
            MemorySegment buf = bytes(a, data);
            return (int) restarting(c, () -> Libc.write(c, fd, buf, data.length));
        });
    }

    @Override
    public byte[] readv(int fd, int[] iovLengths) throws SyscallException {
        requireOpen(fd);
        for (int len : iovLengths) checkLength(len);
        return syscall((a, c) -> {
            Iovecs v = Iovecs.forReading(a, iovLengths);
            long n = restarting(c, () -> Libc.readv(c, fd, v.iov, v.count));
            return v.firstBytes(n);
        });
    }

    @Override
    public int writev(int fd, byte[][] iov) throws SyscallException {
        requireOpen(fd);
        return syscall((a, c) -> {
            Iovecs v = Iovecs.forWriting(a, iov);
            return (int) restarting(c, () -> Libc.writev(c, fd, v.iov, v.count));
        });
    }

    @Override
    public int sendto(int fd, byte[] data, int flags, InetSocketAddress to) throws SyscallException {
        requireOpen(fd);
        return syscall((a, c) -> {
            MemorySegment buf = bytes(a, data);
            MemorySegment sa = to == null ? MemorySegment.NULL : SockAddrs.toNative(to, a);
            int salen = to == null ? 0 : (int) sa.byteSize();
            return (int) restarting(c, () -> Libc.sendto(c, fd, buf, data.length, flags, sa, salen));
        });
    }

    /**
     * {@inheritDoc}
     *
     * <p>With {@code MSG_TRUNC} the kernel may report more bytes than {@code len} (a longer datagram, or bytes a TCP
     * socket discarded): the data returned is then what fits in {@code len}.
     */
    @Override
    public Received recvfrom(int fd, int len, int flags) throws SyscallException {
        requireOpen(fd);
        checkLength(len);
        return syscall((a, c) -> {
            MemorySegment buf = a.allocate(Math.max(1, len), 8);
            MemorySegment from = a.allocate(SockAddrs.STORAGE_SIZE, 8);
            MemorySegment fromLen = a.allocate(JAVA_INT);
            long n = restarting(c, () -> {
                fromLen.set(JAVA_INT, 0, SockAddrs.STORAGE_SIZE);
                return Libc.recvfrom(c, fd, buf, len, flags, from, fromLen);
            });
            return new Received(firstBytes(buf, Math.min(n, len)), SockAddrs.fromNative(from, fromLen.get(JAVA_INT, 0)), 0);
        });
    }

    @Override
    public int sendmsg(int fd, byte[][] iov, int flags, InetSocketAddress to) throws SyscallException {
        requireOpen(fd);
        return syscall((a, c) -> {
            Iovecs v = Iovecs.forWriting(a, iov);
            MemorySegment sa = to == null ? MemorySegment.NULL : SockAddrs.toNative(to, a);
            MemorySegment msg = v.msghdr(a, sa, to == null ? 0 : (int) sa.byteSize());
            return (int) restarting(c, () -> Libc.sendmsg(c, fd, msg, flags));
        });
    }

    @Override
    public Received recvmsg(int fd, int[] iovLengths, int flags) throws SyscallException {
        requireOpen(fd);
        for (int len : iovLengths) checkLength(len);
        return syscall((a, c) -> {
            Iovecs v = Iovecs.forReading(a, iovLengths);
            MemorySegment name = a.allocate(SockAddrs.STORAGE_SIZE, 8);
            MemorySegment msg = v.msghdr(a, name, SockAddrs.STORAGE_SIZE);
            long n = restarting(c, () -> {
                msg.set(JAVA_INT, Iovecs.MSG_NAMELEN_OFFSET, SockAddrs.STORAGE_SIZE);
                return Libc.recvmsg(c, fd, msg, flags);
            });
            InetSocketAddress from = SockAddrs.fromNative(name, msg.get(JAVA_INT, Iovecs.MSG_NAMELEN_OFFSET));
            return new Received(v.firstBytes(n), from, msg.get(JAVA_INT, Iovecs.MSG_FLAGS_OFFSET));
        });
    }

    @Override
    public void setsockopt(int fd, int level, int name, byte[] value) throws SyscallException {
        requireOpen(fd);
        syscall((a, c) -> {
            byte[] v = value == null ? new byte[0] : value;
            return check(Libc.setsockopt(c, fd, level, name, bytes(a, v), v.length), c);
        });
    }

    @Override
    public byte[] getsockopt(int fd, int level, int name, int len) throws SyscallException {
        requireOpen(fd);
        checkLength(len);
        return syscall((a, c) -> {
            MemorySegment buf = a.allocate(Math.max(1, len), 8);
            MemorySegment optlen = a.allocate(JAVA_INT);
            optlen.set(JAVA_INT, 0, len);
            check(Libc.getsockopt(c, fd, level, name, buf, optlen), c);
            return firstBytes(buf, Math.min(len, optlen.get(JAVA_INT, 0)));
        });
    }

    /**
     * {@inheritDoc}
     *
     * <p>Only the commands whose argument is an integer are passed on (F_DUPFD, F_DUPFD_CLOEXEC, F_GETFD, F_SETFD,
     * F_GETFL, F_SETFL, F_GETOWN, F_SETOWN, F_GETSIG, F_SETSIG); others fail with EINVAL here, as Linux fails an
     * unknown command.
     */
    @Override
    public int fcntl(int fd, int cmd, int arg) throws SyscallException {
        requireOpen(fd);
        switch (cmd) {
            case F_DUPFD, F_DUPFD_CLOEXEC, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_SETOWN, F_GETOWN, F_SETSIG, F_GETSIG -> { }
            default -> throw new SyscallException(Libc.EINVAL);
        }
        return syscall((a, c) -> {
            int r = (int) check(Libc.fcntl(c, fd, cmd, arg), c);
            if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) {
                Kind kind = fds.kind(fd);
                fds.add(r, kind == null ? Kind.SOCKET : kind);
            }
            return r;
        });
    }

    @Override
    public int ioctlInt(int fd, long request) throws SyscallException {
        requireOpen(fd);
        return syscall((a, c) -> {
            MemorySegment out = a.allocate(IOCTL_BUFFER, 8);
            check(Libc.ioctl(c, fd, request, out), c);
            return out.get(JAVA_INT, 0);
        });
    }

    /**
     * {@inheritDoc}
     *
     * <p>Descriptors not opened here get {@code POLLNVAL}; negative ones are ignored, as the kernel ignores them.
     *
     * @throws SyscallException EBADF when the target closes during the wait
     */
    @Override
    public int poll(PollFd[] fds, int timeoutMillis) throws SyscallException {
        return syscall((a, c) -> {
            int n = fds.length;
            MemorySegment p = a.allocate((n + 1) * Libc.POLLFD_SIZE, 8);
            for (int i = 0; i < n; i++) {
                boolean ours = fds[i].fd < 0 || this.fds.contains(fds[i].fd);
                p.set(JAVA_INT, i * Libc.POLLFD_SIZE, ours ? fds[i].fd : -1);
                p.set(JAVA_SHORT, i * Libc.POLLFD_SIZE + 4, (short) fds[i].events);
            }
            p.set(JAVA_INT, n * Libc.POLLFD_SIZE, wake.fd());
            p.set(JAVA_SHORT, n * Libc.POLLFD_SIZE + 4, Libc.POLLIN);
            Deadline deadline = new Deadline(timeoutMillis);
            restarting(c, () -> Libc.poll(c, p, n + 1, deadline.remainingMillis()));
            int ready = 0;
            for (int i = 0; i < n; i++) {
                boolean foreign = fds[i].fd >= 0 && !this.fds.contains(fds[i].fd);
                fds[i].revents = foreign ? Libc.POLLNVAL : p.get(JAVA_SHORT, i * Libc.POLLFD_SIZE + 6) & 0xFFFF;
                if (fds[i].revents != 0) ready++;
            }
            if (ready == 0 && p.get(JAVA_SHORT, n * Libc.POLLFD_SIZE + 6) != 0) throw new SyscallException(Libc.EBADF);
            return ready;
        });
    }

    @Override
    public int epollCreate(int flags) throws SyscallException {
        return syscall((a, c) -> {
            int fd = (int) check(Libc.epollCreate1(c, flags), c);
            fds.add(fd, Kind.EPOLL);
            return fd;
        });
    }

    @Override
    public void epollCtl(int epfd, int op, int fd, int events, long data) throws SyscallException {
        requireOpen(epfd);
        requireOpen(fd);
        syscall((a, c) -> {
            MemorySegment ev = EpollEvents.allocate(a, 1);
            EpollEvents.set(ev, 0, events, data);
            return check(Libc.epollCtl(c, epfd, op, fd, ev), c);
        });
    }

    /**
     * {@inheritDoc}
     *
     * <p>Waits with {@code poll(2)} on the epoll descriptor (readable when events are ready) and the internal wake
     * descriptor, then collects the events with a non-waiting {@code epoll_wait(2)}, until events come or the
     * timeout passes; what is reported is epoll_wait's own result.
     *
     * @throws SyscallException EBADF when the target closes during the wait
     */
    @Override
    public List<EpollEvent> epollWait(int epfd, int maxEvents, int timeoutMillis) throws SyscallException {
        requireOpen(epfd);
        return syscall((a, c) -> {
            MemorySegment events = EpollEvents.allocate(a, maxEvents);
            if (maxEvents <= 0 || fds.kind(epfd) != Kind.EPOLL) {
                check(Libc.epollWait(c, epfd, events, maxEvents, 0), c); // the kernel's EINVAL
                return List.of();
            }
            MemorySegment p = a.allocate(2 * Libc.POLLFD_SIZE, 8);
            p.set(JAVA_INT, 0, epfd);
            p.set(JAVA_SHORT, 4, Libc.POLLIN);
            p.set(JAVA_INT, 8, wake.fd());
            p.set(JAVA_SHORT, 12, Libc.POLLIN);
            Deadline deadline = new Deadline(timeoutMillis);
            boolean spurious = false;
            while (true) {
                int n;
                if (!spurious) {
                    restarting(c, () -> Libc.poll(c, p, 2, deadline.remainingMillis()));
                    n = Libc.epollWait(c, epfd, events, maxEvents, 0);
                } else {
                    // poll saw the epoll descriptor ready but epoll_wait found nothing to report: wait in epoll_wait
                    // itself, a slice at a time, rather than spin on poll
                    int slice = deadline.remainingMillis();
                    n = Libc.epollWait(c, epfd, events, maxEvents, slice < 0 ? SPURIOUS_SLICE_MS : Math.min(slice, SPURIOUS_SLICE_MS));
                }
                spurious = n == 0 && p.get(JAVA_SHORT, 6) != 0;
                if (n < 0 && Libc.errno(c) != Libc.EINTR) throw new SyscallException(Libc.errno(c));
                if (n > 0) {
                    List<EpollEvent> out = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) out.add(new EpollEvent(EpollEvents.events(events, i), EpollEvents.data(events, i)));
                    return out;
                }
                if (p.get(JAVA_SHORT, 14) != 0) throw new SyscallException(Libc.EBADF);
                if (deadline.expired()) return List.of();
            }
        });
    }

    @Override
    public void shutdown(int fd, int how) throws SyscallException {
        requireOpen(fd);
        syscall((a, c) -> check(Libc.shutdown(c, fd, how), c));
    }

    @Override
    public void close(int fd) throws SyscallException {
        if (!fds.remove(fd)) throw new SyscallException(Libc.EBADF);
        syscall((a, c) -> check(Libc.close(c, fd), c)); // Linux releases the number even when close reports an error
    }

    /** The descriptors opened here and not yet closed, with their kinds. */
    Map<Integer, Kind> openDescriptors() {
        return fds.snapshot();
    }

    /**
     * Ends every call in progress and closes every descriptor opened here (see the class comment). Later calls fail
     * with EBADF. Idempotent.
     *
     * @return true when every call in progress returned in time (false: some thread is still inside a system call)
     */
    boolean closeAll() {
        boolean drained = gate.closeAndAwait(this::wakeBlockedCalls, CLOSE_WAIT_MS);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment c = Libc.newCapture(a);
            for (int fd : fds.snapshot().keySet()) {
                if (fds.remove(fd)) Libc.close(c, fd);
            }
        }
        if (drained) wake.close(); // else a thread still polls on it: leave it open rather than have its number reused
        return drained;
    }

    private void wakeBlockedCalls() {
        wake.signal();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment c = Libc.newCapture(a);
            fds.snapshot().forEach((fd, kind) -> {
                if (kind == Kind.SOCKET) Libc.shutdown(c, fd, Libc.SHUT_RDWR);
            });
        }
    }

    /** A poll timeout counted down across restarts: -1 (forever) stays -1. */
    private static final class Deadline {
        private final long end;
        private final boolean forever;

        Deadline(int timeoutMillis) {
            this.forever = timeoutMillis < 0;
            this.end = System.nanoTime() + Math.max(0, timeoutMillis) * 1_000_000L;
        }

        int remainingMillis() {
            if (forever) return -1;
            long left = end - System.nanoTime();
            return left <= 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, (left + 999_999) / 1_000_000L);
        }

        boolean expired() {
            return !forever && System.nanoTime() - end >= 0;
        }
    }
}
