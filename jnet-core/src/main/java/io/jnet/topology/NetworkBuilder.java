package io.jnet.topology;

import io.jnet.ip.Ipv4Layer;
import io.jnet.ip.Route;
import io.jnet.link.NetDevice;
import io.jnet.link.VethPair;
import io.jnet.link.impair.ImpairedDevice;
import io.jnet.link.pcap.PcapSniffer;
import io.jnet.link.pcap.PcapWriter;
import io.jnet.link.tap.TapDevice;
import io.jnet.link.vxlan.VxlanDevice;
import io.jnet.stack.Clock;
import io.jnet.stack.Interface;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.VirtualClock;
import io.jnet.wire.Ipv4;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.FileSystemException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Carries out a {@link NetworkConfig} in phases (see {@link NetworkConfig#apply()}). The same code checks a
 * configuration when it is parsed: a dry run on namespaces of their own virtual clock, where every TAP and VXLAN
 * device is a stand-in with its name and MTU (nothing is opened and no capture file is written), so addresses,
 * routes and sysctls meet the same checks they meet when applied.
 */
final class NetworkBuilder {
    private final NetworkConfig config;
    private final boolean dryRun;
    private final Supplier<Clock> clocks;
    private final Map<String, NetNamespace> namespaces = new LinkedHashMap<>();
    private final Map<String, ImpairedDevice> impairments = new HashMap<>();
    /** Devices opened but not yet attached (closed on failure; attached ones close with their namespace). */
    private final List<NetDevice> loose = new ArrayList<>();

    private NetworkBuilder(NetworkConfig config, boolean dryRun, Supplier<Clock> clocks) {
        this.config = config;
        this.dryRun = dryRun;
        this.clocks = clocks;
    }

    /** Checks {@code config} by building it with stand-in devices, then closes what it built. */
    static void dryRun(NetworkConfig config) {
        NetworkBuilder b = new NetworkBuilder(config, true, VirtualClock::new);
        try {
            b.build();
        } catch (IOException e) {
            throw new IllegalStateException("a dry run opens nothing", e);
        } finally {
            b.closeAll();
        }
    }

    /** Builds {@code config} with real devices; on failure closes everything it built and rethrows. */
    static Network apply(NetworkConfig config, Supplier<Clock> clocks) throws IOException {
        NetworkBuilder b = new NetworkBuilder(config, false, clocks);
        try {
            b.build();
        } catch (IOException | RuntimeException | Error e) {
            b.closeAll();
            throw e;
        }
        return new Network(config, b.namespaces, b.impairments);
    }

    private void closeAll() {
        for (NetDevice d : loose) {
            try { d.close(); } catch (RuntimeException ignored) { /* best effort */ }
        }
        loose.clear();
        for (NetNamespace ns : namespaces.values()) ns.close();
    }

    private void build() throws IOException {
        for (NamespaceConfig nc : config.namespaces()) {
            NetNamespace ns = NetNamespace.create(nc.name(), clocks.get());
            namespaces.put(nc.name(), ns);
            ns.putExtension(NamespaceConfig.class, nc); // its name-service lines, for whoever holds only the namespace
        }
        // 1. sysctls that name no device, so devices attached next start from net.ipv4.conf.default.* as on Linux
        for (NamespaceConfig nc : config.namespaces()) {
            for (Statement.Sysctl s : nc.statements(Statement.Sysctl.class)) {
                if (!s.isDeviceSysctl()) step(s, () -> ns(nc).sysctl().set(s.key(), s.value()));
            }
        }
        // 2. devices
        for (NamespaceConfig nc : config.namespaces()) {
            for (Statement.LinkAdd l : nc.links()) addLink(nc, l);
        }
        // 3. link set: MTU, then impairment in front of the device (and of its capture)
        for (NamespaceConfig nc : config.namespaces()) {
            for (Statement.LinkSet s : nc.statements(Statement.LinkSet.class)) {
                step(s, () -> {
                    NetNamespace ns = ns(nc);
                    Interface itf = ns.requireInterface(s.dev());
                    if (s.mtu() != 0) itf.device().setMtu(s.mtu());
                    if (s.impair() != null) {
                        if (impairments.containsKey(nc.name() + "/" + s.dev())) {
                            throw new IllegalArgumentException("device " + s.dev() + " is impaired already");
                        }
                        impairments.put(nc.name() + "/" + s.dev(), ImpairedDevice.interpose(ns, s.dev(), s.impair()));
                    }
                });
            }
        }
        // 4. the devices' own sysctls
        for (NamespaceConfig nc : config.namespaces()) {
            for (Statement.Sysctl s : nc.statements(Statement.Sysctl.class)) {
                if (s.isDeviceSysctl()) step(s, () -> ns(nc).sysctl().set(s.key(), s.value()));
            }
        }
        // 5. addresses, with their connected routes
        for (NamespaceConfig nc : config.namespaces()) {
            for (Statement.AddrAdd a : nc.statements(Statement.AddrAdd.class)) step(a, () -> ns(nc).addAddress(a.dev(), a.cidr()));
        }
        // 6. routes, once every connected route is there
        for (NamespaceConfig nc : config.namespaces()) {
            for (Statement.RouteAdd r : nc.statements(Statement.RouteAdd.class)) step(r, () -> addRoute(ns(nc), r));
        }
    }

    private NetNamespace ns(NamespaceConfig nc) { return namespaces.get(nc.name()); }

    private static void addRoute(NetNamespace ns, Statement.RouteAdd r) {
        var spec = r.route();
        Ipv4Layer ip = ns.extension(Ipv4Layer.class);
        Interface itf;
        if (spec.dev() != null) {
            itf = ns.requireInterface(spec.dev());
        } else if (spec.gateway() != 0) {
            // ip route add ... via GW without dev: the device of the connected route that holds GW
            Route connected = ip.route(spec.gateway());
            if (connected == null || connected.gateway() != 0) {
                throw new IllegalArgumentException("Nexthop has invalid gateway: no connected route holds "
                        + Ipv4.addressToString(spec.gateway()) + " (add its address first, or give dev)");
            }
            itf = connected.itf();
        } else {
            throw new IllegalArgumentException("missing dev");
        }
        ip.addRoute(spec.toRoute(itf));
    }

    private void addLink(NamespaceConfig nc, Statement.LinkAdd l) throws IOException {
        NetNamespace ns = ns(nc);
        switch (l) {
            case Statement.Veth v -> {
                NetNamespace[] peerNs = new NetNamespace[1];
                VethPair[] pair = new VethPair[1];
                step(v, () -> {
                    peerNs[0] = v.peerNamespace() == null ? ns : namespaces.get(v.peerNamespace());
                    if (peerNs[0] == null) {
                        throw new IllegalArgumentException("no namespace " + v.peerNamespace() + " in the configuration");
                    }
                    // both ends are checked before either is attached, so a failure leaves both namespaces as they were
                    if (peerNs[0] == ns && v.peer().equals(v.name())) throw new IllegalArgumentException("device exists: " + v.peer());
                    if (ns.interfaceByName(v.name()) != null) throw new IllegalArgumentException("device exists: " + v.name());
                    if (peerNs[0].interfaceByName(v.peer()) != null) {
                        throw new IllegalArgumentException("device exists in namespace " + peerNs[0].name() + ": " + v.peer());
                    }
                    pair[0] = VethPair.create(v.name(), v.peer(), v.mtu() != 0 ? v.mtu() : 1500);
                });
                attachStep(ns, v, pair[0].a());
                step(v, () -> peerNs[0].attach(pair[0].b()));
            }
            case Statement.Tap t -> {
                NetDevice dev;
                if (dryRun) {
                    dev = standIn(t.name(), t.mtu() != 0 ? t.mtu() : TapDevice.DEFAULT_MTU);
                } else {
                    try {
                        dev = TapDevice.builder(t.name()).mtu(t.mtu() != 0 ? t.mtu() : TapDevice.DEFAULT_MTU).open();
                    } catch (IOException e) {
                        throw openFailure(t, "cannot open TAP device " + t.name(), e);
                    }
                }
                attachStep(ns, t, dev);
            }
            case Statement.Vxlan x -> {
                NetDevice dev;
                if (dryRun) {
                    dev = standIn(x.name(), x.mtu() != 0 ? x.mtu() : VxlanDevice.DEFAULT_MTU);
                } else {
                    try {
                        VxlanDevice.Builder b = VxlanDevice.builder(x.name()).vni(x.vni()).dstPort(x.dstPort())
                                .learning(x.learning())
                                .localAddress(x.local() != null ? new InetSocketAddress(x.local(), x.boundPort())
                                        : new InetSocketAddress(x.boundPort()));
                        if (x.mtu() != 0) b.mtu(x.mtu());
                        if (x.remote() != null) b.remote(x.remote());
                        dev = b.open();
                    } catch (IOException e) {
                        throw openFailure(x, "cannot open VXLAN device " + x.name() + " (UDP port " + x.boundPort() + ")", e);
                    } catch (RuntimeException e) {
                        throw failure(x, e);
                    }
                }
                attachStep(ns, x, dev);
            }
        }
    }

    /** Attaches a freshly opened device (through its capture, if any); closes it when that fails. */
    private void attachStep(NetNamespace ns, Statement.LinkAdd l, NetDevice dev) throws IOException {
        loose.add(dev);
        NetDevice outer;
        try {
            outer = withCapture(dev, l);
        } catch (IOException e) {
            throw openFailure(l, "cannot write capture file " + l.pcap(), e);
        }
        if (outer != dev) loose.add(outer);
        step(l, () -> ns.attach(outer));
        loose.remove(dev);
        loose.remove(outer);
    }

    /** {@code dev} behind a pcap sniffer when the statement asks for a capture (not in a dry run). */
    private NetDevice withCapture(NetDevice dev, Statement.LinkAdd l) throws IOException {
        if (l.pcap() == null || dryRun) return dev;
        return new PcapSniffer(dev, PcapWriter.create(l.pcap()));
    }

    private static NetDevice standIn(String name, int mtu) {
        return VethPair.create(name, name, mtu).a();
    }

    private IOException openFailure(Statement s, String what, IOException e) {
        return new IOException(NetworkConfigException.format(config.source(), config.lineOf(s), config.writtenOf(s),
                what + ": " + describe(e)), e);
    }

    /** The cause in words: a file system error's reason or kind (its message is only the path), else the message. */
    private static String describe(IOException e) {
        if (e instanceof FileSystemException f) {
            return f.getReason() != null ? f.getReason() : e.getClass().getSimpleName();
        }
        return String.valueOf(e.getMessage());
    }

    private NetworkConfigException failure(Statement s, RuntimeException e) {
        return new NetworkConfigException(config.source(), config.lineOf(s), config.writtenOf(s), String.valueOf(e.getMessage()), e);
    }

    /** Runs one step of statement {@code s}; what it throws is reported with the statement's line. */
    private void step(Statement s, Runnable r) {
        try {
            r.run();
        } catch (NetworkConfigException e) {
            throw e;
        } catch (RuntimeException e) {
            throw failure(s, e);
        }
    }
}
