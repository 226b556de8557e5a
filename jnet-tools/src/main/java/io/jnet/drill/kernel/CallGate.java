package io.jnet.drill.kernel;

import io.jnet.drill.target.SyscallException;

/**
 * Counts the system calls in progress so that closing can wait for them: {@link #enter} before a call (refused with
 * EBADF once closing has begun), {@link #exit} after it. {@link #closeAndAwait} marks the gate closed, then runs the
 * wake-up action (which makes blocked calls return) every {@value #REWAKE_MS} ms until no call is in progress or the
 * time is up. Thread-safe.
 */
final class CallGate {

    static final long REWAKE_MS = 50;

    private int inFlight;
    private boolean closed;

    /** @throws SyscallException EBADF once {@link #closeAndAwait} has begun */
    synchronized void enter() throws SyscallException {
        if (closed) throw new SyscallException(Libc.EBADF);
        inFlight++;
    }

    synchronized void exit() {
        if (--inFlight == 0 && closed) notifyAll();
    }

    synchronized boolean isClosed() {
        return closed;
    }

    synchronized int inFlight() {
        return inFlight;
    }

    /**
     * Closes the gate and waits up to {@code timeoutMillis} for the calls in progress to end, running {@code wake}
     * first and again every {@value #REWAKE_MS} ms while some remain.
     *
     * @return true when none remains
     */
    boolean closeAndAwait(Runnable wake, long timeoutMillis) {
        synchronized (this) {
            closed = true;
        }
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        boolean interrupted = false;
        try {
            while (true) {
                wake.run();
                synchronized (this) {
                    if (inFlight == 0) return true;
                    long left = (deadline - System.nanoTime()) / 1_000_000L;
                    if (left <= 0) return false;
                    try {
                        wait(Math.min(left, REWAKE_MS));
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                    if (inFlight == 0) return true;
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
