package io.jnet.interop;

import static io.jnet.interop.KernelPeer.JNET_IP;
import static io.jnet.interop.KernelPeer.KERNEL_IP;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.app.FetchResult;
import io.jnet.app.JnetFetch;
import io.jnet.app.PatternBytes;
import io.jnet.testing.CommandResult;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Small sessions between the kernel and jnet, each captured on jnet's side of the TAP into
 * {@code target/interop-captures/NAME.pcap} and put through the {@link CaptureGate} (tshark: no malformed
 * frame, no expert error, every IPv4/TCP/UDP checksum verified good, at least 10 frames).
 */
@Timeout(120)
@Tag("jnet-provider") // the JDK's HTTP classes on jnet: runs in the JVM whose provider is jnet's (see pom.xml)
class CaptureGateTest {

    static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @BeforeEach
    void needsRootAndTools() {
        LinuxNetns.assumeAvailable();
        Tools.assumeHas("tshark");
        Tools.assumeHas("curl");
        Tools.assumeHas("ping");
        Tools.assumeHas("python3");
    }

    @Test
    void curlGet100KiB() throws Exception {
        Path pcap = CaptureGate.file("curl-get-100k");
        long n = 100 * 1024;
        try (KernelPeer peer = KernelPeer.open(pcap)) {
            peer.serve();
            CommandResult r = peer.shell(TIMEOUT, "curl -sS --fail --max-time 20 http://" + JNET_IP + "/bytes/" + n + " | sha256sum");
            assertThat(r.ok()).as(r.describe()).isTrue();
            assertThat(r.stdout()).startsWith(PatternBytes.sha256(n));
            peer.assertNoInternalErrors();
        }
        CaptureGate.check(pcap);
        assertThat(count(pcap, "ip.src == " + JNET_IP + " && tcp.len > 0")).as("data segments from jnet").isGreaterThan(10);
        assertThat(count(pcap, "ip.src == " + JNET_IP + " && tcp.flags.fin == 1")).as("jnet's FIN").isEqualTo(1);
        assertThat(count(pcap, "tcp.flags.reset == 1")).as("resets").isZero();
        // the kernel's SYN offers SACK-permitted, jnet's SYN-ACK answers it, packed with the timestamps as Linux packs it
        assertThat(count(pcap, "ip.dst == " + JNET_IP + " && tcp.flags.syn == 1 && tcp.options.sack_perm"))
                .as("the kernel's SYN with SACK_PERM").isEqualTo(1);
        assertThat(count(pcap, "ip.src == " + JNET_IP + " && tcp.flags.syn == 1 && tcp.flags.ack == 1"
                + " && tcp.options.sack_perm && tcp.options.timestamp.tsval")).as("jnet's SYN-ACK with SACK_PERM").isEqualTo(1);
    }

    @Test
    void curlUpload100KiBWithExpectContinue() throws Exception {
        Path pcap = CaptureGate.file("curl-put-100k");
        Path file = dir.resolve("upload.bin");
        try (InputStream in = PatternBytes.inputStream(100 * 1024)) {
            Files.copy(in, file);
        }
        try (KernelPeer peer = KernelPeer.open(pcap)) {
            peer.serve();
            CommandResult r = peer.exec(TIMEOUT, "curl", "-sS", "--fail", "--max-time", "20", "-H", "Expect: 100-continue",
                    "-T", file.toString(), "http://" + JNET_IP + "/upload");
            assertThat(r.ok()).as(r.describe()).isTrue();
            assertThat(r.stdout()).isEqualTo(PatternBytes.sha256(100 * 1024) + "\n");
            peer.assertNoInternalErrors();
        }
        CaptureGate.check(pcap);
        assertThat(count(pcap, "http.response.code == 100")).as("100 Continue").isEqualTo(1);
        assertThat(count(pcap, "tcp.flags.reset == 1")).as("resets").isZero();
    }

    @Test
    void ping() throws Exception {
        Path pcap = CaptureGate.file("ping");
        try (KernelPeer peer = KernelPeer.open(pcap)) {
            CommandResult r = peer.exec(TIMEOUT, "ping", "-n", "-c", "4", "-i", "0.2", "-W", "2", JNET_IP);
            assertThat(r.ok()).as(r.describe()).isTrue();
            CommandResult big = peer.exec(TIMEOUT, "ping", "-n", "-c", "1", "-W", "2", "-s", "3000", JNET_IP);
            assertThat(big.ok()).as(big.describe()).isTrue();
            peer.assertNoInternalErrors();
        }
        CaptureGate.check(pcap);
        assertThat(count(pcap, "arp.opcode == 2 && arp.src.proto_ipv4 == " + JNET_IP)).as("jnet's ARP reply").isPositive();
        assertThat(count(pcap, "icmp.type == 0 && ip.src == " + JNET_IP + " && ip.flags.mf == 0 && ip.frag_offset == 0"))
                .as("unfragmented echo replies").isEqualTo(4);
        assertThat(count(pcap, "ip.src == " + JNET_IP + " && (ip.flags.mf == 1 || ip.frag_offset > 0)"))
                .as("fragments of jnet's 3008-byte echo reply").isEqualTo(3);
    }

    @Test
    void refusedConnects() throws Exception {
        Path pcap = CaptureGate.file("refused");
        try (KernelPeer peer = KernelPeer.open(pcap)) {
            CommandResult r = peer.exec(TIMEOUT, "python3", "-c", """
                    import socket
                    for port in range(81, 87):
                        s = socket.socket()
                        s.settimeout(5)
                        try:
                            s.connect(("%s", port))
                            print("connected", port)
                        except ConnectionRefusedError:
                            print("refused", port)
                        s.close()
                    """.formatted(JNET_IP));
            assertThat(r.stdout().lines().toList()).as(r.describe()).allMatch(l -> l.startsWith("refused")).hasSize(6);
            peer.assertNoInternalErrors();
        }
        CaptureGate.check(pcap);
        assertThat(count(pcap, "ip.src == " + JNET_IP + " && tcp.flags.reset == 1 && tcp.flags.ack == 1"))
                .as("RST+ACK answers to the SYNs").isEqualTo(6);
    }

    @Test
    void jnetFetchesASmallFile() throws Exception {
        Path pcap = CaptureGate.file("jnet-fetch");
        long n = 100 * 1024;
        try (InputStream in = PatternBytes.inputStream(n)) {
            Files.copy(in, dir.resolve("small.bin"));
        }
        try (KernelPeer peer = KernelPeer.open(pcap)) {
            JnetFetchFromKernelTest.startHttpServer(peer, dir);
            JnetFetch fetch = new JnetFetch(peer.jnet(), Duration.ofSeconds(5), Duration.ofSeconds(20));
            FetchResult r = JnetFetchFromKernelTest.fetchWhenListening(fetch,
                    "http://" + KERNEL_IP + ":" + JnetFetchFromKernelTest.PORT + "/small.bin", OutputStream.nullOutputStream());
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.sha256()).isEqualTo(PatternBytes.sha256(n));
            peer.assertNoInternalErrors();
        }
        CaptureGate.check(pcap);
        assertThat(count(pcap, "ip.src == " + JNET_IP + " && http.request.method == \"GET\"")).isPositive();
        // the fetch may try before the server listens: every SYN of jnet's offers SACK_PERM, the kernel's SYN-ACK answers
        assertThat(count(pcap, "ip.src == " + JNET_IP + " && tcp.flags.syn == 1 && tcp.flags.ack == 0 && tcp.options.sack_perm"))
                .as("jnet's SYNs with SACK_PERM").isPositive();
        assertThat(count(pcap, "ip.src == " + JNET_IP + " && tcp.flags.syn == 1 && tcp.flags.ack == 0 && !tcp.options.sack_perm"))
                .as("jnet's SYNs without SACK_PERM").isZero();
        assertThat(count(pcap, "ip.dst == " + JNET_IP + " && tcp.flags.syn == 1 && tcp.flags.ack == 1 && tcp.options.sack_perm"))
                .as("the kernel's SYN-ACK answers it").isEqualTo(1);
    }

    /** Frames of {@code pcap} matching a tshark display filter. */
    static long count(Path pcap, String filter) throws Exception {
        CommandResult r = Tools.run(Duration.ofSeconds(60), "tshark", "-n", "-r", pcap.toString(), "-Y", filter).checkSuccess();
        return r.stdout().lines().count();
    }
}
