package io.jnet.stack;

import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Virtual time for deterministic tests: time moves only through {@link #advance}. Timers of every
 * registered wheel fire in deadline order, in the calling thread, each seeing {@link #nanoTime()} equal
 * to its deadline. Several namespaces may share one clock.
 */
public final class VirtualClock implements Clock {
    private volatile long now;
    private final CopyOnWriteArrayList<TimerWheel> wheels = new CopyOnWriteArrayList<>();

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
    }
}
