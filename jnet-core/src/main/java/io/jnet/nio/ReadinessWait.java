package io.jnet.nio;

import io.jnet.socket.PollableSocket;
import io.jnet.socket.ReadinessListener;
import io.jnet.stack.Clock;
import java.util.concurrent.locks.LockSupport;

/**
 * Parks the calling thread until a socket shows one of some poll bits, is closed, or the thread is interrupted:
 * for the blocking calls jnet's sockets have no blocking form of (finishing a connect in blocking mode). Parks
 * through {@link LockSupport}, so a virtual thread gives its carrier up.
 */
final class ReadinessWait implements ReadinessListener {
    private final Thread waiter = Thread.currentThread();
    private volatile boolean signalled;

    private ReadinessWait() {}

    @Override
    public void readinessChanged(PollableSocket socket) {
        signalled = true;
        LockSupport.unpark(waiter);
    }

    /**
     * Waits until {@code (socket.readyEvents() & mask) != 0} or the socket is closed (true), or the thread is
     * interrupted or {@code deadline} (on {@code clock}; 0 for none) passed (false; an interrupt status is left set).
     */
    static boolean await(PollableSocket socket, int mask, Clock clock, long deadline) {
        ReadinessWait w = new ReadinessWait();
        socket.addReadinessListener(w);
        try {
            while (true) {
                w.signalled = false;
                if ((socket.readyEvents() & mask) != 0 || socket.isClosed()) return true;
                if (Thread.currentThread().isInterrupted()) return false;
                while (!w.signalled && !Thread.currentThread().isInterrupted()) {
                    if (deadline == 0) {
                        LockSupport.park(w);
                    } else {
                        if (deadline - clock.nanoTime() <= 0) return false;
                        clock.parkUntil(w, deadline);
                    }
                }
            }
        } finally {
            socket.removeReadinessListener(w);
        }
    }
}
