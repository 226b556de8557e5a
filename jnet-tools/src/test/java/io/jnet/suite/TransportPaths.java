package io.jnet.suite;

import io.jnet.link.VethPair;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import io.jnet.wire.Ipv4;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The paths the socket behaviour suite runs over. Extension point: add an implementation of
 * {@link TransportPath} to {@link #all()}. The system property
 * {@code jnet.suite.paths} (comma-separated names) restricts a run to some paths.
 */
public final class TransportPaths {
    private TransportPaths() {}

    /** One namespace; client and server talk over {@code lo}, 127.0.0.1. */
    public static final TransportPath LOOPBACK = new TransportPath() {
        @Override public String name() { return "LOOPBACK"; }

        @Override
        public Topology open() {
            NetNamespace ns = NetNamespace.create("suite-lo");
            InetAddress lo = Ipv4.toInet(Ipv4.parseAddress("127.0.0.1"));
            return new SimpleTopology(ns, ns, lo, lo, true);
        }

        @Override public String toString() { return name(); }
    };

    /**
     * {@link #LOOPBACK} with busy polling on ({@code net.core.busy_read} = 50 us, so every socket's
     * SO_BUSY_POLL): blocked reads spin before they sleep, and must behave exactly as when they sleep.
     */
    public static final TransportPath LOOPBACK_BUSY_POLL = loopback("LOOPBACK_BUSY_POLL", "suite-lo-busy",
            "net.core.busy_read=50");

    /**
     * {@link #LOOPBACK} with TCP friends on ({@code net.ipv4.tcp_friends} = 1): every TCP connection pairs at
     * the handshake and its data bypasses segments; every case must behave exactly as over plain TCP.
     */
    public static final TransportPath FRIENDS = friends("FRIENDS", "suite-friends", 0);

    /** {@link #FRIENDS} with busy polling on ({@code net.core.busy_read} = 50 us). */
    public static final TransportPath FRIENDS_BUSY_POLL = friends("FRIENDS_BUSY_POLL", "suite-friends-busy", 50);

    private static TransportPath friends(String name, String nsName, int busyReadUs) {
        return new TransportPath() {
            @Override public String name() { return name; }

            @Override
            public Topology open() {
                NetNamespace ns = NetNamespace.create(nsName);
                ns.sysctl().set("net.ipv4.tcp_friends", "1");
                if (busyReadUs > 0) ns.sysctl().set("net.core.busy_read", Integer.toString(busyReadUs));
                InetAddress lo = Ipv4.toInet(Ipv4.parseAddress("127.0.0.1"));
                return new SimpleTopology(ns, ns, lo, lo, true);
            }

            @Override public String toString() { return name(); }
        };
    }

    /** Two namespaces joined by a veth pair: client 10.0.0.1/24 on veth0, server 10.0.0.2/24 on veth1. */
    public static final TransportPath VETH = veth("VETH", "suite", true);

    /**
     * {@link #VETH} with early demux off ({@code net.ipv4.ip_early_demux} = 0 on both ends): every packet takes
     * the input route lookup and the protocol's own socket lookup, and must behave exactly as with it on.
     */
    public static final TransportPath VETH_NO_EARLY_DEMUX = veth("VETH_NO_EARLY_DEMUX", "suite-nodemux", false);

    /**
     * Veth with both per-socket buffer caches on ({@code net.ipv4.tcp_tx_skb_cache} and {@code tcp_rx_skb_cache}):
     * written segments may reuse an acknowledged buffer and consumed buffers wait on their socket, and every case
     * must behave exactly as with them off.
     */
    public static final TransportPath VETH_SKB_CACHE = veth("VETH_SKB_CACHE", "suite-skbcache", true,
            "net.ipv4.tcp_tx_skb_cache", "net.ipv4.tcp_rx_skb_cache");

    /** Loopback with both per-socket buffer caches on (see {@link #VETH_SKB_CACHE}). */
    public static final TransportPath LOOPBACK_SKB_CACHE = loopback("LOOPBACK_SKB_CACHE", "suite-lo-skbcache",
            "net.ipv4.tcp_tx_skb_cache=1", "net.ipv4.tcp_rx_skb_cache=1");

    /** Client and server in one namespace over lo, with the sysctls {@code settings} ("name=value") set. */
    private static TransportPath loopback(String name, String nsName, String... settings) {
        return new TransportPath() {
            @Override public String name() { return name; }

            @Override
            public Topology open() {
                NetNamespace ns = NetNamespace.create(nsName);
                for (String setting : settings) {
                    int eq = setting.indexOf('=');
                    ns.sysctl().set(setting.substring(0, eq), setting.substring(eq + 1));
                }
                InetAddress lo = Ipv4.toInet(Ipv4.parseAddress("127.0.0.1"));
                return new SimpleTopology(ns, ns, lo, lo, true);
            }

            @Override public String toString() { return name(); }
        };
    }

    private static TransportPath veth(String name, String nsPrefix, boolean earlyDemux, String... switchedOn) {
        return new TransportPath() {
            @Override public String name() { return name; }

            @Override
            public Topology open() {
                NetNamespace a = NetNamespace.create(nsPrefix + "-a");
                NetNamespace b = NetNamespace.create(nsPrefix + "-b");
                if (!earlyDemux) {
                    a.sysctl().set("net.ipv4.ip_early_demux", "0");
                    b.sysctl().set("net.ipv4.ip_early_demux", "0");
                }
                for (String sysctl : switchedOn) {
                    a.sysctl().set(sysctl, "1");
                    b.sysctl().set(sysctl, "1");
                }
                VethPair p = VethPair.create("veth0", "veth1");
                a.attach(p.a());
                b.attach(p.b());
                a.addAddress("veth0", "10.0.0.1/24");
                b.addAddress("veth1", "10.0.0.2/24");
                return new SimpleTopology(a, b, Ipv4.toInet(Ipv4.parseAddress("10.0.0.1")),
                        Ipv4.toInet(Ipv4.parseAddress("10.0.0.2")), false);
            }

            @Override public String toString() { return name(); }
        };
    }

    /**
     * Client and server in two namespaces with a jnet router between them ({@code net.ipv4.ip_forward} = 1,
     * {@link io.jnet.topology.Topology#routed}): client 10.0.1.2 - router - server 10.0.2.2. Every segment is
     * forwarded (TTL, checksum, neighbour resolution on the second link), and every case must behave exactly
     * as over one link.
     */
    public static final TransportPath ROUTED = new TransportPath() {
        @Override public String name() { return "ROUTED"; }

        @Override
        public Topology open() {
            NetNamespace a = NetNamespace.create("suite-ra");
            NetNamespace r = NetNamespace.create("suite-router");
            NetNamespace b = NetNamespace.create("suite-rb");
            io.jnet.topology.Topology.routed(a, r, b);
            return new RoutedTopology(a, r, b, Ipv4.toInet(Ipv4.parseAddress(io.jnet.topology.Topology.Routed.A)),
                    Ipv4.toInet(Ipv4.parseAddress(io.jnet.topology.Topology.Routed.B)));
        }

        @Override public String toString() { return name(); }
    };

    /**
     * Two namespaces, each on its own Linux TAP interface, the two joined by a Linux bridge in a fresh
     * Linux network namespace: client 192.0.2.21/24, server 192.0.2.22/24 (see {@link TapBridgeTopology}).
     * Needs root, {@code /dev/net/tun} and iproute2; elsewhere {@link TransportPath#open()} aborts the
     * test (JUnit assumption), so it is reported as skipped with the reason.
     */
    public static final TransportPath TAP = new TransportPath() {
        @Override public String name() { return "TAP"; }

        @Override
        public Topology open() throws Exception {
            LinuxNetns.assumeAvailable();
            Tools.assumeHas("bridge");
            return TapBridgeTopology.open();
        }

        @Override public String toString() { return name(); }
    };

    /**
     * Every path the suite runs over, filtered by
     * {@code -Djnet.suite.paths=LOOPBACK,LOOPBACK_BUSY_POLL,LOOPBACK_SKB_CACHE,FRIENDS,FRIENDS_BUSY_POLL,VETH,VETH_NO_EARLY_DEMUX,VETH_SKB_CACHE,ROUTED,TAP}.
     * New paths go in this list.
     */
    public static List<TransportPath> all() {
        List<TransportPath> paths = new ArrayList<>(List.of(LOOPBACK, LOOPBACK_BUSY_POLL, LOOPBACK_SKB_CACHE, FRIENDS,
                FRIENDS_BUSY_POLL, VETH, VETH_NO_EARLY_DEMUX, VETH_SKB_CACHE, ROUTED, TAP));
        String only = System.getProperty("jnet.suite.paths", "").trim();
        if (!only.isEmpty()) {
            Set<String> names = Arrays.stream(only.split(",")).map(String::trim).collect(Collectors.toSet());
            paths.removeIf(p -> !names.contains(p.name()));
        }
        return paths;
    }

    /** Client, router and server namespaces ({@link #ROUTED}); the router's internal errors are checked too. */
    record RoutedTopology(NetNamespace client, NetNamespace router, NetNamespace server, InetAddress clientAddress,
            InetAddress serverAddress) implements Topology {
        @Override
        public List<NetNamespace> namespaces() { return List.of(client, router, server); }

        @Override
        public boolean isLoopback() { return false; }

        @Override
        public void close() {
            for (NetNamespace ns : namespaces()) ns.close();
        }
    }

    /** A topology made of jnet namespaces only. */
    record SimpleTopology(NetNamespace client, NetNamespace server, InetAddress clientAddress,
            InetAddress serverAddress, boolean isLoopback)
            implements Topology {
        @Override
        public List<NetNamespace> namespaces() {
            return client == server ? List.of(client) : List.of(client, server);
        }

        @Override
        public void close() {
            for (NetNamespace ns : namespaces()) ns.close();
        }
    }
}
