package io.jnet.buffer;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.NonReadableChannelException;

/**
 * The file mapping behind {@link io.jnet.socket.TcpSocket#transferFrom} (Linux sendfile(2)): one read-only
 * window of a file, mapped with {@link FileChannel#map(FileChannel.MapMode, long, long, Arena)} and kept for
 * the next call, so that sending a file in many calls maps it once per window and allocates nothing per
 * call. A window is at most {@link #WINDOW} bytes from an offset aligned to {@link #ALIGN} (by default) and never
 * extends past the end of the file as it was when mapped; a call on another file or outside the window
 * lets it go and maps the one it needs.
 *
 * <p>The mapping is a {@link PayloadRegion}: send-queue segments and the frames built from them carry its
 * bytes by reference, each holding a reference on it. The window holds one more; {@link #release()} drops
 * it, and the mapping goes (the arena is closed) when the last segment or frame pointing into it is freed,
 * not when the garbage collector gets to it.
 *
 * <p>Not thread-safe: a socket hands a window to one call at a time, under its lock.
 */
public final class SendFileWindow {

    /** Largest window mapped at once, in bytes (address space only: pages are read as they are sent). */
    static final long WINDOW = 64L << 20;
    /** Window start offsets are multiples of this many bytes (a multiple of every page size in use). */
    static final long ALIGN = 2L << 20;

    private final long window;
    private final long align;
    private final Runnable onFault;
    private FileChannel file;
    private long start;
    private long length;
    private PayloadRegion region;

    /**
     * Windows of {@link #WINDOW} bytes aligned to {@link #ALIGN}.
     *
     * @param onFault counts a read of the mapping that faulted because the file shrank ({@link PayloadRegion})
     */
    public SendFileWindow(Runnable onFault) {
        this(WINDOW, ALIGN, onFault);
    }

    /** Windows of {@code window} bytes from offsets that are multiples of {@code align} (tests use small ones). */
    public SendFileWindow(long window, long align, Runnable onFault) {
        if (align <= 0 || window < align || window > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("window " + window + ", align " + align);
        }
        this.window = window;
        this.align = align;
        this.onFault = onFault;
    }

    /**
     * Maps, if need be, the window that holds file offset {@code position} of {@code src}, and returns how many
     * bytes of the {@code count} from there it holds (at least 1). {@link #region()} and {@link #offset} then
     * locate them in the mapping.
     *
     * @param fileSize the file's size as the caller just read it (needed only when {@link #held} is less than
     *                 {@code count}); {@code position} must lie below it and {@code count} must be positive
     * @throws ErrnoException EBADF when {@code src} is closed or not open for reading, EIO when the mapping
     *                        fails (address space exhausted, a file system that cannot map)
     */
    public int select(FileChannel src, long position, long count, long fileSize) throws ErrnoException {
        if (src != file || position < start || position >= start + length) remap(src, position, fileSize);
        return (int) Math.min(length - (position - start), count);
    }

    /**
     * Bytes of {@code src} the current window holds from file offset {@code position} on (to the window's
     * end), 0 when it holds none. The window never extends past the end of the file as it was when mapped.
     */
    public long held(FileChannel src, long position) {
        return src == file && position >= start && position < start + length ? start + length - position : 0;
    }

    /** The mapping {@link #select} chose, as a region to refer to. */
    public PayloadRegion region() { return region; }

    /** Offset in {@link #region()} of file offset {@code position} (within the window {@link #select} chose). */
    public long offset(long position) { return position - start; }

    private void remap(FileChannel src, long position, long fileSize) throws ErrnoException {
        release();
        long s = position - position % align;
        long len = Math.min(window, fileSize - s);
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

    /**
     * Lets the window go: the next {@link #select} maps anew, and the mapping goes as soon as no segment
     * refers to it any more (at once when none does). Idempotent.
     */
    public void release() {
        if (region == null) return;
        PayloadRegion r = region;
        region = null;
        file = null;
        length = 0;
        r.release();
    }
}
