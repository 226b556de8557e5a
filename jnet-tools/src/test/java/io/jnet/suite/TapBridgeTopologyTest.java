package io.jnet.suite;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.app.TapStack;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.testing.CommandResult;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The TAP path itself: data between the two jnet stacks really crosses the Linux bridge (the kernel
 * counts the frames on both TAP interfaces and learns both jnet MAC addresses), the kernel side is
 * configured as documented, and closing removes the interfaces and the Linux namespace.
 */
@Timeout(30)
class TapBridgeTopologyTest {

    @BeforeEach
    void needsRoot() {
        LinuxNetns.assumeAvailable();
        Tools.assumeHas("bridge");
    }

    @Test
    void framesBetweenTheStacksCrossTheKernelBridge() throws Exception {
        byte[] data = new byte[200_000];
        new Random(7).nextBytes(data);
        try (TapBridgeTopology topo = TapBridgeTopology.open()) {
            LinuxNetns netns = topo.linuxNetns();
            String tapA = topo.clientStack().ifname();
            String tapB = topo.serverStack().ifname();
            long[] a0 = kernelPackets(netns, tapA);
            long[] b0 = kernelPackets(netns, tapB);
            try (TcpServerSocket srv = TcpServerSocket.open(topo.server())) {
                srv.bind(new InetSocketAddress(topo.serverAddress(), SuiteBase.PORT));
                srv.listen(8);
                try (TcpSocket c = TcpSocket.open(topo.client())) {
                    c.connect(new InetSocketAddress(topo.serverAddress(), SuiteBase.PORT));
                    try (TcpSocket s = srv.accept()) {
                        // write from another thread: 200 kB need not fit in the socket buffers
                        java.util.concurrent.CompletableFuture<Void> writer = java.util.concurrent.CompletableFuture.runAsync(() -> {
                            try {
                                SocketIo.writeInChunks(c, data, 8192);
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        });
                        assertThat(SocketIo.readExactly(s, data.length)).isEqualTo(data);
                        writer.get(20, java.util.concurrent.TimeUnit.SECONDS);
                    }
                }
            }
            long[] a1 = kernelPackets(netns, tapA);
            long[] b1 = kernelPackets(netns, tapB);
            // at least 200000 / 1460 data segments went client -> kernel (rx on tapA) -> server (tx on tapB)
            long minSegments = data.length / 1460;
            assertThat(a1[0] - a0[0]).as("kernel rx on the client's TAP").isGreaterThanOrEqualTo(minSegments);
            assertThat(b1[1] - b0[1]).as("kernel tx on the server's TAP").isGreaterThanOrEqualTo(minSegments);
            // and the ACKs the other way
            assertThat(b1[0] - b0[0]).as("kernel rx on the server's TAP").isPositive();
            assertThat(a1[1] - a0[1]).as("kernel tx on the client's TAP").isPositive();
            assertThat(topo.clientStack().tap().stats().txPackets.sum()).isGreaterThanOrEqualTo(minSegments);
            assertThat(topo.serverStack().tap().stats().rxPackets.sum()).isGreaterThanOrEqualTo(minSegments);

            String fdb = netns.execChecked("bridge", "fdb", "show", "br", TapBridgeTopology.BRIDGE).stdout();
            assertThat(fdb).as("the bridge learned the client's MAC on its TAP")
                    .containsPattern(Pattern.quote(mac(topo.clientStack())) + " dev " + Pattern.quote(tapA));
            assertThat(fdb).as("the bridge learned the server's MAC on its TAP")
                    .containsPattern(Pattern.quote(mac(topo.serverStack())) + " dev " + Pattern.quote(tapB));
        }
    }

    @Test
    void kernelSideIsABridgeWithoutAddressesRoutesOrStp() throws Exception {
        try (TapBridgeTopology topo = TapBridgeTopology.open()) {
            LinuxNetns netns = topo.linuxNetns();
            assertThat(netns.execChecked("ip", "-4", "address", "show").stdout()).doesNotContain("inet ");
            assertThat(netns.execChecked("ip", "-6", "address", "show").stdout()).doesNotContain("inet6 ");
            assertThat(netns.execChecked("ip", "-4", "route", "show").stdout()).isBlank();
            String br = netns.execChecked("ip", "-d", "link", "show", "dev", TapBridgeTopology.BRIDGE).stdout();
            assertThat(br).contains("state UP").containsPattern("forward_delay 0\\b").contains("stp_state 0");
            for (TapStack s : new TapStack[] {topo.clientStack(), topo.serverStack()}) {
                String link = netns.execChecked("ip", "-d", "link", "show", "dev", s.ifname()).stdout();
                assertThat(link).contains("master " + TapBridgeTopology.BRIDGE).contains("learning on");
            }
        }
    }

    @Test
    void closeRemovesTheInterfacesAndTheLinuxNamespace() throws Exception {
        TapBridgeTopology topo = TapBridgeTopology.open();
        String netns = topo.linuxNetns().name();
        String tapA = topo.clientStack().ifname();
        assertThat(Tools.run(Duration.ofSeconds(10), "ip", "netns", "list").checkSuccess().stdout()).contains(netns);
        topo.close();
        assertThat(topo.client().isClosed()).isTrue();
        assertThat(topo.server().isClosed()).isTrue();
        assertThat(Tools.run(Duration.ofSeconds(10), "ip", "netns", "list").checkSuccess().stdout()).doesNotContain(netns);
        CommandResult link = Tools.run(Duration.ofSeconds(10), "ip", "link", "show", "dev", tapA);
        assertThat(link.ok()).as("%s left in the host namespace", tapA).isFalse();
    }

    private static final Pattern PACKETS = Pattern.compile("RX:[^\\n]*\\n\\s*\\d+\\s+(\\d+)[\\s\\S]*?TX:[^\\n]*\\n\\s*\\d+\\s+(\\d+)");

    /** {rx_packets, tx_packets} of {@code dev} as the kernel counts them. */
    private static long[] kernelPackets(LinuxNetns netns, String dev) throws Exception {
        String out = netns.execChecked("ip", "-s", "link", "show", "dev", dev).stdout();
        Matcher m = PACKETS.matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }

    private static String mac(TapStack s) {
        String hex = HexFormat.of().toHexDigits(s.tap().macAddress()).substring(4);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 12; i += 2) b.append(i == 0 ? "" : ":").append(hex, i, i + 2);
        return b.toString();
    }
}
