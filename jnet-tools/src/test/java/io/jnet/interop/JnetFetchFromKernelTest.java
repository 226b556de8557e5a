package io.jnet.interop;

import static io.jnet.interop.KernelPeer.KERNEL_IP;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.app.FetchResult;
import io.jnet.app.JnetFetch;
import io.jnet.app.PatternBytes;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.testing.BackgroundProcess;
import io.jnet.testing.LinuxNetns;
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
import org.junit.jupiter.api.io.TempDir;

/** jnet's HTTP client downloads 64 MiB from a kernel-side HTTP server (python3 -m http.server) over the TAP link. */
@Timeout(300)
@Tag("jnet-provider") // the JDK's HTTP classes on jnet: runs in the JVM whose provider is jnet's (see pom.xml)
class JnetFetchFromKernelTest {

    static final long SIZE = 64L << 20;
    static final int PORT = 8000;

    @TempDir
    Path dir;

    @BeforeEach
    void needsRootAndTools() {
        LinuxNetns.assumeAvailable();
        Tools.assumeHas("python3");
    }

    @Test
    void jnetFetches64MiBFromPythonHttpServer() throws Exception {
        Path file = dir.resolve("pattern.bin");
        try (InputStream in = PatternBytes.inputStream(SIZE)) {
            Files.copy(in, file);
        }
        try (KernelPeer peer = KernelPeer.open(null)) {
            startHttpServer(peer, dir);
            JnetFetch fetch = new JnetFetch(peer.jnet(), Duration.ofSeconds(5), Duration.ofSeconds(200));
            FetchResult r = fetchWhenListening(fetch, "http://" + KERNEL_IP + ":" + PORT + "/pattern.bin", OutputStream.nullOutputStream());
            System.out.printf(Locale.ROOT, "jnet fetch of %d MiB from the kernel over TAP: %.2f s, %.1f Mbit/s%n",
                    SIZE >> 20, r.elapsedNanos() / 1e9, r.bitsPerSecond() / 1e6);
            assertThat(r.status()).as("%s\n%s", r, peer.counters()).isEqualTo(200);
            assertThat(r.bytes()).isEqualTo(SIZE);
            assertThat(r.sha256()).isEqualTo(PatternBytes.sha256(SIZE));
            peer.assertNoInternalErrors();
        }
    }

    /** python3 -m http.server on 192.0.2.1:8000 serving {@code root}, in the kernel's namespace. */
    static BackgroundProcess startHttpServer(KernelPeer peer, Path root) throws Exception {
        return peer.netns().start("python3", "-m", "http.server", "--bind", KERNEL_IP, "--directory", root.toString(),
                Integer.toString(PORT));
    }

    /** Fetches once the kernel's server listens: a refused connect (RST) is retried for up to 10 s. */
    static FetchResult fetchWhenListening(JnetFetch fetch, String url, OutputStream sink) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try {
                return fetch.fetch(url, sink);
            } catch (ErrnoException e) {
                if (e.errno() != Errno.ECONNREFUSED || System.nanoTime() > deadline) throw e;
                Thread.sleep(100);
            }
        }
    }
}
