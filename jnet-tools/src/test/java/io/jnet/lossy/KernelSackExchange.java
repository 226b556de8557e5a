package io.jnet.lossy;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.app.PatternBytes;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.testing.Tools;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * SACK loss recovery with the Linux kernel as peer, whatever the link: impaired on jnet's side in both directions
 * ({@link #IMPAIRMENT} with the loss given: 1 % reordering of 3 frames, 10 ms at most, 1 ms delay each way, fixed seed),
 * the kernel's curl downloads a number of bytes from jnet's HTTP server and uploads as many to it (jnet sends, then
 * receives), SHA-256 checked; a capture on the wire side of the impairment is then read by tshark (checksums checked),
 * which must find no malformed frame and SACK blocks in TCP from both ends. Without tshark the capture check is
 * skipped with the reason printed.
 */
final class KernelSackExchange {
    static final String IMPAIRMENT = "reorder=1%,reorder-gap=3,reorder-delay=10ms,delay=1ms,seed=31,loss=";
    static final Duration TSHARK_TIMEOUT = Duration.ofSeconds(300);

    /** Sets up an impaired link to the kernel, capturing into the file given. */
    @FunctionalInterface
    interface Link {
        ImpairedPeer open(ImpairmentConfig impairment, Path pcap) throws Exception;
    }

    private KernelSackExchange() {}

    /**
     * Runs the exchange and the capture checks, printing the times of both halves.
     *
     * @param dir a directory for the file to upload and the capture
     * @param linkName the link, as printed ("TAP", "VXLAN tunnel")
     * @param timeout how long each transfer may take
     */
    static void run(Path dir, String linkName, Link link, int lossPercent, long size, Duration timeout) throws Exception {
        Path file = dir.resolve("up.bin");
        try (InputStream in = PatternBytes.inputStream(size)) {
            Files.copy(in, file);
        }
        Path pcap = dir.resolve("sack.pcap");
        String jnetIp;
        String kernelIp;
        String[] tsharkOptions;
        try (ImpairedPeer peer = link.open(ImpairmentConfig.parse(IMPAIRMENT + lossPercent + "%"), pcap)) {
            jnetIp = peer.jnetIp();
            kernelIp = peer.kernelIp();
            tsharkOptions = peer.tsharkOptions();
            peer.serve();
            double getS = peer.kernelDownloads(size, timeout);
            double putS = peer.kernelUploads(file, size, timeout);
            System.out.printf(Locale.ROOT, "%d%% loss, %d MiB each way over an impaired %s: jnet sends in %.1f s, receives in %.1f s%n%s%n",
                    lossPercent, size >> 20, linkName, getS, putS, peer.summary());
            peer.assertImpairedAndClean();
        }
        if (!Tools.has("tshark")) {
            System.out.println("capture check skipped: tshark is not installed");
            return;
        }
        long start = System.nanoTime();
        TsharkChecks.assertNoMalformedFrames(pcap, TSHARK_TIMEOUT, tsharkOptions);
        long fromJnet = TsharkChecks.count(pcap, "ip.src == " + jnetIp + " && tcp.options.sack_le", TSHARK_TIMEOUT, tsharkOptions);
        long fromKernel = TsharkChecks.count(pcap, "ip.src == " + kernelIp + " && tcp.options.sack_le", TSHARK_TIMEOUT, tsharkOptions);
        System.out.printf(Locale.ROOT, "%d%% loss over an impaired %s: %d ACKs with SACK blocks from jnet, %d from the kernel"
                + " (capture of %d MiB read in %.1f s)%n", lossPercent, linkName, fromJnet, fromKernel, Files.size(pcap) >> 20,
                (System.nanoTime() - start) / 1e9);
        assertThat(fromJnet).as("jnet's ACKs with SACK blocks").isPositive();
        assertThat(fromKernel).as("the kernel's ACKs with SACK blocks").isPositive();
    }
}
