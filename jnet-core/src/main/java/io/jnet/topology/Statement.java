package io.jnet.topology;

import io.jnet.ip.IpRouteFile;
import io.jnet.link.impair.ImpairmentConfig;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * One statement of a {@link NetworkConfig} inside a namespace block, as a plain value: what the line says,
 * checked, with nothing opened. {@link #text()} prints it back in the form {@link NetworkConfig#parse} reads
 * (canonical: keywords in a fixed order, defaults left out). The Linux command each one mirrors is named on
 * the record.
 */
public sealed interface Statement {

    /** The statement in the configuration syntax, e.g. {@code addr add 192.0.2.2/24 dev tap0}. */
    String text();

    /**
     * {@code sysctl KEY=VALUE}: {@code sysctl -w KEY=VALUE} on Linux. The key is one of the namespace's
     * sysctls ({@code NetNamespace.sysctl()}, names and units as Linux's), including the per-device
     * {@code net.ipv4.conf.DEV.*} of a device the namespace gets; the value is its text form (numbers separated
     * by blanks for vectors such as {@code net.ipv4.tcp_rmem}).
     *
     * @param key the sysctl's dotted name
     * @param value the value as written, inner blanks collapsed to one space
     */
    record Sysctl(String key, String value) implements Statement {
        public Sysctl {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
        }

        /** Whether the key names a device's sysctl ({@code net.ipv4.conf.DEV.*}, not {@code all} or {@code default}). */
        public boolean isDeviceSysctl() {
            return key.startsWith("net.ipv4.conf.") && !key.startsWith("net.ipv4.conf.all.")
                    && !key.startsWith("net.ipv4.conf.default.");
        }

        @Override public String text() { return "sysctl " + key + "=" + value; }
    }

    /** {@code link add NAME type TYPE ...}: a device of the namespace ({@code ip link add}). */
    sealed interface LinkAdd extends Statement permits Tap, Vxlan, Veth {
        /** The device's name in the namespace (and, for a TAP, the kernel's interface name). */
        String name();

        /** MTU in bytes, 0 for the type's default. */
        int mtu();

        /** A pcap file capturing the device's frames on this namespace's side, or null. */
        Path pcap();
    }

    /**
     * {@code link add NAME type tap [mtu N] [pcap FILE]}: a Linux TAP interface ({@code ip tuntap add NAME mode
     * tap}) held by jnet through {@code /dev/net/tun} ({@link io.jnet.link.tap.TapDevice}); the kernel sees an
     * Ethernet device of that name. Opening needs CAP_NET_ADMIN.
     *
     * @param name the interface name, 1..15 bytes, as Linux's dev_valid_name takes it (no {@code %d})
     * @param mtu jnet's MTU in bytes, 68..65535, or 0 for 1500
     * @param pcap capture file or null
     */
    record Tap(String name, int mtu, Path pcap) implements LinkAdd {
        @Override
        public String text() {
            return "link add " + name + " type tap" + mtuText(mtu) + pcapText(pcap);
        }
    }

    /**
     * {@code link add NAME type vxlan id VNI [remote ADDR] [local ADDR] [dstport PORT] [localport PORT] [mtu N]
     * [nolearning] [pcap FILE]}: a VXLAN tunnel end point ({@link io.jnet.link.vxlan.VxlanDevice}, RFC 7348), as
     * Linux's {@code ip link add NAME type vxlan id VNI remote ADDR local ADDR dstport PORT}. Its UDP socket is the
     * host's (kernel's): bound to {@code local} (default 0.0.0.0) and {@code localport}, which defaults to
     * {@code dstport} as a Linux vxlan device listens on its dstport; {@code localport} is jnet's own keyword, for
     * two end points on one host.
     *
     * @param name the device name, 1..15 characters
     * @param vni the VXLAN Network Identifier, 0..16777215
     * @param remote the default remote VTEP (gets flooded frames), or null
     * @param local the local IPv4 address to bind, or null for any
     * @param dstPort the UDP destination port, 1..65535 (default 4789)
     * @param localPort the UDP port to bind, 1..65535, or 0 for {@code dstPort}
     * @param mtu MTU in bytes, 68..65536, or 0 for 1450
     * @param learning whether source MACs are learned (Linux's default; {@code nolearning} turns it off)
     * @param pcap capture file or null
     */
    record Vxlan(String name, int vni, InetAddress remote, InetAddress local, int dstPort, int localPort, int mtu,
                 boolean learning, Path pcap) implements LinkAdd {
        /** Linux's and IANA's VXLAN port (RFC 7348 section 5). */
        public static final int DEFAULT_PORT = 4789;

        /** The UDP port the device's socket binds. */
        public int boundPort() { return localPort != 0 ? localPort : dstPort; }

        @Override
        public String text() {
            StringBuilder b = new StringBuilder("link add " + name + " type vxlan id " + vni);
            if (remote != null) b.append(" remote ").append(remote.getHostAddress());
            if (local != null) b.append(" local ").append(local.getHostAddress());
            if (dstPort != DEFAULT_PORT) b.append(" dstport ").append(dstPort);
            if (localPort != 0) b.append(" localport ").append(localPort);
            b.append(mtuText(mtu));
            if (!learning) b.append(" nolearning");
            return b.append(pcapText(pcap)).toString();
        }
    }

    /**
     * {@code link add NAME type veth peer [name] PEER [netns NS] [mtu N] [pcap FILE]}: a veth pair
     * ({@link io.jnet.link.VethPair}), as {@code ip link add NAME type veth peer name PEER netns NS}: {@code NAME}
     * in this namespace, {@code PEER} in namespace {@code NS} of the same configuration (this one when absent).
     * Both ends get the MTU.
     *
     * @param name this end's name
     * @param peer the other end's name
     * @param peerNamespace the namespace of the other end, or null for this one
     * @param mtu MTU in bytes, 68..65535, or 0 for 1500
     * @param pcap capture file of this end, or null
     */
    record Veth(String name, String peer, String peerNamespace, int mtu, Path pcap) implements LinkAdd {
        @Override
        public String text() {
            return "link add " + name + " type veth peer " + peer + (peerNamespace != null ? " netns " + peerNamespace : "")
                    + mtuText(mtu) + pcapText(pcap);
        }
    }

    /**
     * {@code link set [dev] DEV [mtu N] [impair SPEC]}: {@code ip link set DEV mtu N}, and jnet's impairment
     * device in front of DEV ({@link io.jnet.link.impair.ImpairedDevice}; Linux would use a netem qdisc). SPEC is
     * {@link ImpairmentConfig}'s text form without blanks, e.g. {@code loss=1%,delay=20ms,seed=7}; without a seed
     * one is chosen when the configuration is parsed and printed back, so a printed configuration repeats the run.
     *
     * @param dev the device
     * @param mtu the new MTU in bytes, or 0 to leave it
     * @param impair the impairments, or null for none
     */
    record LinkSet(String dev, int mtu, ImpairmentConfig impair) implements Statement {
        @Override
        public String text() {
            return "link set " + dev + mtuText(mtu) + (impair != null ? " impair " + impair : "");
        }
    }

    /**
     * {@code addr add ADDR/LEN dev DEV}: {@code ip addr add}, the address with its connected route. An address
     * written without {@code /LEN} is a /32, as in iproute2.
     *
     * @param cidr the address and prefix length, canonical ({@code 192.0.2.2/24})
     * @param dev the device
     */
    record AddrAdd(String cidr, String dev) implements Statement {
        @Override public String text() { return "addr add " + cidr + " dev " + dev; }
    }

    /**
     * {@code route add ROUTE}: {@code ip route add ROUTE}, with ROUTE in {@link IpRouteFile}'s syntax (e.g.
     * {@code default via 192.0.2.1 dev tap0}, {@code 10.0.0.0/8 dev veth0 metric 10}); {@code dev} may be left out
     * when the gateway lies on a connected subnet, which then gives the device.
     *
     * @param route the route as written, device not yet looked up
     */
    record RouteAdd(IpRouteFile.Spec route) implements Statement {
        @Override public String text() { return "route add " + route; }
    }

    /**
     * A resolv.conf(5) line: {@code nameserver ADDR}, {@code search DOMAIN...}, {@code domain DOMAIN} or
     * {@code options OPTION...}. jnet keeps it for the namespace's resolver; it configures nothing itself.
     *
     * @param line the line, blanks collapsed to one space
     */
    record ResolvConfLine(String line) implements Statement {
        @Override public String text() { return line; }
    }

    /**
     * {@code host ADDR NAME [ALIAS...]}: a hosts(5) line of the namespace ({@code /etc/hosts}), kept for its
     * resolver.
     *
     * @param address an IPv4 or IPv6 literal
     * @param names the canonical name first, then aliases
     */
    record Host(String address, List<String> names) implements Statement {
        public Host {
            names = List.copyOf(names);
        }

        /** The hosts(5) line: address and names separated by one space. */
        public String hostsLine() { return address + " " + String.join(" ", names); }

        @Override public String text() { return "host " + hostsLine(); }
    }

    private static String mtuText(int mtu) { return mtu != 0 ? " mtu " + mtu : ""; }

    private static String pcapText(Path pcap) { return pcap != null ? " pcap " + pcap : ""; }
}
