package io.jnet.dns;

import io.jnet.socket.PollableSocket;
import io.jnet.socket.ReadinessListener;
import io.jnet.stack.Clock;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.Timer;
import java.io.InterruptedIOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Waits for a non-blocking socket's readiness until a deadline on the namespace's clock. The socket's readiness
 * callback and a timer of the namespace's timer wheel both wake the waiter, so on a {@link io.jnet.stack.VirtualClock}
 * the wait ends when a test advances the clock past the deadline, not after real seconds. (A blocking receive with
 * SO_RCVTIMEO parks for the timeout in real time and then compares against the namespace clock, which never
 * expires on a virtual clock that nobody advances, and waits real seconds on one that somebody does.)
 */
final class ClockWait implements ReadinessListener, AutoCloseable {
    private final Clock clock;
    private final PollableSocket socket;
    private final Timer timer;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition woken = lock.newCondition();
    private boolean signalled;

    ClockWait(NetNamespace ns, PollableSocket socket) {
        this.clock = ns.clock();
        this.socket = socket;
        this.timer = ns.timers().newTimer(this::wake);
        socket.addReadinessListener(this);
    }

    @Override
    public void readinessChanged(PollableSocket s) { wake(); }

    private void wake() {
        lock.lock();
        try {
            signalled = true;
            woken.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until the socket's readiness may have changed or the namespace clock reaches {@code deadlineNanos}.
     *
     * @return false when the deadline has passed, true when the caller should look at the socket again
     * @throws InterruptedIOException when the thread is interrupted (its interrupt status stays set)
     */
    boolean await(long deadlineNanos) throws InterruptedIOException {
        if (clock.nanoTime() >= deadlineNanos) return false;
        timer.scheduleAt(deadlineNanos);
        lock.lock();
        try {
            while (!signalled) {
                long left = deadlineNanos - clock.nanoTime();
                if (left <= 0) return false;
                // the timer wakes a virtual-clock wait; a real clock is also bounded here, in case its wheel is late
                if (clock.isVirtual()) woken.await();
                else woken.awaitNanos(Math.min(left, TimeUnit.SECONDS.toNanos(1)));
            }
            signalled = false;
            return clock.nanoTime() < deadlineNanos || socketReady();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("DNS wait interrupted");
        } finally {
            lock.unlock();
        }
    }

    private boolean socketReady() { return socket.readyEvents() != 0; }

    @Override
    public void close() {
        socket.removeReadinessListener(this);
        timer.delete();
    }
}
