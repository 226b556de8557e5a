package io.jnet.lossy;

import static io.jnet.lossy.ImpairedKernelPeer.JNET_IP;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.app.PatternBytes;
import io.jnet.link.impair.Direction;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.stack.MibCounter;
import io.jnet.testing.CommandResult;
import io.jnet.testing.KernelCurlTestBase;
import io.jnet.testing.Tools;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Goodput of jnet's loss recovery against the Linux kernel's over one TAP link impaired the same in both directions
 * ({@link ImpairedKernelPeer}): loss as given, 2 % reordering (3 frames, 10 ms at most), 20 ms delay each way (an RTT
 * of 40 ms), fixed seed; and a new user's first try, {@code serve --impair loss=5%,reorder=3%,dup=2%,corrupt=1%}
 * with no delay. The kernel's curl downloads {@link #SIZE} bytes from jnet's HTTP server (jnet sends), then uploads as
 * many to it twice (the kernel sends, with its own SACK and RACK-TLP): with Reno, jnet's congestion control, which
 * makes the ratio one of loss recovery alone, then with the namespace's default congestion control. SHA-256 checked.
 * Prints one line per case: each sender's time and goodput, the goodput ratio jnet / kernel, and each sender's
 * retransmission ratio: its {@code TcpRetransSegs} over the frames the impairment dropped on its way out during that
 * transfer (nearly all data segments; the transfer's few control segments count too, and frames the impairment
 * corrupted are not in it though they are resent). A benchmark: it asserts only that the bytes arrived intact;
 * tagged long ({@code ./test.sh -Djnet.long=true -Dtest=ImpairedTapGoodputTest}, {@code -Djnet.goodput.loss=5}
 * for one rate). Needs root, curl, bash and ping.
 */
@Tag("long")
@Tag("jnet-provider") // the JDK's HTTP classes on jnet: runs in the JVM whose provider is jnet's (see pom.xml)
class ImpairedTapGoodputTest extends KernelCurlTestBase {
    @BeforeEach
    void needsPing() {
        Tools.assumeHas("ping");
    }

    static final long SIZE = 16L << 20;
    /**
     * The kernel sends with Reno first (net.ipv4.tcp_congestion_control in its namespace), as jnet, so that the ratio
     * compares loss recovery alone; then with the namespace's default (CUBIC in Linux's defconfig, BBR on some
     * machines), whose response to loss jnet does not have.
     */
    static final String REFERENCE_CONGESTION_CONTROL = "reno";
    static final String IMPAIRMENT = "reorder=2%,reorder-gap=3,reorder-delay=10ms,delay=20ms,seed=47,limit=100000,loss=";

    /** The loss rates, percent: {@code -Djnet.goodput.loss=5} (comma-separated) picks some; 1, 5 and 15 by default. */
    static IntStream lossPercents() {
        return Arrays.stream(System.getProperty("jnet.goodput.loss", "1,5,15").split(",")).mapToInt(v -> Integer.parseInt(v.trim()));
    }

    @ParameterizedTest(name = "{0}% loss, 16 MiB each way, 20 ms delay")
    @MethodSource("lossPercents")
    @Timeout(3600)
    void goodputAndRetransmissionRatios(int lossPercent) throws Exception {
        run(IMPAIRMENT + lossPercent + "%", lossPercent + "% loss, 20 ms");
    }

    /**
     * The case of a new user's first try: {@code ./jnet serve --impair loss=5%,reorder=3%,dup=2%,corrupt=1%} and the
     * kernel's curl, on a link with no delay of its own.
     */
    @Test
    @Timeout(3600)
    void newUsersServeWithFivePercentLossReorderDuplicationAndCorruption() throws Exception {
        run("loss=5%,reorder=3%,dup=2%,corrupt=1%,seed=53,limit=100000", "serve --impair loss=5%,reorder=3%,dup=2%,corrupt=1%");
    }

    private void run(String impairment, String label) throws Exception {
        Path file = dir.resolve("up.bin");
        try (InputStream in = PatternBytes.inputStream(SIZE)) {
            Files.copy(in, file);
        }
        Duration timeout = Duration.ofSeconds(1700);
        try (ImpairedKernelPeer peer = ImpairedKernelPeer.open(ImpairmentConfig.parse(impairment))) {
            peer.serve();
            // both ends' ARP entries first: at 15 % loss three ARP requests in a row can go unanswered, and a connect
            // then fails with EHOSTUNREACH
            CommandResult arp = peer.shell(Duration.ofSeconds(60),
                    "for i in $(seq 30); do ping -c 1 -W 1 " + JNET_IP + " >/dev/null && exit 0; done; exit 1");
            assertThat(arp.ok()).as("ping %s\n%s", JNET_IP, arp.describe()).isTrue();
            long retrans0 = peer.jnet().mib().get(MibCounter.TcpRetransSegs);
            long dropped0 = peer.impaired().counts(Direction.EGRESS).dropped();
            long timeouts0 = peer.jnet().mib().get(MibCounter.TcpExtTCPTimeouts);
            double jnetS = peer.kernelDownloads(SIZE, timeout);
            long jnetRetrans = peer.jnet().mib().get(MibCounter.TcpRetransSegs) - retrans0;
            long jnetDropped = peer.impaired().counts(Direction.EGRESS).dropped() - dropped0;
            long jnetTimeouts = peer.jnet().mib().get(MibCounter.TcpExtTCPTimeouts) - timeouts0;
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "GOODPUT %s | jnet (reno) %6.1f s %6.2f Mbit/s, retransmitted/dropped %d/%d = %.2f, %d RTOs",
                    label, jnetS, SIZE * 8 / jnetS / 1e6, jnetRetrans, jnetDropped, ratio(jnetRetrans, jnetDropped),
                    jnetTimeouts));
            String defaultCc = peer.netns().exec("cat", "/proc/sys/net/ipv4/tcp_congestion_control").stdout().strip();
            for (String cc : List.of(REFERENCE_CONGESTION_CONTROL, defaultCc)) {
                peer.netns().sysctl("net.ipv4.tcp_congestion_control", cc);
                long kRetrans0 = peer.kernelCounter("TcpRetransSegs");
                long kTimeouts0 = peer.kernelCounter("TcpExtTCPTimeouts");
                long kDropped0 = peer.impaired().counts(Direction.INGRESS).dropped();
                double kernelS = peer.kernelUploads(file, SIZE, timeout);
                long kRetrans = peer.kernelCounter("TcpRetransSegs") - kRetrans0;
                long kDropped = peer.impaired().counts(Direction.INGRESS).dropped() - kDropped0;
                long kTimeouts = peer.kernelCounter("TcpExtTCPTimeouts") - kTimeouts0;
                line.append(String.format(Locale.ROOT,
                        " | kernel (%s) %6.1f s %6.2f Mbit/s, retransmitted/dropped %d/%d = %.2f, %d RTOs: jnet/kernel %.2f",
                        cc, kernelS, SIZE * 8 / kernelS / 1e6, kRetrans, kDropped, ratio(kRetrans, kDropped), kTimeouts,
                        kernelS / jnetS));
                System.out.println(line);
            }
            System.out.println(line);
            System.out.println(peer.summary());
            System.out.println("kernel: " + peer.kernelCounters("TcpExtTCPSackRecovery", "TcpExtTCPLossUndo", "TcpExtTCPFullUndo",
                    "TcpExtTCPPartialUndo", "TcpExtTCPDSACKUndo", "TcpExtTCPSpuriousRTOs", "TcpExtTCPDSACKRecv",
                    "TcpExtTCPLossProbes", "TcpExtTCPSACKReorder", "TcpExtTCPTSReorder"));
            System.out.println("jnet: " + jnetCounters(peer));
        }
    }

    private static String jnetCounters(ImpairedKernelPeer peer) {
        StringBuilder b = new StringBuilder();
        for (MibCounter m : new MibCounter[] {MibCounter.TcpExtTCPSackRecovery, MibCounter.TcpExtTCPLossUndo,
                MibCounter.TcpExtTCPFullUndo, MibCounter.TcpExtTCPPartialUndo, MibCounter.TcpExtTCPDSACKUndo,
                MibCounter.TcpExtTCPSpuriousRTOs, MibCounter.TcpExtTCPDSACKRecv, MibCounter.TcpExtTCPLossProbes,
                MibCounter.TcpExtTCPSACKReorder, MibCounter.TcpExtTCPTSReorder}) {
            b.append(b.isEmpty() ? "" : ", ").append(m.name()).append(' ').append(peer.jnet().mib().get(m));
        }
        return b.toString();
    }

    private static double ratio(long a, long b) { return b == 0 ? Double.NaN : (double) a / b; }
}
