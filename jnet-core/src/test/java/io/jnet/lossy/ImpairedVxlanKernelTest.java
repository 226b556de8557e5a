package io.jnet.lossy;

import static io.jnet.testing.VxlanKernelPeer.JNET_INNER;
import static io.jnet.testing.VxlanKernelPeer.KERNEL_INNER;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.link.impair.Direction;
import io.jnet.link.impair.ImpairedDevice;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.link.vxlan.VxlanDevice;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.KernelSha256Exchange;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import io.jnet.testing.VxlanKernelPeer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel and jnet over a lossy VXLAN tunnel: jnet's {@link VxlanDevice} wrapped in an
 * {@link ImpairedDevice} ({@link #IMPAIRMENT}, both directions, fixed seed), a Linux {@code vxlan}
 * interface in a test namespace as its peer ({@link VxlanKernelPeer}: inner 198.51.100.1 kernel and
 * 198.51.100.2 jnet). A kernel TCP client
 * (python3) uploads {@link #SIZE} bytes to jnet and jnet uploads as many to a kernel server; each side
 * answers with the SHA-256 it computed. Needs root, ethtool, python3.
 */
@Timeout(120)
class ImpairedVxlanKernelTest {
    static final int SIZE = 8 << 20;
    static final String IMPAIRMENT = "loss=2%,reorder=1%,reorder-gap=3,reorder-delay=10ms,dup=1%,seed=31";

    @BeforeEach
    void needsRootAndTools() {
        LinuxNetns.assumeAvailable();
        Tools.assumeHas("ethtool");
        Tools.assumeHas("python3");
    }

    @Test
    void uploadsBothWaysThroughLossyVxlan(@TempDir Path tmp) throws Exception {
        try (VxlanKernelPeer peer = VxlanKernelPeer.open("jlv", "vxlan-lossy")) {
            LinuxNetns ns = peer.netns();
            NetNamespace jnet = peer.jnet();
            ImpairedDevice impaired = ImpairedDevice.interpose(jnet, "vx0", ImpairmentConfig.parse(IMPAIRMENT));

            byte[] data = new byte[SIZE];
            new Random(31).nextBytes(data);
            String digest = KernelSha256Exchange.sha256(data);
            Path file = tmp.resolve("data.bin");
            Files.write(file, data);

            long start = System.nanoTime();
            KernelSha256Exchange.kernelSendsToJnet(ns, jnet, JNET_INNER, 5001, file, SIZE, digest, Duration.ofSeconds(30));
            report("kernel -> jnet", start, impaired, jnet);
            start = System.nanoTime();
            KernelSha256Exchange.jnetSendsToKernel(ns, jnet, KERNEL_INNER, 5002, data, 65536, digest, Duration.ofSeconds(30));
            report("jnet -> kernel", start, impaired, jnet);

            for (Direction d : Direction.values()) assertThat(impaired.counts(d).dropped()).as("%s drops", d).isPositive();
            assertThat(jnet.internalErrors()).isZero();
            assertThat(peer.vtep().stats().rxErrors.sum()).as(peer.vtep().stats().toString()).isZero();
            assertThat(jnet.mib().get(MibCounter.TcpInCsumErrors)).isZero();
        }
    }

    static void report(String what, long startNanos, ImpairedDevice d, NetNamespace jnet) {
        double s = (System.nanoTime() - startNanos) / 1e9;
        System.out.printf(Locale.ROOT, "%s, %d MiB over an impaired VXLAN tunnel (%s): %.2f s, %.1f Mbit/s; jnet retransmitted %d"
                + " (%d timeouts)%n  egress %s%n  ingress %s%n", what, SIZE >> 20, d.config(), s, SIZE * 8 / s / 1e6,
                jnet.mib().get(MibCounter.TcpRetransSegs), jnet.mib().get(MibCounter.TcpExtTCPTimeouts),
                d.counts(Direction.EGRESS).summary(), d.counts(Direction.INGRESS).summary());
    }
}
