package io.jnet.stack;

import io.jnet.buffer.PacketBuffer;
import io.jnet.buffer.PacketQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The socket lock, as Linux's {@code lock_sock}/{@code release_sock} with {@code bh_lock_sock}:
 * a short internal lock ({@link #spin}) plus an "owned by user" flag and a backlog.
 *
 * <ul>
 * <li>Application threads {@link #lock()} to own the socket for a whole system call, and
 * {@link #release()} at the end, which first processes packets that arrived meanwhile.</li>
 * <li>The receive path never waits for an application: it takes the short lock; if the socket is owned
 * it appends the packet to the backlog ({@link #backlogOrProcess}), else it processes it at once.</li>
 * <li>Timers do the same through deferred flags: {@link #deferOrRun}.</li>
 * <li>A waiting application ({@link #await}) gives up ownership (processing the backlog first), sleeps
 * on a condition signalled by the receive path, then owns the socket again.</li>
 * </ul>
 */
public final class SockLock {
    /** Processes one packet for the socket (runs with the short lock held or by the owner). */
    public interface PacketProcessor {
        void process(PacketBuffer packet);
    }

    /** Runs deferred work (timers that fired while the socket was owned); {@code flags} says which. */
    public interface DeferredWork {
        void run(int flags);
    }

    /** The clock timed waits count on (the namespace's: real or virtual time). */
    private final Clock clock;
    private final ReentrantLock spin = new ReentrantLock();
    private final Condition ownerFree = spin.newCondition();
    private boolean owned;
    private final PacketQueue backlog = new PacketQueue();
    private int deferredFlags;
    private PacketProcessor processor;
    private DeferredWork deferredWork;
    /** A wake-up arrived while the socket was owned (its owner may be about to wait for exactly that). */
    private boolean pendingWake;
    /**
     * Threads woken while the short lock was held, unparked just after it is released ({@link #unlock}):
     * a thread unparked earlier would find the lock still held and park a second time on it.
     */
    private Thread unparkFirst;
    private Thread[] unparkMore; // made on first need: most sockets never have two waiters
    private int unparkMoreCount;
    /** Called after each {@link #wakeUp()} outside the short lock (readiness listeners, as sk_data_ready's poll wake). */
    private Runnable wakeListener;
    private boolean wakeListenerPending;
    /** Another socket to wake once this short lock is released ({@link #wakeUpAfterRelease}). */
    private SockLock wakeAfter;

    /** A lock whose timed waits count real time. */
    public SockLock() { this(SystemClock.INSTANCE); }

    /** A lock whose timed waits count time on {@code clock} (the socket's namespace's). */
    public SockLock(Clock clock) { this.clock = java.util.Objects.requireNonNull(clock, "clock"); }

    public void setProcessor(PacketProcessor processor) { this.processor = processor; }
    public void setDeferredWork(DeferredWork work) { this.deferredWork = work; }

    /**
     * Sets what runs after every {@link #wakeUp()}: at once when the caller does not hold the short lock,
     * else just after the caller releases it (so a thread it wakes does not find the lock still held).
     */
    public void setWakeListener(Runnable listener) { this.wakeListener = listener; }

    /** How long a thread spins for the short lock before it parks (ns); see {@link #lockShort}. */
    static final long SHORT_LOCK_SPIN_NANOS = 5_000;
    private static final boolean MULTI_CORE = Runtime.getRuntime().availableProcessors() > 1;

    /**
     * Takes the short lock, spinning briefly first, as Linux's bh_lock_sock spins: it is held only to
     * queue or process one packet (a few microseconds), while parking and being unparked costs a
     * context switch each way, and on a machine whose cores are busy, a wait for the scheduler. After
     * {@link #SHORT_LOCK_SPIN_NANOS} (the holder may have been descheduled) or on a single core it
     * parks like any lock.
     */
    private void lockShort() {
        if (spin.tryLock()) return;
        if (MULTI_CORE) {
            long deadline = System.nanoTime() + SHORT_LOCK_SPIN_NANOS;
            int i = 0;
            do {
                Thread.onSpinWait();
                if (!spin.isLocked() && spin.tryLock()) return;
            } while ((++i & 15) != 0 || System.nanoTime() - deadline < 0);
        }
        spin.lock();
    }

    /** lock_sock: waits until no other application thread owns the socket, then owns it. */
    public void lock() {
        lockShort();
        try {
            while (owned) ownerFree.awaitUninterruptibly();
            owned = true;
        } finally {
            unlock();
        }
    }

    /** release_sock: processes the backlog and deferred work, then gives up ownership. */
    public void release() {
        lockShort();
        try {
            drainLocked();
            owned = false;
            ownerFree.signal();
        } finally {
            unlock();
        }
    }

    /** Processes backlog and deferred work; called with spin held and owned set; drops spin while processing. */
    private boolean drainLocked() {
        boolean any = false;
        while (!backlog.isEmpty() || deferredFlags != 0) {
            any = true;
            PacketBuffer chain = backlog.takeAll();
            int flags = deferredFlags;
            deferredFlags = 0;
            unlock();
            try {
                while (chain != null) {
                    PacketBuffer next = chain.next;
                    chain.next = null;
                    processor.process(chain);
                    chain = next;
                }
                if (flags != 0) deferredWork.run(flags);
            } finally {
                lockShort();
            }
        }
        return any;
    }

    /**
     * Receive path: processes {@code packet} now when no application owns the socket (with the short lock
     * held), else appends it to the backlog. {@code limitBytes} bounds the backlog (Linux sk_rcvbuf +
     * sk_sndbuf); returns false when the packet was dropped for that limit (the caller counts it).
     */
    public boolean backlogOrProcess(PacketBuffer packet, long limitBytes) {
        lockShort();
        try {
            if (owned) {
                if (backlog.bytes() + packet.truesize() > limitBytes) {
                    packet.release();
                    return false;
                }
                backlog.add(packet);
                return true;
            }
            processor.process(packet);
            return true;
        } finally {
            unlock();
        }
    }

    /** Timer path: runs {@code work} now with the short lock held, or defers {@code flag} to release(). */
    public void deferOrRun(int flag) {
        lockShort();
        try {
            if (owned) {
                deferredFlags |= flag;
                return;
            }
            deferredWork.run(flag);
        } finally {
            unlock();
        }
    }

    /** Runs {@code r} with the short lock held (no ownership), waiting for a current owner to finish first. */
    public void runExclusive(Runnable r) {
        lockShort();
        try {
            while (owned) ownerFree.awaitUninterruptibly();
            r.run();
        } finally {
            unlock();
        }
    }

    /** Runs {@code r} with the short lock held if no application owns the socket; false (not run) otherwise. */
    public boolean runIfNotOwned(Runnable r) {
        lockShort();
        try {
            if (owned) return false;
            r.run();
            return true;
        } finally {
            unlock();
        }
    }

    /**
     * sk_wait_event: the owner gives up ownership (after processing the backlog), sleeps until
     * {@link #wakeUp()} or the timeout, then owns the socket again. Returns false on timeout.
     * The caller re-checks its condition afterwards.
     *
     * @param timeoutNanos how long to wait, in nanoseconds on the lock's clock (virtual time on a virtual-time
     *     namespace); {@code <= 0} waits without limit
     */
    public boolean await(long timeoutNanos) throws InterruptedException {
        return await(timeoutNanos, 0);
    }

    /**
     * {@link #await(long)}, spinning up to {@code spinNanos} for the wake-up before parking (busy polling,
     * Linux's sk_busy_loop under SO_BUSY_POLL / net.core.busy_read): a wake-up that comes within the spin
     * costs no sleep and no scheduler wake-up, at the price of the core.
     */
    public boolean await(long timeoutNanos, long spinNanos) throws InterruptedException {
        Waiter w = WAITER.get();
        boolean interrupted = false;
        boolean woke;
        lockShort();
        try {
            // work that arrived while we owned the socket may be what we wait for: let the caller re-check
            if (drainLocked() | pendingWake) {
                pendingWake = false;
                return true;
            }
            owned = false;
            ownerFree.signal();
            w.thread = Thread.currentThread();
            w.signaled = false;
            w.queued = true;
            w.next = waitQueue;
            waitQueue = w;
        } finally {
            unlock();
        }
        // park outside the lock on a preallocated node per thread, so waiting allocates nothing; through
        // ForkJoinPool.managedBlock, so a pool worker that waits lets the pool start another (as AQS does)
        try {
            w.clock = clock;
            w.deadline = timeoutNanos > 0 ? clock.nanoTime() + timeoutNanos : 0;
            if (w.deadline == 0 && timeoutNanos > 0) w.deadline = 1; // 0 means none
            if (spinNanos > 0 && spin(w, spinNanos)) busyPollWakes++;
            else ForkJoinPool.managedBlock(w);
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            lockShort();
            try {
                woke = w.signaled;
                if (w.queued) unlinkWaiter(w);
                w.thread = null;
                while (owned) ownerFree.awaitUninterruptibly();
                owned = true;
            } finally {
                unlock();
            }
        }
        if (interrupted) throw new InterruptedException();
        return woke;
    }

    /** Waits spinning up to {@code spinNanos} (or the waiter's deadline); true when it was woken meanwhile. */
    private static boolean spin(Waiter w, long spinNanos) {
        long end = System.nanoTime() + spinNanos;
        if (w.deadline != 0 && !w.clock.isVirtual() && w.deadline - end < 0) end = w.deadline;
        do {
            if (w.signaled) return true;
            Thread.onSpinWait();
        } while (System.nanoTime() - end < 0 && !Thread.currentThread().isInterrupted());
        return w.signaled;
    }

    private long busyPollWakes;

    /** True while a thread waits in {@link #await(long, long)} (spinning or parked), for tests. */
    public boolean hasWaiters() {
        lockShort();
        try {
            return waitQueue != null;
        } finally {
            unlock();
        }
    }

    /** Waits in {@link #await(long, long)} that ended by a wake-up during the spin, without sleeping (for tests). */
    public long busyPollWakes() { return busyPollWakes; }

    private void unlinkWaiter(Waiter w) {
        Waiter prev = null;
        for (Waiter x = waitQueue; x != null; prev = x, x = x.next) {
            if (x == w) {
                if (prev == null) waitQueue = x.next; else prev.next = x.next;
                break;
            }
        }
        w.next = null;
        w.queued = false;
    }

    /**
     * Releases the short lock, then unparks the threads {@link #wakeLocked} chose while it was held
     * (only when this is the outermost hold; a nested hold leaves them to the outer release).
     */
    private void unlock() {
        assert spin.isHeldByCurrentThread();
        if (spin.getHoldCount() > 1 || (unparkFirst == null && !wakeListenerPending && wakeAfter == null)) {
            spin.unlock();
            return;
        }
        SockLock after = wakeAfter;
        wakeAfter = null;
        Thread first = unparkFirst;
        unparkFirst = null;
        boolean notify = wakeListenerPending;
        wakeListenerPending = false;
        int n = unparkMoreCount;
        Thread[] more = null;
        if (n > 0) { // several threads waiting on one socket: rare, so a copy is affordable here
            more = java.util.Arrays.copyOf(unparkMore, n);
            java.util.Arrays.fill(unparkMore, 0, n, null);
            unparkMoreCount = 0;
        }
        spin.unlock();
        if (first != null) LockSupport.unpark(first);
        for (int i = 0; i < n; i++) LockSupport.unpark(more[i]);
        if (notify) runWakeListener();
        if (after != null) after.wakeUp();
    }

    private void runWakeListener() {
        Runnable l = wakeListener;
        if (l != null) l.run();
    }

    /**
     * Wakes every thread in {@link #await}, then runs the wake listener; callable from any thread (takes
     * the short lock if needed).
     */
    public void wakeUp() {
        if (spin.isHeldByCurrentThread()) {
            wakeLocked();
            if (wakeListener != null) wakeListenerPending = true;
            return;
        }
        lockShort();
        try {
            wakeLocked();
        } finally {
            unlock();
        }
        runWakeListener();
    }

    /**
     * Wakes the threads waiting on {@code other} (another socket: a listener whose child this is) once the
     * calling thread releases this socket's short lock, or at once when it does not hold it. A thread
     * woken while the short lock is still held (the listener's accept, say) would go straight for this
     * socket and find it locked for as long as the waker takes to finish: a park and a second wake-up.
     */
    public void wakeUpAfterRelease(SockLock other) {
        if (!spin.isHeldByCurrentThread()) {
            other.wakeUp();
            return;
        }
        SockLock previous = wakeAfter;
        wakeAfter = other;
        if (previous != null && previous != other) previous.wakeUp();
    }

    private void wakeLocked() {
        if (owned) pendingWake = true;
        Waiter w = waitQueue;
        waitQueue = null;
        while (w != null) {
            Waiter next = w.next;
            w.next = null;
            w.queued = false;
            w.signaled = true;
            deferUnpark(w.thread);
            w = next;
        }
    }

    private void deferUnpark(Thread t) {
        if (t == null || t == unparkFirst) return;
        if (unparkFirst == null) {
            unparkFirst = t;
            return;
        }
        for (int i = 0; i < unparkMoreCount; i++) if (unparkMore[i] == t) return;
        if (unparkMore == null) unparkMore = new Thread[2];
        else if (unparkMoreCount == unparkMore.length) unparkMore = java.util.Arrays.copyOf(unparkMore, unparkMoreCount * 2);
        unparkMore[unparkMoreCount++] = t;
    }

    /** A thread waiting in {@link #await}; one per thread, reused. */
    private static final class Waiter implements ForkJoinPool.ManagedBlocker {
        volatile Thread thread;
        volatile boolean signaled;
        boolean queued;
        Waiter next;
        /** Deadline on {@link #clock}, 0 for none. */
        long deadline;
        Clock clock;

        @Override
        public boolean block() throws InterruptedException {
            while (!isReleasable()) {
                if (deadline == 0) LockSupport.park(this);
                else clock.parkUntil(this, deadline);
                if (Thread.interrupted()) throw new InterruptedException();
            }
            return true;
        }

        @Override
        public boolean isReleasable() {
            return signaled || (deadline != 0 && deadline - clock.nanoTime() <= 0);
        }
    }

    private static final ThreadLocal<Waiter> WAITER = ThreadLocal.withInitial(Waiter::new);

    /**
     * True when {@code t} is parked in {@link #await} but was already signalled, or its timeout has passed: it is
     * about to run, though the scheduler has not given it a core yet. For tools that drive a namespace on a virtual
     * clock and must not move the clock on while a woken thread has still to finish its work; the answer is a
     * snapshot.
     */
    public static boolean wakeupPending(Thread t) {
        return LockSupport.getBlocker(t) instanceof Waiter w && w.thread == t && w.isReleasable();
    }

    /**
     * True when {@code t} is parked in {@link #await} and not woken yet: it stays parked until a wake-up or its
     * timeout. A thread parked anywhere else (waiting for a lock, say) may be about to run. A snapshot, for the same
     * tools as {@link #wakeupPending}.
     */
    public static boolean parkedInAwait(Thread t) {
        return LockSupport.getBlocker(t) instanceof Waiter w && w.thread == t && !w.isReleasable()
                && t.getState() != Thread.State.RUNNABLE;
    }
    private Waiter waitQueue;

    /** True when the calling thread holds the short lock or the socket is owned (for assertions). */
    public boolean isOwned() { return owned; }
}
