package io.jnet.stack;

import java.util.Arrays;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The per-namespace timer base. Timers live in a binary heap ordered by deadline (an equivalent of
 * Linux's timer wheel with exact expiry), driven by the namespace's {@link Clock}: on a
 * {@link SystemClock} a daemon thread sleeps until the earliest deadline, rounded up to the next
 * {@link #TICK_NANOS 1 ms tick} (Linux's timer wheel runs on jiffies, 1 ms at HZ=1000), so timers that fall
 * due within one tick expire in one wake-up and arming a timer wakes the thread only when it must fire
 * before the tick the thread already sleeps until; on a {@link VirtualClock} the test's {@code advance}
 * runs expired timers in its own thread, at their exact deadlines.
 *
 * <p>Timer actions run outside the wheel lock and must not throw; an exception is caught, counted
 * and reported to the error handler so the timer thread never dies.
 */
public final class TimerWheel {
    private final Clock clock;
    private final String name;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private Timer[] heap = new Timer[64];
    private int size;
    private Thread thread;
    private volatile boolean running;
    /** The clock time (ns) the timer thread sleeps until; a timer due at or after its tick needs no wake-up. */
    private long plannedWake = Long.MIN_VALUE;

    /** Granularity of the timer thread's wake-ups: 1 ms, one jiffy at Linux's HZ=1000. */
    public static final long TICK_NANOS = 1_000_000L;
    private volatile Consumer<Throwable> errorHandler = t -> t.printStackTrace();
    private long errors;

    public TimerWheel(Clock clock, String name) {
        this.clock = clock;
        this.name = name;
    }

    public Clock clock() { return clock; }

    /** Creates a timer that runs {@code action} on expiry. */
    public Timer newTimer(Runnable action) { return new Timer(this, action); }

    public void setErrorHandler(Consumer<Throwable> handler) { this.errorHandler = handler; }

    /** Number of timer actions that threw. */
    public long errors() { return errors; }

    void arm(Timer t, long at) {
        lock.lock();
        try {
            t.deadline = at;
            if (t.heapIndex >= 0) {
                if (at >= t.queuedAt) return; // lazy: fires early and re-queues
                t.queuedAt = at;
                siftUp(t.heapIndex);
            } else {
                t.queuedAt = at;
                if (size == heap.length) heap = Arrays.copyOf(heap, size * 2);
                heap[size] = t;
                t.heapIndex = size++;
                siftUp(t.heapIndex);
            }
            if (heap[0] == t && thread != null && tickOf(at) < plannedWake) changed.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Disarms {@code t} and removes it from the heap ({@link Timer#delete}). */
    void remove(Timer t) {
        lock.lock();
        try {
            t.deadline = -1;
            if (t.heapIndex >= 0) removeAt(t.heapIndex);
        } finally {
            lock.unlock();
        }
    }

    /** Timers queued in the heap, armed or cancelled lazily (for tests and diagnostics). */
    public int queued() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }

    /** Earliest queued deadline in ns, or {@link Long#MAX_VALUE}. */
    public long nextDeadline() {
        lock.lock();
        try {
            return size == 0 ? Long.MAX_VALUE : heap[0].queuedAt;
        } finally {
            lock.unlock();
        }
    }

    /** Runs every timer whose deadline is at or before {@code now}. Returns how many ran. */
    public int runExpired(long now) {
        int ran = 0;
        while (true) {
            Timer fire = null;
            lock.lock();
            try {
                if (size == 0 || heap[0].queuedAt > now) return ran;
                Timer t = heap[0];
                removeAt(0);
                long want = t.deadline;
                if (want < 0) continue; // cancelled
                if (want > now) { // re-armed later: requeue
                    t.queuedAt = want;
                    if (size == heap.length) heap = Arrays.copyOf(heap, size * 2);
                    heap[size] = t;
                    t.heapIndex = size++;
                    siftUp(t.heapIndex);
                    continue;
                }
                t.deadline = -1;
                fire = t;
            } finally {
                lock.unlock();
            }
            try {
                SoftIrq.runBottomHalf(fire.action);
            } catch (Throwable e) {
                errors++;
                try { errorHandler.accept(e); } catch (Throwable ignored) { }
            }
            ran++;
        }
    }

    private void removeAt(int i) {
        Timer t = heap[i];
        t.heapIndex = -1;
        t.queuedAt = -1;
        size--;
        if (i == size) { heap[size] = null; return; }
        Timer last = heap[size];
        heap[size] = null;
        heap[i] = last;
        last.heapIndex = i;
        siftDown(i);
        if (last.heapIndex == i) siftUp(i);
    }

    private void siftUp(int i) {
        Timer t = heap[i];
        while (i > 0) {
            int p = (i - 1) >>> 1;
            Timer pt = heap[p];
            if (pt.queuedAt <= t.queuedAt) break;
            heap[i] = pt; pt.heapIndex = i; i = p;
        }
        heap[i] = t; t.heapIndex = i;
    }

    private void siftDown(int i) {
        Timer t = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int c = 2 * i + 1;
            int r = c + 1;
            if (r < size && heap[r].queuedAt < heap[c].queuedAt) c = r;
            if (t.queuedAt <= heap[c].queuedAt) break;
            heap[i] = heap[c]; heap[i].heapIndex = i; i = c;
        }
        heap[i] = t; t.heapIndex = i;
    }

    void startThread() {
        lock.lock();
        try {
            if (thread != null) return;
            running = true;
            thread = Thread.ofPlatform().daemon().name("jnet-timer-" + name).unstarted(this::loop);
            thread.start();
        } finally {
            lock.unlock();
        }
    }

    void stopThread() {
        Thread t;
        lock.lock();
        try {
            running = false;
            t = thread;
            thread = null;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (t != null && t != Thread.currentThread()) {
            try { t.join(1000); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
        }
    }

    /** The first tick boundary at or after {@code at} (clock ns): when the timer thread runs a timer due at {@code at}. */
    private static long tickOf(long at) {
        long r = Math.floorMod(at, TICK_NANOS);
        return r == 0 ? at : at - r + TICK_NANOS;
    }

    private void loop() {
        while (running) {
            long now = clock.nanoTime();
            runExpired(now);
            lock.lock();
            try {
                if (!running) break;
                now = clock.nanoTime();
                long wakeAt = size == 0 ? now + 1_000_000_000L : tickOf(heap[0].queuedAt);
                plannedWake = wakeAt;
                if (wakeAt - now > 0) changed.awaitNanos(wakeAt - now);
                plannedWake = Long.MIN_VALUE; // awake: arming needs no signal until the next sleep
            } catch (InterruptedException e) {
                break;
            } finally {
                lock.unlock();
            }
        }
    }
}
