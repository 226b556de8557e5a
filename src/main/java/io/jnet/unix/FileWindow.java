package io.jnet.unix;

import io.jnet.buffer.PayloadRegion;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.NonReadableChannelException;

/**
 * The file mapping behind {@link io.jnet.socket.LocalSocket#transferFrom}: one read-only window of a file, at
 * most {@link #WINDOW} bytes from an offset aligned to {@link #ALIGN}, never past the end of the file as it was
 * when mapped, kept for the next call so that a file sent in many calls is mapped once per window (TCP's
 * sendfile keeps one the same way). The stream copies out of it, so unlike TCP's, nothing refers to the
 * mapping after a call: {@link #release()} unmaps at once.
 *
 * <p>Not thread-safe: a socket lends its window to one call at a time, under its lock.
 */
final class FileWindow {
    static final long WINDOW = 64L << 20;
    static final long ALIGN = 2L << 20;

    private final Runnable onFault;
    private FileChannel file;
    private long start;
    private long length;
    private PayloadRegion region;

    /** @param onFault called when a read of the mapping faulted because the file shrank ({@link PayloadRegion}) */
    FileWindow(Runnable onFault) {
        this.onFault = onFault;
    }

    /** Bytes of {@code src} the window holds from {@code position} on, 0 when none. */
    long held(FileChannel src, long position) {
        return src == file && position >= start && position < start + length ? start + length - position : 0;
    }

    /**
     * Maps, if need be, the window holding {@code position} (below {@code fileSize}, which the caller read when
     * {@link #held} was short), and returns how many of the {@code count} bytes from there it holds (at least 1).
     *
     * @throws ErrnoException EBADF when {@code src} is closed or not readable, EIO when it cannot be mapped
     */
    int select(FileChannel src, long position, long count, long fileSize) throws ErrnoException {
        if (held(src, position) == 0) remap(src, position, fileSize);
        return (int) Math.min(start + length - position, count);
    }

    PayloadRegion region() { return region; }

    /** Offset in {@link #region()} of file offset {@code position}. */
    long offset(long position) { return position - start; }

    private void remap(FileChannel src, long position, long fileSize) throws ErrnoException {
        release();
        long s = position - position % ALIGN;
        long len = Math.min(WINDOW, fileSize - s);
        Arena a = Arena.ofShared();
        ByteBuffer v;
        try {
            v = src.map(FileChannel.MapMode.READ_ONLY, s, len, a).asByteBuffer();
        } catch (ClosedChannelException | NonReadableChannelException e) {
            a.close();
            throw new ErrnoException(Errno.EBADF, "sendfile: file " + (e instanceof NonReadableChannelException
                    ? "not open for reading" : "closed"));
        } catch (IOException | RuntimeException e) {
            a.close();
            ErrnoException x = new ErrnoException(Errno.EIO, "sendfile: cannot map the file: " + e.getMessage());
            x.initCause(e);
            throw x;
        }
        region = new PayloadRegion(a, v, onFault);
        file = src;
        start = s;
        length = len;
    }

    /** Unmaps; the next {@link #select} maps anew. Idempotent. */
    void release() {
        if (region == null) return;
        PayloadRegion r = region;
        region = null;
        file = null;
        length = 0;
        r.release();
    }
}
