package io.jnet.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.testing.Tools;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * curl, an independent HTTP/1.1 client, against {@link HttpService} (the JDK's server with jnet serve's routes) over
 * the host's TCP: this JVM's provider is the kernel's, and the routes do not depend on the network.
 */
@Timeout(60)
class CurlInteropTest {

    @TempDir
    Path dir;

    private HttpService server;
    private String base;

    @BeforeAll
    static void needsCurl() {
        Tools.assumeHas("curl");
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpService.start(null, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        base = "http://127.0.0.1:" + server.address().getPort();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    /** Runs curl with {@code args}; returns stdout, failing on a non-zero exit. */
    private String curl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--fail", "--max-time", "30"));
        command.addAll(List.of(args));
        Path err = dir.resolve("curl.err");
        Process process = new ProcessBuilder(command).redirectError(err.toFile()).start();
        byte[] out = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(40, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("curl %s: %s", args, Files.readString(err)).isZero();
        return new String(out, StandardCharsets.UTF_8);
    }

    private static String sha256(Path file) throws Exception {
        var digest = java.security.MessageDigest.getInstance("SHA-256");
        digest.update(Files.readAllBytes(file));
        return java.util.HexFormat.of().formatHex(digest.digest());
    }

    @Test
    void downloadsThePattern() throws Exception {
        long n = 5L * 1024 * 1024 + 3;
        Path file = dir.resolve("bytes");
        curl("-o", file.toString(), base + "/bytes/" + n);
        assertThat(Files.size(file)).isEqualTo(n);
        assertThat(sha256(file)).isEqualTo(PatternBytes.sha256(n));
    }

    @Test
    void reusesOneConnectionForSeveralUrls() throws Exception {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        String connects = curl("-w", "%{num_connects}\\n", "-o", a.toString(), base + "/bytes/1000",
                "-o", b.toString(), base + "/bytes/70000");
        assertThat(sha256(a)).isEqualTo(PatternBytes.sha256(1000));
        assertThat(sha256(b)).isEqualTo(PatternBytes.sha256(70000));
        assertThat(connects).as("new connections per transfer").isEqualTo("1\n0\n");
        assertThat(server.requests()).isEqualTo(2);
    }

    @Test
    void uploadsAnswerTheFilesSha256() throws Exception {
        byte[] data = new byte[4 * 1024 * 1024 + 11];
        new Random(3).nextBytes(data);
        Path file = dir.resolve("upload");
        Files.write(file, data);
        String expected = sha256(file) + "\n";
        assertThat(curl("-T", file.toString(), base + "/upload")).isEqualTo(expected);
        assertThat(curl("-T", file.toString(), "-H", "Expect: 100-continue", base + "/upload")).isEqualTo(expected);
        assertThat(curl("-T", file.toString(), "-H", "Expect:", base + "/upload")).isEqualTo(expected);
        assertThat(curl("-T", file.toString(), "-H", "Transfer-Encoding: chunked", base + "/upload")).isEqualTo(expected);
        assertThat(curl("--data-binary", "@" + file, base + "/post")).isEqualTo(expected);
    }

    @Test
    void headAndIndex() throws Exception {
        String head = curl("-I", base + "/bytes/12345");
        // the JDK's server writes its header names as "Content-length"
        assertThat(head).startsWith("HTTP/1.1 200 OK").containsIgnoringCase("Content-Length: 12345")
                .containsIgnoringCase("Content-Type: application/octet-stream");
        assertThat(curl(base + "/")).contains("GET  /bytes/N");
    }
}
