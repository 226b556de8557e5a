package io.jnet.perf;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Keeps cores busy for the length of a run, to measure on a loaded machine ({@code jnet perf --busy-cores N}):
 * N operating-system processes that each spin on the CPU at normal priority. They are separate processes, not
 * threads of this JVM, so the JVM's scheduler and garbage collector do not see them; the kernel's scheduler
 * shares the cores between them and the run as it would with any other busy program.
 *
 * <p>Each spinner is {@code /bin/sh} running a busy loop of shell built-ins (no fork per iteration) that also
 * checks, every hundred thousand iterations (about a tenth of a second), that this JVM is still its parent, and
 * exits when it is not: spinners do not outlive a JVM that was killed outright ({@code kill -9}). {@link #close()} kills them (SIGKILL) and
 * waits for them; a shutdown hook does the same if the JVM exits first (Ctrl-C, {@link System#exit}).
 */
public final class BusyCores implements AutoCloseable {

    /** How long {@link #close()} waits for each killed spinner to be reaped. */
    private static final long REAP_SECONDS = 5;

    private final List<Process> spinners;
    private final Thread hook;
    private boolean closed;

    private BusyCores(List<Process> spinners) {
        this.spinners = List.copyOf(spinners);
        if (this.spinners.isEmpty()) {
            hook = null;
        } else {
            hook = new Thread(() -> this.spinners.forEach(Process::destroyForcibly), "busy-cores-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
        }
    }

    /**
     * Starts {@code count} spinning processes; 0 starts none.
     *
     * @throws IllegalArgumentException if {@code count} is negative or more than the cores this JVM sees
     *                                  ({@link Runtime#availableProcessors()})
     * @throws IOException              if a process cannot be started (no {@code /bin/sh}); those already
     *                                  started are killed
     */
    public static BusyCores start(int count) throws IOException {
        checkCount(count);
        List<Process> started = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) started.add(spin());
        } catch (IOException | RuntimeException e) {
            killAll(started);
            throw e;
        }
        return new BusyCores(started);
    }

    /**
     * Checks a spinner count before anything runs.
     *
     * @throws IllegalArgumentException if {@code count} is below 0 or above {@link Runtime#availableProcessors()}
     */
    public static void checkCount(int count) {
        int cores = Runtime.getRuntime().availableProcessors();
        if (count < 0 || count > cores) {
            throw new IllegalArgumentException("busy cores must be 0 to " + cores + " (the cores of this machine): " + count);
        }
    }

    /**
     * The spinner's shell script, given the pid of the process that starts it as {@code $1}: a busy loop of
     * built-ins (no fork per iteration) that every 100000 iterations reads its parent from
     * {@code /proc/$$/stat} and stops once that is no longer {@code $1}, i.e. once the starter has died and the
     * spinner was handed to init or a subreaper (checking the parent rather than {@code kill -0 PID}, which a
     * dead but unreaped starter still passes; and taking the pid as an argument rather than reading it at
     * start, which would be too late if the starter died first).
     */
    static final String SPIN_SCRIPT = "while read -r _ _ _ ppid _ < /proc/$$/stat && [ \"$ppid\" = \"$1\" ]; do"
            + " i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done;"
            + " done";

    /**
     * One spinner, a child of this JVM running {@link #SPIN_SCRIPT}.
     *
     * @throws IOException if the shell cannot be started
     */
    static Process spin() throws IOException {
        return new ProcessBuilder("/bin/sh", "-c", SPIN_SCRIPT, "spin", Long.toString(ProcessHandle.current().pid()))
                .redirectInput(new File("/dev/null"))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    /** The number of spinners. */
    public int count() {
        return spinners.size();
    }

    /** The spinners' process handles, in start order (for checks and reports; the processes stay this object's). */
    public List<ProcessHandle> processes() {
        return spinners.stream().map(Process::toHandle).toList();
    }

    /** The report line, e.g. {@code busy cores: 2 (spinning processes)}. */
    public String description() {
        return describe(count());
    }

    /** The report line for {@code count} spinners, e.g. {@code busy cores: 2 (spinning processes)}. */
    public static String describe(int count) {
        return "busy cores: " + count + " (spinning processes)";
    }

    /** Kills the spinners (SIGKILL) and waits for them to exit. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        killAll(spinners);
        if (hook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs or has run: nothing left to undo
            }
        }
    }

    private static void killAll(List<Process> processes) {
        processes.forEach(Process::destroyForcibly);
        boolean interrupted = false;
        for (Process p : processes) {
            try {
                p.waitFor(REAP_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }
}
