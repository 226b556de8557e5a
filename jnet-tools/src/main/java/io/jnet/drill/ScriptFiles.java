package io.jnet.drill;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The scripts to play: {@code .pkt} files given directly or found under directories (sorted, so runs are
 * repeatable), and the expected failures listed beside them.
 *
 * <p>An {@code expected-failures.txt} file in a script's directory or the nearest directory above it lists, one per line, a script path relative to that
 * directory, then whitespace and the reason ({@code sack/sack-reneging.pkt  jnet does not renege}); {@code #}
 * starts a comment. A listed script that fails is an expected failure; one that passes is reported, so the list
 * does not go stale.
 */
public final class ScriptFiles {
    /** The name of the expected-failures list in a suite directory. */
    public static final String EXPECTED_FAILURES = "expected-failures.txt";

    private final List<Path> scripts = new ArrayList<>();
    private final Map<Path, String> expectedFailures = new LinkedHashMap<>();

    private ScriptFiles() {}

    /**
     * Collects the scripts under {@code paths}.
     *
     * @throws IOException when a path does not exist or cannot be read, or an expected-failures line is malformed
     */
    public static ScriptFiles collect(List<Path> paths) throws IOException {
        ScriptFiles f = new ScriptFiles();
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                List<Path> found;
                try (Stream<Path> s = Files.walk(p)) {
                    found = s.filter(x -> x.toString().endsWith(".pkt") && !Files.isDirectory(x)).sorted().toList();
                }
                if (found.isEmpty()) throw new IOException("no scripts found under " + p);
                for (Path x : found) {
                    // a dangling link is reported, not skipped: its script would silently never play
                    if (!Files.isRegularFile(x)) {
                        throw new IOException((Files.exists(x) ? "not a regular file: " : "a dangling link, no script: ") + x);
                    }
                    f.scripts.add(x);
                    // the list nearest each script: one in a subfolder applies too, not only one at or above p
                    f.readNearestExpectedFailures(x.toAbsolutePath().getParent());
                }
            } else if (Files.isRegularFile(p)) {
                f.scripts.add(p);
                f.readNearestExpectedFailures(p.toAbsolutePath().getParent());
            } else if (Files.isSymbolicLink(p)) {
                throw new IOException("a dangling link, no script: " + p);
            } else if (Files.exists(p)) {
                throw new IOException("not a regular file or a directory: " + p);
            } else {
                throw new IOException("no such script or directory: " + p);
            }
        }
        return f;
    }

    /**
     * Reads the expected-failures list of {@code dir} or of the nearest directory above it that has one (each list
     * once).
     */
    private void readNearestExpectedFailures(Path dir) throws IOException {
        while (dir != null && !Files.exists(dir.resolve(EXPECTED_FAILURES))) dir = dir.getParent();
        if (dir != null && read.add(dir)) readExpectedFailures(dir);
    }

    private final java.util.Set<Path> read = new java.util.HashSet<>();

    /** The same scripts with no expected failure (Linux, the reference, must pass every script). */
    public ScriptFiles withoutExpectedFailures() {
        ScriptFiles f = new ScriptFiles();
        f.scripts.addAll(scripts);
        return f;
    }

    private void readExpectedFailures(Path dir) throws IOException {
        Path list = dir.resolve(EXPECTED_FAILURES);
        if (!Files.exists(list)) return;
        if (!Files.isRegularFile(list)) throw new IOException(list + ": not a regular file");
        Path base = dir.toAbsolutePath().normalize();
        int n = 0;
        for (String raw : read(list).split("\\R", -1)) { // read as scripts are: Latin-1 when not UTF-8, no BOM
            n++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String[] parts = line.split("\\s+", 2);
            if (parts.length < 2) throw new IOException(list + ":" + n + ": a script and its reason are needed: " + line);
            Path script = base.resolve(parts[0]).normalize();
            if (Path.of(parts[0]).isAbsolute() || !script.startsWith(base)) {
                throw new IOException(list + ":" + n + ": " + parts[0] + ": a path relative to this file's folder, inside it, is needed");
            }
            if (!Files.isRegularFile(script)) throw new IOException(list + ":" + n + ": no such script: " + parts[0]);
            if (expectedFailures.putIfAbsent(script, parts[1]) != null) {
                throw new IOException(list + ":" + n + ": " + parts[0] + " is listed twice");
            }
        }
    }

    /** The scripts, in the order to play them. */
    public List<Path> scripts() { return List.copyOf(scripts); }

    /** Why {@code script} is expected to fail, or null when it is expected to pass. */
    public String expectedFailure(Path script) { return expectedFailures.get(script.toAbsolutePath().normalize()); }

    /**
     * A script's text. packetdrill reads bytes: a file that is not valid UTF-8 (a Latin-1 comment) is read as
     * ISO-8859-1, so its ASCII statements still play; a UTF-8 byte-order mark at the start is skipped.
     *
     * @throws IOException when the file cannot be read
     */
    static String read(Path p) throws IOException {
        byte[] b = Files.readAllBytes(p);
        int from = b.length >= 3 && (b[0] & 0xff) == 0xEF && (b[1] & 0xff) == 0xBB && (b[2] & 0xff) == 0xBF ? 3 : 0;
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                    .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(b, from, b.length - from)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            return new String(b, from, b.length - from, StandardCharsets.ISO_8859_1);
        }
    }
}
