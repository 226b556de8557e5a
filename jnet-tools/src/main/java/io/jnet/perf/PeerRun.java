package io.jnet.perf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the server and the client of one test in two threads of this JVM. Both meet at a start barrier
 * once connected, so that timing starts together. If either side fails, or the run overstays its time
 * limit, every socket registered with {@link #track} is closed and both threads are interrupted, which
 * unblocks the other side; the first failure is the one reported.
 */
final class PeerRun {

    /** The work of one side. */
    @FunctionalInterface
    interface Side<T> {
        T run() throws Exception;
    }

    /** What both sides returned. */
    record Outcome<S, C>(S server, C client) {}

    /** How long a side may take to notice an abort before it is reported as stuck. */
    private static final Duration ABORT_GRACE = Duration.ofSeconds(5);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final CyclicBarrier start;
    private final List<Thread> threads = new ArrayList<>(2);
    private boolean aborted;

    /** A run of one server and one client. */
    PeerRun() {
        this(1, null);
    }

    /**
     * A run of {@code pairs} servers and as many clients ({@link #runAll}); {@code atStart}, when not null, runs
     * once all of them are at the start barrier and before any is released (the moment the timed part starts).
     */
    PeerRun(int pairs, Runnable atStart) {
        start = new CyclicBarrier(2 * pairs, atStart);
    }

    /**
     * Registers a socket to close on abort; if the run is already aborted, closes it at once and fails.
     *
     * @return {@code c}
     */
    <C extends AutoCloseable> C track(C c) throws PerfException {
        synchronized (resources) {
            if (!aborted) {
                resources.add(c);
                return c;
            }
        }
        closeQuietly(c);
        throw new PerfException("run aborted");
    }

    /** Closes {@code c} and forgets it. */
    void release(AutoCloseable c) {
        synchronized (resources) {
            resources.remove(c);
        }
        closeQuietly(c);
    }

    /** Waits until both sides are ready to start the timed part. */
    void awaitStart(Duration limit) throws PerfException, InterruptedException {
        try {
            start.await(limit.toNanos(), TimeUnit.NANOSECONDS);
        } catch (BrokenBarrierException e) {
            throw new PerfException("the other side failed before the start", e);
        } catch (TimeoutException e) {
            throw new PerfException("the other side did not get ready within " + limit.toSeconds() + " s", e);
        }
    }

    /**
     * Runs both sides and waits for both.
     *
     * @param limit time after which the run is aborted
     * @throws PerfException naming the side that failed first and its error, or the timeout
     */
    <S, C> Outcome<S, C> run(Side<S> server, Side<C> client, Duration limit) throws PerfException {
        Outcome<List<S>, List<C>> all = runAll(List.of(server), List.of(client), limit);
        return new Outcome<>(all.server().getFirst(), all.client().getFirst());
    }

    /**
     * As {@link #run}, with several servers and as many clients, each in a thread of its own
     * ({@code perf-server-i}, {@code perf-client-i} when there are several); the run was made with
     * {@link #PeerRun(int, Runnable)} for that many pairs.
     *
     * @return what each side returned, in the order given
     */
    <S, C> Outcome<List<S>, List<C>> runAll(List<Side<S>> servers, List<Side<C>> clients, Duration limit)
            throws PerfException {
        LinkedBlockingQueue<FutureTask<?>> finished = new LinkedBlockingQueue<>();
        List<FutureTask<S>> serverTasks = new ArrayList<>();
        List<FutureTask<C>> clientTasks = new ArrayList<>();
        boolean several = servers.size() > 1;
        for (int i = 0; i < servers.size(); i++) {
            FutureTask<S> t = task(servers.get(i), finished);
            serverTasks.add(t);
            threads.add(Thread.ofPlatform().name(several ? "perf-server-" + i : "perf-server").daemon(true).start(t));
        }
        for (int i = 0; i < clients.size(); i++) {
            FutureTask<C> t = task(clients.get(i), finished);
            clientTasks.add(t);
            threads.add(Thread.ofPlatform().name(several ? "perf-client-" + i : "perf-client").daemon(true).start(t));
        }
        int sides = serverTasks.size() + clientTasks.size();
        PerfException failure = null;
        long deadline = System.nanoTime() + limit.toNanos();
        try {
            for (int done = 0; done < sides; done++) {
                long wait = deadline - System.nanoTime();
                FutureTask<?> t = wait > 0 ? finished.poll(wait, TimeUnit.NANOSECONDS) : null;
                if (t == null) {
                    if (failure == null) {
                        failure = new PerfException("run did not finish within " + limit.toSeconds() + " s");
                        abort();
                        deadline = System.nanoTime() + ABORT_GRACE.toNanos();
                        done--;
                        continue;
                    }
                    failure.addSuppressed(new PerfException("a side is stuck after the abort"));
                    break;
                }
                int si = serverTasks.indexOf(t);
                String side = si >= 0 ? (several ? "server " + si : "server")
                        : (several ? "client " + clientTasks.indexOf(t) : "client");
                PerfException err = errorOf(t, side);
                if (err != null && failure == null) {
                    failure = err;
                    abort();
                    deadline = System.nanoTime() + ABORT_GRACE.toNanos();
                }
            }
        } catch (InterruptedException e) {
            abort();
            Thread.currentThread().interrupt();
            throw new PerfException("interrupted", e);
        } finally {
            closeAll();
        }
        if (failure != null) throw failure;
        try {
            List<S> s = new ArrayList<>(serverTasks.size());
            for (FutureTask<S> t : serverTasks) s.add(t.get());
            List<C> c = new ArrayList<>(clientTasks.size());
            for (FutureTask<C> t : clientTasks) c.add(t.get());
            return new Outcome<>(s, c);
        } catch (ExecutionException | InterruptedException e) {
            throw new PerfException("unexpected: " + e, e);
        }
    }

    private static <T> FutureTask<T> task(Side<T> side, LinkedBlockingQueue<FutureTask<?>> finished) {
        return new FutureTask<>(side::run) {
            @Override
            protected void done() {
                finished.add(this);
            }
        };
    }

    private static PerfException errorOf(FutureTask<?> t, String side) {
        try {
            t.get();
            return null;
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof StackUnavailableException u) return u;
            if (c instanceof UnsupportedOperationException u) {
                return new StackUnavailableException(side + ": " + u.getMessage(), u);
            }
            return new PerfException(side + ": " + describe(c), c);
        } catch (InterruptedException | java.util.concurrent.CancellationException e) {
            return new PerfException(side + ": interrupted", e);
        }
    }

    /** An error's message, prefixed by its type when that says more (EOFException, SocketException...). */
    static String describe(Throwable t) {
        String m = t.getMessage();
        if (t instanceof io.jnet.socket.ErrnoException || t instanceof PerfException) return m;
        return m == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": " + m;
    }

    private void abort() {
        synchronized (resources) {
            aborted = true;
        }
        closeAll();
        start.reset();
        for (Thread th : threads) th.interrupt();
    }

    private void closeAll() {
        List<AutoCloseable> copy;
        synchronized (resources) {
            copy = new ArrayList<>(resources);
            resources.clear();
        }
        for (AutoCloseable c : copy) closeQuietly(c);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // best effort: the socket is being torn down
        }
    }
}
