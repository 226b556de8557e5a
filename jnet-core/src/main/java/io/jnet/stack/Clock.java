package io.jnet.stack;

import java.util.concurrent.locks.LockSupport;

/**
 * The time source of a jnet namespace. Every timer of the namespace runs on it, so a test can run a
 * whole stack on {@link VirtualClock} and step time deterministically.
 */
public interface Clock {
    /** Monotonic time in nanoseconds (arbitrary origin). */
    long nanoTime();

    /** Monotonic time in milliseconds. */
    default long millis() { return nanoTime() / 1_000_000L; }

    /** True when time only moves when a test advances it. */
    boolean isVirtual();

    /** Connects a timer wheel so the clock can drive it (virtual clock) or leaves it to its own thread (system clock). */
    void register(TimerWheel wheel);

    /** Disconnects a wheel (namespace closed). */
    void unregister(TimerWheel wheel);

    /**
     * Parks the calling thread until this clock reaches {@code deadlineNanos} (a {@link #nanoTime()} value), or
     * until it is unparked or interrupted; it may also return for no reason, as {@link LockSupport#parkNanos}
     * does, so callers re-check their condition and the time. On real time this is {@code parkNanos}; a virtual
     * clock wakes the thread when it is advanced to or past the deadline, so a socket timeout on a virtual-time
     * namespace expires on virtual time. Parks through {@link LockSupport}: a virtual thread gives its carrier up.
     *
     * @param blocker what the thread waits on (shown by thread dumps)
     * @param deadlineNanos the time to wake at, on this clock, in nanoseconds
     */
    default void parkUntil(Object blocker, long deadlineNanos) {
        LockSupport.parkNanos(blocker, deadlineNanos - nanoTime());
    }
}
