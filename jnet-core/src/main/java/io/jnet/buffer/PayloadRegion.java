package io.jnet.buffer;

import java.lang.foreign.Arena;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Read-only memory that packet buffers carry their payload in by reference instead of in their own array
 * (Linux: the page-cache pages sendfile(2) puts into an skb's fragments): a file mapping owned by an
 * {@link Arena} that is closed, unmapping it, when the last reference is dropped. Whoever creates a region
 * holds the first reference; every {@link PacketBuffer} that points into it holds one more
 * ({@link PacketBuffer#attachPayload}) until it is released.
 *
 * <p>Reads are absolute and leave the region unchanged, so any number of threads may read at once. A read
 * of a page the file no longer has (the file was truncated after it was mapped) faults; the JVM reports
 * that as an {@link InternalError}, which the read catches: it reads again page by page, the pages it
 * could not read are zeros, and the fault is counted (once per read) through the {@code onFault} callback. Linux sends whatever the page cache then holds
 * (and a truncation before the call gives a short count, which the caller checks for with the file size).
 *
 * <p>Thread-safe.
 */
public final class PayloadRegion {
    private static final VarHandle REFS;

    static {
        try {
            REFS = MethodHandles.lookup().findVarHandle(PayloadRegion.class, "refs", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Unit in bytes in which a read that faulted is tried again (the smallest page size; regions start page-aligned). */
    private static final int PAGE = 4096;

    private final Arena arena;
    /** The mapping, read only through absolute methods: its position and limit never change. */
    private final ByteBuffer bytes;
    private final Runnable onFault;
    /** For a region over a heap array ({@link #ofArray}): run when the last reference is dropped; else null. */
    private final Runnable onFree;
    /** The heap array a region made by {@link #ofArray} reads, else null. */
    private final byte[] heapArray;
    @SuppressWarnings("unused") // through REFS
    private volatile int refs = 1;

    /**
     * A region of {@code bytes} (a view of memory {@code arena} owns), with one reference held by the caller.
     *
     * @param onFault called once per read that faulted (the reader's thread; must not throw)
     */
    public PayloadRegion(Arena arena, ByteBuffer bytes, Runnable onFault) {
        this.arena = arena;
        this.bytes = bytes.duplicate().clear();
        this.onFault = onFault;
        this.onFree = null;
        this.heapArray = null;
    }

    private PayloadRegion(byte[] array, Runnable onFree) {
        this.arena = null;
        this.bytes = ByteBuffer.wrap(array).asReadOnlyBuffer();
        this.onFault = () -> { };
        this.onFree = onFree;
        this.heapArray = array;
    }

    /**
     * A region over a heap array (a packet buffer's, {@link PacketBuffer#shareArray()}) with one reference held by
     * the caller; {@code onFree} runs when the last reference is dropped. Unlike a mapping's region it can be
     * taken again after that ({@link #retainOrRevive()}), for the next holder of the same array.
     */
    static PayloadRegion ofArray(byte[] array, Runnable onFree) { return new PayloadRegion(array, onFree); }

    /** True for a region made by {@link #ofArray} over {@code array}. */
    boolean wraps(byte[] array) { return heapArray == array; }

    /**
     * For a region over a heap array: takes one more reference, or the first one again when the last was
     * dropped before. Returns true when it was the first (the region was free).
     */
    boolean retainOrRevive() {
        while (true) {
            int r = (int) REFS.getVolatile(this);
            if (REFS.compareAndSet(this, r, r + 1)) return r == 0;
        }
    }

    /** Size of the region in bytes. */
    public int length() { return bytes.capacity(); }

    /** Takes one more reference. @throws IllegalStateException when the region was already freed */
    public void retain() {
        int r = (int) REFS.getAndAdd(this, 1);
        if (r <= 0) {
            REFS.getAndAdd(this, -1);
            throw new IllegalStateException("payload region already freed");
        }
    }

    /** Drops one reference; the last one closes the arena (unmaps). */
    public void release() {
        int r = (int) REFS.getAndAdd(this, -1);
        if (r == 1) {
            if (arena != null) arena.close();
            else onFree.run();
        }
        else if (r <= 0) throw new IllegalStateException("payload region released too often");
    }

    /** True once the last reference was dropped and the memory is gone. */
    public boolean isFreed() { return (int) REFS.getVolatile(this) <= 0; }

    /**
     * Copies {@code len} bytes from {@code offset} into {@code dst} at {@code dstOff}; zeros (counted) for
     * pages of the mapping that faulted.
     */
    public void read(long offset, byte[] dst, int dstOff, int len) {
        try {
            bytes.get((int) offset, dst, dstOff, len);
            faultFence();
        } catch (InternalError e) {
            readPageByPage(offset, len, new PageCopy() {
                @Override public void copy(long at, int done, int n) { bytes.get((int) at, dst, dstOff + done, n); }
                @Override public void zero(int done, int n) { Arrays.fill(dst, dstOff + done, dstOff + done + n, (byte) 0); }
            });
        }
    }

    /**
     * Copies {@code len} bytes from {@code offset} into {@code dst} at its position, which moves on by
     * {@code len}; zeros (counted) for pages of the mapping that faulted.
     */
    public void read(long offset, ByteBuffer dst, int len) {
        int pos = dst.position();
        try {
            dst.put(pos, bytes, (int) offset, len);
            faultFence();
        } catch (InternalError e) {
            readPageByPage(offset, len, new PageCopy() {
                @Override public void copy(long at, int done, int n) { dst.put(pos + done, bytes, (int) at, n); }
                @Override public void zero(int done, int n) { for (int i = 0; i < n; i++) dst.put(pos + done + i, (byte) 0); }
            });
        }
        dst.position(pos + len);
    }

    /** Where a faulted read copies to, page by page (the rare path only: allocating here is fine). */
    private interface PageCopy {
        /** Copies {@code n} bytes from {@code at} in the mapping to offset {@code done} of the destination. */
        void copy(long at, int done, int n);
        /** Zeros {@code n} bytes at offset {@code done} of the destination. */
        void zero(int done, int n);
    }

    /**
     * After a fault in a whole copy: counts it, then copies again page by page, so that only the pages
     * that are gone (the file was truncated under the mapping) become zeros.
     */
    private void readPageByPage(long offset, int len, PageCopy dst) {
        onFault.run();
        for (long at = offset, end = offset + len; at < end; ) {
            long next = Math.min(end, (at / PAGE + 1) * PAGE);
            int n = (int) (next - at);
            int done = (int) (at - offset);
            try {
                dst.copy(at, done, n);
                faultFence();
            } catch (InternalError lost) {
                dst.zero(done, n);
            }
            at = next;
        }
    }

    /**
     * HotSpot reports a fault in a copy from mapped memory asynchronously: the InternalError is thrown at the
     * thread's next safepoint check, which compiled code may reach only after leaving the {@code try} around
     * the copy. A call into the VM (about 20 ns) is such a check, so the error is thrown here, inside it.
     */
    private void faultFence() {
        Thread.holdsLock(this);
    }

    @Override
    public String toString() { return "PayloadRegion[" + length() + " bytes" + (isFreed() ? ", freed]" : "]"); }
}
