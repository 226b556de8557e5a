package io.jnet.app;

import java.time.Duration;

/**
 * Closes a {@link StreamConnection} when a deadline passes unless cancelled first: a time limit for
 * blocking transports that have no read timeout of their own. The blocked reader or writer then fails
 * with an IOException and can ask {@link #fired()} whether the deadline was the cause.
 */
final class CloseTimer implements AutoCloseable {

    private final Thread thread;
    private volatile boolean fired;
    private volatile boolean cancelled;

    private CloseTimer(StreamConnection connection, Duration timeout) {
        long nanos = timeout.toNanos();
        this.thread = Thread.ofVirtual().name("close-timer").start(() -> {
            try {
                Thread.sleep(Duration.ofNanos(nanos));
            } catch (InterruptedException e) {
                return;
            }
            if (!cancelled) {
                fired = true;
                connection.close();
            }
        });
    }

    /** Starts a timer closing {@code connection} after {@code timeout} (must be positive). */
    static CloseTimer start(StreamConnection connection, Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        return new CloseTimer(connection, timeout);
    }

    /** Whether the deadline passed and the connection was closed by this timer. */
    boolean fired() {
        return fired;
    }

    /** Cancels the timer (no effect if it already fired). */
    @Override
    public void close() {
        cancelled = true;
        thread.interrupt();
    }
}
