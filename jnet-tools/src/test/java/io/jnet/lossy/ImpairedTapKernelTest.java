package io.jnet.lossy;

import static io.jnet.lossy.ImpairedKernelPeer.JNET_IP;
import static io.jnet.lossy.ImpairedKernelPeer.KERNEL_IP;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.app.FetchResult;
import io.jnet.app.JnetFetch;
import io.jnet.app.PatternBytes;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.testing.CommandResult;
import io.jnet.testing.KernelCurlTestBase;
import io.jnet.testing.Tools;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The kernel and jnet over a lossy TAP link: {@link #IMPAIRMENT} on jnet's side, both directions, fixed
 * seed. Kernel curl downloads {@link #SIZE} bytes from and uploads as many to jnet's HTTP server, and jnet
 * fetches as many from a python3 http.server in the kernel's namespace; SHA-256 checked each time. Needs
 * root, curl, python3 (skipped with the reason otherwise).
 */
@Timeout(120)
@Tag("jnet-provider") // the JDK's HTTP classes on jnet: runs in the JVM whose provider is jnet's (see pom.xml)
class ImpairedTapKernelTest extends KernelCurlTestBase {
    static final long SIZE = 16L << 20;
    static final String IMPAIRMENT = "loss=2%,reorder=1%,reorder-gap=3,reorder-delay=10ms,dup=1%,seed=";
    static final Duration TIMEOUT = Duration.ofSeconds(90);
    static final Duration TSHARK_TIMEOUT = Duration.ofSeconds(60);

    @BeforeEach
    void needsPython() {
        Tools.assumeHas("python3");
    }

    @Test
    void kernelCurlDownloadsFromJnet() throws Exception {
        try (ImpairedKernelPeer peer = ImpairedKernelPeer.open(ImpairmentConfig.parse(IMPAIRMENT + 21))) {
            peer.serve();
            long start = System.nanoTime();
            CommandResult r = peer.shell(TIMEOUT, "f=$(mktemp) && trap 'rm -f $f' EXIT && curl -sS --fail --max-time 80 -o $f http://"
                    + JNET_IP + "/bytes/" + SIZE + " && wc -c < $f >&2 && sha256sum < $f");
            report("kernel curl GET", start, peer);
            assertThat(r.ok()).as("%s\n%s", r.describe(), peer.summary()).isTrue();
            assertThat(r.stderr().strip()).as("bytes received").isEqualTo(Long.toString(SIZE));
            assertThat(r.stdout()).startsWith(PatternBytes.sha256(SIZE) + " ");
            peer.assertImpairedAndClean();
        }
    }

    @Test
    void kernelCurlUploadsToJnet() throws Exception {
        Path file = dir.resolve("upload.bin");
        try (InputStream in = PatternBytes.inputStream(SIZE + 1)) {
            in.skip(1); // not the pattern jnet serves
            Files.copy(in, file);
        }
        String expected = Tools.run(Duration.ofSeconds(30), "sha256sum", file.toString()).checkSuccess().stdout().substring(0, 64);
        try (ImpairedKernelPeer peer = ImpairedKernelPeer.open(ImpairmentConfig.parse(IMPAIRMENT + 22))) {
            peer.serve();
            long start = System.nanoTime();
            CommandResult r = peer.netns().exec(TIMEOUT, "curl", "-sS", "--fail", "--max-time", "80", "-T", file.toString(),
                    "http://" + JNET_IP + "/upload");
            report("kernel curl PUT", start, peer);
            assertThat(r.ok()).as("%s\n%s", r.describe(), peer.summary()).isTrue();
            assertThat(r.stdout()).as("SHA-256 computed by jnet").isEqualTo(expected + "\n");
            peer.assertImpairedAndClean();
        }
    }

    @Test
    void jnetFetchesFromKernelHttpServer() throws Exception {
        Path file = dir.resolve("pattern.bin");
        try (InputStream in = PatternBytes.inputStream(SIZE)) {
            Files.copy(in, file);
        }
        try (ImpairedKernelPeer peer = ImpairedKernelPeer.open(ImpairmentConfig.parse(IMPAIRMENT + 23))) {
            peer.netns().start("python3", "-m", "http.server", "--bind", KERNEL_IP, "--directory", dir.toString(), "8000");
            JnetFetch fetch = new JnetFetch(peer.jnet(), Duration.ofSeconds(5), TIMEOUT);
            long start = System.nanoTime();
            FetchResult r = fetchWhenListening(fetch, "http://" + KERNEL_IP + ":8000/pattern.bin");
            report("jnet fetch GET", start, peer);
            assertThat(r.status()).as("%s\n%s", r, peer.summary()).isEqualTo(200);
            assertThat(r.bytes()).isEqualTo(SIZE);
            assertThat(r.sha256()).isEqualTo(PatternBytes.sha256(SIZE));
            peer.assertImpairedAndClean();
        }
    }

    /**
     * SACK both ways with the kernel (RFC 2018): over the lossy link the kernel downloads and uploads 2 MiB; the
     * capture shows SACK blocks from jnet (for the kernel's lost segments) and from the kernel (for jnet's), and
     * tshark, checksums checked, finds no malformed frame or expert error in it.
     */
    @Test
    void sackBlocksBothWaysDecodeCleanly() throws Exception {
        Tools.assumeHas("tshark");
        long n = 2L << 20;
        Path file = dir.resolve("up.bin");
        try (InputStream in = PatternBytes.inputStream(n)) {
            Files.copy(in, file);
        }
        Path pcap = dir.resolve("sack.pcap");
        try (ImpairedKernelPeer peer = ImpairedKernelPeer.open(ImpairmentConfig.parse(IMPAIRMENT + 24), pcap)) {
            peer.serve();
            CommandResult get = peer.shell(TIMEOUT, "curl -sS --fail --max-time 80 http://" + JNET_IP + "/bytes/" + n + " | sha256sum");
            assertThat(get.ok()).as("%s\n%s", get.describe(), peer.summary()).isTrue();
            assertThat(get.stdout()).startsWith(PatternBytes.sha256(n) + " ");
            CommandResult put = peer.netns().exec(TIMEOUT, "curl", "-sS", "--fail", "--max-time", "80", "-T", file.toString(),
                    "http://" + JNET_IP + "/upload");
            assertThat(put.ok()).as("%s\n%s", put.describe(), peer.summary()).isTrue();
            assertThat(put.stdout()).isEqualTo(PatternBytes.sha256(n) + "\n");
            peer.assertImpairedAndClean();
        }
        TsharkChecks.assertNoMalformedFrames(pcap, TSHARK_TIMEOUT);
        long fromJnet = TsharkChecks.count(pcap, "ip.src == " + JNET_IP + " && tcp.options.sack_le", TSHARK_TIMEOUT);
        long fromKernel = TsharkChecks.count(pcap, "ip.src == " + KERNEL_IP + " && tcp.options.sack_le", TSHARK_TIMEOUT);
        long dsackFromJnet = TsharkChecks.count(pcap, "ip.src == " + JNET_IP + " && tcp.options.sack.dsack_le", TSHARK_TIMEOUT);
        System.out.printf("SACK over an impaired TAP: %d ACKs with SACK blocks from jnet (%d with D-SACK), %d from the kernel%n",
                fromJnet, dsackFromJnet, fromKernel);
        assertThat(fromJnet).as("jnet's ACKs with SACK blocks").isPositive();
        assertThat(fromKernel).as("the kernel's ACKs with SACK blocks").isPositive();
    }

    /** Fetches once the kernel's server listens: a refused connect is retried for up to 10 s. */
    static FetchResult fetchWhenListening(JnetFetch fetch, String url) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try {
                return fetch.fetch(url, OutputStream.nullOutputStream());
            } catch (ErrnoException e) {
                if (e.errno() != Errno.ECONNREFUSED || System.nanoTime() > deadline) throw e;
                Thread.sleep(100);
            }
        }
    }

    static void report(String what, long startNanos, ImpairedKernelPeer peer) {
        double s = (System.nanoTime() - startNanos) / 1e9;
        System.out.printf(Locale.ROOT, "%s of %d MiB over an impaired TAP (%s): %.2f s, %.1f Mbit/s%n%s%n", what, SIZE >> 20,
                peer.impaired().config(), s, SIZE * 8 / s / 1e6, peer.summary());
    }
}
