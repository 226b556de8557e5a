package io.jnet.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds and runs the command-line tools that interop tests use (ip, ping, tshark, tcpdump, curl,
 * ethtool, python3, dnsmasq, ...). Tests that need a tool call {@link #assumeHas(String)} so they are skipped,
 * with the reason, where it is not installed; a command that is not installed when {@link #run} or
 * {@link LinuxNetns} is asked to start it skips the test the same way instead of failing it. The skip
 * reason shows on the console of {@code ./test.sh} ({@link SkippedTestReporter}).
 */
public final class Tools {

    /**
     * The commands the tests run and the Debian package of each: the list {@code .ci/run} installs and
     * the README's set-up section names ({@code ToolListTest} keeps the three the same). tcpdump is
     * optional (tshark does the same job) and {@code sh}, {@code bash}, {@code sha256sum}, {@code sleep}
     * come with every Debian system.
     */
    public static final Map<String, String> DEBIAN_PACKAGES = orderedMap(
            "curl", "curl",
            "tshark", "tshark",
            "ip", "iproute2",
            "bridge", "iproute2",
            "nstat", "iproute2",
            "ping", "iputils-ping",
            "python3", "python3",
            "ethtool", "ethtool",
            "dnsmasq", "dnsmasq-base");

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

    /** Skips the calling test (JUnit assumption) when {@code cmd} is not installed, saying which package has it. */
    public static void assumeHas(String cmd) {
        Assumptions.assumeTrue(has(cmd), () -> notInstalled(cmd));
    }

    /** The skip reason for a missing command. */
    static String notInstalled(String cmd) {
        String pkg = DEBIAN_PACKAGES.get(cmd);
        return "'" + cmd + "' is not installed" + (pkg == null ? "" : " (Debian package " + pkg + "; .ci/run installs it)");
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

    /**
     * Replaces the first word by its full path (sbin may be missing from PATH). A command that is not
     * installed skips the calling test (JUnit assumption) with the reason.
     */
    static List<String> resolve(List<String> cmd) {
        if (cmd.isEmpty()) throw new IllegalArgumentException("empty command");
        List<String> command = new ArrayList<>(cmd);
        command.set(0, require(command.get(0)).toString());
        return command;
    }

    /** The full path of {@code cmd}; skips the calling test (JUnit assumption) when it is not installed. */
    static Path require(String cmd) {
        Optional<Path> p = find(cmd);
        Assumptions.assumeTrue(p.isPresent(), () -> notInstalled(cmd));
        return p.orElseThrow();
    }

    private static Map<String, String> orderedMap(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return Collections.unmodifiableMap(m);
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
