package io.jnet.drill.kernel;

import java.util.concurrent.locks.LockSupport;

/**
 * Real time in microseconds since a start, from {@link System#nanoTime()}. {@link #waitUntil} sleeps until about
 * {@value #SPIN_MICROS} µs before the time and spins the rest, since a sleep overshoots by tens of microseconds or more.
 * Thread-safe.
 */
final class RealClock {

    static final long SPIN_MICROS = 200;

    private final long startNanos;

    RealClock() {
        this.startNanos = System.nanoTime();
    }

    /** Microseconds since this clock was made. */
    long nowMicros() {
        return (System.nanoTime() - startNanos) / 1000;
    }

    /**
     * Returns at {@code micros} on this clock (at once if it has passed).
     *
     * @throws InterruptedException when interrupted while sleeping
     */
    void waitUntil(long micros) throws InterruptedException {
        long target = startNanos + micros * 1000;
        while (true) {
            long left = target - System.nanoTime();
            if (left <= 0) return;
            if (Thread.interrupted()) throw new InterruptedException();
            if (left > SPIN_MICROS * 1000) {
                LockSupport.parkNanos(left - SPIN_MICROS * 1000);
            } else {
                Thread.onSpinWait();
            }
        }
    }
}
