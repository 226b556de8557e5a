package io.jnet.link.tap;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The few libc calls a TAP device needs, bound through the FFM API (no JNI). Every call takes a
 * call-state segment first (allocate with {@link #CAPTURE_LAYOUT}) into which the linker saves
 * {@code errno} right after the call, so the value is not clobbered by the JVM; read it with
 * {@link #errno(MemorySegment)}.
 *
 * <p>Constants are Linux x86_64/aarch64 values ({@code fcntl.h}, {@code poll.h},
 * {@code sys/eventfd.h}).
 */
final class Libc {

    static final int O_RDWR = 0x2;
    static final int O_NONBLOCK = 0x800;
    static final int O_CLOEXEC = 0x80000;

    static final int EFD_NONBLOCK = O_NONBLOCK;
    static final int EFD_CLOEXEC = O_CLOEXEC;

    static final short POLLIN = 0x1;
    static final short POLLERR = 0x8;
    static final short POLLHUP = 0x10;
    static final short POLLNVAL = 0x20;

    /** {@code struct pollfd { int fd; short events; short revents; }}: 8 bytes. */
    static final long POLLFD_SIZE = 8;

    static final int EINTR = 4;
    static final int EIO = 5;
    static final int EAGAIN = 11;

    static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final Linker.Option ERRNO_OPTION = Linker.Option.captureCallState("errno");

    /** {@code int open(const char *path, int flags, ... mode_t mode)}. */
    private static final MethodHandle OPEN = downcall("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    /** {@code int ioctl(int fd, unsigned long request, ... void *arg)}. */
    private static final MethodHandle IOCTL_PTR = downcall("ioctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), Linker.Option.firstVariadicArg(2));
    /** {@code int ioctl(int fd, unsigned long request, ... unsigned long arg)}. */
    private static final MethodHandle IOCTL_LONG = downcall("ioctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), Linker.Option.firstVariadicArg(2));
    /** {@code ssize_t read(int fd, void *buf, size_t count)}. */
    private static final MethodHandle READ = downcall("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    /** {@code ssize_t write(int fd, const void *buf, size_t count)}. */
    private static final MethodHandle WRITE = downcall("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    /** {@code int poll(struct pollfd *fds, nfds_t nfds, int timeout)}. */
    private static final MethodHandle POLL = downcall("poll",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    /** {@code int eventfd(unsigned int initval, int flags)}. */
    private static final MethodHandle EVENTFD = downcall("eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    /** {@code int close(int fd)}. */
    private static final MethodHandle CLOSE = downcall("close",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private Libc() {}

    @SuppressWarnings("restricted") // native access is enabled with --enable-native-access (see the launcher)
    private static MethodHandle downcall(String name, FunctionDescriptor fd, Linker.Option... extra) {
        MemorySegment symbol = LIBC.find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc symbol not found: " + name));
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        options[0] = ERRNO_OPTION;
        System.arraycopy(extra, 0, options, 1, extra.length);
        return LINKER.downcallHandle(symbol, fd, options);
    }

    /** The {@code errno} saved in {@code capture} by the last call made with it. */
    static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }

    static int open(MemorySegment capture, MemorySegment path, int flags, int mode) {
        try {
            return (int) OPEN.invokeExact(capture, path, flags, mode);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int ioctl(MemorySegment capture, int fd, long request, MemorySegment arg) {
        try {
            return (int) IOCTL_PTR.invokeExact(capture, fd, request, arg);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int ioctl(MemorySegment capture, int fd, long request, long arg) {
        try {
            return (int) IOCTL_LONG.invokeExact(capture, fd, request, arg);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long read(MemorySegment capture, int fd, MemorySegment buf, long count) {
        try {
            return (long) READ.invokeExact(capture, fd, buf, count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long write(MemorySegment capture, int fd, MemorySegment buf, long count) {
        try {
            return (long) WRITE.invokeExact(capture, fd, buf, count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int poll(MemorySegment capture, MemorySegment fds, long nfds, int timeoutMillis) {
        try {
            return (int) POLL.invokeExact(capture, fds, nfds, timeoutMillis);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int eventfd(MemorySegment capture, int initval, int flags) {
        try {
            return (int) EVENTFD.invokeExact(capture, initval, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int close(MemorySegment capture, int fd) {
        try {
            return (int) CLOSE.invokeExact(capture, fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException("native call failed", t);
    }
}
