package io.jnet.app;

import io.jnet.link.NetDevice;
import io.jnet.link.pcap.PcapSniffer;
import io.jnet.link.pcap.PcapWriter;
import io.jnet.link.tap.TapDevice;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Ipv4;
import java.io.IOException;
import java.net.Inet4Address;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A jnet namespace whose only link is a Linux TAP interface: the set-up shared by {@code jnet serve},
 * {@code jnet fetch} and the kernel interop tests. {@link #open} creates (or attaches to an existing,
 * persistent) TAP interface, optionally wraps it in a {@link PcapSniffer}, attaches it to a new
 * {@link NetNamespace} and gives it the configured IPv4 address with its connected route.
 *
 * <p>jnet configures only its own side. The kernel side of the interface must be up (and usually
 * addressed) before frames flow: see {@link KernelSideCommands}. The TAP descriptor stays usable when
 * the interface is moved into another Linux network namespace.
 *
 * <p>{@link #close()} closes the namespace, which closes its sockets and the device (and the capture).
 */
public final class TapStack implements AutoCloseable {

    /** What to open.
     *
     * @param tapName interface name, at most 15 bytes, may hold {@code %d} for the kernel to fill in
     * @param cidr jnet's IPv4 address and prefix length, e.g. {@code 192.0.2.2/24}
     * @param mtu jnet's MTU in bytes, 68..65535
     * @param pcap a capture file to write every frame to (both directions), or null for none
     */
    public record Config(String tapName, String cidr, int mtu, Path pcap) {
        /** jnet's default address on the TAP link: 192.0.2.2/24 (TEST-NET-1, RFC 5737). */
        public static final String DEFAULT_CIDR = "192.0.2.2/24";
        /** The default interface name. */
        public static final String DEFAULT_TAP = "jnet0";

        /**
         * Checks the values.
         *
         * @throws IllegalArgumentException for an interface name Linux refuses (longer than 15 bytes,
         *     {@code /}, {@code :}, blanks or control characters; {@code dev_valid_name}), a malformed
         *     CIDR or an MTU outside 68..65535
         */
        public Config {
            Objects.requireNonNull(tapName, "tapName");
            Objects.requireNonNull(cidr, "cidr");
            checkTapName(tapName);
            parseCidr(cidr);
            if (mtu < TapDevice.MIN_MTU || mtu > TapDevice.MAX_MTU) {
                throw new IllegalArgumentException("MTU " + mtu + " outside " + TapDevice.MIN_MTU + ".." + TapDevice.MAX_MTU);
            }
        }

        /** {@code jnet0}, 192.0.2.2/24, MTU 1500, no capture. */
        public static Config defaults() {
            return new Config(DEFAULT_TAP, DEFAULT_CIDR, TapDevice.DEFAULT_MTU, null);
        }

        public Config withTapName(String name) { return new Config(name, cidr, mtu, pcap); }
        public Config withCidr(String c) { return new Config(tapName, c, mtu, pcap); }
        public Config withMtu(int m) { return new Config(tapName, cidr, m, pcap); }
        public Config withPcap(Path p) { return new Config(tapName, cidr, mtu, p); }

        /** jnet's address. */
        public Inet4Address address() { return Ipv4.toInet(parseCidr(cidr)[0]); }

        /** The prefix length. */
        public int prefixLength() { return parseCidr(cidr)[1]; }

        /** The subnet on the TAP link, e.g. {@code 192.0.2.0/24} for jnet at 192.0.2.2/24. */
        public String subnetCidr() {
            int[] c = parseCidr(cidr);
            return Ipv4.addressToString(c[0] & Ipv4.prefixMask(c[1])) + "/" + c[1];
        }

        /**
         * Whether {@code address} is on the TAP link's subnet: the only destinations jnet reaches, as its
         * namespace holds just the connected route of its address (no default route).
         */
        public boolean onSubnet(Inet4Address address) {
            int[] c = parseCidr(cidr);
            int mask = Ipv4.prefixMask(c[1]);
            return (Ipv4.fromInet(address) & mask) == (c[0] & mask);
        }

        /** The address the kernel side takes in {@link KernelSideCommands}, e.g. 192.0.2.1 for jnet at 192.0.2.2/24. */
        public Inet4Address peerAddress() {
            int[] c = parseCidr(cidr);
            return Ipv4.toInet(KernelSideCommands.peerOf(c[0], c[1]));
        }

        /**
         * Checks an interface name as Linux's {@code dev_valid_name} does.
         *
         * @throws IllegalArgumentException naming the problem
         */
        public static void checkTapName(String name) {
            // the builder checks the name and opens nothing until open() is called
            TapDevice.builder(name);
        }
    }

    /**
     * The capture file of {@link Config#pcap()} could not be created or written; the cause is the
     * file system's error (e.g. {@link java.nio.file.NoSuchFileException}).
     */
    public static final class CaptureFileException extends IOException {
        private final Path file;

        /**
         * @param file the capture file asked for
         * @param cause the file system's error
         */
        public CaptureFileException(Path file, IOException cause) {
            super("cannot write capture file " + file + ": " + cause.getMessage(), cause);
            this.file = file;
        }

        /** The capture file asked for. */
        public Path file() { return file; }
    }

    private final NetNamespace ns;
    private final TapDevice tap;
    private final PcapSniffer sniffer;
    private final Config config;

    private TapStack(NetNamespace ns, TapDevice tap, PcapSniffer sniffer, Config config) {
        this.ns = ns;
        this.tap = tap;
        this.sniffer = sniffer;
        this.config = config;
    }

    /**
     * Opens the TAP interface and builds the namespace (named after the interface) on it.
     *
     * @throws CaptureFileException when the capture file cannot be created
     * @throws IOException when the TAP cannot be opened (not root: EPERM; held by another process: EBUSY;
     *     an existing interface that is not a TAP: EINVAL; no {@code /dev/net/tun}: ENOENT); the message
     *     names the failed call and the errno
     */
    public static TapStack open(Config config) throws IOException {
        TapDevice tap = TapDevice.builder(config.tapName()).mtu(config.mtu()).open();
        NetDevice device = tap;
        PcapSniffer sniffer = null;
        try {
            if (config.pcap() != null) {
                PcapWriter writer;
                try {
                    writer = PcapWriter.create(config.pcap());
                } catch (IOException e) {
                    throw new CaptureFileException(config.pcap(), e);
                }
                sniffer = new PcapSniffer(tap, writer);
                device = sniffer;
            }
            NetNamespace ns = NetNamespace.create("jnet-" + tap.ifname());
            try {
                ns.attach(device);
            } catch (RuntimeException e) {
                ns.close();
                throw e;
            }
            try {
                ns.addAddress(device.name(), config.cidr());
            } catch (RuntimeException e) {
                ns.close();
                throw e;
            }
            return new TapStack(ns, tap, sniffer, config);
        } catch (IOException | RuntimeException e) {
            device.close();
            throw e;
        }
    }

    private volatile io.jnet.link.impair.ImpairedDevice impaired;

    /**
     * Puts an impairment device (seeded loss, duplication, reordering, corruption, delay) in front of the
     * TAP, on jnet's side of the link. Returns it, for its report.
     */
    public io.jnet.link.impair.ImpairedDevice impair(io.jnet.link.impair.ImpairmentConfig cfg) {
        impaired = io.jnet.link.impair.ImpairedDevice.interpose(ns, tap.ifname(), cfg);
        return impaired;
    }

    /** The impairment device, or null. */
    public io.jnet.link.impair.ImpairedDevice impaired() { return impaired; }

    /** The jnet namespace (sockets are opened here). */
    public NetNamespace namespace() { return ns; }

    /** The TAP device. */
    public TapDevice tap() { return tap; }

    /** The interface name as the kernel knows it. */
    public String ifname() { return tap.ifname(); }

    /** The capture, or null without one. */
    public PcapSniffer sniffer() { return sniffer; }

    /** What was opened. */
    public Config config() { return config; }

    /** jnet's address on the link. */
    public Inet4Address address() { return config.address(); }

    /** The commands that set up the kernel side of this stack's TAP interface. */
    public KernelSideCommands kernelSide() {
        return new KernelSideCommands(tap.ifname(), config.address(), config.prefixLength());
    }

    /** Closes the namespace: sockets, the device and the capture. Idempotent. */
    @Override
    public void close() {
        ns.close();
    }

    /** {address, prefixLength} of a CIDR string; IllegalArgumentException when malformed. */
    static int[] parseCidr(String cidr) {
        int slash = cidr.indexOf('/');
        if (slash < 0) throw new IllegalArgumentException("address needs a prefix length, e.g. 192.0.2.2/24: " + cidr);
        int len;
        try {
            len = Integer.parseInt(cidr.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad prefix length: " + cidr);
        }
        if (len < 1 || len > 31) throw new IllegalArgumentException("prefix length must be 1..31 to leave room for a peer: " + cidr);
        return new int[] {Ipv4.parseAddress(cidr.substring(0, slash)), len};
    }

    @Override
    public String toString() {
        return "TapStack[" + tap.ifname() + " " + config.cidr() + (sniffer != null ? " pcap " + config.pcap() : "") + "]";
    }
}
