package io.jnet.suite;

import io.jnet.app.TapStack;
import io.jnet.link.tap.TapDevice;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.LinuxNetns;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Two jnet namespaces, each on its own Linux TAP interface, the two interfaces enslaved to a Linux
 * bridge {@code br0} inside a fresh Linux network namespace ({@link LinuxNetns}): every frame between
 * the jnet stacks is written to one TAP, switched by the kernel bridge and read from the other TAP.
 *
 * <pre>
 *   jnet client 192.0.2.21/24 ── tapA ─┐
 *                                       br0  (Linux netns jnet-test-PID-XXXX, no addresses, no routes)
 *   jnet server 192.0.2.22/24 ── tapB ─┘
 * </pre>
 *
 * <p>The kernel side has no IP address and IPv6 is disabled in the Linux namespace, so the kernel only
 * switches frames and sends none of its own. The bridge runs without STP and with a forward delay of 0
 * (ports forward as soon as they are up) and learns MAC addresses on both ports.
 *
 * <p>{@link #close()} closes both jnet namespaces (closing each TAP descriptor deletes its interface)
 * and then deletes the Linux namespace, with the bridge in it.
 */
final class TapBridgeTopology implements Topology {
    static final String CLIENT_CIDR = "192.0.2.21/24";
    static final String SERVER_CIDR = "192.0.2.22/24";
    static final String BRIDGE = "br0";

    private final TapStack client;
    private final TapStack server;
    private final LinuxNetns netns;

    private TapBridgeTopology(TapStack client, TapStack server, LinuxNetns netns) {
        this.client = client;
        this.server = server;
        this.netns = netns;
    }

    /**
     * Builds the topology.
     *
     * @throws IOException when a TAP cannot be opened or an {@code ip}/{@code bridge} command fails
     *     (everything created so far is removed again)
     */
    static TapBridgeTopology open() throws IOException {
        List<AutoCloseable> made = new ArrayList<>();
        try {
            LinuxNetns netns = LinuxNetns.create();
            made.add(netns);
            // before any link arrives: links registered here start with IPv6 off (no RS, DAD or MLD frames)
            netns.sysctl("net.ipv6.conf.all.disable_ipv6", "1");
            netns.sysctl("net.ipv6.conf.default.disable_ipv6", "1");
            netns.execChecked("ip", "link", "add", BRIDGE, "type", "bridge", "forward_delay", "0", "stp_state", "0");
            TapStack client = TapStack.open(new TapStack.Config("jnetsa%d", CLIENT_CIDR, TapDevice.DEFAULT_MTU, null));
            made.add(0, client);
            TapStack server = TapStack.open(new TapStack.Config("jnetsb%d", SERVER_CIDR, TapDevice.DEFAULT_MTU, null));
            made.add(0, server);
            for (TapStack s : List.of(client, server)) {
                String dev = s.ifname();
                netns.moveLink(dev);
                netns.execChecked("ip", "link", "set", "dev", dev, "master", BRIDGE);
                netns.execChecked("bridge", "link", "set", "dev", dev, "learning", "on");
                netns.linkUp(dev);
            }
            netns.linkUp(BRIDGE);
            return new TapBridgeTopology(client, server, netns);
        } catch (IOException | RuntimeException e) {
            closeAll(made);
            throw e;
        }
    }

    private static void closeAll(List<AutoCloseable> resources) {
        for (AutoCloseable r : resources) {
            try {
                r.close();
            } catch (Exception e) {
                System.err.println("jnet suite: closing " + r + " failed: " + e);
            }
        }
    }

    @Override public NetNamespace client() { return client.namespace(); }
    @Override public NetNamespace server() { return server.namespace(); }
    @Override public InetAddress clientAddress() { return client.address(); }
    @Override public InetAddress serverAddress() { return server.address(); }
    @Override public List<NetNamespace> namespaces() { return List.of(client.namespace(), server.namespace()); }
    @Override public boolean isLoopback() { return false; }

    /** The client's TAP stack. */
    TapStack clientStack() { return client; }

    /** The server's TAP stack. */
    TapStack serverStack() { return server; }

    /** The Linux namespace holding the bridge and both TAP interfaces. */
    LinuxNetns linuxNetns() { return netns; }

    /** {@inheritDoc} Adds the kernel's view: {@code ip -s link} of the bridge and both TAP interfaces. */
    @Override
    public String describe() {
        StringBuilder b = new StringBuilder(Topology.super.describe());
        try {
            b.append("== kernel (").append(netns.name()).append(")\n")
                    .append(netns.exec("ip", "-s", "link", "show").stdout().indent(2));
        } catch (IOException | RuntimeException e) {
            b.append("  ip -s link failed: ").append(e).append('\n');
        }
        return b.toString();
    }

    @Override
    public void close() {
        closeAll(List.of(client, server, netns));
    }

    @Override
    public String toString() {
        return "TapBridgeTopology[" + client.ifname() + ", " + server.ifname() + " in " + netns.name() + "]";
    }
}
