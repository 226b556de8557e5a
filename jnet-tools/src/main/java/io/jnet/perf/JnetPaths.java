package io.jnet.perf;

import io.jnet.link.VethPair;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.socket.UdpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.Sysctl;
import io.jnet.topology.Topology;
import io.jnet.wire.Ipv4;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The jnet stack as {@link PerfPath}s, registered in {@link PathRegistry} as {@code jnet:loopback} (one
 * namespace talking to itself over {@code lo}, 127.0.0.1) and {@code jnet:veth} (two namespaces joined by a
 * veth pair: client namespace {@code perf-client} with veth0 10.0.0.1/24, server namespace
 * {@code perf-server} with veth1 10.0.0.2/24) and {@code jnet:routed} (the same two namespaces' roles with a
 * router namespace between them, {@link #routed}). The given sysctls are set in every namespace before any
 * socket opens. {@code jnet:friends} is {@link #loopback} with {@code net.ipv4.tcp_friends=1} among the
 * sysctls ({@link PathRegistry.Entry#ownSysctls}).
 */
public final class JnetPaths {

    /** The name reports use for this stack. */
    public static final String STACK = "jnet";

    private static final int BACKLOG = 128;

    private JnetPaths() {}

    /**
     * One namespace over its loopback device.
     *
     * @param sysctls Linux sysctl name to value, set in the namespace in order
     * @throws IOException if the namespace cannot be set up
     * @throws IllegalArgumentException for an unknown sysctl or a bad value
     */
    public static PerfPath loopback(Map<String, String> sysctls) throws IOException {
        return openLoopback(sysctls);
    }

    /**
     * Two namespaces joined by a veth pair.
     *
     * @param sysctls Linux sysctl name to value, set in both namespaces in order
     * @throws IOException if the namespaces or the veth pair cannot be set up
     * @throws IllegalArgumentException for an unknown sysctl or a bad value
     */
    public static PerfPath veth(Map<String, String> sysctls) throws IOException {
        return openVeth(sysctls);
    }

    /**
     * Client - router - server over two veth pairs of MTU 1500 (as {@link #veth}), built by
     * {@link Topology#routed}: client namespace {@code perf-client} with eth0 10.0.1.2/24, router namespace
     * {@code perf-router} with eth0 10.0.1.1/24 and eth1 10.0.2.1/24 and {@code net.ipv4.ip_forward=1}, server
     * namespace {@code perf-server} with eth0 10.0.2.2/24; client and server route 10.0.0.0/16 via the router.
     * Every packet each way is forwarded by the router (input route, TTL, neighbour, output), so the figure
     * over {@link #veth}'s is what forwarding costs.
     *
     * @param sysctls Linux sysctl name to value, set in all three namespaces in order, before the topology
     *                is built; the router's {@code net.ipv4.ip_forward=1} wins over a value given here
     * @throws IOException if the namespaces cannot be set up
     * @throws IllegalArgumentException for an unknown sysctl or a bad value
     */
    public static PerfPath routed(Map<String, String> sysctls) throws IOException {
        List<NetNamespace> owned = new ArrayList<>(3);
        try {
            NetNamespace client = NetNamespace.create("perf-client");
            owned.add(client);
            NetNamespace router = NetNamespace.create("perf-router");
            owned.add(router);
            NetNamespace server = NetNamespace.create("perf-server");
            owned.add(server);
            for (NetNamespace ns : owned) applySysctls(ns, sysctls);
            Topology.routed(client, router, server);
            InetAddress serverAddress = Ipv4.toInet(Ipv4.parseAddress(Topology.Routed.B));
            return new Path(client, server, serverAddress,
                    Topology.Routed.A + " -> " + Topology.Routed.B + " via client eth0 - router " + Topology.Routed.R_A
                            + "/" + Topology.Routed.R_B + " (ip_forward=1) - server eth0 (three jnet namespaces, two veth pairs"
                            + settings(client, sysctls) + ")",
                    List.of(client, router, server), Ipv4.toInet(Ipv4.parseAddress(Topology.Routed.A)), "eth0", "eth0");
        } catch (RuntimeException e) {
            for (NetNamespace ns : owned) ns.close();
            throw e;
        }
    }

    private static PerfPath openLoopback(Map<String, String> sysctls) throws IOException {
        NetNamespace ns = NetNamespace.create("perf");
        try {
            applySysctls(ns, sysctls);
            InetAddress lo = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
            return new Path(ns, ns, lo, "127.0.0.1 via lo (one jnet namespace" + settings(ns, sysctls) + ")", List.of(ns),
                    null, null, null);
        } catch (IOException | RuntimeException e) {
            ns.close();
            throw e;
        }
    }

    private static PerfPath openVeth(Map<String, String> sysctls) throws IOException {
        NetNamespace client = NetNamespace.create("perf-client");
        NetNamespace server = null;
        try {
            server = NetNamespace.create("perf-server");
            applySysctls(client, sysctls);
            applySysctls(server, sysctls);
            VethPair pair = VethPair.create("veth0", "veth1");
            client.attach(pair.a());
            server.attach(pair.b());
            client.addAddress("veth0", "10.0.0.1/24");
            server.addAddress("veth1", "10.0.0.2/24");
            InetAddress serverAddress = InetAddress.getByAddress(new byte[] {10, 0, 0, 2});
            return new Path(client, server, serverAddress,
                    "10.0.0.1 -> 10.0.0.2 via veth0/veth1 (two jnet namespaces" + settings(client, sysctls) + ")",
                    List.of(client, server), InetAddress.getByAddress(new byte[] {10, 0, 0, 1}), "veth0", "veth1");
        } catch (IOException | RuntimeException e) {
            client.close();
            if (server != null) server.close();
            throw e;
        }
    }

    /**
     * The port range of the benchmark namespaces: TCP_CRR leaves a TIME-WAIT behind each connection and
     * tcp_tw_reuse frees a port only after tcp_tw_reuse_delay (1 s), so the default range (28232 ports)
     * caps the connection rate near 28k/s; like a netperf host set up for TCP_CRR, the benchmark widens it.
     * A --sysctl given by the user overrides it.
     */
    static final String PORT_RANGE = "1024 65535";

    /** For the banner: the ephemeral port range in force, then each --sysctl given, as NAME=VALUE. */
    private static String settings(NetNamespace ns, Map<String, String> sysctls) {
        StringBuilder sb = new StringBuilder(", ports ")
                .append(ns.sysctl().get("net.ipv4.ip_local_port_range").trim().replaceAll("\\s+", "-"));
        for (String given : sysctls.keySet()) {
            Sysctl s = ns.sysctl().lookup(given);
            if (s.name().equals("net.ipv4.ip_local_port_range")) continue;
            sb.append(", ").append(s.name()).append('=').append(s.get());
        }
        return sb.toString();
    }

    private static void applySysctls(NetNamespace ns, Map<String, String> sysctls) {
        ns.sysctl().set("net.ipv4.ip_local_port_range", PORT_RANGE);
        for (Map.Entry<String, String> e : sysctls.entrySet()) {
            ns.sysctl().set(e.getKey(), e.getValue());
        }
    }

    /**
     * The namespaces of a path opened here, the client's first and the server's last (one for
     * {@link #loopback}; client, router, server for {@link #routed}), for tests that
     * check what the path set up.
     *
     * @throws ClassCastException if {@code path} was not opened here
     */
    static List<NetNamespace> namespaces(PerfPath path) {
        return ((Path) path).owned;
    }

    /**
     * Flows per client (and, for connected UDP, server) address; flow {@code f} uses address number
     * {@code k = f / FLOWS_PER_ADDRESS} and port {@code 1024 + f % FLOWS_PER_ADDRESS} on it. Address 0 is the
     * primary (10.0.0.1 and 10.0.0.2 on veth); the others are added when a run first needs them:
     * 10.0.0.(10+k)/32 on veth0 and 10.0.0.(100+k)/32 on veth1 (inside the veth's 10.0.0.0/24, so reached
     * on-link) for jnet:veth; on jnet:loopback the clients use 127.0.0.(10+k) and the server 127.0.0.1, then
     * 127.0.0.(100+k) (all of 127.0.0.0/8 is local).
     */
    static final int FLOWS_PER_ADDRESS = 60_000;

    /** The generator's veth in the server's namespace, and its addresses (unconnected UDP). */
    static final String GEN_DEV = "gen0";
    private static final String GEN_SERVER = "10.1.0.2";
    private static final String GEN_PEER = "10.1.0.1";

    private static final class Path implements PerfPath {
        private final NetNamespace clientNs;
        private final NetNamespace serverNs;
        private final InetAddress serverAddress;
        private final String description;
        private final List<NetNamespace> owned;
        /** The devices that carry the secondary addresses, or null on loopback (127.0.0.0/8 is all local). */
        private final String clientDev;
        private final String serverDev;
        /** The client's primary address (null on loopback); secondary addresses share its /24 and the server's. */
        private final InetAddress clientPrimary;
        /** Address numbers added so far (0 is the primary). */
        private int addresses = 1;
        private VethPair generatorLink;
        /** The allocator kind last set by {@link #useAllocator}, or null while the namespaces keep their own. */
        private String allocator;

        Path(NetNamespace clientNs, NetNamespace serverNs, InetAddress serverAddress, String description,
                List<NetNamespace> owned, InetAddress clientPrimary, String clientDev, String serverDev) {
            this.clientPrimary = clientPrimary;
            this.clientNs = clientNs;
            this.serverNs = serverNs;
            this.serverAddress = serverAddress;
            this.description = description;
            this.owned = owned;
            this.clientDev = clientDev;
            this.serverDev = serverDev;
        }

        /**
         * Client address number {@code k} of the flows, added on first use: the client's primary address for
         * 0, then host 10+k in its /24 (10.0.0.(10+k) on veth, 10.0.1.(10+k) on the routed path); on loopback
         * 127.0.0.(10+k) for every k, so that no flow's port meets the server's on 127.0.0.1.
         */
        private InetAddress clientAddress(int k) throws IOException {
            if (k == 0 && clientDev != null) return clientPrimary;
            ensureAddresses(k);
            return clientDev == null ? InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (10 + k)})
                    : hostInSlash24(clientPrimary, 10 + k);
        }

        /** Server address number {@code k} (0: the primary, then host 100+k in its /24), added on first use. */
        private InetAddress serverAddress(int k) throws IOException {
            if (k == 0) return serverAddress;
            ensureAddresses(k);
            return clientDev == null ? InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (100 + k)})
                    : hostInSlash24(serverAddress, 100 + k);
        }

        private static InetAddress hostInSlash24(InetAddress primary, int host) throws IOException {
            byte[] a = primary.getAddress();
            a[3] = (byte) host;
            return InetAddress.getByAddress(a);
        }

        /** The port of flow {@code flow} on a secondary address: 1024 up, one per flow of that address. */
        private static int flowPort(int flow) { return 1024 + flow % FLOWS_PER_ADDRESS; }

        private synchronized void ensureAddresses(int k) {
            if (k > 80) throw new IllegalArgumentException("flow address " + k + " out of range");
            for (; addresses <= k; addresses++) {
                if (clientDev == null) continue;
                try {
                    clientNs.addAddress(clientDev, hostInSlash24(clientPrimary, 10 + addresses).getHostAddress() + "/32");
                    serverNs.addAddress(serverDev, hostInSlash24(serverAddress, 100 + addresses).getHostAddress() + "/32");
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
        }

        @Override
        public synchronized void useAllocator(String name) {
            if (name == null || name.equals(allocator)) return;
            for (NetNamespace ns : owned) ns.setAllocator(io.jnet.buffer.PacketAllocators.create(name));
            allocator = name;
        }

        @Override
        public synchronized String allocatorName() {
            return allocator != null ? allocator
                    : System.getProperty(io.jnet.buffer.PacketAllocators.PROPERTY, io.jnet.buffer.PacketAllocators.DEFAULT);
        }

        @Override
        public AllocationCounts allocationCounts() {
            long bytes = AllocationCounts.jvmAllocatedBytes();
            java.util.Set<io.jnet.buffer.PacketAllocator> seen =
                    java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            long entries = 0;
            long contended = 0;
            for (NetNamespace ns : owned) {
                io.jnet.buffer.PacketAllocator a = ns.allocator();
                if (!seen.add(a)) continue;
                entries += a.lockEntries();
                contended += a.contendedLockEntries();
            }
            return new AllocationCounts(bytes, entries, contended);
        }

        @Override
        public LookupCounts lookupCounts() {
            LookupCounts sum = LookupCounts.ZERO;
            for (NetNamespace ns : owned) {
                io.jnet.stack.Mib m = ns.mib();
                sum = sum.plus(new LookupCounts(m.get(io.jnet.stack.MibCounter.IpInReceives),
                        m.get(io.jnet.stack.MibCounter.IpExtJnetSocketLookups),
                        m.get(io.jnet.stack.MibCounter.IpExtJnetRouteLookups),
                        m.get(io.jnet.stack.MibCounter.IpExtJnetEarlyDemuxHits),
                        m.get(io.jnet.stack.MibCounter.IpExtJnetEarlyDemuxMisses)));
            }
            return sum;
        }

        /**
         * Every flow's client socket is bound to an address and port of its own ({@link #flowAddress}), with
         * SO_REUSEADDR so that a TIME-WAIT left by an earlier run on it does not refuse the bind; ports picked
         * by connect(2) would hold their port for every address of the namespace here, so the second
         * address could not reuse them.
         */
        @Override
        public PerfConnection connect(PerfListener listener, SocketSettings client, int flow) throws IOException {
            TcpSocket s = TcpSocket.open(clientNs);
            try {
                apply(s, client);
                s.setOption(SocketOption.SO_REUSEADDR, true);
                s.bind(new InetSocketAddress(clientAddress(flow / FLOWS_PER_ADDRESS), flowPort(flow)));
                s.connect((InetSocketAddress) listener.address());
                return new Connection(s);
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }

        @Override
        public PerfDatagramSocket[] connectedPair(SocketSettings server, SocketSettings client, int flow) throws IOException {
            int k = flow / FLOWS_PER_ADDRESS;
            UdpSocket srv = UdpSocket.open(serverNs);
            UdpSocket cli = null;
            try {
                apply(srv, server);
                int port = flowPort(flow); // see connect: a port of its own on its address
                srv.bind(new InetSocketAddress(serverAddress(k), port));
                cli = UdpSocket.open(clientNs);
                apply(cli, client);
                cli.bind(new InetSocketAddress(clientAddress(k), port));
                cli.connect(srv.localAddress());
                srv.connect(cli.localAddress());
                return new PerfDatagramSocket[] {new Udp(srv), new Udp(cli)};
            } catch (IOException | RuntimeException e) {
                srv.close();
                if (cli != null) cli.close();
                throw e;
            }
        }

        @Override
        public PerfDatagramSet datagramSet(List<PerfDatagramSocket> sockets) {
            return new UdpSet(sockets);
        }

        @Override
        public FrameGenerator generator(int sources, int payloadSize, SocketSettings server) throws IOException {
            VethPair link = generatorLink();
            UdpSocket s = UdpSocket.open(serverNs);
            try {
                apply(s, server);
                s.bind(new InetSocketAddress(GEN_SERVER, 0));
                return new VethGenerator(link.a(), link.b().macAddress(), new Udp(s), sources, payloadSize,
                        GEN_DEV + " in " + serverNs.name() + " (route " + VethGenerator.SOURCE_PREFIX + " via "
                                + GEN_PEER + ", rp_filter 1)");
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }

        /**
         * The generator's veth, made on first use: {@value #GEN_DEV} in the server's namespace with
         * 10.1.0.2/24, a route to {@link VethGenerator#SOURCE_PREFIX} via 10.1.0.1 (the generator's end, a
         * permanent neighbour entry, as no stack answers ARP there) and rp_filter 1 (strict) on all devices,
         * which the route back lets the generator's sources pass.
         */
        private synchronized VethPair generatorLink() {
            if (generatorLink != null) return generatorLink;
            VethPair pair = VethPair.create("gen", GEN_DEV);
            serverNs.attach(pair.b());
            serverNs.addAddress(GEN_DEV, GEN_SERVER + "/24");
            io.jnet.ip.Ipv4Layer ip = serverNs.extension(io.jnet.ip.Ipv4Layer.class);
            ip.addRoute(VethGenerator.SOURCE_PREFIX, GEN_PEER, GEN_DEV);
            int peer = VethGenerator.toInt(parse(GEN_PEER));
            serverNs.extension(io.jnet.arp.NeighbourTable.class)
                    .addPermanent(serverNs.requireInterface(GEN_DEV), peer, pair.a().macAddress());
            serverNs.sysctl().set("net.ipv4.conf.all.rp_filter", "1");
            generatorLink = pair;
            return pair;
        }

        private static InetAddress parse(String a) {
            try {
                return InetAddress.getByName(a);
            } catch (java.net.UnknownHostException e) {
                throw new AssertionError(e);
            }
        }

        @Override
        public String stack() { return STACK; }

        @Override
        public String description() { return description; }

        @Override
        public PerfListener listen(SocketSettings server) throws IOException {
            TcpServerSocket s = TcpServerSocket.open(serverNs);
            try {
                s.setOption(SocketOption.SO_REUSEADDR, true);
                if (server.setsReceiveBuffer()) s.setOption(SocketOption.SO_RCVBUF, server.receiveBufferBytes());
                s.bind(new InetSocketAddress(serverAddress, 0));
                s.listen(BACKLOG);
                return new Listener(s, server);
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }

        @Override
        public PerfConnection connect(PerfListener listener, SocketSettings client) throws IOException {
            TcpSocket s = TcpSocket.open(clientNs);
            try {
                apply(s, client);
                s.connect((InetSocketAddress) listener.address());
                return new Connection(s);
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }

        @Override
        public PerfDatagramSocket bindDatagram(SocketSettings server) throws IOException {
            UdpSocket s = UdpSocket.open(serverNs);
            try {
                apply(s, server);
                s.bind(new InetSocketAddress(serverAddress, 0));
                return new Udp(s);
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }

        @Override
        public PerfDatagramSocket connectDatagram(InetSocketAddress server, SocketSettings client) throws IOException {
            UdpSocket s = UdpSocket.open(clientNs);
            try {
                apply(s, client);
                s.connect(server);
                return new Udp(s);
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }

        @Override
        public void close() {
            for (NetNamespace ns : owned) ns.close();
        }
    }

    /** Datagrams from many jnet UDP sockets: a {@link io.jnet.socket.Poller}, edge-triggered, sockets non-blocking. */
    private static final class UdpSet implements PerfDatagramSet {
        private final io.jnet.socket.Poller poller = io.jnet.socket.Poller.open();
        private final List<PerfDatagramSocket> sockets;
        private final java.util.ArrayDeque<Integer> ready = new java.util.ArrayDeque<>();
        private final java.util.List<io.jnet.socket.Poller.Ready> polled = new java.util.ArrayList<>();
        private int last = -1;

        UdpSet(List<PerfDatagramSocket> sockets) {
            this.sockets = sockets;
            for (int i = 0; i < sockets.size(); i++) {
                UdpSocket s = ((Udp) sockets.get(i)).socket;
                s.setBlocking(false);
                poller.register(s, io.jnet.socket.Events.POLLIN | io.jnet.socket.Events.EPOLLET, i);
            }
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            while (true) {
                Integer i = ready.peekFirst();
                if (i != null) {
                    int n = ((Udp) sockets.get(i)).socket.read(dst);
                    if (n >= 0) {
                        last = i;
                        return n;
                    }
                    ready.pollFirst(); // drained: the next datagram on it reports it again
                    continue;
                }
                if (Thread.interrupted()) throw new java.io.InterruptedIOException("interrupted while waiting for datagrams");
                polled.clear();
                poller.poll(polled, java.time.Duration.ofSeconds(1));
                for (io.jnet.socket.Poller.Ready r : polled) ready.addLast((Integer) r.attachment());
            }
        }

        @Override
        public int lastIndex() { return last; }

        @Override
        public void close() { poller.close(); }
    }

    private static final class Listener implements PerfListener {
        private final TcpServerSocket socket;
        private final SocketSettings settings;

        Listener(TcpServerSocket socket, SocketSettings settings) {
            this.socket = socket;
            this.settings = settings;
        }

        @Override
        public PerfConnection accept() throws IOException {
            TcpSocket s = socket.accept();
            try {
                apply(s, settings);
                return new Connection(s);
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }

        @Override
        public InetSocketAddress address() { return socket.localAddress(); }

        @Override
        public void close() { socket.close(); }
    }

    private static final class Connection implements PerfConnection {
        private final TcpSocket socket;

        Connection(TcpSocket socket) { this.socket = socket; }

        @Override
        public int read(ByteBuffer dst) throws IOException { return socket.read(dst); }

        @Override
        public int write(ByteBuffer src) throws IOException { return socket.write(src); }

        @Override
        public long transferFrom(FileChannel file, long position, long count) throws IOException {
            return socket.transferFrom(file, position, count);
        }

        @Override
        public void shutdownOutput() throws IOException { socket.shutdownOutput(); }

        @Override
        public int sendBufferSize() throws IOException { return socket.getOption(SocketOption.SO_SNDBUF); }

        @Override
        public int receiveBufferSize() throws IOException { return socket.getOption(SocketOption.SO_RCVBUF); }

        @Override
        public void close() { socket.close(); }
    }

    /** A jnet UDP socket; ENOBUFS and EAGAIN on send are netperf's send errors (-1), not failures. */
    private static final class Udp implements PerfDatagramSocket {
        final UdpSocket socket;

        Udp(UdpSocket socket) { this.socket = socket; }

        @Override
        public InetSocketAddress localAddress() { return socket.localAddress(); }

        @Override
        public int send(ByteBuffer src) throws IOException { return sendTo(src, null); }

        @Override
        public int sendTo(ByteBuffer src, InetSocketAddress to) throws IOException {
            try {
                return socket.send(src, to);
            } catch (ErrnoException e) {
                if (e.errno() == Errno.ENOBUFS || e.errno() == Errno.EAGAIN) return -1;
                throw e;
            }
        }

        @Override
        public int read(ByteBuffer dst) throws IOException { return socket.read(dst); }

        @Override
        public InetSocketAddress receive(ByteBuffer dst) throws IOException { return socket.receive(dst).sender(); }

        @Override
        public int sendBufferSize() throws IOException { return socket.getOption(SocketOption.SO_SNDBUF); }

        @Override
        public int receiveBufferSize() throws IOException { return socket.getOption(SocketOption.SO_RCVBUF); }

        @Override
        public void close() { socket.close(); }
    }

    private static void apply(UdpSocket s, SocketSettings settings) throws IOException {
        if (settings.setsSendBuffer()) s.setOption(SocketOption.SO_SNDBUF, settings.sendBufferBytes());
        if (settings.setsReceiveBuffer()) s.setOption(SocketOption.SO_RCVBUF, settings.receiveBufferBytes());
    }

    private static void apply(TcpSocket s, SocketSettings settings) throws IOException {
        if (settings.setsSendBuffer()) s.setOption(SocketOption.SO_SNDBUF, settings.sendBufferBytes());
        if (settings.setsReceiveBuffer()) s.setOption(SocketOption.SO_RCVBUF, settings.receiveBufferBytes());
        if (settings.noDelay()) s.setOption(SocketOption.TCP_NODELAY, true);
    }
}
