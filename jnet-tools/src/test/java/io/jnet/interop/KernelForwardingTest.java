package io.jnet.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.app.JnetServer;
import io.jnet.app.PatternBytes;
import io.jnet.ip.Ipv4Layer;
import io.jnet.link.VethPair;
import io.jnet.link.pcap.PcapSniffer;
import io.jnet.link.pcap.PcapWriter;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.CommandResult;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import io.jnet.wire.Ipv4;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The kernel reaches a jnet host through a jnet router: kernel (TAP, 192.0.2.1) - jnet router R (TAP
 * 192.0.2.2, veth 10.0.2.1) - jnet host B (veth 10.0.2.2). B's 64 KiB veth segments go onto the 1500-byte TAP.
 * tshark reads the captures of both sides of the router ({@code target/interop-captures/forward-*.pcap}).
 */
@Timeout(120)
@Tag("jnet-provider") // the JDK's HTTP classes on jnet: runs in the JVM whose provider is jnet's (see pom.xml)
class KernelForwardingTest {
    static final String B_IP = "10.0.2.2";
    static final long SIZE = 8L << 20;

    @BeforeEach
    void needsRootAndTools() {
        LinuxNetns.assumeAvailable();
        Tools.assumeHas("curl");
        Tools.assumeHas("ping");
        Tools.assumeHas("sha256sum");
        Tools.assumeHas("bash");
        Tools.assumeHas("tshark");
    }

    @Test
    void kernelPingsAndDownloadsFromAHostBehindAJnetRouter() throws Exception {
        Path tapSide = CaptureGate.file("forward-tap");
        Path vethSide = CaptureGate.file("forward-veth");
        try (KernelPeer peer = KernelPeer.open(tapSide); NetNamespace b = NetNamespace.create("kfwd-b")) {
            NetNamespace r = peer.jnet();
            VethPair rb = VethPair.create("eth1", "eth0");
            r.attach(rb.a());
            b.attach(new PcapSniffer(rb.b(), PcapWriter.create(vethSide)));
            r.addAddress("eth1", "10.0.2.1/24");
            b.addAddress("eth0", B_IP + "/24");
            b.extension(Ipv4Layer.class).addRoute("192.0.2.0/24", "10.0.2.1", "eth0");
            r.sysctl().set("net.ipv4.ip_forward", "1");
            peer.netns().execChecked("ip", "route", "add", "10.0.2.0/24", "via", KernelPeer.JNET_IP);
            try (JnetServer server = JnetServer.start(b, Ipv4.toInet(Ipv4.parseAddress(B_IP)), JnetServer.Ports.defaults())) {
                CommandResult ping = peer.exec(Duration.ofSeconds(20), "ping", "-c", "3", "-i", "0.2", "-W", "5", B_IP);
                assertThat(ping.ok()).as(ping.describe()).isTrue();
                // TTL 1 from the kernel expires at the jnet router
                CommandResult ttl = peer.exec(Duration.ofSeconds(20), "ping", "-c", "1", "-t", "1", "-W", "3", B_IP);
                assertThat(ttl.stdout()).as(ttl.describe()).contains("From " + KernelPeer.JNET_IP).containsIgnoringCase("exceeded");
                CommandResult get = peer.shell(Duration.ofSeconds(90), "f=$(mktemp) && trap 'rm -f $f' EXIT && curl -sS --fail --max-time 80 -o $f http://"
                        + B_IP + "/bytes/" + SIZE + " && wc -c < $f >&2 && sha256sum < $f");
                assertThat(get.ok()).as("%s\n%s", get.describe(), peer.counters()).isTrue();
                assertThat(get.stderr().strip()).isEqualTo(Long.toString(SIZE));
                assertThat(get.stdout()).startsWith(PatternBytes.sha256(SIZE) + " ");
            }
            assertThat(r.mib().get(MibCounter.IpForwDatagrams)).isPositive();
            assertThat(r.mib().get(MibCounter.IcmpOutTimeExcds)).isEqualTo(1);
            assertThat(r.mib().get(MibCounter.IpFragFails)).as("no frag-needed for veth segments").isZero();
            assertThat(peer.stack().tap().stats().txDropped.sum()).isZero();
            peer.assertNoInternalErrors();
            assertThat(b.internalErrors()).isZero();
        }
        // both sides of the router read cleanly: the kernel's 1500-byte frames and B's 64 KiB veth segments
        String tap = CaptureGate.check(tapSide);
        String veth = CaptureGate.check(vethSide);
        assertThat(tap).contains("Time-to-live exceeded");
        assertThat(veth).contains("10.0.2.2 \u2192 192.0.2.1").doesNotContain("Time-to-live exceeded");
        assertThat(CaptureGateTest.count(vethSide, "frame.len > 1514 && ip.src == " + B_IP))
                .as("B's segments larger than the TAP's MTU").isPositive();
        assertThat(CaptureGateTest.count(tapSide, "frame.len > 1514")).as("frames over 1500 bytes on the TAP").isZero();
    }
}
