package io.jnet.lossy;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.link.impair.Direction;
import io.jnet.link.impair.ImpairedDevice;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.link.vxlan.VxlanDevice;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.BackgroundProcess;
import io.jnet.testing.CommandResult;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel and jnet over a lossy VXLAN tunnel: jnet's {@link VxlanDevice} wrapped in an
 * {@link ImpairedDevice} ({@link #IMPAIRMENT}, both directions, fixed seed), a Linux {@code vxlan}
 * interface in a test namespace as its peer (the set-up of VxlanKernelInteropTest: underlay veth
 * 198.51.100.253/30 in this host's namespace to 198.51.100.254/30 in the test namespace, VNI 42, inner
 * 198.51.100.1 kernel and 198.51.100.2 jnet, transmit checksum offload off). A kernel TCP client
 * (python3) uploads {@link #SIZE} bytes to jnet and jnet uploads as many to a kernel server; each side
 * answers with the SHA-256 it computed. Needs root, ethtool, python3.
 */
@Timeout(120)
class ImpairedVxlanKernelTest {
    static final String HOST_UNDERLAY = "198.51.100.253";
    static final String NETNS_UNDERLAY = "198.51.100.254";
    static final String KERNEL_INNER = "198.51.100.1";
    static final String JNET_INNER = "198.51.100.2";
    static final int SIZE = 8 << 20;
    static final String IMPAIRMENT = "loss=2%,reorder=1%,reorder-gap=3,reorder-delay=10ms,dup=1%,seed=31";

    @BeforeEach
    void needsRootAndTools() {
        LinuxNetns.assumeAvailable();
        Tools.assumeHas("ethtool");
        Tools.assumeHas("python3");
    }

    static CommandResult host(String... cmd) throws IOException {
        return Tools.run(LinuxNetns.DEFAULT_TIMEOUT, cmd).checkSuccess();
    }

    /** jnet's VTEP on the host's underlay address, port 4789 unless taken, else one the kernel picks. */
    static VxlanDevice openVtep() throws IOException {
        InetAddress local = InetAddress.getByName(HOST_UNDERLAY);
        VxlanDevice.Builder b = VxlanDevice.builder("vx0").vni(42).remote(InetAddress.getByName(NETNS_UNDERLAY));
        try {
            return b.localAddress(new InetSocketAddress(local, 4789)).dstPort(4789).open();
        } catch (BindException e) {
            int port;
            try (DatagramChannel probe = DatagramChannel.open()) {
                probe.bind(new InetSocketAddress(local, 0));
                port = ((InetSocketAddress) probe.getLocalAddress()).getPort();
            }
            return b.localAddress(new InetSocketAddress(local, port)).dstPort(port).open();
        }
    }

    @Test
    void uploadsBothWaysThroughLossyVxlan(@TempDir Path tmp) throws Exception {
        String suffix = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
        String hostVeth = "jlvh" + suffix;
        String nsVeth = "jlvn" + suffix;
        try (LinuxNetns ns = LinuxNetns.create()) {
            try {
                host("ip", "link", "add", hostVeth, "type", "veth", "peer", "name", nsVeth);
                host("sysctl", "-q", "-w", "net.ipv6.conf." + hostVeth + ".disable_ipv6=1");
                ns.moveLink(nsVeth);
                ns.sysctl("net.ipv6.conf." + nsVeth + ".disable_ipv6", "1");
                host("ip", "address", "add", HOST_UNDERLAY + "/30", "dev", hostVeth);
                ns.addAddress(nsVeth, NETNS_UNDERLAY + "/30");
                host("ethtool", "-K", hostVeth, "tx", "off");
                ns.execChecked("ethtool", "-K", nsVeth, "tx", "off");
                host("ip", "link", "set", "dev", hostVeth, "up");
                ns.linkUp(nsVeth);
                ns.linkUp("lo");
                try (VxlanDevice vtep = openVtep(); NetNamespace jnet = NetNamespace.create("vxlan-lossy")) {
                    int port = vtep.localAddress().getPort();
                    CommandResult add = ns.exec("ip", "link", "add", "vx0", "type", "vxlan", "id", "42", "remote", HOST_UNDERLAY,
                            "local", NETNS_UNDERLAY, "dstport", Integer.toString(port), "dev", nsVeth);
                    Assumptions.assumeTrue(add.ok(), () -> "Linux vxlan interfaces unavailable: " + add.describe());
                    ns.sysctl("net.ipv6.conf.vx0.disable_ipv6", "1");
                    ns.execChecked("ethtool", "-K", "vx0", "tx", "off");
                    ns.addAddress("vx0", KERNEL_INNER + "/25");
                    ns.linkUp("vx0");
                    jnet.attach(vtep);
                    jnet.addAddress("vx0", JNET_INNER + "/24");
                    ImpairedDevice impaired = ImpairedDevice.interpose(jnet, "vx0", ImpairmentConfig.parse(IMPAIRMENT));

                    byte[] data = new byte[SIZE];
                    new Random(31).nextBytes(data);
                    String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
                    Path file = tmp.resolve("data.bin");
                    Files.write(file, data);

                    long start = System.nanoTime();
                    kernelSendsToJnet(ns, jnet, file, digest);
                    report("kernel -> jnet", start, impaired, jnet);
                    start = System.nanoTime();
                    jnetSendsToKernel(ns, jnet, data, digest);
                    report("jnet -> kernel", start, impaired, jnet);

                    for (Direction d : Direction.values()) assertThat(impaired.counts(d).dropped()).as("%s drops", d).isPositive();
                    assertThat(jnet.internalErrors()).isZero();
                    assertThat(vtep.stats().rxErrors.sum()).as(vtep.stats().toString()).isZero();
                    assertThat(jnet.mib().get(MibCounter.TcpInCsumErrors)).isZero();
                }
            } finally {
                Tools.run(LinuxNetns.DEFAULT_TIMEOUT, "ip", "link", "del", hostVeth);
            }
        }
    }

    static void report(String what, long startNanos, ImpairedDevice d, NetNamespace jnet) {
        double s = (System.nanoTime() - startNanos) / 1e9;
        System.out.printf(Locale.ROOT, "%s, %d MiB over an impaired VXLAN tunnel (%s): %.2f s, %.1f Mbit/s; jnet retransmitted %d"
                + " (%d timeouts)%n  egress %s%n  ingress %s%n", what, SIZE >> 20, d.config(), s, SIZE * 8 / s / 1e6,
                jnet.mib().get(MibCounter.TcpRetransSegs), jnet.mib().get(MibCounter.TcpExtTCPTimeouts),
                d.counts(Direction.EGRESS).summary(), d.counts(Direction.INGRESS).summary());
    }

    /** A kernel TCP client (python3) sends the file to a jnet server that answers with the SHA-256 it computed. */
    static void kernelSendsToJnet(LinuxNetns ns, NetNamespace jnet, Path file, String digest) throws Exception {
        try (TcpServerSocket srv = TcpServerSocket.open(jnet)) {
            srv.bind(new InetSocketAddress(JNET_INNER, 5001));
            srv.listen(4);
            CompletableFuture<Long> server = CompletableFuture.supplyAsync(() -> {
                try (TcpSocket s = srv.accept()) {
                    MessageDigest md = MessageDigest.getInstance("SHA-256");
                    byte[] buf = new byte[65536];
                    long total = 0;
                    int n;
                    while ((n = s.read(buf, 0, buf.length)) > 0) {
                        md.update(buf, 0, n);
                        total += n;
                    }
                    byte[] hex = HexFormat.of().formatHex(md.digest()).getBytes(StandardCharsets.US_ASCII);
                    s.write(hex, 0, hex.length);
                    return total;
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            String client = """
                    import socket, sys
                    data = open(sys.argv[1], 'rb').read()
                    s = socket.create_connection((sys.argv[2], 5001), timeout=30)
                    s.sendall(data)
                    s.shutdown(socket.SHUT_WR)
                    reply = b''
                    while True:
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        reply += chunk
                    print(reply.decode())
                    """;
            CommandResult r = ns.exec(Duration.ofSeconds(50), "python3", "-c", client, file.toString(), JNET_INNER);
            assertThat(r.ok()).as(r.describe()).isTrue();
            assertThat(server.get(10, TimeUnit.SECONDS)).isEqualTo(SIZE);
            assertThat(r.stdout().strip()).as("SHA-256 computed by jnet").isEqualTo(digest);
        }
    }

    /** A jnet TCP client sends the data to a kernel server (python3) that answers with the SHA-256 it computed. */
    static void jnetSendsToKernel(LinuxNetns ns, NetNamespace jnet, byte[] data, String digest) throws Exception {
        String server = """
                import hashlib, socket, sys
                l = socket.socket()
                l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                l.bind((sys.argv[1], 5002))
                l.listen(1)
                l.settimeout(30)
                print('listening', flush=True)
                c, _ = l.accept()
                c.settimeout(30)
                h = hashlib.sha256()
                n = 0
                while True:
                    d = c.recv(65536)
                    if not d:
                        break
                    h.update(d)
                    n += len(d)
                c.sendall(h.hexdigest().encode())
                c.close()
                print(n, h.hexdigest(), flush=True)
                """;
        try (BackgroundProcess p = ns.start("python3", "-c", server, KERNEL_INNER)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!p.stdout().contains("listening")) {
                assertThat(p.isAlive()).as(p.describe()).isTrue();
                assertThat(System.nanoTime()).as("server start: " + p.describe()).isLessThan(deadline);
                Thread.sleep(20);
            }
            try (TcpSocket c = TcpSocket.open(jnet)) {
                c.connect(new InetSocketAddress(KERNEL_INNER, 5002));
                for (int off = 0; off < data.length; off += 65536) c.write(data, off, Math.min(65536, data.length - off));
                c.shutdownOutput();
                byte[] buf = new byte[256];
                StringBuilder reply = new StringBuilder();
                int n;
                while ((n = c.read(buf, 0, buf.length)) > 0) reply.append(new String(buf, 0, n, StandardCharsets.US_ASCII));
                assertThat(reply.toString()).as("SHA-256 computed by the kernel side").isEqualTo(digest);
            }
            assertThat(p.waitFor(Duration.ofSeconds(10))).as(p.describe()).isZero();
            assertThat(p.stdout()).contains(SIZE + " " + digest);
        }
    }
}
