package io.jnet.drill.kernel;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Runs iproute2's {@code ip} (found on PATH or in the sbin directories) and reports failures with its output.
 */
final class IpCommand {

    private static final long TIMEOUT_SECONDS = 10;
    private static final List<String> EXTRA_DIRS = List.of("/usr/local/sbin", "/usr/sbin", "/sbin", "/usr/bin", "/bin");

    private IpCommand() {}

    /** The {@code ip} executable, if installed. */
    static Optional<Path> find() {
        Set<String> dirs = new LinkedHashSet<>();
        String path = System.getenv("PATH");
        if (path != null) dirs.addAll(List.of(path.split(File.pathSeparator)));
        dirs.addAll(EXTRA_DIRS);
        for (String dir : dirs) {
            if (dir.isEmpty()) continue;
            Path p = Path.of(dir, "ip");
            if (Files.isRegularFile(p) && Files.isExecutable(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    /**
     * Runs {@code ip ARGS...}, feeding {@code stdin} (null for none), and returns its standard output.
     *
     * @throws IOException when ip is missing, cannot start, exits non-zero (message: the command and its stderr) or
     *     runs longer than 10 s
     */
    static String run(String stdin, String... args) throws IOException {
        Path ip = find().orElseThrow(() -> new IOException("'ip' (iproute2) is not installed"));
        List<String> cmd = new ArrayList<>();
        cmd.add(ip.toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        try {
            try (var in = p.getOutputStream()) {
                if (stdin != null) in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            // ip's output is small: read it after exit would risk a full pipe only for huge outputs
            byte[] out = p.getInputStream().readAllBytes();
            byte[] err = p.getErrorStream().readAllBytes();
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + ": timed out");
            }
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", cmd) + (stdin == null ? "" : " <<< " + stdin.strip().replace('\n', ';'))
                        + ": exit " + p.exitValue() + ": " + new String(err, StandardCharsets.UTF_8).strip());
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(String.join(" ", cmd) + ": interrupted", e);
        }
    }
}
