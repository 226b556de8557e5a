package io.jnet.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds and runs the command-line tools that interop tests use (ip, ping, tshark, tcpdump, curl,
 * socat, ...). Tests that need a tool call {@link #assumeHas(String)} so they are skipped, with the
 * reason, where it is not installed.
 */
public final class Tools {

    /** Directories searched besides {@code PATH}: administration tools live in sbin. */
    private static final List<String> EXTRA_DIRS = List.of("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin");

    private Tools() {}

    /** The executable named {@code cmd} on {@code PATH} or in the sbin/bin directories, if any. */
    public static Optional<Path> find(String cmd) {
        if (cmd.contains("/")) {
            Path p = Path.of(cmd);
            return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        Set<String> dirs = new LinkedHashSet<>();
        String path = System.getenv("PATH");
        if (path != null) dirs.addAll(List.of(path.split(File.pathSeparator)));
        dirs.addAll(EXTRA_DIRS);
        for (String dir : dirs) {
            if (dir.isEmpty()) continue;
            Path p = Path.of(dir, cmd);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    /** True when {@code cmd} is installed. */
    public static boolean has(String cmd) {
        return find(cmd).isPresent();
    }

    /** Skips the calling test (JUnit assumption) when {@code cmd} is not installed. */
    public static void assumeHas(String cmd) {
        Assumptions.assumeTrue(has(cmd), () -> "'" + cmd + "' is not installed; .ci/run installs it");
    }

    /**
     * Runs a command in this host's network namespace until it exits or {@code timeout} passes (then it
     * and its descendants are killed). The first word is looked up with {@link #find(String)}.
     *
     * @throws IOException when the command cannot be started
     */
    public static CommandResult run(Duration timeout, String... cmd) throws IOException {
        return run(timeout, List.of(cmd));
    }

    /** As {@link #run(Duration, String...)}. */
    public static CommandResult run(Duration timeout, List<String> cmd) throws IOException {
        List<String> command = resolve(cmd);
        Path out = Files.createTempFile("jnet-cmd", ".out");
        Path err = Files.createTempFile("jnet-cmd", ".err");
        try {
            Process p = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            boolean finished;
            try {
                finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                finished = false;
            }
            if (!finished) kill(p);
            return new CommandResult(command, finished ? p.exitValue() : -1,
                    text(out), text(err), !finished);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** A command's output as UTF-8; bytes that are not UTF-8 (binary output) become U+FFFD instead of failing. */
    static String text(Path file) throws IOException {
        return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    }

    /** Replaces the first word by its full path when it can be found (sbin may be missing from PATH). */
    static List<String> resolve(List<String> cmd) {
        if (cmd.isEmpty()) throw new IllegalArgumentException("empty command");
        List<String> command = new ArrayList<>(cmd);
        find(command.get(0)).ifPresent(p -> command.set(0, p.toString()));
        return command;
    }

    /** Kills a process and everything it started, forcibly, and waits briefly for it to go. */
    static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        try {
            p.waitFor(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
