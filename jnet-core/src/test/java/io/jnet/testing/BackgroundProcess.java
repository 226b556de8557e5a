package io.jnet.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A command running in the background (a server, a ping) whose output is collected in temporary
 * files. {@link #close()} kills it and its descendants if still running and removes the files.
 */
public final class BackgroundProcess implements AutoCloseable {

    private final List<String> command;
    private final Process process;
    private final Path out;
    private final Path err;
    private volatile boolean closed;

    private BackgroundProcess(List<String> command, Process process, Path out, Path err) {
        this.command = command;
        this.process = process;
        this.out = out;
        this.err = err;
    }

    /**
     * Starts {@code cmd} (first word resolved like {@link Tools#find(String)}), standard input from
     * {@code /dev/null}.
     *
     * @throws IOException when it cannot be started
     */
    public static BackgroundProcess start(List<String> cmd) throws IOException {
        List<String> command = Tools.resolve(cmd);
        Path out = Files.createTempFile("jnet-bg", ".out");
        Path err = Files.createTempFile("jnet-bg", ".err");
        try {
            Process p = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            return new BackgroundProcess(List.copyOf(command), p, out, err);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            throw e;
        }
    }

    /** The command line as started. */
    public List<String> command() { return command; }

    /** Process id. */
    public long pid() { return process.pid(); }

    public boolean isAlive() { return process.isAlive(); }

    /**
     * Waits for the process to exit and returns its exit status.
     *
     * @throws TimeoutException when it is still running after {@code timeout} (it is left running)
     * @throws InterruptedException when interrupted while waiting
     */
    public int waitFor(Duration timeout) throws InterruptedException, TimeoutException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new TimeoutException(String.join(" ", command) + " still running after " + timeout.toMillis() + " ms");
        }
        return process.exitValue();
    }

    /**
     * Asks the process to end (SIGTERM, which lets a capture finish its file) and waits for it to exit.
     *
     * @return its exit status
     * @throws TimeoutException when it is still running after {@code timeout} (it is left running)
     * @throws InterruptedException when interrupted while waiting
     */
    public int terminate(Duration timeout) throws InterruptedException, TimeoutException {
        process.destroy();
        return waitFor(timeout);
    }

    /** Standard output written so far (UTF-8). */
    public String stdout() { return read(out); }

    /** Standard error written so far (UTF-8). */
    public String stderr() { return read(err); }

    /** The command and its output so far, for failure messages. */
    public String describe() {
        return String.join(" ", command) + (process.isAlive() ? " (running)" : " exited " + process.exitValue())
                + "\nstdout: " + stdout().strip() + "\nstderr: " + stderr().strip();
    }

    private String read(Path file) {
        if (closed) return "";
        try {
            return Tools.text(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kills the process and its descendants (if running) and deletes the output files. Idempotent. */
    @Override
    public void close() {
        if (closed) return;
        if (process.isAlive()) Tools.kill(process);
        closed = true;
        try {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        } catch (IOException e) {
            // temporary files: nothing more to do
        }
    }
}
