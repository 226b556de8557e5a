package io.jnet.link.vxlan;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.icmp.IcmpProtocol;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.BackgroundProcess;
import io.jnet.testing.CommandResult;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import io.jnet.wire.Ipv4;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * VxlanDevice against a Linux {@code vxlan} interface. The underlay is a veth pair between this host's
 * network namespace (where the device's UDP socket lives, 198.51.100.253/30) and a test namespace
 * (198.51.100.254/30) holding {@code vx0} (VNI 42, 198.51.100.1/25); jnet has 198.51.100.2/24 on its
 * side of the tunnel. Transmit checksum offload is switched off on vx0 and on both veth ends: locally
 * generated packets otherwise carry partial checksums (CHECKSUM_PARTIAL) that no NIC ever completes.
 *
 * <p>The only address added to the host's namespace is a /30 from 198.51.100.0/24 (RFC 5737
 * TEST-NET-2), removed with the veth: hosts (and CI containers) may really use 192.0.2.0/24 on their
 * uplink, and a more specific route there would take part of it away. No default route is added.
 */
class VxlanKernelInteropTest {

    static final String HOST_UNDERLAY = "198.51.100.253";
    static final String NETNS_UNDERLAY = "198.51.100.254";
    static final String UNDERLAY_PREFIX = "/30";
    static final String KERNEL_INNER = "198.51.100.1";
    static final String JNET_INNER = "198.51.100.2";
    static final int SIZE = 4 << 20;

    @BeforeEach
    void needsRootAndTools() {
        LinuxNetns.assumeAvailable();
        Tools.assumeHas("ping");
        Tools.assumeHas("ethtool");
        Tools.assumeHas("python3");
    }

    /** Runs a command in this host's namespace and requires success. */
    static CommandResult host(String... cmd) throws IOException {
        return Tools.run(LinuxNetns.DEFAULT_TIMEOUT, cmd).checkSuccess();
    }

    /** Opens jnet's VTEP on the host's underlay address, on port 4789 unless it is taken, then on a port the kernel picks. */
    static VxlanDevice openVtep(int port) throws IOException {
        InetAddress local = InetAddress.getByName(HOST_UNDERLAY);
        VxlanDevice.Builder b = VxlanDevice.builder("vx0").vni(42).remote(InetAddress.getByName(NETNS_UNDERLAY));
        try {
            return b.localAddress(new InetSocketAddress(local, port)).dstPort(port).open();
        } catch (BindException e) {
            try (var probe = java.nio.channels.DatagramChannel.open()) {
                probe.bind(new InetSocketAddress(local, 0));
                port = ((InetSocketAddress) probe.getLocalAddress()).getPort();
            }
            return b.localAddress(new InetSocketAddress(local, port)).dstPort(port).open();
        }
    }

    @Test
    void kernelPingsAndExchangesTcpWithJnetThroughVxlan(@TempDir Path tmp) throws Exception {
        String suffix = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
        String hostVeth = "jvxh" + suffix;
        String nsVeth = "jvxn" + suffix;
        try (LinuxNetns ns = LinuxNetns.create()) {
            try {
                host("ip", "link", "add", hostVeth, "type", "veth", "peer", "name", nsVeth);
                host("sysctl", "-q", "-w", "net.ipv6.conf." + hostVeth + ".disable_ipv6=1");
                ns.moveLink(nsVeth);
                ns.sysctl("net.ipv6.conf." + nsVeth + ".disable_ipv6", "1");
                host("ip", "address", "add", HOST_UNDERLAY + UNDERLAY_PREFIX, "dev", hostVeth);
                ns.addAddress(nsVeth, NETNS_UNDERLAY + UNDERLAY_PREFIX);
                host("ethtool", "-K", hostVeth, "tx", "off");
                ns.execChecked("ethtool", "-K", nsVeth, "tx", "off");
                host("ip", "link", "set", "dev", hostVeth, "up");
                ns.linkUp(nsVeth);
                ns.linkUp("lo");

                try (VxlanDevice vtep = openVtep(4789); NetNamespace jnet = NetNamespace.create("vxlan-interop")) {
                    int port = vtep.localAddress().getPort();
                    CommandResult add = ns.exec("ip", "link", "add", "vx0", "type", "vxlan", "id", "42",
                            "remote", HOST_UNDERLAY, "local", NETNS_UNDERLAY, "dstport", Integer.toString(port), "dev", nsVeth);
                    Assumptions.assumeTrue(add.ok(), () -> "Linux vxlan interfaces unavailable: " + add.describe());
                    ns.sysctl("net.ipv6.conf.vx0.disable_ipv6", "1");
                    ns.execChecked("ethtool", "-K", "vx0", "tx", "off");
                    ns.addAddress("vx0", KERNEL_INNER + "/25");
                    ns.linkUp("vx0");
                    assertThat(ns.execChecked("ip", "-d", "link", "show", "vx0").stdout()).contains("mtu 1450", "vxlan id 42");

                    jnet.attach(vtep);
                    jnet.addAddress("vx0", JNET_INNER + "/24");

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
                    String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
                    Path file = tmp.resolve("data.bin");
                    Files.write(file, data);

                    kernelSendsToJnet(ns, jnet, file, digest);
                    jnetSendsToKernel(ns, jnet, data, digest);

                    assertThat(jnet.internalErrors()).isZero();
                    assertThat(vtep.stats().rxErrors.sum()).as(vtep.stats().toString()).isZero();
                    assertThat(vtep.stats().txErrors.sum()).as(vtep.stats().toString()).isZero();
                    assertThat(jnet.mib().get(MibCounter.TcpInCsumErrors)).as("kernel checksums verify in jnet").isZero();
                }
            } finally {
                Tools.run(LinuxNetns.DEFAULT_TIMEOUT, "ip", "link", "del", hostVeth); // gone already if the netns went first
            }
        }
        assertThat(Tools.run(LinuxNetns.DEFAULT_TIMEOUT, "ip", "link", "show", hostVeth).ok()).as("veth deleted").isFalse();
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
                    s = socket.create_connection((sys.argv[2], 5001), timeout=20)
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
            CommandResult r = ns.exec(Duration.ofSeconds(30), "python3", "-c", client, file.toString(), JNET_INNER);
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
                l.settimeout(20)
                print('listening', flush=True)
                c, _ = l.accept()
                c.settimeout(20)
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
                for (int off = 0; off < data.length; off += 10000) c.write(data, off, Math.min(10000, data.length - off));
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
