package io.jnet.drill.kernel;

import io.jnet.drill.target.SyscallException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One platform thread that has entered a network namespace with {@code setns(2)} on the descriptor of its bind mount
 * ({@code /run/netns/NAME}) and runs the tasks given to {@link #call} there, one at a time, in order. Linux keeps the
 * network namespace per thread, so only this thread's sockets, TUN devices and {@code /proc/sys/net} writes are in the
 * namespace; the JVM's other threads stay where they are. The thread is a daemon named {@code jnet-drill-netns-NAME};
 * {@link #close} stops it (it never returns to the JVM's pool in the namespace).
 */
final class NetnsThread implements Netns, AutoCloseable {

    private static final long STOP_WAIT_MS = 2000;

    private final ExecutorService executor;
    private final String name;

    private NetnsThread(ExecutorService executor, String name) {
        this.executor = executor;
        this.name = name;
    }

    /**
     * Starts the thread and enters the namespace whose bind mount is {@code nsPath}.
     *
     * @throws IOException when the mount cannot be opened or setns(2) fails (the thread is stopped then)
     */
    static NetnsThread enter(Path nsPath, String name) throws IOException {
        ExecutorService executor = Executors.newSingleThreadExecutor(
                r -> Thread.ofPlatform().daemon(true).name("jnet-drill-netns-" + name).unstarted(r));
        Future<?> entered = executor.submit(() -> {
            setns(nsPath);
            return null;
        });
        try {
            entered.get();
            return new NetnsThread(executor, name);
        } catch (ExecutionException e) {
            executor.shutdownNow();
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) throw io;
            throw new IOException("entering network namespace " + name + " failed", cause);
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while entering network namespace " + name, e);
        }
    }

    private static void setns(Path nsPath) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment c = Libc.newCapture(a);
            int fd = Libc.open(c, a.allocateFrom(nsPath.toString()), Libc.O_RDONLY | Libc.O_CLOEXEC, 0);
            if (fd < 0) throw new IOException("open " + nsPath + " failed: " + describe(Libc.errno(c)));
            try {
                if (Libc.setns(c, fd, Libc.CLONE_NEWNET) < 0) {
                    throw new IOException("setns(" + nsPath + ", CLONE_NEWNET) failed: " + describe(Libc.errno(c)));
                }
            } finally {
                Libc.close(c, fd);
            }
        }
    }

    private static String describe(int errno) {
        return new SyscallException(errno).getMessage();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T, E extends Exception> T call(Task<T, E> task) throws E {
        Future<T> f;
        try {
            f = executor.submit(task::run);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new IllegalStateException("the thread of network namespace " + name + " has stopped", e);
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true; // the task is short; finish it so that its descriptor is not lost
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof RuntimeException r) throw r;
                    if (cause instanceof Error err) throw err;
                    throw (E) cause;
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /** Stops the thread after the task in progress, waiting up to 2 s for it. */
    @Override
    public void close() {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(STOP_WAIT_MS, TimeUnit.MILLISECONDS)) executor.shutdownNow();
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** True until {@link #close} has stopped the thread. */
    boolean isRunning() {
        return !executor.isTerminated();
    }
}
