package io.jnet.app;

import io.jnet.wire.Ipv4;
import java.net.Inet4Address;
import java.util.List;
import java.util.Objects;

/**
 * The iproute2 commands that set up the Linux kernel's side of a TAP interface jnet holds, either in
 * a dedicated network namespace (recommended: nothing reaches the host's other interfaces) or in the
 * root namespace. No default route is added, so the kernel only reaches jnet's subnet over the TAP.
 *
 * <p>The kernel gets the {@link #peerAddress() peer address}: the first host address of jnet's subnet,
 * or the second when jnet holds the first ({@code 192.0.2.1} for jnet at {@code 192.0.2.2/24}); on a
 * /31 link (RFC 3021) the other address.
 */
public final class KernelSideCommands {

    private final String ifname;
    private final Inet4Address jnetAddress;
    private final int prefixLength;
    private final Inet4Address peer;

    /**
     * @param ifname the TAP interface name
     * @param jnetAddress jnet's address on the link
     * @param prefixLength the subnet's prefix length, 1..31
     */
    public KernelSideCommands(String ifname, Inet4Address jnetAddress, int prefixLength) {
        this.ifname = Objects.requireNonNull(ifname, "ifname");
        this.jnetAddress = Objects.requireNonNull(jnetAddress, "jnetAddress");
        if (prefixLength < 1 || prefixLength > 31) throw new IllegalArgumentException("prefix length must be 1..31: " + prefixLength);
        this.prefixLength = prefixLength;
        this.peer = Ipv4.toInet(peerOf(Ipv4.fromInet(jnetAddress), prefixLength));
    }

    static int peerOf(int address, int prefixLength) {
        if (prefixLength == 31) return address ^ 1;
        int network = address & Ipv4.prefixMask(prefixLength);
        return address == network + 1 ? network + 2 : network + 1;
    }

    /** The address the kernel side should take. */
    public Inet4Address peerAddress() { return peer; }

    /** The kernel side's address with prefix, e.g. {@code 192.0.2.1/24}. */
    public String peerCidr() { return peer.getHostAddress() + "/" + prefixLength; }

    /**
     * Commands that move the interface into network namespace {@code netns}, address it and set it up
     * (IPv6 off on the link so the capture holds only jnet's traffic), then try jnet from there.
     */
    public List<String> inNamespace(String netns, String tryCommand) {
        return List.of(
                "ip netns add " + netns,
                "ip link set dev " + ifname + " netns " + netns,
                "ip netns exec " + netns + " sysctl -q -w net.ipv6.conf." + ifname + ".disable_ipv6=1",
                "ip -n " + netns + " address add " + peerCidr() + " dev " + ifname,
                "ip -n " + netns + " link set dev " + ifname + " up",
                "ip netns exec " + netns + " " + tryCommand,
                "ip netns del " + netns + "        # when done; deletes " + ifname + " too");
    }

    /** Commands that address the interface in the root namespace and set it up. */
    public List<String> inRootNamespace() {
        return List.of(
                "ip address add " + peerCidr() + " dev " + ifname,
                "ip link set dev " + ifname + " up");
    }

    /** jnet's address, for messages. */
    public String jnetAddress() { return jnetAddress.getHostAddress(); }
}
