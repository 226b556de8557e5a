package io.jnet.lossy;

import static io.jnet.lossy.ImpairedKernelPeer.JNET_IP;
import static io.jnet.lossy.ImpairedKernelPeer.KERNEL_IP;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.app.PatternBytes;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.testing.CommandResult;
import io.jnet.testing.KernelCurlTestBase;
import io.jnet.testing.Tools;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SACK loss recovery with the Linux kernel as peer over a TAP link ({@link ImpairedKernelPeer}: jnet at 192.0.2.2,
 * the kernel at 192.0.2.1 in a namespace the test creates and removes, no default route), impaired on jnet's side in
 * both directions: loss as given, 1 % reordering (3 frames, 10 ms at most), 1 ms delay each way, fixed seed. The
 * kernel's curl downloads {@link #SIZE} bytes from jnet's HTTP server and uploads as many to it (jnet sends, then
 * receives), SHA-256 checked; the capture on the TAP side of the impairment is then read by tshark (checksums
 * checked), which must find no malformed frame and SACK blocks from both ends. Needs root, curl and bash; without
 * tshark the capture check is skipped with the reason printed. The 64 MiB variants are tagged long.
 *
 * <p>Cost on a 2-core machine: about 5 s at 1 %, 13 s at 5 % and 150 s at 15 % (jnet's sending half: some 300
 * retransmission timeouts, where the kernel sending the same 8 MiB to jnet over the same link has none and takes
 * 2.5 s), with 10 to 20 s of tshark for each capture.
 */
class ImpairedTapSackKernelTest extends KernelCurlTestBase {
    static final long SIZE = 8L << 20;
    static final long LONG_SIZE = 64L << 20;
    static final Duration TSHARK_TIMEOUT = Duration.ofSeconds(300);
    static final String IMPAIRMENT = "reorder=1%,reorder-gap=3,reorder-delay=10ms,delay=1ms,seed=31,loss=";

    @ParameterizedTest(name = "{0}% loss, 8 MiB each way")
    @ValueSource(ints = {1, 5, 15})
    @Timeout(600)
    void eightMebibytesEachWayByteExactWithSackBothWays(int lossPercent) throws Exception {
        run(lossPercent, SIZE);
    }

    @ParameterizedTest(name = "{0}% loss, 64 MiB each way")
    @ValueSource(ints = {1, 5, 15})
    @Tag("long")
    @Timeout(3600)
    void sixtyFourMebibytesEachWay(int lossPercent) throws Exception {
        run(lossPercent, LONG_SIZE);
    }

    private void run(int lossPercent, long size) throws Exception {
        Path file = dir.resolve("up.bin");
        try (InputStream in = PatternBytes.inputStream(size)) {
            Files.copy(in, file);
        }
        Path pcap = dir.resolve("sack.pcap");
        Duration timeout = Duration.ofSeconds(size > SIZE ? 3000 : 500);
        String maxTime = Long.toString(timeout.toSeconds() - 10);
        try (ImpairedKernelPeer peer = ImpairedKernelPeer.open(ImpairmentConfig.parse(IMPAIRMENT + lossPercent + "%"), pcap)) {
            peer.serve();
            long start = System.nanoTime();
            CommandResult get = peer.shell(timeout, "curl -sS --fail --max-time " + maxTime + " http://" + JNET_IP + "/bytes/"
                    + size + " | sha256sum");
            double getS = (System.nanoTime() - start) / 1e9;
            assertThat(get.ok()).as("%s\n%s", get.describe(), peer.summary()).isTrue();
            assertThat(get.stdout()).startsWith(PatternBytes.sha256(size) + " ");
            start = System.nanoTime();
            CommandResult put = peer.netns().exec(timeout, "curl", "-sS", "--fail", "--max-time", maxTime, "-T", file.toString(),
                    "http://" + JNET_IP + "/upload");
            double putS = (System.nanoTime() - start) / 1e9;
            assertThat(put.ok()).as("%s\n%s", put.describe(), peer.summary()).isTrue();
            assertThat(put.stdout()).isEqualTo(PatternBytes.sha256(size) + "\n");
            System.out.printf(Locale.ROOT, "%d%% loss, %d MiB each way over an impaired TAP: jnet sends in %.1f s, receives in %.1f s%n%s%n",
                    lossPercent, size >> 20, getS, putS, peer.summary());
            ImpairedTapKernelTest.assertImpairedAndClean(peer);
        }
        if (!Tools.has("tshark")) {
            System.out.println("capture check skipped: tshark is not installed");
            return;
        }
        TsharkChecks.assertNoMalformedFrames(pcap, TSHARK_TIMEOUT);
        long fromJnet = TsharkChecks.count(pcap, "ip.src == " + JNET_IP + " && tcp.options.sack_le", TSHARK_TIMEOUT);
        long fromKernel = TsharkChecks.count(pcap, "ip.src == " + KERNEL_IP + " && tcp.options.sack_le", TSHARK_TIMEOUT);
        System.out.printf("%d%% loss: %d ACKs with SACK blocks from jnet, %d from the kernel%n", lossPercent, fromJnet, fromKernel);
        assertThat(fromJnet).as("jnet's ACKs with SACK blocks").isPositive();
        assertThat(fromKernel).as("the kernel's ACKs with SACK blocks").isPositive();
    }
}
