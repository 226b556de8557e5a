package io.jnet.rds;

import io.jnet.stack.NetNamespace;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The RDS work queue of one namespace (Linux's rds_wq, a single-threaded workqueue): connect, receive, transmit
 * on write space, accept and shutdown work, in submission order, on one daemon platform thread started with the
 * first item. Work items never escape an exception: it is counted in {@link NetNamespace#internalErrors()}.
 * {@link #execute} never blocks, so TCP readiness callbacks may call it.
 */
final class RdsWorker {
    private static final Runnable STOP = () -> {};

    private final NetNamespace ns;
    private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
    private volatile Thread thread;
    private volatile boolean stopped;

    RdsWorker(NetNamespace ns) { this.ns = ns; }

    void execute(Runnable r) {
        if (stopped) return;
        if (thread == null) start();
        queue.add(r);
    }

    private synchronized void start() {
        if (thread != null || stopped) return;
        Thread t = new Thread(this::run, "krdsd-" + ns.name());
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    /** True on the worker thread. */
    boolean inWorker() { return Thread.currentThread() == thread; }

    private void run() {
        while (true) {
            Runnable r;
            try {
                r = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            if (r == STOP) return;
            try {
                r.run();
            } catch (Throwable t) {
                ns.reportInternalError(t);
            }
        }
    }

    synchronized void stop() {
        stopped = true;
        queue.clear();
        queue.add(STOP);
    }
}
