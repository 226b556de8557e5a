package io.jnet.stack;

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
}
