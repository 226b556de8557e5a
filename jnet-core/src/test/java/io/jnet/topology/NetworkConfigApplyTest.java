package io.jnet.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.ip.Ipv4Layer;
import io.jnet.link.impair.Direction;
import io.jnet.link.impair.ImpairedDevice;
import io.jnet.link.pcap.PcapSniffer;
import io.jnet.link.vxlan.VxlanDevice;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.TcpTransfers;
import io.jnet.wire.Ipv4;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link NetworkConfig#apply()} without privileges: veth pairs, VXLAN over the host's loopback, and clean-up. */
@Timeout(120)
class NetworkConfigApplyTest {

    @Test
    void buildsARoutedNetworkThatCarriesTcp(@TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("client-eth0.pcap");
        NetworkConfig config = NetworkConfig.parse("""
                default client

                namespace server                     # its lines name devices the router's statements create
                addr add 10.0.2.2/24 dev eth0
                route add 10.0.0.0/16 via 10.0.2.1
                host 10.0.1.2 client.lab.test client

                namespace client
                link add eth0 type veth peer eth0 netns router pcap %s
                addr add 10.0.1.2/24 dev eth0
                route add default via 10.0.1.1 dev eth0
                sysctl net.ipv4.tcp_sack=0
                nameserver 10.0.2.2
                search lab.test

                namespace router
                link add eth1 type veth peer name eth0 netns server mtu 1400
                link set eth1 impair delay=2ms,dup=1%%,seed=3
                addr add 10.0.1.1/24 dev eth0
                addr add 10.0.2.1/24 dev eth1
                sysctl net.ipv4.ip_forward=1
                sysctl net.ipv4.conf.eth1.send_redirects=0
                """.formatted(pcap));

        Network net = config.apply();
        NetNamespace client, router, server;
        try {
            assertThat(net.namespaces().keySet()).containsExactly("server", "client", "router");
            client = net.defaultNamespace();
            router = net.namespace("router");
            server = net.namespace("server");
            assertThat(client.name()).isEqualTo("client");

            assertThat(client.sysctl().get("net.ipv4.tcp_sack")).isEqualTo("0");
            assertThat(router.sysctl().get("net.ipv4.ip_forward")).isEqualTo("1");
            assertThat(router.sysctl().get("net.ipv4.conf.eth0.forwarding")).as("ip_forward reaches every device").isEqualTo("1");
            assertThat(router.sysctl().get("net.ipv4.conf.eth1.send_redirects")).isEqualTo("0");
            assertThat(server.requireInterface("eth0").device().mtu()).isEqualTo(1400);
            assertThat(client.requireInterface("eth0").device()).isInstanceOf(PcapSniffer.class);
            assertThat(server.extension(Ipv4Layer.class).route(Ipv4.parseAddress("10.0.1.2")).toString())
                    .isEqualTo("10.0.0.0/16 via 10.0.2.1 dev eth0 metric 0");
            ImpairedDevice impaired = net.impairment("router", "eth1");
            assertThat(impaired).isNotNull().isSameAs(router.requireInterface("eth1").device());
            assertThat(impaired.config().seed()).isEqualTo(3);
            assertThat(net.impairment("router", "eth0")).isNull();
            assertThat(net.resolvConfLines("client")).containsExactly("nameserver 10.0.2.2", "search lab.test");
            assertThat(net.hostsLines("server")).containsExactly("10.0.1.2 client.lab.test client");
            assertThat(net.hostsLines("client")).isEmpty();
            assertThat(client.extension(NamespaceConfig.class).resolvConfLines()).as("the block travels with the namespace")
                    .containsExactly("nameserver 10.0.2.2", "search lab.test");
            assertThat(server.extension(NamespaceConfig.class)).isEqualTo(config.namespace("server"));

            // client -> router -> server, through the impaired link
            TcpTransfers.transfer(client, server, "10.0.2.2", 200_000);
            assertThat(impaired.counts(Direction.EGRESS).delayed()).isPositive();
            assertThat(impaired.counts(Direction.INGRESS).delayed()).isPositive();
            for (NetNamespace ns : net.namespaces().values()) {
                assertThat(ns.internalErrors()).as("%s: %s", ns, ns.lastInternalError()).isZero();
            }
        } finally {
            net.close();
        }
        for (NetNamespace ns : net.namespaces().values()) {
            assertThat(ns.isClosed()).isTrue();
            assertThat(ns.internalErrors()).as("%s: %s", ns, ns.lastInternalError()).isZero();
        }
        assertThat(Files.size(pcap)).as("the capture holds the connection's frames").isGreaterThan(24 + 10 * 54);
        net.close(); // idempotent
    }

    @Test
    void vxlanJoinsTwoNamespacesOverTheHostsLoopback() throws Exception {
        int portA = freeUdpPort(), portB = freeUdpPort();
        NetworkConfig config = NetworkConfig.parse("""
                namespace a
                link add vx0 type vxlan id 42 remote 127.0.0.1 local 127.0.0.1 localport %d dstport %d
                addr add 192.0.2.1/24 dev vx0
                namespace b
                link add vx0 type vxlan id 42 remote 127.0.0.1 local 127.0.0.1 localport %d dstport %d mtu 1400
                addr add 192.0.2.2/24 dev vx0
                """.formatted(portA, portB, portB, portA));
        try (Network net = config.apply()) {
            VxlanDevice a = (VxlanDevice) net.namespace("a").requireInterface("vx0").device();
            VxlanDevice b = (VxlanDevice) net.namespace("b").requireInterface("vx0").device();
            assertThat(a.vni()).isEqualTo(42);
            assertThat(a.localAddress()).isEqualTo(new InetSocketAddress("127.0.0.1", portA));
            assertThat(a.defaultRemote()).isEqualTo(new InetSocketAddress("127.0.0.1", portB));
            assertThat(b.mtu()).isEqualTo(1400);
            assertThat(a.mtu()).isEqualTo(VxlanDevice.DEFAULT_MTU);
            TcpTransfers.transfer(net.namespace("a"), net.namespace("b"), "192.0.2.2", 100_000);
            for (NetNamespace ns : net.namespaces().values()) {
                assertThat(ns.internalErrors()).as("%s: %s", ns, ns.lastInternalError()).isZero();
            }
        }
        // the sockets are closed: both ports can be bound again
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", portA));
             DatagramSocket t = new DatagramSocket(new InetSocketAddress("127.0.0.1", portB))) {
            assertThat(s.isBound() && t.isBound()).isTrue();
        }
    }

    @Test
    void aFailedApplyClosesWhatItBuiltAndNamesTheStatement(@TempDir Path dir) throws Exception {
        int port = freeUdpPort();
        Path badCapture = dir.resolve("no-such-dir").resolve("x.pcap");
        NetworkConfig config = NetworkConfig.parse("""
                namespace a
                link add vx0 type vxlan id 1 local 127.0.0.1 dstport %d
                link add veth0 type veth peer veth1 pcap %s
                addr add 10.0.0.1/24 dev veth0
                """.formatted(port, badCapture));
        assertThatThrownBy(config::apply)
                .isInstanceOf(IOException.class)
                .hasMessage("line 3: link add veth0 type veth peer veth1 pcap " + badCapture
                        + ": cannot write capture file " + badCapture + ": NoSuchFileException");
        // the VXLAN device opened on line 2 was closed with its namespace
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", port))) {
            assertThat(s.isBound()).isTrue();
        }
    }

    @Test
    void aVxlanPortInUseNamesTheDeviceAndThePort() throws Exception {
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            int port = taken.getLocalPort();
            NetworkConfig config = NetworkConfig.parse("link add vx7 type vxlan id 7 local 127.0.0.1 dstport " + port);
            assertThatThrownBy(config::apply)
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith("line 1: link add vx7 type vxlan id 7 local 127.0.0.1 dstport " + port
                            + ": cannot open VXLAN device vx7 (UDP port " + port + "): ");
        }
    }

    @Test
    void appliesTheSameConfigurationTwiceIntoIndependentNetworks() throws Exception {
        NetworkConfig config = NetworkConfig.parse("""
                namespace a
                link add v0 type veth peer v1 netns b
                addr add 10.0.0.1/24 dev v0
                namespace b
                addr add 10.0.0.2/24 dev v1
                """);
        try (Network one = config.apply(); Network two = config.apply()) {
            assertThat(one.namespace("a")).isNotSameAs(two.namespace("a"));
            TcpTransfers.transfer(one.namespace("a"), one.namespace("b"), "10.0.0.2", 10_000);
            TcpTransfers.transfer(two.namespace("b"), two.namespace("a"), "10.0.0.1", 10_000);
        }
        assertThatThrownBy(() -> config.namespace("c")).isInstanceOf(IllegalArgumentException.class);
    }

    private static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            return s.getLocalPort();
        }
    }
}
