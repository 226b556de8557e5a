package io.jnet.perf;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Ends a request/response loop that stopped making progress. UDP does not retransmit, so one lost
 * request or response leaves UDP_RR's client waiting for ever (netperf's UDP_RR stalls until its timer
 * ends and reports a low rate). A watch thread checks the loop's progress counter a few times per
 * {@code limit}; when it has not moved for {@code limit}, it marks the run stalled and closes the client's
 * socket, which wakes the blocked receive with an error the loop turns into a clear failure.
 *
 * <p>The loop publishes progress with an ordered store ({@link AtomicLong#lazySet}): no fence, no
 * allocation, nothing a transaction waits for.
 */
final class StallWatch implements AutoCloseable {

    private static final long MAX_TICK_NANOS = 100_000_000L;

    private final AtomicLong progress = new AtomicLong();
    private final long limitNanos;
    private final AutoCloseable victim;
    private final Thread thread;
    private volatile boolean stalled;
    private volatile boolean closed;

    /**
     * Starts watching.
     *
     * @param limit  how long the loop may go without progress
     * @param victim what to close when it stalls (the socket the loop blocks on)
     */
    StallWatch(Duration limit, AutoCloseable victim) {
        this.limitNanos = limit.toNanos();
        if (limitNanos <= 0) throw new IllegalArgumentException("stall limit must be positive: " + limit);
        this.victim = victim;
        this.thread = Thread.ofPlatform().name("perf-stall-watch").daemon(true).start(this::watch);
    }

    /** Publishes the loop's progress (any value that changes when a transaction completes). */
    void progress(long n) {
        progress.lazySet(n);
    }

    /** True once the watch found the loop stalled and closed the socket. */
    boolean stalled() {
        return stalled;
    }

    /** How long the loop may go without progress. */
    Duration limit() {
        return Duration.ofNanos(limitNanos);
    }

    private void watch() {
        long tick = Math.max(1, Math.min(limitNanos / 4, MAX_TICK_NANOS));
        long seen = progress.get();
        long since = System.nanoTime();
        while (!closed) {
            LockSupport.parkNanos(tick);
            long now = System.nanoTime();
            long p = progress.get();
            if (p != seen) {
                seen = p;
                since = now;
            } else if (now - since >= limitNanos && !closed) {
                stalled = true;
                try {
                    victim.close();
                } catch (Exception ignored) {
                    // the socket is being torn down either way
                }
                return;
            }
        }
    }

    /** Stops watching. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
    }
}
