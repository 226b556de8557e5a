package io.jnet.stack;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * Virtual time for deterministic tests: time moves only through {@link #advance}. Timers of every
 * registered wheel fire in deadline order, in the calling thread, each seeing {@link #nanoTime()} equal
 * to its deadline. Several namespaces may share one clock.
 */
public final class VirtualClock implements Clock {
    private volatile long now;
    private final CopyOnWriteArrayList<TimerWheel> wheels = new CopyOnWriteArrayList<>();
    /** Threads in {@link #parkUntil} and their deadlines. */
    private final ConcurrentHashMap<Thread, Long> sleepers = new ConcurrentHashMap<>();

    public VirtualClock() { this(1_000_000_000L); }

    public VirtualClock(long startNanos) { this.now = startNanos; }

    @Override public long nanoTime() { return now; }
    @Override public boolean isVirtual() { return true; }
    @Override public void register(TimerWheel wheel) { wheels.addIfAbsent(wheel); }
    @Override public void unregister(TimerWheel wheel) { wheels.remove(wheel); }

    /** Advances time by {@code d}, firing every timer that falls due on the way, in order. */
    public void advance(Duration d) { advanceNanos(d.toNanos()); }

    public void advanceMillis(long ms) { advanceNanos(ms * 1_000_000L); }

    public synchronized void advanceNanos(long delta) {
        if (delta < 0) throw new IllegalArgumentException("time goes forward only");
        long target = now + delta;
        while (true) {
            long next = Long.MAX_VALUE;
            for (TimerWheel w : wheels) next = Math.min(next, w.nextDeadline());
            if (next > target) break;
            if (next > now) now = next;
            for (TimerWheel w : wheels) w.runExpired(now);
        }
        now = target;
        for (TimerWheel w : wheels) w.runExpired(now);
        for (Map.Entry<Thread, Long> e : sleepers.entrySet()) {
            if (target - e.getValue() >= 0) LockSupport.unpark(e.getKey());
        }
    }

    /** Parks until {@link #advance} reaches {@code deadlineNanos} (or an unpark, an interrupt, a spurious return). */
    @Override
    public void parkUntil(Object blocker, long deadlineNanos) {
        Thread me = Thread.currentThread();
        sleepers.put(me, deadlineNanos);
        try {
            if (now - deadlineNanos < 0) LockSupport.park(blocker);
        } finally {
            sleepers.remove(me);
        }
    }

    /** Threads parked in {@link #parkUntil} now (for tests that advance time once a waiter sleeps). */
    public int sleepers() { return sleepers.size(); }

    /**
     * The earliest deadline of a thread in {@link #parkUntil} (ns), or {@link Long#MAX_VALUE} when none sleeps. A
     * deadline at or before {@link #nanoTime()} belongs to a thread already woken that has not left yet. A snapshot:
     * for tools that step the clock straight to the next thing that can happen.
     */
    public long nextSleeperDeadline() {
        long next = Long.MAX_VALUE;
        for (Long d : sleepers.values()) next = Math.min(next, d);
        return next;
    }

    /** The earliest queued timer deadline of every registered wheel (ns), or {@link Long#MAX_VALUE}; a snapshot. */
    public long nextTimerDeadline() {
        long next = Long.MAX_VALUE;
        for (TimerWheel w : wheels) next = Math.min(next, w.nextDeadline());
        return next;
    }
}
