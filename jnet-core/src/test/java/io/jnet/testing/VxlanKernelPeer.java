package io.jnet.testing;

import io.jnet.link.vxlan.VxlanDevice;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Assumptions;

/**
 * A Linux {@code vxlan} interface in a fresh network namespace as the peer of jnet's {@link VxlanDevice}.
 *
 * <p>The underlay is a veth pair between this host's namespace (where the device's UDP socket lives,
 * {@link #HOST_UNDERLAY}/30) and the test namespace ({@link #NETNS_UNDERLAY}/30), which holds {@code vx0}
 * (VNI 42, {@link #KERNEL_INNER}/25, MTU 1450); jnet has {@link #JNET_INNER}/24 on its side of the
 * tunnel. Transmit checksum offload is off on vx0 and on both veth ends: locally generated packets
 * otherwise carry partial checksums (CHECKSUM_PARTIAL) that no NIC ever completes. IPv6 is off on every
 * interface made here.
 *
 * <p>The only address added to the host's namespace is a /30 from 198.51.100.0/24 (RFC 5737 TEST-NET-2),
 * removed with the veth on {@link #close}: hosts (and CI containers) may really use 192.0.2.0/24 on their
 * uplink, and a more specific route there would take part of it away. No default route is added.
 * Needs root, iproute2 and ethtool; {@link #open} aborts the test (an assumption) when the kernel has no
 * vxlan support.
 */
public final class VxlanKernelPeer implements AutoCloseable {
    public static final String HOST_UNDERLAY = "198.51.100.253";
    public static final String NETNS_UNDERLAY = "198.51.100.254";
    public static final String KERNEL_INNER = "198.51.100.1";
    public static final String JNET_INNER = "198.51.100.2";
    public static final int VNI = 42;

    private final LinuxNetns netns;
    private final String hostVeth;
    private VxlanDevice vtep;
    private NetNamespace jnet;

    private VxlanKernelPeer(LinuxNetns netns, String hostVeth) {
        this.netns = netns;
        this.hostVeth = hostVeth;
    }

    /**
     * Builds both sides.
     *
     * @param vethPrefix the first characters of the veth names (a random suffix follows), at most 4
     * @param jnetName the jnet namespace's name
     */
    public static VxlanKernelPeer open(String vethPrefix, String jnetName) throws IOException {
        String suffix = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
        String hostVeth = vethPrefix + "h" + suffix;
        String nsVeth = vethPrefix + "n" + suffix;
        VxlanKernelPeer peer = new VxlanKernelPeer(LinuxNetns.create(), hostVeth);
        try {
            peer.build(nsVeth, jnetName);
            return peer;
        } catch (IOException | RuntimeException | Error e) {
            peer.close();
            throw e;
        }
    }

    private void build(String nsVeth, String jnetName) throws IOException {
        host("ip", "link", "add", hostVeth, "type", "veth", "peer", "name", nsVeth);
        LinuxNetns.hostSysctl("net.ipv6.conf." + hostVeth + ".disable_ipv6", "1");
        netns.moveLink(nsVeth);
        netns.sysctl("net.ipv6.conf." + nsVeth + ".disable_ipv6", "1");
        host("ip", "address", "add", HOST_UNDERLAY + "/30", "dev", hostVeth);
        netns.addAddress(nsVeth, NETNS_UNDERLAY + "/30");
        host("ethtool", "-K", hostVeth, "tx", "off");
        netns.execChecked("ethtool", "-K", nsVeth, "tx", "off");
        host("ip", "link", "set", "dev", hostVeth, "up");
        netns.linkUp(nsVeth);
        netns.linkUp("lo");

        vtep = openVtep();
        jnet = NetNamespace.create(jnetName);
        int port = vtep.localAddress().getPort();
        CommandResult add = netns.exec("ip", "link", "add", "vx0", "type", "vxlan", "id", Integer.toString(VNI),
                "remote", HOST_UNDERLAY, "local", NETNS_UNDERLAY, "dstport", Integer.toString(port), "dev", nsVeth);
        Assumptions.assumeTrue(add.ok(), () -> "Linux vxlan interfaces unavailable: " + add.describe());
        netns.sysctl("net.ipv6.conf.vx0.disable_ipv6", "1");
        netns.execChecked("ethtool", "-K", "vx0", "tx", "off");
        netns.addAddress("vx0", KERNEL_INNER + "/25");
        netns.linkUp("vx0");
        jnet.attach(vtep);
        jnet.addAddress("vx0", JNET_INNER + "/24");
    }

    /** jnet's VTEP on the host's underlay address: port 4789 unless it is taken, else one the kernel picks. */
    private static VxlanDevice openVtep() throws IOException {
        InetAddress local = InetAddress.getByName(HOST_UNDERLAY);
        VxlanDevice.Builder b = VxlanDevice.builder("vx0").vni(VNI).remote(InetAddress.getByName(NETNS_UNDERLAY))
                .provider(KernelProvider.get());
        try {
            return b.localAddress(new InetSocketAddress(local, 4789)).dstPort(4789).open();
        } catch (BindException e) {
            int port;
            try (DatagramChannel probe = KernelProvider.get().openDatagramChannel()) {
                probe.bind(new InetSocketAddress(local, 0));
                port = ((InetSocketAddress) probe.getLocalAddress()).getPort();
            }
            return b.localAddress(new InetSocketAddress(local, port)).dstPort(port).open();
        }
    }

    private static CommandResult host(String... cmd) throws IOException {
        return Tools.run(LinuxNetns.DEFAULT_TIMEOUT, cmd).checkSuccess();
    }

    /** The test namespace holding vx0 (the kernel's side). */
    public LinuxNetns netns() { return netns; }

    /** jnet's VXLAN device (attached to {@link #jnet()} as vx0). */
    public VxlanDevice vtep() { return vtep; }

    /** The jnet namespace on the tunnel. */
    public NetNamespace jnet() { return jnet; }

    /** The veth end left in this host's namespace (gone after {@link #close}). */
    public String hostVeth() { return hostVeth; }

    /** Closes jnet's side, deletes the veth pair (and with it the host's /30) and the test namespace. */
    @Override
    public void close() {
        if (jnet != null) jnet.close();
        if (vtep != null) vtep.close();
        try {
            Tools.run(LinuxNetns.DEFAULT_TIMEOUT, "ip", "link", "del", hostVeth); // gone already if never made
        } catch (IOException e) {
            System.err.println("could not delete " + hostVeth + ": " + e.getMessage());
        } finally {
            netns.close();
        }
    }
}
