package io.jnet.link.vxlan;

import static io.jnet.testing.VxlanKernelPeer.HOST_UNDERLAY;
import static io.jnet.testing.VxlanKernelPeer.JNET_INNER;
import static io.jnet.testing.VxlanKernelPeer.KERNEL_INNER;
import static io.jnet.testing.VxlanKernelPeer.NETNS_UNDERLAY;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.icmp.IcmpProtocol;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.CommandResult;
import io.jnet.testing.KernelSha256Exchange;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import io.jnet.testing.VxlanKernelPeer;
import io.jnet.wire.Ipv4;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * VxlanDevice against a Linux {@code vxlan} interface ({@link VxlanKernelPeer}: underlay veth from this
 * host's namespace to a test namespace, VNI 42, kernel 198.51.100.1, jnet 198.51.100.2): ping both ways,
 * FDB learning on both sides, and 4 MiB of TCP each way checked by SHA-256.
 */
class VxlanKernelInteropTest {
    static final int SIZE = 4 << 20;

    @BeforeEach
    void needsRootAndTools() {
        LinuxNetns.assumeAvailable();
        Tools.assumeHas("ping");
        Tools.assumeHas("ethtool");
        Tools.assumeHas("python3");
    }

    @Test
    void kernelPingsAndExchangesTcpWithJnetThroughVxlan(@TempDir Path tmp) throws Exception {
        String hostVeth;
        try (VxlanKernelPeer peer = VxlanKernelPeer.open("jvx", "vxlan-interop")) {
            hostVeth = peer.hostVeth();
            LinuxNetns ns = peer.netns();
            NetNamespace jnet = peer.jnet();
            VxlanDevice vtep = peer.vtep();
            int port = vtep.localAddress().getPort();
            assertThat(ns.execChecked("ip", "-d", "link", "show", "vx0").stdout()).contains("mtu 1450", "vxlan id 42");

            CommandResult ping = ns.exec(Duration.ofSeconds(20), "ping", "-n", "-c", "3", "-i", "0.2", "-W", "2", JNET_INNER);
            assertThat(ping.ok()).as(ping.describe()).isTrue();
            assertThat(ping.stdout()).contains("3 received");
            // the Linux side learned jnet's MAC behind the host's underlay address, jnet the kernel's behind the netns one
            assertThat(ns.execChecked("bridge", "fdb", "show", "dev", "vx0").stdout())
                    .contains(io.jnet.wire.Ethernet.macToString(vtep.macAddress()) + " dst " + HOST_UNDERLAY);
            assertThat(vtep.fdb().entries()).anySatisfy(e -> assertThat(e.remote())
                    .isEqualTo(new InetSocketAddress(NETNS_UNDERLAY, port)));

            // jnet pings the kernel
            IcmpProtocol icmp = jnet.extension(IcmpProtocol.class);
            assertThat(icmp.sendEcho(Ipv4.parseAddress(KERNEL_INNER), 9, 1, new byte[56])).isZero();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (jnet.mib().get(MibCounter.IcmpInEchoReps) < 1 && System.nanoTime() < deadline) Thread.sleep(10);
            assertThat(jnet.mib().get(MibCounter.IcmpInEchoReps)).isEqualTo(1);

            byte[] data = new byte[SIZE];
            new Random(7).nextBytes(data);
            String digest = KernelSha256Exchange.sha256(data);
            Path file = tmp.resolve("data.bin");
            Files.write(file, data);

            KernelSha256Exchange.kernelSendsToJnet(ns, jnet, JNET_INNER, 5001, file, SIZE, digest, Duration.ofSeconds(20));
            KernelSha256Exchange.jnetSendsToKernel(ns, jnet, KERNEL_INNER, 5002, data, 10000, digest, Duration.ofSeconds(20));

            assertThat(jnet.internalErrors()).isZero();
            assertThat(vtep.stats().rxErrors.sum()).as(vtep.stats().toString()).isZero();
            assertThat(vtep.stats().txErrors.sum()).as(vtep.stats().toString()).isZero();
            assertThat(jnet.mib().get(MibCounter.TcpInCsumErrors)).as("kernel checksums verify in jnet").isZero();
        }
        assertThat(Tools.run(LinuxNetns.DEFAULT_TIMEOUT, "ip", "link", "show", hostVeth).ok()).as("veth deleted").isFalse();
    }
}
