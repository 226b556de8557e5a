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
                    List.of(client, router, server));
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
            return new Path(ns, ns, lo, "127.0.0.1 via lo (one jnet namespace" + settings(ns, sysctls) + ")", List.of(ns));
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
                    List.of(client, server));
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

    private static final class Path implements PerfPath {
        private final NetNamespace clientNs;
        private final NetNamespace serverNs;
        private final InetAddress serverAddress;
        private final String description;
        private final List<NetNamespace> owned;

        Path(NetNamespace clientNs, NetNamespace serverNs, InetAddress serverAddress, String description,
                List<NetNamespace> owned) {
            this.clientNs = clientNs;
            this.serverNs = serverNs;
            this.serverAddress = serverAddress;
            this.description = description;
            this.owned = owned;
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
        private final UdpSocket socket;

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
