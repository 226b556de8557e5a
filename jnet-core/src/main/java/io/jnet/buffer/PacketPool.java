package io.jnet.buffer;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A recycling {@link PacketAllocator}: buffers come from size classes (512 B, 1792 B for a 1500-byte MTU frame with headroom, 16.5 KiB,
 * 65 KiB)
 * and go back to their class when released, so the packet path allocates nothing once warm. Each
 * class keeps at most a bounded number of free buffers; beyond that, released buffers are left to
 * the garbage collector and larger requests than the biggest class are plain heap buffers.
 *
 * <p>Thread-safe: a buffer is typically allocated by a sending thread and released by a reading one.
 * Two designs, with the same contract and statistics:
 * <ul>
 *   <li><b>Magazines</b> ({@link #PacketPool()}, the default), after Bonwick and Adams' magazine layer
 *       ("Magazines and Vmem", USENIX 2001) and Linux's per-CPU slab caches: each platform thread keeps, per
 *       class, a <em>loaded</em> and a <em>previous</em> magazine of up to M buffers ({@link #MAGAZINE_ROUNDS})
 *       and allocates from and releases to them without a lock. Only when both are empty (allocation) or
 *       both full (release) does it go to the class's <em>depot</em>, under the class's lock, to exchange an
 *       empty magazine for a full one or a full one for an empty one: one lock entry per M buffers, even when
 *       one thread allocates and another releases. Virtual threads use the depot directly (one lock entry per
 *       buffer): a cache per virtual thread would be unbounded.</li>
 *   <li><b>Shared classes</b> ({@link #sharedClasses()}): each class is one array stack under its lock, one
 *       lock entry per allocation and per release; all threads meet there.</li>
 * </ul>
 * Lock acquisitions, and those that had to wait, are counted ({@link #lockEntries()}, {@link #contendedLockEntries()}):
 * the depots' locks for magazines, the classes' locks for shared classes.
 *
 * <p>Memory bound of the magazine design, per class: (live platform threads that used the pool &times; 2 &times; M)
 * buffers in the threads' magazines, plus the depot's bound ({@link #CLASS_LIMITS} buffers in full magazines, a
 * virtual-thread magazine of M). With the sizes below that is at most about 1.8 MiB per platform thread
 * (64 &times; 512 B + 64 &times; 1792 B + 16 &times; 16.5 KiB + 8 &times; 65 KiB, twice) plus about 40 MiB in
 * the depots. A thread that ends gives its magazines to the depot (beyond the bound, their buffers go to the
 * garbage collector): the pool keeps a registry of (weak reference to thread, its magazines) and moves those of
 * threads no longer alive to the depots when a new thread registers, every {@value #RECLAIM_INTERVAL} depot
 * exchanges, and on {@link #reclaimDeadThreads()}.
 *
 * <p>Contract for users of pooled buffers: after {@link PacketBuffer#release()} the buffer must not be
 * touched again; the pool hands it out anew. A buffer that reaches the pool a second time without having been
 * handed out in between (released, then {@link PacketBuffer#reset reset} and released again) is not taken twice:
 * it is counted in {@link #doubleReleases()} and, with {@code -Djnet.pool.debug=true}, reported on standard
 * error with a "double release" stack trace and the place of the first release.
 */
public final class PacketPool implements PacketAllocator {
    private static final int[] CLASS_SIZES = {512, 1792, 16384 + 512, 65536 + 1024};
    /**
     * Free buffers kept per class (shared classes: in the class's stack; magazines: in the depot's full
     * magazines): the 65 KiB class holds what one loopback stream keeps in flight
     * (a send buffer autotuned to tcp_wmem's 4 MiB plus a receive buffer autotuned to tcp_rmem's 6 MiB,
     * about 160 segments) with room for a few such streams; 512 of them is 34 MiB at most.
     */
    private static final int[] CLASS_LIMITS = {1024, 2048, 512, 512};
    /**
     * Rounds M per magazine, per class. A depot exchange costs one lock entry per M buffers; a thread holds up to
     * 2 M buffers per class in its magazines: 64 KiB of 512-byte buffers, 224 KiB of 1792-byte ones (64 frames
     * of a 1500-byte MTU, about one TCP window burst of a 64 KiB send), 528 KiB of 16.5 KiB ones (16) and
     * 1.03 MiB of 65 KiB ones (8: the big buffers are few per stream and cost most to leave idle in a thread).
     */
    static final int[] MAGAZINE_ROUNDS = {64, 64, 16, 8};
    /** Depot exchanges between two scans for magazines of threads that ended. */
    static final int RECLAIM_INTERVAL = 64;

    static final boolean DEBUG = Boolean.getBoolean("jnet.pool.debug");

    private final boolean magazines;
    private final boolean debug;
    /** Where debug mode reports a double release: standard error, or a test's capture. */
    private final Consumer<Throwable> debugReport;
    private final SizeClass[] classes;
    private final Depot[] depots;
    /**
     * Per platform thread: its magazines (magazine design only), weakly: the registry holds them strongly. A
     * thread's map of thread-locals must not reach the pool through the buffers in the magazines (their release
     * hooks are the depots), or the thread would keep a pool that is no longer used, and its buffers, for as long
     * as it lives.
     */
    private final ThreadLocal<WeakReference<ThreadCache>> caches;
    /** Caches of all threads that used the pool and whose magazines were not yet reclaimed; guarded by itself. */
    private final List<ThreadCache> registry = new ArrayList<>();
    private final AtomicLong doubleReleases = new AtomicLong();
    /** Depot exchanges since the last scan for dead threads (racy: a hint). */
    private int exchangesSinceReclaim;

    /** A pool with per-thread magazines in front of the size classes (the default design). */
    public PacketPool() {
        this(true, DEBUG);
    }

    /** A pool of the given design; {@code debug} reports double releases with stack traces on standard error. */
    PacketPool(boolean magazines, boolean debug) {
        this(magazines, debug, Throwable::printStackTrace);
    }

    /** A pool of the given design; {@code debug} reports double releases, with their stack traces, to {@code debugReport}. */
    PacketPool(boolean magazines, boolean debug, Consumer<Throwable> debugReport) {
        this.magazines = magazines;
        this.debug = debug;
        this.debugReport = debugReport;
        if (magazines) {
            classes = null;
            depots = new Depot[CLASS_SIZES.length];
            for (int i = 0; i < depots.length; i++) depots[i] = new Depot(i);
            caches = ThreadLocal.withInitial(() -> new WeakReference<>(register()));
        } else {
            classes = new SizeClass[CLASS_SIZES.length];
            for (int i = 0; i < classes.length; i++) classes[i] = new SizeClass(CLASS_SIZES[i], CLASS_LIMITS[i]);
            depots = null;
            caches = null;
        }
    }

    /**
     * A pool whose size classes are shared by all threads, each an array stack under one lock (the design
     * before magazines, kept for comparison: {@code jnet.allocator=pool}).
     */
    public static PacketPool sharedClasses() {
        return new PacketPool(false, DEBUG);
    }

    /** True for the magazine design, false for shared classes. */
    public boolean usesMagazines() { return magazines; }

    @Override
    public PacketBuffer allocate(int headroom, int size) {
        if (headroom < 0 || size < 0) throw new IllegalArgumentException("negative size");
        int total = headroom + size;
        for (int i = 0; i < CLASS_SIZES.length; i++) {
            if (total <= CLASS_SIZES[i]) {
                return magazines ? depots[i].take(headroom, total) : classes[i].take(headroom, total);
            }
        }
        return PacketBuffer.allocate(headroom, size);
    }

    /**
     * Buffers currently free in the pool, in the depots and in the threads' magazines (for tests and statistics;
     * other threads' magazines are read without synchronisation, exact once those threads are quiet).
     */
    public int freeBuffers() {
        int n = 0;
        if (!magazines) {
            for (SizeClass c : classes) n += c.free();
            return n;
        }
        for (Depot d : depots) n += d.free();
        synchronized (registry) {
            for (ThreadCache c : registry) n += c.free();
        }
        return n;
    }

    @Override
    public long lockEntries() {
        long n = 0;
        if (magazines) for (Depot d : depots) n += d.lock.entries();
        else for (SizeClass c : classes) n += c.lock.entries();
        return n;
    }

    @Override
    public long contendedLockEntries() {
        long n = 0;
        if (magazines) for (Depot d : depots) n += d.lock.contended();
        else for (SizeClass c : classes) n += c.lock.contended();
        return n;
    }

    /** Buffers created by the pool so far (a steady value once warm means no allocation). */
    public long created() {
        long n = 0;
        if (magazines) for (Depot d : depots) n += d.created.get();
        else for (SizeClass c : classes) n += c.created;
        return n;
    }

    /** Releases that found the buffer already free in the pool and were ignored (see the class comment). */
    public long doubleReleases() { return doubleReleases.get(); }

    /**
     * Moves the magazines of threads that ended to the depots (beyond the depots' bound, their buffers go to
     * the garbage collector) and forgets those threads. The pool also does this on its own (see the class
     * comment); tests call it to make it happen now.
     *
     * @return the number of threads whose magazines were reclaimed
     */
    public int reclaimDeadThreads() {
        if (!magazines) return 0;
        List<ThreadCache> dead = null;
        synchronized (registry) {
            for (int i = registry.size() - 1; i >= 0; i--) {
                ThreadCache c = registry.get(i);
                if (!c.ownerAlive()) {
                    if (dead == null) dead = new ArrayList<>();
                    dead.add(c);
                    int last = registry.size() - 1;
                    registry.set(i, registry.get(last));
                    registry.remove(last);
                }
            }
        }
        if (dead == null) return 0;
        // The owner has terminated: its last actions happen-before isAlive() returning false (JLS 17.4.4),
        // and nobody else touches its cache.
        for (ThreadCache c : dead) {
            for (int i = 0; i < depots.length; i++) {
                depots[i].absorb(c.loaded[i]);
                depots[i].absorb(c.previous[i]);
                c.loaded[i] = c.previous[i] = null;
            }
        }
        return dead.size();
    }

    /** The calling platform thread's magazines. */
    private ThreadCache cache() {
        ThreadCache c = caches.get().get();
        if (c == null) { // not expected: the registry holds it while the thread lives
            c = register();
            caches.set(new WeakReference<>(c));
        }
        return c;
    }

    /** Creates and registers the calling thread's cache, reclaiming dead threads' first so the registry stays bounded. */
    private ThreadCache register() {
        reclaimDeadThreads();
        ThreadCache c = new ThreadCache(Thread.currentThread());
        synchronized (registry) {
            registry.add(c);
        }
        return c;
    }

    /** Counts a depot exchange; every {@value #RECLAIM_INTERVAL} of them, scans for dead threads (outside any depot lock). */
    private void exchanged() {
        if (++exchangesSinceReclaim >= RECLAIM_INTERVAL) {
            exchangesSinceReclaim = 0;
            reclaimDeadThreads();
        }
    }

    /** True (and counted, and reported in debug mode) when {@code b} is already free in the pool. */
    private boolean doubleRelease(PacketBuffer b) {
        if (!b.pooled) return false;
        doubleReleases.incrementAndGet();
        if (debug) debugReport.accept(new Throwable("double release; first:", b.debugReleasedAt));
        return true;
    }

    /** Marks {@code b} free in the pool; in debug mode, records where. */
    private void markFree(PacketBuffer b) {
        b.pooled = true;
        if (debug) b.debugReleasedAt = new Throwable("released here");
    }

    /** Padding in front of a magazine's hot fields (a magazine moves between threads; see {@link Magazine}). */
    abstract static class MagazinePadBefore {
        long p00, p01, p02, p03, p04, p05, p06, p07;
    }

    /** A magazine's fields: {@code count} buffers in {@code rounds[PAD .. PAD + count)}. */
    abstract static class MagazineFields extends MagazinePadBefore {
        /** Slots kept unused at each end of the array, 64 bytes or more, so that neighbouring objects do not share its cache lines. */
        static final int PAD = 16;
        final PacketBuffer[] rounds;
        final int capacity;
        int count;

        MagazineFields(int capacity) {
            this.capacity = capacity;
            this.rounds = new PacketBuffer[capacity + 2 * PAD];
        }
    }

    /**
     * Up to M buffers of one class. Magazines move between threads (full ones from releasing to allocating
     * threads, empty ones back), so two magazines allocated side by side may end up written by two threads at
     * every allocation and release: the count and the array are padded so that they never share a cache line.
     */
    static final class Magazine extends MagazineFields {
        long p10, p11, p12, p13, p14, p15, p16, p17;

        Magazine(int capacity) { super(capacity); }

        boolean full() { return count == capacity; }

        PacketBuffer pop() {
            int i = PAD + --count;
            PacketBuffer b = rounds[i];
            rounds[i] = null;
            return b;
        }

        void push(PacketBuffer b) { rounds[PAD + count++] = b; }

        /** Drops the buffers to the garbage collector. */
        void clear() {
            java.util.Arrays.fill(rounds, PAD, PAD + count, null);
            count = 0;
        }
    }

    /** One platform thread's magazines, per class; only that thread touches them while it lives. */
    static final class ThreadCache {
        final WeakReference<Thread> owner;
        final Magazine[] loaded = new Magazine[CLASS_SIZES.length];
        final Magazine[] previous = new Magazine[CLASS_SIZES.length];

        ThreadCache(Thread owner) {
            this.owner = new WeakReference<>(owner);
            for (int i = 0; i < loaded.length; i++) {
                loaded[i] = new Magazine(MAGAZINE_ROUNDS[i]);
                previous[i] = new Magazine(MAGAZINE_ROUNDS[i]);
            }
        }

        boolean ownerAlive() {
            Thread t = owner.get();
            return t != null && t.isAlive();
        }

        int free() {
            int n = 0;
            for (int i = 0; i < loaded.length; i++) {
                Magazine l = loaded[i], p = previous[i];
                if (l != null) n += l.count;
                if (p != null) n += p.count;
            }
            return n;
        }
    }

    /**
     * A class's depot: full (non-empty) and empty magazines under one lock, each stack bounded, plus one
     * magazine that virtual threads allocate from and release to directly. Also the class's release hook.
     */
    private final class Depot implements PacketBuffer.ReleaseHook {
        final int index;
        final int size;
        final int rounds;
        final Magazine[] full;
        int nFull;
        final Magazine[] empty;
        int nEmpty;
        /** The magazine of threads without a cache (virtual threads); guarded by the lock. */
        Magazine direct;
        final AtomicLong created = new AtomicLong();
        final CountingLock lock = new CountingLock();

        Depot(int index) {
            this.index = index;
            this.size = CLASS_SIZES[index];
            this.rounds = MAGAZINE_ROUNDS[index];
            this.full = new Magazine[CLASS_LIMITS[index] / rounds];
            this.empty = new Magazine[CLASS_LIMITS[index] / rounds];
            this.direct = new Magazine(rounds);
        }

        PacketBuffer take(int headroom, int total) {
            Thread t = Thread.currentThread();
            PacketBuffer b = t.isVirtual() ? takeDirect() : takeCached(cache());
            if (b == null) {
                b = PacketBuffer.allocate(0, size);
                b.setReleaseHook(this);
                created.incrementAndGet();
            }
            b.pooled = false;
            b.reset(headroom);
            b.setTruesize(total);
            return b;
        }

        /** Bonwick's allocation: loaded, else previous if full, else a full magazine from the depot; null when none. */
        private PacketBuffer takeCached(ThreadCache c) {
            int i = index;
            Magazine m = c.loaded[i];
            if (m.count == 0) {
                Magazine p = c.previous[i];
                if (p.count > 0) {
                    c.loaded[i] = p;
                    c.previous[i] = m;
                    m = p;
                } else {
                    if (nFull == 0 && direct.count == 0) return null; // racy peek: nothing to take, skip the lock
                    Magazine f;
                    lock.lockCounted();
                    try {
                        if (nFull > 0) {
                            f = full[--nFull];
                            full[nFull] = null;
                            if (nEmpty < empty.length) empty[nEmpty++] = p; // else the empty magazine goes to the GC
                        } else if (direct.count > 0) {
                            f = direct; // the virtual threads' (or a dead thread's partial) buffers
                            direct = p;
                        } else {
                            return null;
                        }
                    } finally {
                        lock.unlock();
                    }
                    c.previous[i] = m;
                    c.loaded[i] = f;
                    m = f;
                    exchanged();
                }
            }
            return m.pop();
        }

        private PacketBuffer takeDirect() {
            lock.lockCounted();
            try {
                Magazine m = direct;
                if (m.count == 0) {
                    if (nFull == 0) return null;
                    Magazine f = full[--nFull];
                    full[nFull] = null;
                    if (nEmpty < empty.length) empty[nEmpty++] = m;
                    direct = m = f;
                }
                return m.pop();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void released(PacketBuffer b) {
            Thread t = Thread.currentThread();
            if (t.isVirtual()) {
                releaseDirect(b);
                return;
            }
            if (doubleRelease(b)) return;
            markFree(b);
            ThreadCache c = cache();
            int i = index;
            Magazine m = c.loaded[i];
            if (m.full()) {
                Magazine p = c.previous[i];
                if (p.count == 0) {
                    c.loaded[i] = p;
                    c.previous[i] = m;
                    m = p;
                } else {
                    // both full: previous goes to the depot, loaded becomes previous, an empty one becomes loaded
                    Magazine e = null;
                    lock.lockCounted();
                    try {
                        if (nFull < full.length) full[nFull++] = p;
                        else p.clear(); // beyond the bound: its buffers go to the GC, the magazine is reused
                        if (p.count == 0) e = p;
                        else if (nEmpty > 0) {
                            e = empty[--nEmpty];
                            empty[nEmpty] = null;
                        }
                    } finally {
                        lock.unlock();
                    }
                    if (e == null) e = new Magazine(rounds);
                    c.previous[i] = m;
                    c.loaded[i] = e;
                    m = e;
                    exchanged();
                }
            }
            m.push(b);
        }

        private void releaseDirect(PacketBuffer b) {
            lock.lockCounted();
            try {
                if (doubleRelease(b)) return;
                markFree(b);
                Magazine m = direct;
                if (m.full()) {
                    if (nFull < full.length) {
                        full[nFull++] = m;
                        if (nEmpty > 0) {
                            m = empty[--nEmpty];
                            empty[nEmpty] = null;
                        } else {
                            m = new Magazine(rounds);
                        }
                        direct = m;
                    } else {
                        m.clear();
                    }
                }
                m.push(b);
            } finally {
                lock.unlock();
            }
        }

        /** Takes a dead thread's magazine: a full one as it is, an empty one to the empties, a partial one buffer by buffer. */
        void absorb(Magazine m) {
            if (m == null) return;
            lock.lockCounted();
            try {
                if (m.count == 0) {
                    if (nEmpty < empty.length) empty[nEmpty++] = m;
                } else if (m.full()) {
                    if (nFull < full.length) full[nFull++] = m;
                } else {
                    while (m.count > 0) {
                        PacketBuffer b = m.pop();
                        Magazine s = direct;
                        if (s.full()) {
                            if (nFull == full.length) break; // beyond the bound: the rest go to the GC
                            full[nFull++] = s;
                            if (nEmpty > 0) {
                                s = empty[--nEmpty];
                                empty[nEmpty] = null;
                            } else {
                                s = new Magazine(rounds);
                            }
                            direct = s;
                        }
                        s.push(b);
                    }
                }
            } finally {
                lock.unlock();
            }
        }

        int free() {
            lock.lock();
            try {
                int n = direct.count;
                for (int i = 0; i < nFull; i++) n += full[i].count;
                return n;
            } finally {
                lock.unlock();
            }
        }
    }

    /** A size class shared by all threads: an array stack under one lock. */
    private final class SizeClass implements PacketBuffer.ReleaseHook {
        final int size;
        final PacketBuffer[] stack;
        int top;
        volatile long created;
        final CountingLock lock = new CountingLock();

        SizeClass(int size, int limit) {
            this.size = size;
            this.stack = new PacketBuffer[limit];
        }

        PacketBuffer take(int headroom, int total) {
            PacketBuffer b = null;
            lock.lockCounted();
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
            b.pooled = false;
            b.reset(headroom);
            b.setTruesize(total);
            return b;
        }

        @Override
        public void released(PacketBuffer b) {
            lock.lockCounted();
            try {
                if (doubleRelease(b)) return;
                markFree(b);
                if (top < stack.length) stack[top++] = b;
            } finally {
                lock.unlock();
            }
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
