package io.jnet.stack;

/**
 * A reusable timer owned by one object (a socket's retransmission timer, say), like Linux's
 * {@code timer_list}: scheduling again moves its deadline; nothing is allocated per (re)arm.
 *
 * <p>Rearming to a later deadline is lazy: the timer stays in the wheel at the old deadline, and when
 * that passes it is put back for the new one without running.
 */
public final class Timer {
    final TimerWheel wheel;
    final Runnable action;
    /** Deadline the owner wants (ns), or -1 when not armed. */
    volatile long deadline = -1;
    /** Deadline under which it sits in the wheel's heap, or -1 when not queued. */
    long queuedAt = -1;
    int heapIndex = -1;

    Timer(TimerWheel wheel, Runnable action) {
        this.wheel = wheel;
        this.action = action;
    }

    /** Arms (or re-arms) the timer to fire {@code delayNanos} from now on the namespace's clock. */
    public void schedule(long delayNanos) { wheel.arm(this, wheel.clock().nanoTime() + Math.max(0, delayNanos)); }

    public void scheduleMillis(long delayMs) { schedule(delayMs * 1_000_000L); }

    /** Arms the timer for an absolute clock time in ns. */
    public void scheduleAt(long deadlineNanos) { wheel.arm(this, deadlineNanos); }

    /**
     * Disarms; a pending expiry will not run. Lazy, for the data path: the timer stays queued in the wheel
     * (holding its action and what that reaches) until its old deadline passes; see {@link #delete()}.
     */
    public void cancel() { deadline = -1; }

    /**
     * Disarms and takes the timer out of the wheel at once (Linux's del_timer), so that nothing queued
     * keeps its action's owner reachable: for an owner that is going away (a closed socket, whose
     * FIN-WAIT-2 or keepalive timer could otherwise hold it for up to its full timeout). Takes the wheel's
     * lock when the timer is armed or queued.
     */
    public void delete() {
        if (deadline < 0 && heapIndex < 0) return; // neither armed nor queued (both change under the wheel lock)
        wheel.remove(this);
    }

    public boolean isPending() { return deadline >= 0; }

    /** The armed deadline in ns, or -1. */
    public long deadline() { return deadline; }
}
