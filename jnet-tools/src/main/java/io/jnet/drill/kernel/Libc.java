package io.jnet.drill.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The libc calls the kernel target makes, bound through the FFM API. Every call takes a call-state segment first
 * ({@link #newCapture}) into which the linker saves {@code errno} right after the call, before the JVM can clobber it;
 * read it with {@link #errno}. Return values are the C ones: -1 on failure.
 *
 * <p>Constants are Linux x86_64's ({@code fcntl.h}, {@code poll.h}, {@code sched.h}, {@code sys/eventfd.h},
 * {@code linux/if_tun.h}).
 */
final class Libc {

    static final int O_RDONLY = 0;
    static final int O_RDWR = 0x2;
    static final int O_NONBLOCK = 0x800;
    static final int O_CLOEXEC = 0x80000;
    static final int EFD_NONBLOCK = O_NONBLOCK;
    static final int EFD_CLOEXEC = O_CLOEXEC;
    static final int CLONE_NEWNET = 0x40000000;

    static final short POLLIN = 0x1;
    static final short POLLOUT = 0x4;
    static final short POLLERR = 0x8;
    static final short POLLHUP = 0x10;
    static final short POLLNVAL = 0x20;
    /** {@code struct pollfd { int fd; short events; short revents; }}: 8 bytes. */
    static final long POLLFD_SIZE = 8;

    static final int EINTR = 4;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int EINVAL = 22;
    static final int EINPROGRESS = 115;

    static final int SOL_SOCKET = 1;
    static final int SO_ERROR = 4;
    static final int SHUT_RDWR = 2;

    static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final Linker.Option ERRNO_OPTION = Linker.Option.captureCallState("errno");

    private static final MethodHandle SOCKET = downcall("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle BIND = downcall("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle LISTEN = downcall("listen", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle ACCEPT4 = downcall("accept4",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle CONNECT = downcall("connect", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle READ = downcall("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle WRITE = downcall("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle READV = downcall("readv", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle WRITEV = downcall("writev", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle SENDTO = downcall("sendto",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle RECVFROM = downcall("recvfrom",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle SENDMSG = downcall("sendmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle RECVMSG = downcall("recvmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle SETSOCKOPT = downcall("setsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle GETSOCKOPT = downcall("getsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    /** {@code int fcntl(int fd, int cmd, ... long arg)}. */
    private static final MethodHandle FCNTL = downcall("fcntl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), Linker.Option.firstVariadicArg(2));
    /** {@code int ioctl(int fd, unsigned long request, ... void *arg)}. */
    private static final MethodHandle IOCTL = downcall("ioctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), Linker.Option.firstVariadicArg(2));
    /** {@code int ioctl(int fd, unsigned long request, ... unsigned long arg)}. */
    private static final MethodHandle IOCTL_LONG = downcall("ioctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle POLL = downcall("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle EPOLL_CREATE1 = downcall("epoll_create1", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle EPOLL_CTL = downcall("epoll_ctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle EPOLL_WAIT = downcall("epoll_wait",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    private static final MethodHandle SHUTDOWN = downcall("shutdown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    /** {@code int open(const char *path, int flags, ... mode_t mode)}. */
    private static final MethodHandle OPEN = downcall("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle SETNS = downcall("setns", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle EVENTFD = downcall("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));

    private Libc() {}

    @SuppressWarnings("restricted") // native access is enabled with --enable-native-access (see the launcher)
    private static MethodHandle downcall(String name, FunctionDescriptor fd, Linker.Option... extra) {
        MemorySegment symbol = LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc symbol not found: " + name));
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        options[0] = ERRNO_OPTION;
        System.arraycopy(extra, 0, options, 1, extra.length);
        return LINKER.downcallHandle(symbol, fd, options);
    }

    /** A call-state segment for the calls below, owned by {@code arena}. */
    static MemorySegment newCapture(Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    /** The {@code errno} saved in {@code capture} by the last call made with it. */
    static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }

    static int socket(MemorySegment c, int domain, int type, int protocol) {
        try { return (int) SOCKET.invokeExact(c, domain, type, protocol); } catch (Throwable t) { throw rethrow(t); }
    }

    static int bind(MemorySegment c, int fd, MemorySegment addr, int len) {
        try { return (int) BIND.invokeExact(c, fd, addr, len); } catch (Throwable t) { throw rethrow(t); }
    }

    static int listen(MemorySegment c, int fd, int backlog) {
        try { return (int) LISTEN.invokeExact(c, fd, backlog); } catch (Throwable t) { throw rethrow(t); }
    }

    static int accept4(MemorySegment c, int fd, MemorySegment addr, MemorySegment lenp, int flags) {
        try { return (int) ACCEPT4.invokeExact(c, fd, addr, lenp, flags); } catch (Throwable t) { throw rethrow(t); }
    }

    static int connect(MemorySegment c, int fd, MemorySegment addr, int len) {
        try { return (int) CONNECT.invokeExact(c, fd, addr, len); } catch (Throwable t) { throw rethrow(t); }
    }

    static long read(MemorySegment c, int fd, MemorySegment buf, long count) {
        try { return (long) READ.invokeExact(c, fd, buf, count); } catch (Throwable t) { throw rethrow(t); }
    }

    static long write(MemorySegment c, int fd, MemorySegment buf, long count) {
        try { return (long) WRITE.invokeExact(c, fd, buf, count); } catch (Throwable t) { throw rethrow(t); }
    }

    static long readv(MemorySegment c, int fd, MemorySegment iov, int iovcnt) {
        try { return (long) READV.invokeExact(c, fd, iov, iovcnt); } catch (Throwable t) { throw rethrow(t); }
    }

    static long writev(MemorySegment c, int fd, MemorySegment iov, int iovcnt) {
        try { return (long) WRITEV.invokeExact(c, fd, iov, iovcnt); } catch (Throwable t) { throw rethrow(t); }
    }

    static long sendto(MemorySegment c, int fd, MemorySegment buf, long len, int flags, MemorySegment to, int tolen) {
        try { return (long) SENDTO.invokeExact(c, fd, buf, len, flags, to, tolen); } catch (Throwable t) { throw rethrow(t); }
    }

    static long recvfrom(MemorySegment c, int fd, MemorySegment buf, long len, int flags, MemorySegment from,
                         MemorySegment fromlen) {
        try { return (long) RECVFROM.invokeExact(c, fd, buf, len, flags, from, fromlen); } catch (Throwable t) { throw rethrow(t); }
    }

    static long sendmsg(MemorySegment c, int fd, MemorySegment msg, int flags) {
        try { return (long) SENDMSG.invokeExact(c, fd, msg, flags); } catch (Throwable t) { throw rethrow(t); }
    }

    static long recvmsg(MemorySegment c, int fd, MemorySegment msg, int flags) {
        try { return (long) RECVMSG.invokeExact(c, fd, msg, flags); } catch (Throwable t) { throw rethrow(t); }
    }

    static int setsockopt(MemorySegment c, int fd, int level, int name, MemorySegment val, int len) {
        try { return (int) SETSOCKOPT.invokeExact(c, fd, level, name, val, len); } catch (Throwable t) { throw rethrow(t); }
    }

    static int getsockopt(MemorySegment c, int fd, int level, int name, MemorySegment val, MemorySegment lenp) {
        try { return (int) GETSOCKOPT.invokeExact(c, fd, level, name, val, lenp); } catch (Throwable t) { throw rethrow(t); }
    }

    static int fcntl(MemorySegment c, int fd, int cmd, long arg) {
        try { return (int) FCNTL.invokeExact(c, fd, cmd, arg); } catch (Throwable t) { throw rethrow(t); }
    }

    static int ioctl(MemorySegment c, int fd, long request, MemorySegment arg) {
        try { return (int) IOCTL.invokeExact(c, fd, request, arg); } catch (Throwable t) { throw rethrow(t); }
    }

    static int ioctl(MemorySegment c, int fd, long request, long arg) {
        try { return (int) IOCTL_LONG.invokeExact(c, fd, request, arg); } catch (Throwable t) { throw rethrow(t); }
    }

    static int poll(MemorySegment c, MemorySegment fds, long nfds, int timeoutMillis) {
        try { return (int) POLL.invokeExact(c, fds, nfds, timeoutMillis); } catch (Throwable t) { throw rethrow(t); }
    }

    static int epollCreate1(MemorySegment c, int flags) {
        try { return (int) EPOLL_CREATE1.invokeExact(c, flags); } catch (Throwable t) { throw rethrow(t); }
    }

    static int epollCtl(MemorySegment c, int epfd, int op, int fd, MemorySegment event) {
        try { return (int) EPOLL_CTL.invokeExact(c, epfd, op, fd, event); } catch (Throwable t) { throw rethrow(t); }
    }

    static int epollWait(MemorySegment c, int epfd, MemorySegment events, int maxEvents, int timeoutMillis) {
        try { return (int) EPOLL_WAIT.invokeExact(c, epfd, events, maxEvents, timeoutMillis); } catch (Throwable t) { throw rethrow(t); }
    }

    static int shutdown(MemorySegment c, int fd, int how) {
        try { return (int) SHUTDOWN.invokeExact(c, fd, how); } catch (Throwable t) { throw rethrow(t); }
    }

    private static final MethodHandle GETTID = LINKER.downcallHandle(LIBC.find("gettid")
            .orElseThrow(() -> new UnsatisfiedLinkError("libc symbol not found: gettid")), FunctionDescriptor.of(JAVA_INT));

    /** gettid(2): the calling thread's kernel thread id. */
    static int gettid() {
        try { return (int) GETTID.invokeExact(); } catch (Throwable t) { throw rethrow(t); }
    }

    static int close(MemorySegment c, int fd) {
        try { return (int) CLOSE.invokeExact(c, fd); } catch (Throwable t) { throw rethrow(t); }
    }

    static int open(MemorySegment c, MemorySegment path, int flags, int mode) {
        try { return (int) OPEN.invokeExact(c, path, flags, mode); } catch (Throwable t) { throw rethrow(t); }
    }

    static int setns(MemorySegment c, int fd, int nstype) {
        try { return (int) SETNS.invokeExact(c, fd, nstype); } catch (Throwable t) { throw rethrow(t); }
    }

    static int eventfd(MemorySegment c, int initval, int flags) {
        try { return (int) EVENTFD.invokeExact(c, initval, flags); } catch (Throwable t) { throw rethrow(t); }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException("native call failed", t);
    }
}
