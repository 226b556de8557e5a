package io.jnet.perf;

import java.io.File;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A lane in a JVM of its own: a {@link LaneWorker} started with this JVM's {@code java}, class path and JVM
 * options ({@link JvmCommand}) opens the path and runs the tests; this side sends each run's
 * {@link TestSpec} and gets its {@link RunResult} or error back ({@link LaneProtocol}). So the JIT compiles
 * the code a path runs for that path alone, as when one process uses one path, and as netperf runs each
 * test in a process of its own; a path's figures do not depend on which other paths share the measurement.
 *
 * <p>The worker starts once per lane and serves every test and size of the command, so its JIT stays warm
 * as a long-lived process's would. Its stdout and stderr are this process's; its stdin is empty.
 *
 * <p>Errors come back as they would in one JVM: a stack not available as {@link StackUnavailableException}
 * (from {@link #run}) or UnsupportedOperationException (from opening), other failures as
 * {@link PerfException}. A worker that exits, or does not answer within the limit (starting and opening the
 * path: {@link PerfTest#HANG_LIMIT}; a run: its {@code -l} plus twice that, the test's own hang limit and as
 * much again to report it), is killed and reported as a {@link PerfException} with its exit status;
 * the lane then fails every later run at once. {@link #close()} and, should this JVM exit first, a shutdown
 * hook kill the worker; a worker whose parent died sees its connection close and exits.
 */
public final class ChildJvmLane implements LaneRunner {

    /**
     * Seconds a worker gets to exit once its connection is closed (it closes its path first) or has ended,
     * before it is killed; and how long a killed one is waited for.
     */
    static final long EXIT_GRACE_SECONDS = 5;
    /** How often a starting worker is checked for having exited before it connected. */
    private static final long START_POLL_MILLIS = 50;

    private final String name;
    private final Process process;
    private final SocketChannel channel;
    private final ObjectOutputStream out;
    private final ObjectInputStream in;
    private final ExecutorService reader;
    private final Duration slack;
    private final Thread hook;
    private final String description;
    /** Why the worker can no longer run tests, or null while it can. */
    private String broken;
    private boolean closed;

    /**
     * Lanes whose workers open the registered path of {@link PathRegistry#standard()} with the entry's id:
     * the paths of {@code jnet perf}, not a registry of fakes.
     */
    public static LaneOpener opener() {
        JvmCommand jvm = JvmCommand.current();
        return (path, sysctls) -> start(jvm, LaneWorker.class.getName(), workerArgs(path.id(), sysctls), path.id(),
                PerfTest.HANG_LIMIT, PerfTest.HANG_LIMIT);
    }

    /** The worker's arguments after its socket: the path id, then {@code NAME=VALUE} per sysctl in order. */
    static List<String> workerArgs(String pathId, Map<String, String> sysctls) {
        List<String> args = new ArrayList<>();
        args.add(pathId);
        sysctls.forEach((k, v) -> args.add(k + "=" + v));
        return args;
    }

    /**
     * Starts a worker: {@code mainClass} with the arguments {@code SOCKET args...}, where SOCKET is a Unix
     * domain socket in a new temporary directory (owner only) that the worker connects to; waits for the
     * path to be open.
     *
     * @param name       the lane's name for its threads (the path id)
     * @param startLimit how long the worker may take to start and open the path
     * @param slack      a run's answer may take {@code -l} plus twice this
     * @throws UnsupportedOperationException if the worker says the path's stack is not available
     * @throws PerfException                 if the worker could not open the path, exited, or did not answer
     *                                       within {@code startLimit}
     * @throws IOException                   if the socket or the process cannot be created
     */
    static ChildJvmLane start(JvmCommand jvm, String mainClass, List<String> args, String name, Duration startLimit,
            Duration slack) throws IOException, PerfException {
        Path dir = Files.createTempDirectory("jnet-lane");
        Path socket = dir.resolve("worker.sock");
        Process process = null;
        Thread hook = null;
        SocketChannel channel = null;
        ExecutorService reader = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "lane " + name + " reader");
            t.setDaemon(true);
            return t;
        });
        boolean started = false;
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket), 1);
            List<String> all = new ArrayList<>();
            all.add(socket.toString());
            all.addAll(args);
            process = jvm.processBuilder(mainClass, all)
                    .redirectInput(new File("/dev/null"))
                    .redirectOutput(ProcessBuilder.Redirect.INHERIT)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            Process p = process;
            // SIGTERM first, so that the child's own shutdown hooks remove what it made (kernel:unix's socket
            // directory); SIGKILL if it does not go within the grace time
            hook = new Thread(() -> stop(p), "lane " + name + " shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            long deadline = System.nanoTime() + startLimit.toNanos();
            channel = accept(server, reader, process, startLimit);
            ChildJvmLane lane = new ChildJvmLane(name, process, channel, reader, slack, hook,
                    Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            started = true;
            return lane;
        } finally {
            Files.deleteIfExists(socket);
            Files.deleteIfExists(dir);
            if (!started) {
                reader.shutdownNow();
                if (channel != null) channel.close();
                if (process != null) kill(process);
                if (hook != null) removeHook(hook);
            }
        }
    }

    /** Waits for the worker to connect; fails when it exits first or takes longer than {@code limit}. */
    private static SocketChannel accept(ServerSocketChannel server, ExecutorService reader, Process process,
            Duration limit) throws IOException, PerfException {
        Future<SocketChannel> f = reader.submit(server::accept);
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            try {
                return f.get(START_POLL_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (!process.isAlive()) {
                    throw new PerfException("lane JVM (pid " + process.pid() + ") exited with status "
                            + process.exitValue() + " before it connected");
                }
                if (System.nanoTime() - deadline >= 0) {
                    int status = kill(process);
                    throw new PerfException("lane JVM (pid " + process.pid() + ") did not connect within "
                            + seconds(limit) + "; killed (exit status " + status + ")");
                }
            } catch (ExecutionException e) {
                throw new IOException("lane JVM's socket: " + PeerRun.describe(e.getCause()), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PerfException("interrupted while the lane JVM started", e);
            }
        }
    }

    /** Reads the worker's stream header and its first reply, both within {@code startLeft}. */
    private ChildJvmLane(String name, Process process, SocketChannel channel, ExecutorService reader, Duration slack,
            Thread hook, Duration startLeft) throws IOException, PerfException {
        this.name = name;
        this.process = process;
        this.channel = channel;
        this.reader = reader;
        this.slack = slack;
        this.hook = hook;
        this.out = LaneProtocol.output(Channels.newOutputStream(channel));
        long deadline = System.nanoTime() + startLeft.toNanos();
        this.in = await(() -> LaneProtocol.input(Channels.newInputStream(channel)), startLeft, "its stream header");
        LaneProtocol.Reply first = reply(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), "opening the path");
        switch (first) {
            case LaneProtocol.Ready r -> description = r.description();
            case LaneProtocol.Failed f when f.unavailable() -> throw new UnsupportedOperationException(f.message());
            case LaneProtocol.Failed f -> throw new PerfException(f.message());
            case LaneProtocol.Ran r -> throw unexpected(r);
        }
    }

    /**
     * Runs {@code spec} in the worker.
     *
     * @throws StackUnavailableException as the test in the worker threw it
     * @throws PerfException             as the test in the worker threw it; or when the worker exited, did not
     *                                   answer within {@code -l} plus twice the slack (then it is killed), or
     *                                   did so before (then at once)
     * @throws IllegalStateException     after {@link #close()}
     */
    @Override
    public synchronized RunResult run(TestSpec spec) throws PerfException {
        if (closed) throw new IllegalStateException("lane " + name + " is closed");
        if (broken != null) throw new PerfException(broken);
        try {
            LaneProtocol.send(out, spec);
        } catch (IOException e) {
            throw fail("could not take the run (" + PeerRun.describe(e) + ")", false);
        }
        LaneProtocol.Reply r = reply(spec.duration().plus(slack).plus(slack), "the " + spec.kind() + " run");
        return switch (r) {
            case LaneProtocol.Ran ran -> ran.result();
            case LaneProtocol.Failed f when f.unavailable() -> throw new StackUnavailableException(f.message(), null);
            case LaneProtocol.Failed f -> throw new PerfException(f.message());
            case LaneProtocol.Ready ready -> throw unexpected(ready);
        };
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public synchronized String lost() { return broken; }

    /** The worker's process (for tests and diagnostics; the process stays this lane's). */
    ProcessHandle process() {
        return process.toHandle();
    }

    /**
     * Closes the connection, which ends the worker (it closes its path and exits); kills it if it has not
     * exited within {@value #EXIT_GRACE_SECONDS} s. Never throws; idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        try {
            channel.close();
        } catch (IOException ignored) {
            // the worker sees the connection end either way
        }
        boolean exited;
        try {
            exited = process.waitFor(EXIT_GRACE_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exited = false;
        }
        if (!exited) kill(process);
        reader.shutdownNow();
        removeHook(hook);
    }

    /** The next reply, within {@code limit}. */
    private LaneProtocol.Reply reply(Duration limit, String waitingFor) throws PerfException {
        Object o = await(in::readObject, limit, waitingFor);
        if (o instanceof LaneProtocol.Reply r) return r;
        throw fail("sent " + (o == null ? "null" : o.getClass().getName()) + " instead of an answer to " + waitingFor, true);
    }

    /**
     * Runs a read on the reader thread and waits at most {@code limit} for it; a worker that takes longer is
     * killed, one whose connection ended is waited for; both are reported with the exit status.
     */
    private <T> T await(Callable<T> read, Duration limit, String waitingFor) throws PerfException {
        Future<T> f = reader.submit(read);
        try {
            return f.get(limit.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw fail("gave no answer to " + waitingFor + " within " + seconds(limit), true);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof ClassNotFoundException || cause instanceof java.io.InvalidClassException) {
                throw fail("sent an unreadable answer to " + waitingFor + " (" + PeerRun.describe(cause) + ")", true);
            }
            throw fail("ended the connection before answering " + waitingFor, false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.cancel(true);
            throw fail("was interrupted while waiting for " + waitingFor, true);
        }
    }

    /**
     * Marks the lane broken and returns the error, which names the worker's exit status: kills the worker
     * at once ({@code killNow}) or once it has not exited within {@value #EXIT_GRACE_SECONDS} s.
     */
    private PerfException fail(String what, boolean killNow) {
        boolean exited = false;
        if (!killNow) {
            try {
                exited = process.waitFor(EXIT_GRACE_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        int status = exited ? process.exitValue() : kill(process);
        broken = "lane JVM (pid " + process.pid() + ") " + what + "; "
                + (exited ? "it exited with status " + status : "killed (exit status " + status + ")");
        return new PerfException(broken);
    }

    private PerfException unexpected(LaneProtocol.Reply r) {
        return fail("sent " + r.getClass().getSimpleName() + " out of turn", true);
    }

    /** Asks {@code p} to exit (SIGTERM), then kills it (SIGKILL) if it has not gone within the grace time. */
    private static void stop(Process p) {
        p.destroy();
        try {
            if (p.waitFor(EXIT_GRACE_SECONDS, TimeUnit.SECONDS)) return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        p.destroyForcibly();
    }

    /** Kills {@code p} (SIGKILL) and waits for it; its exit status, or -1 if it did not go. */
    private static int kill(Process p) {
        p.destroyForcibly();
        try {
            return p.waitFor(EXIT_GRACE_SECONDS, TimeUnit.SECONDS) ? p.exitValue() : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs or has run
        }
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toNanos() / 1e9);
    }
}
