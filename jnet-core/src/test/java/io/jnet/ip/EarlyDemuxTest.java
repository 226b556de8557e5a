package io.jnet.ip;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.socket.UdpSocket;
import io.jnet.socket.UdpSocket.Datagram;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import io.jnet.stack.Sysctl;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Early demux and the per-socket cached input route, proved with the MIB counters of the receiving namespace:
 * host A (10.0.1.1, eth0) - host B (10.0.1.2, eth0) over a veth pair, and a second pair (10.0.2.1 - 10.0.2.2,
 * eth1) for the input-interface change. Every count is taken on B between two quiet points.
 */
class EarlyDemuxTest {
    private static final int N = 200;
    private static final String A = "10.0.1.1";
    private static final String B = "10.0.1.2";

    private NetNamespace a;
    private NetNamespace b;

    @BeforeEach
    void create() {
        a = NetNamespace.create("demux-a");
        b = NetNamespace.create("demux-b");
        Topology.link(a, b, "eth0", A + "/24", B + "/24");
        Topology.link(a, b, "eth1", "10.0.2.1/24", "10.0.2.2/24");
    }

    @AfterEach
    void close() {
        for (NetNamespace ns : new NetNamespace[] {a, b}) {
            assertThat(ns.internalErrors()).as(ns.name() + " internal errors").isZero();
            ns.close();
        }
    }

    private static InetSocketAddress addr(String host, int port) { return new InetSocketAddress(host, port); }

    /** Binds {@code ua} to A:{@code portA} and {@code ub} to B:{@code portB} and connects each to the other. */
    private static void connectUdp(UdpSocket ua, int portA, UdpSocket ub, int portB) throws Exception {
        ua.bind(addr(A, portA));
        ub.bind(addr(B, portB));
        ua.connect(addr(B, portB));
        ub.connect(addr(A, portA));
    }

    /** The counters of one namespace at one moment. */
    private record Counts(long packets, long socketLookups, long routeLookups, long hits, long misses) {
        static Counts of(Mib m) {
            return new Counts(m.get(MibCounter.IpInReceives), m.get(MibCounter.IpExtJnetSocketLookups),
                    m.get(MibCounter.IpExtJnetRouteLookups), m.get(MibCounter.IpExtJnetEarlyDemuxHits),
                    m.get(MibCounter.IpExtJnetEarlyDemuxMisses));
        }

        Counts minus(Counts o) {
            return new Counts(packets - o.packets, socketLookups - o.socketLookups, routeLookups - o.routeLookups,
                    hits - o.hits, misses - o.misses);
        }
    }

    /** B's counters once they stopped changing (no packet in flight). */
    private Counts settled() {
        Counts last = Counts.of(b.mib());
        for (int quiet = 0; quiet < 5; ) {
            LockSupport.parkNanos(20_000_000L);
            Counts now = Counts.of(b.mib());
            quiet = now.equals(last) ? quiet + 1 : 0;
            last = now;
        }
        return last;
    }

    private void setSwitches(String ip, String proto) {
        b.sysctl().set("net.ipv4.ip_early_demux", ip);
        b.sysctl().set("net.ipv4.tcp_early_demux", proto);
        b.sysctl().set("net.ipv4.udp_early_demux", proto);
    }

    /** An established connection A -> B; B's end is returned in {@code server[0]}. */
    private TcpSocket connect(TcpSocket[] server, int port) throws Exception {
        TcpServerSocket l = TcpServerSocket.open(b);
        l.bind(addr(B, port));
        l.listen(8);
        TcpSocket c = TcpSocket.open(a);
        c.connect(addr(B, port));
        server[0] = l.accept();
        l.close();
        return c;
    }

    private static void sendTcp(TcpSocket c, TcpSocket s, int segments) throws Exception {
        byte[] chunk = new byte[100];
        byte[] in = new byte[100];
        for (int i = 0; i < segments; i++) { // one segment at a time: each is read before the next is written
            Arrays.fill(chunk, (byte) i);
            c.write(chunk, 0, chunk.length);
            int got = 0;
            while (got < chunk.length) got += s.read(in, got, chunk.length - got);
            assertThat(in).isEqualTo(chunk);
        }
    }

    private static void sendUdp(UdpSocket from, UdpSocket to, InetSocketAddress dst, int n) throws Exception {
        byte[] in = new byte[64];
        for (int i = 0; i < n; i++) {
            byte[] p = ("d" + i).getBytes(StandardCharsets.US_ASCII);
            from.send(p, 0, p.length, dst);
            Datagram d = to.receive(in, 0, in.length);
            assertThat(new String(in, 0, d.length(), StandardCharsets.US_ASCII)).isEqualTo("d" + i);
        }
    }

    @ParameterizedTest(name = "early demux {0}")
    @ValueSource(strings = {"1", "0"})
    void establishedTcpCostsOneSocketLookupAndARouteLookupOnlyWithEarlyDemuxOff(String on) throws Exception {
        setSwitches(on, on);
        TcpSocket[] s = new TcpSocket[1];
        try (TcpSocket c = connect(s, 5001); TcpSocket server = s[0]) {
            sendTcp(c, server, 5); // warm: the first hit stores the input route
            Counts before = settled();
            sendTcp(c, server, N);
            Counts d = settled().minus(before);
            assertThat(d.packets()).isGreaterThanOrEqualTo(N);
            assertThat(d.socketLookups()).as("socket lookups per packet").isEqualTo(d.packets());
            if (on.equals("1")) {
                assertThat(d.routeLookups()).as("input route lookups").isZero();
                assertThat(d.hits()).isEqualTo(d.packets());
                assertThat(d.misses()).isZero();
            } else {
                assertThat(d.routeLookups()).as("input route lookups").isEqualTo(d.packets());
                assertThat(d.hits() + d.misses()).isZero();
            }
        }
    }

    @ParameterizedTest(name = "early demux {0}")
    @ValueSource(strings = {"1", "0"})
    void connectedUdpCostsOneSocketLookupAndARouteLookupOnlyWithEarlyDemuxOff(String on) throws Exception {
        setSwitches(on, on);
        try (UdpSocket ua = UdpSocket.open(a); UdpSocket ub = UdpSocket.open(b)) {
            connectUdp(ua, 6001, ub, 6002);
            sendUdp(ua, ub, null, 5);
            Counts before = settled();
            sendUdp(ua, ub, null, N);
            Counts d = settled().minus(before);
            assertThat(d.packets()).isEqualTo(N);
            assertThat(d.socketLookups()).isEqualTo(N);
            assertThat(d.routeLookups()).isEqualTo(on.equals("1") ? 0 : N);
            assertThat(d.hits()).isEqualTo(on.equals("1") ? N : 0);
            assertThat(d.misses()).isZero();
        }
    }

    @ParameterizedTest(name = "ip_early_demux {0}, udp_early_demux {1}")
    @org.junit.jupiter.params.provider.CsvSource({"1,1", "1,0", "0,1", "0,0"})
    void unconnectedUdpCostsOneSocketLookupWithTheSwitchesOnOrOff(String ip, String udp) throws Exception {
        b.sysctl().set("net.ipv4.ip_early_demux", ip);
        b.sysctl().set("net.ipv4.udp_early_demux", udp);
        try (UdpSocket ua = UdpSocket.open(a); UdpSocket ub = UdpSocket.open(b)) {
            ub.bind(addr("0.0.0.0", 6003));
            sendUdp(ua, ub, addr(B, 6003), 5);
            Counts before = settled();
            sendUdp(ua, ub, addr(B, 6003), N);
            Counts d = settled().minus(before);
            assertThat(d.packets()).isEqualTo(N);
            assertThat(d.socketLookups()).as("socket lookups").isEqualTo(N);
            assertThat(d.routeLookups()).isEqualTo(N); // no connected flow: no cached input route
            boolean early = ip.equals("1") && udp.equals("1");
            assertThat(d.misses()).isEqualTo(early ? N : 0);
            assertThat(d.hits()).isZero();
        }
    }

    @Test
    void eachSwitchIsReadOncePerPacket() throws Exception {
        Sysctl ip = b.sysctl().ipEarlyDemux;
        Sysctl tcp = b.sysctl().tcpEarlyDemux;
        Sysctl udp = b.sysctl().udpEarlyDemux;
        TcpSocket[] s = new TcpSocket[1];
        try (TcpSocket c = connect(s, 5002); TcpSocket server = s[0];
             UdpSocket ua = UdpSocket.open(a); UdpSocket ub = UdpSocket.open(b); UdpSocket uc = UdpSocket.open(b)) {
            ub.bind(addr("0.0.0.0", 6004));
            uc.bind(addr(B, 6005));
            uc.connect(addr(A, 6006));
            ua.bind(addr(A, 6006));
            settled();
            long tcpSegs0 = b.mib().get(MibCounter.TcpInSegs);
            long ipIn0 = b.mib().get(MibCounter.IpInReceives);
            LongAdder ipReads = ip.countReads();
            LongAdder tcpReads = tcp.countReads();
            LongAdder udpReads = udp.countReads();
            try {
                sendTcp(c, server, N);
                sendUdp(ua, ub, addr(B, 6004), N);
                sendUdp(ua, uc, addr(B, 6005), N);
                settled();
            } finally {
                ip.stopCountingReads();
                tcp.stopCountingReads();
                udp.stopCountingReads();
            }
            long tcpSegs = b.mib().get(MibCounter.TcpInSegs) - tcpSegs0;
            long packets = b.mib().get(MibCounter.IpInReceives) - ipIn0;
            assertThat(tcpSegs).isGreaterThanOrEqualTo(N);
            assertThat(packets).isEqualTo(tcpSegs + 2 * N);
            assertThat(ipReads.sum()).as("ip_early_demux reads").isEqualTo(packets);
            assertThat(tcpReads.sum()).as("tcp_early_demux reads").isEqualTo(tcpSegs);
            assertThat(udpReads.sum()).as("udp_early_demux reads").isEqualTo(2L * N);
        }
    }

    @Test
    void addingARouteInvalidatesTheCachedInputRoute() throws Exception {
        try (UdpSocket ua = UdpSocket.open(a); UdpSocket ub = UdpSocket.open(b)) {
            connectUdp(ua, 6011, ub, 6012);
            sendUdp(ua, ub, null, 3);
            Counts before = settled();
            sendUdp(ua, ub, null, 10);
            assertThat(settled().minus(before).routeLookups()).isZero();
            int generation = b.extension(Ipv4Layer.class).routes().generation();
            b.extension(Ipv4Layer.class).addRoute("192.168.7.0/24", "10.0.2.1", "eth1");
            assertThat(b.extension(Ipv4Layer.class).routes().generation()).isNotEqualTo(generation);
            before = settled();
            sendUdp(ua, ub, null, 1);
            assertThat(settled().minus(before).routeLookups()).as("first packet after the change").isEqualTo(1);
            before = settled();
            sendUdp(ua, ub, null, 10);
            assertThat(settled().minus(before).routeLookups()).as("cached again").isZero();
        }
    }

    @Test
    void aPacketOnAnotherInterfaceInvalidatesTheCachedInputRoute() throws Exception {
        try (UdpSocket ua = UdpSocket.open(a); UdpSocket ub = UdpSocket.open(b)) {
            connectUdp(ua, 6021, ub, 6022);
            sendUdp(ua, ub, null, 3);
            Counts before = settled();
            sendUdp(ua, ub, null, 10);
            assertThat(settled().minus(before).routeLookups()).isZero();
            int generation = b.extension(Ipv4Layer.class).routes().generation();
            // A now reaches B's 10.0.1.2 through the second link: the datagrams arrive on B's eth1
            a.extension(Ipv4Layer.class).addRoute(B + "/32", "10.0.2.2", "eth1");
            before = settled();
            sendUdp(ua, ub, null, 1);
            Counts d = settled().minus(before);
            assertThat(b.extension(Ipv4Layer.class).routes().generation()).as("B's table unchanged").isEqualTo(generation);
            assertThat(d.routeLookups()).as("first packet on eth1").isEqualTo(1);
            assertThat(d.hits()).isEqualTo(1);
            before = settled();
            sendUdp(ua, ub, null, 10);
            assertThat(settled().minus(before).routeLookups()).as("cached for eth1").isZero();
        }
    }

    @Test
    void writingRpFilterInvalidatesCachedInputRoutes() throws Exception {
        RouteTable routes = b.extension(Ipv4Layer.class).routes();
        int g0 = routes.generation();
        b.sysctl().set("net.ipv4.conf.all.rp_filter", "2");
        int g1 = routes.generation();
        assertThat(g1).isNotEqualTo(g0);
        b.sysctl().set("net.ipv4.conf.eth1.rp_filter", "1");
        assertThat(routes.generation()).isNotEqualTo(g1);
        try (UdpSocket ua = UdpSocket.open(a); UdpSocket ub = UdpSocket.open(b)) { // loose filter: still delivered
            connectUdp(ua, 6031, ub, 6032);
            sendUdp(ua, ub, null, 3);
            Counts before = settled();
            b.sysctl().set("net.ipv4.conf.all.rp_filter", "0");
            sendUdp(ua, ub, null, 1);
            assertThat(settled().minus(before).routeLookups()).isEqualTo(1);
        }
    }

    @Test
    void inputRouteCacheHoldsForOneInterfaceAndGeneration() {
        InputRouteCache c = new InputRouteCache();
        var eth0 = b.interfaceByName("eth0");
        var eth1 = b.interfaceByName("eth1");
        assertThat(c.valid(eth0, 7)).isFalse();
        c.set(eth0, 7);
        assertThat(c.valid(eth0, 7)).isTrue();
        assertThat(c.valid(eth1, 7)).isFalse();
        assertThat(c.valid(eth0, 8)).isFalse();
        assertThat(c.inputInterface()).isSameAs(eth0);
        c.invalidate();
        assertThat(c.valid(eth0, 7)).isFalse();
    }
}
