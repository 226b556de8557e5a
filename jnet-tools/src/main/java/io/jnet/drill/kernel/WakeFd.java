package io.jnet.drill.kernel;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An {@code eventfd(2)} that becomes readable, for good, when {@link #signal} is called: added to the descriptors a
 * {@code poll(2)} waits on, it ends the wait when the target closes. Thread-safe.
 */
final class WakeFd implements AutoCloseable {

    private final int fd;
    private boolean closed;

    private WakeFd(int fd) {
        this.fd = fd;
    }

    /** @throws IOException when eventfd(2) fails */
    static WakeFd open() throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment c = Libc.newCapture(a);
            int fd = Libc.eventfd(c, 0, Libc.EFD_CLOEXEC | Libc.EFD_NONBLOCK);
            if (fd < 0) throw new IOException("eventfd failed: " + new io.jnet.drill.target.SyscallException(Libc.errno(c)).getMessage());
            return new WakeFd(fd);
        }
    }

    int fd() {
        return fd;
    }

    /** Makes the descriptor readable (adds 1 to its counter). */
    synchronized void signal() {
        if (closed) return;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment one = a.allocate(JAVA_LONG);
            one.set(JAVA_LONG, 0, 1L);
            Libc.write(Libc.newCapture(a), fd, one, 8);
        }
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        try (Arena a = Arena.ofConfined()) {
            Libc.close(Libc.newCapture(a), fd);
        }
    }
}
