package io.jnet.buffer;

/**
 * A recycling {@link PacketAllocator}: buffers come from size classes (512 B, 1792 B for a 1500-byte MTU frame with headroom, 16.5 KiB,
 * 65 KiB)
 * and go back to their class when released, so the packet path allocates nothing once warm. Each
 * class keeps at most a bounded number of free buffers; beyond that, released buffers are left to
 * the garbage collector and larger requests than the biggest class are plain heap buffers.
 *
 * <p>Thread-safe: a buffer is typically allocated by a sending thread and released by a reading one.
 * Each class is a small array stack under its own lock (uncontended locking allocates nothing); lock
 * acquisitions, and those that had to wait, are counted ({@link #lockEntries()}, {@link #contendedLockEntries()}).
 *
 * <p>Contract for users of pooled buffers: after {@link PacketBuffer#release()} the buffer must not be
 * touched again; the pool hands it out anew.
 */
public final class PacketPool implements PacketAllocator {
    private static final int[] CLASS_SIZES = {512, 1792, 16384 + 512, 65536 + 1024};
    /**
     * Free buffers kept per class: the 65 KiB class holds what one loopback stream keeps in flight
     * (a send buffer autotuned to tcp_wmem's 4 MiB plus a receive buffer autotuned to tcp_rmem's 6 MiB,
     * about 160 segments) with room for a few such streams; 512 of them is 34 MiB at most.
     */
    private static final int[] CLASS_LIMITS = {1024, 2048, 512, 512};

    static final boolean DEBUG = Boolean.getBoolean("jnet.pool.debug");
    private final SizeClass[] classes = new SizeClass[CLASS_SIZES.length];

    public PacketPool() {
        for (int i = 0; i < classes.length; i++) classes[i] = new SizeClass(CLASS_SIZES[i], CLASS_LIMITS[i]);
    }

    @Override
    public PacketBuffer allocate(int headroom, int size) {
        if (headroom < 0 || size < 0) throw new IllegalArgumentException("negative size");
        int total = headroom + size;
        for (SizeClass c : classes) {
            if (total <= c.size) return c.take(headroom, total);
        }
        return PacketBuffer.allocate(headroom, size);
    }

    /** Buffers currently free in the pool (for tests and statistics). */
    public int freeBuffers() {
        int n = 0;
        for (SizeClass c : classes) n += c.free();
        return n;
    }

    @Override
    public long lockEntries() {
        long n = 0;
        for (SizeClass c : classes) n += c.entries;
        return n;
    }

    @Override
    public long contendedLockEntries() {
        long n = 0;
        for (SizeClass c : classes) n += c.contended;
        return n;
    }

    /** Buffers created by the pool so far (a steady value once warm means no allocation). */
    public long created() {
        long n = 0;
        for (SizeClass c : classes) n += c.created;
        return n;
    }

    private static final class SizeClass implements PacketBuffer.ReleaseHook {
        final int size;
        final PacketBuffer[] stack;
        int top;
        volatile long created;
        final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
        /** Lock acquisitions and those that waited; written under the lock, read racily as statistics. */
        long entries, contended;

        SizeClass(int size, int limit) {
            this.size = size;
            this.stack = new PacketBuffer[limit];
        }

        PacketBuffer take(int headroom, int total) {
            PacketBuffer b = null;
            lock();
            try {
                if (top > 0) {
                    b = stack[--top];
                    stack[top] = null;
                }
            } finally {
                lock.unlock();
            }
            if (b == null) {
                b = PacketBuffer.allocate(0, size);
                b.setReleaseHook(this);
                created++;
            }
            b.reset(headroom);
            b.setTruesize(total);
            return b;
        }

        @Override
        public void released(PacketBuffer b) {
            if (DEBUG) {
                lock();
                try {
                    for (int i = 0; i < top; i++) if (stack[i] == b) new Throwable("double release").printStackTrace();
                } finally {
                    lock.unlock();
                }
                b.debugReleasedAt = new Throwable("released here");
            }
            lock();
            try {
                if (top < stack.length) stack[top++] = b;
            } finally {
                lock.unlock();
            }
        }

        /** Takes the lock, counting the acquisition and whether it had to wait. */
        private void lock() {
            if (!lock.tryLock()) {
                lock.lock();
                contended++;
            }
            entries++;
        }

        int free() {
            lock.lock();
            try {
                return top;
            } finally {
                lock.unlock();
            }
        }
    }
}
