package io.jnet.interop;

import static io.jnet.interop.KernelPeer.JNET_IP;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.app.JnetServer;
import io.jnet.app.PatternBytes;
import io.jnet.testing.CommandResult;
import io.jnet.testing.KernelCurlTestBase;
import io.jnet.testing.Tools;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The kernel's curl downloads 64 MiB from and uploads 64 MiB to jnet's HTTP server over the TAP link. */
@Timeout(300)
@Tag("jnet-provider") // the JDK's HTTP classes on jnet: runs in the JVM whose provider is jnet's (see pom.xml)
class KernelCurlTest extends KernelCurlTestBase {

    static final long SIZE = 64L << 20;
    static final Duration CURL_TIMEOUT = Duration.ofSeconds(200);

    @Test
    void curlDownloads64MiB() throws Exception {
        try (KernelPeer peer = KernelPeer.open(null)) {
            peer.serve();
            long start = System.nanoTime();
            CommandResult r = peer.shell(CURL_TIMEOUT, "f=$(mktemp) && trap 'rm -f $f' EXIT && curl -sS --fail --max-time 180 -o $f http://"
                    + JNET_IP + "/bytes/" + SIZE + " && wc -c < $f >&2 && sha256sum < $f");
            report("GET", start);
            System.out.println("jnet after GET: " + peer.jnet().mib().toNstatString().lines()
                    .filter(l -> l.contains("Retrans") || l.contains("OutSegs") || l.contains("InSegs")).toList());
            assertThat(r.ok()).as("%s\n%s", r.describe(), peer.counters()).isTrue();
            assertThat(r.stderr().strip()).as("bytes received").isEqualTo(Long.toString(SIZE));
            assertThat(r.stdout()).startsWith(PatternBytes.sha256(SIZE) + " ");
            peer.assertNoInternalErrors();
        }
    }

    @Test
    void curlUploads64MiBWithExpectContinue() throws Exception {
        Path file = dir.resolve("upload.bin");
        // deterministic bytes, offset by one so they are not the pattern jnet serves
        try (InputStream in = PatternBytes.inputStream(SIZE + 1)) {
            in.skip(1);
            Files.copy(in, file);
        }
        String expected = sha256sum(file);
        try (KernelPeer peer = KernelPeer.open(null)) {
            JnetServer server = peer.serve();
            long start = System.nanoTime();
            CommandResult r = peer.exec(CURL_TIMEOUT, "curl", "-sS", "-v", "--fail", "--max-time", "180",
                    "-T", file.toString(), "http://" + JNET_IP + "/upload");
            report("PUT", start);
            System.out.println("jnet after PUT: " + peer.jnet().mib().toNstatString().lines()
                    .filter(l -> l.contains("Retrans") || l.contains("OutSegs") || l.contains("InSegs") || l.contains("Ofo")).toList());
            assertThat(r.ok()).as("%s\n%s", r.describe(), peer.counters()).isTrue();
            assertThat(r.stdout()).isEqualTo(expected + "\n");
            assertThat(r.stderr()).as("curl asked for 100-continue").contains("> Expect: 100-continue")
                    .contains("< HTTP/1.1 100 Continue");
            assertThat(server.http().responses(2)).isEqualTo(1);
            peer.assertNoInternalErrors();
        }
    }

    private static String sha256sum(Path file) throws Exception {
        CommandResult r = Tools.run(Duration.ofSeconds(60), "sha256sum", file.toString()).checkSuccess();
        return r.stdout().substring(0, 64);
    }

    private static void report(String what, long startNanos) {
        double s = (System.nanoTime() - startNanos) / 1e9;
        System.out.printf(Locale.ROOT, "kernel curl %s of %d MiB over TAP: %.2f s, %.1f Mbit/s%n", what, SIZE >> 20, s,
                SIZE * 8 / s / 1e6);
    }
}
