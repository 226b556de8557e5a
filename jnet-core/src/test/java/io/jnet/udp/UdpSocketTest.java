package io.jnet.udp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.link.VethPair;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.SocketOption;
import io.jnet.socket.UdpSocket;
import io.jnet.socket.UdpSocket.Datagram;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Udp;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class UdpSocketTest {
    private final List<NetNamespace> namespaces = new ArrayList<>();

    private NetNamespace ns(String name) {
        NetNamespace ns = NetNamespace.create(name);
        namespaces.add(ns);
        return ns;
    }

    @AfterEach
    void noInternalErrors() {
        for (NetNamespace ns : namespaces) {
            assertThat(ns.internalErrors()).as("internal errors in %s: %s", ns, ns.lastInternalError()).isZero();
            ns.close();
        }
    }

    static InetSocketAddress addr(String host, int port) { return new InetSocketAddress(host, port); }

    static UdpSocket bound(NetNamespace ns, String host, int port) throws Exception {
        UdpSocket s = UdpSocket.open(ns);
        s.bind(addr(host, port));
        return s;
    }

    static void send(UdpSocket s, String text, InetSocketAddress to) throws Exception {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        s.send(b, 0, b.length, to);
    }

    static String receiveText(UdpSocket s) throws Exception {
        byte[] b = new byte[2048];
        Datagram d = s.receive(b, 0, b.length);
        return d == null ? null : new String(b, 0, d.length(), StandardCharsets.UTF_8);
    }

    // ---- basic delivery --------------------------------------------------------------------------

    @Test
    void loopbackSendAndReceiveReportsTheSender() throws Exception {
        NetNamespace ns = ns("udp-lo");
        try (UdpSocket a = bound(ns, "127.0.0.1", 0); UdpSocket b = bound(ns, "127.0.0.1", 7000)) {
            send(a, "hello", b.localAddress());
            byte[] buf = new byte[100];
            Datagram d = b.receive(buf, 0, buf.length);
            assertThat(new String(buf, 0, d.length(), StandardCharsets.UTF_8)).isEqualTo("hello");
            assertThat(d.fullLength()).isEqualTo(5);
            assertThat(d.truncated()).isFalse();
            assertThat(d.sender()).isEqualTo(a.localAddress());
            assertThat(ns.mib().get(MibCounter.UdpOutDatagrams)).isEqualTo(1);
            assertThat(ns.mib().get(MibCounter.UdpInDatagrams)).isEqualTo(1);
            assertThat(ns.mib().get(MibCounter.UdpNoPorts)).isZero();
        }
    }

    @Test
    void emptyDatagramIsDelivered() throws Exception {
        NetNamespace ns = ns("udp-empty");
        try (UdpSocket a = bound(ns, "127.0.0.1", 0); UdpSocket b = bound(ns, "127.0.0.1", 0)) {
            a.send(new byte[0], 0, 0, b.localAddress());
            b.setBlocking(false);
            Datagram d = b.receive(new byte[10], 0, 10);
            assertThat(d).isNotNull();
            assertThat(d.length()).isZero();
            assertThat(d.fullLength()).isZero();
        }
    }

    @Test
    void wildcardBoundSocketReceivesOnEveryLocalAddress() throws Exception {
        NetNamespace ns = ns("udp-any");
        try (UdpSocket srv = bound(ns, "0.0.0.0", 5353); UdpSocket c = UdpSocket.open(ns)) {
            send(c, "one", addr("127.0.0.1", 5353));
            send(c, "two", addr("127.0.0.9", 5353));
            assertThat(receiveText(srv)).isEqualTo("one");
            assertThat(receiveText(srv)).isEqualTo("two");
            assertThat(srv.localAddress()).isEqualTo(addr("0.0.0.0", 5353));
        }
    }

    @Test
    void sendToAddressZeroGoesToLoopback() throws Exception {
        NetNamespace ns = ns("udp-zero");
        try (UdpSocket srv = bound(ns, "127.0.0.1", 6000); UdpSocket c = UdpSocket.open(ns)) {
            send(c, "x", addr("0.0.0.0", 6000));
            assertThat(receiveText(srv)).isEqualTo("x");
        }
    }

    // ---- ports -----------------------------------------------------------------------------------

    @Test
    void ephemeralPortsComeFromTheLocalPortRangeAndRunOut() throws Exception {
        NetNamespace ns = ns("udp-eph");
        ns.sysctl().set("net.ipv4.ip_local_port_range", "40000 40009");
        List<UdpSocket> socks = new ArrayList<>();
        try {
            Set<Integer> ports = new HashSet<>();
            for (int i = 0; i < 10; i++) {
                UdpSocket s = UdpSocket.open(ns);
                socks.add(s);
                s.bind(addr("0.0.0.0", 0));
                ports.add(s.localAddress().getPort());
            }
            assertThat(ports).hasSize(10).allMatch(p -> p >= 40000 && p <= 40009);
            UdpSocket extra = UdpSocket.open(ns);
            socks.add(extra);
            assertThatThrownBy(() -> extra.bind(addr("0.0.0.0", 0)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE));
            // an unbound socket binds implicitly on send: no port left means EAGAIN (Linux inet_autobind)
            assertThatThrownBy(() -> send(extra, "x", addr("127.0.0.1", 9)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EAGAIN));
        } finally {
            socks.forEach(UdpSocket::close);
        }
    }

    @Test
    void sendBindsAnEphemeralPortImplicitly() throws Exception {
        NetNamespace ns = ns("udp-autobind");
        try (UdpSocket srv = bound(ns, "127.0.0.1", 5000); UdpSocket c = UdpSocket.open(ns)) {
            assertThat(c.localAddress().getPort()).isZero();
            send(c, "x", srv.localAddress());
            int port = c.localAddress().getPort();
            assertThat(port).isBetween(32768, 60999);
            byte[] b = new byte[10];
            assertThat(srv.receive(b, 0, b.length).sender().getPort()).isEqualTo(port);
        }
    }

    @Test
    void bindConflictsAsLinux() throws Exception {
        NetNamespace ns = ns("udp-bind");
        try (UdpSocket a = bound(ns, "127.0.0.1", 4000)) {
            UdpSocket b = UdpSocket.open(ns);
            assertThatThrownBy(() -> b.bind(addr("127.0.0.1", 4000)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE));
            // the wildcard overlaps every address
            assertThatThrownBy(() -> b.bind(addr("0.0.0.0", 4000)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE));
            // a different specific address does not
            b.bind(addr("127.0.0.2", 4000));
            assertThatThrownBy(() -> b.bind(addr("127.0.0.3", 4001)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            b.close();
            UdpSocket c = UdpSocket.open(ns);
            assertThatThrownBy(() -> c.bind(addr("192.0.2.1", 4000)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRNOTAVAIL));
            c.close();
        }
        // closing releases the port
        try (UdpSocket again = bound(ns, "127.0.0.1", 4000)) {
            assertThat(again.localAddress().getPort()).isEqualTo(4000);
        }
    }

    @Test
    void reuseAddrLetsSocketsShareAPortWhenAllSetIt() throws Exception {
        NetNamespace ns = ns("udp-reuse");
        try (UdpSocket a = UdpSocket.open(ns); UdpSocket b = UdpSocket.open(ns); UdpSocket c = UdpSocket.open(ns)) {
            a.setOption(SocketOption.SO_REUSEADDR, true);
            a.bind(addr("0.0.0.0", 4100));
            assertThatThrownBy(() -> b.bind(addr("0.0.0.0", 4100)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE));
            b.setOption(SocketOption.SO_REUSEADDR, true);
            assertThat(b.getOption(SocketOption.SO_REUSEADDR)).isTrue();
            b.bind(addr("0.0.0.0", 4100));
            // unicast goes to one of them: the most recently bound (Linux hashes new sockets first)
            send(c, "u", addr("127.0.0.1", 4100));
            a.setBlocking(false);
            b.setBlocking(false);
            assertThat(receiveText(b)).isEqualTo("u");
            assertThat(receiveText(a)).isNull();
        }
    }

    // ---- connect and demultiplexing --------------------------------------------------------------

    @Test
    void connectedSocketOnlyReceivesFromItsPeer() throws Exception {
        NetNamespace ns = ns("udp-conn");
        try (UdpSocket peer = bound(ns, "127.0.0.1", 0);
             UdpSocket other = bound(ns, "127.0.0.1", 0);
             UdpSocket s = bound(ns, "127.0.0.1", 4200)) {
            s.connect(peer.localAddress());
            send(other, "from other", s.localAddress());
            send(peer, "from peer", s.localAddress());
            s.setBlocking(false);
            assertThat(receiveText(s)).isEqualTo("from peer");
            assertThat(receiveText(s)).isNull();
            // the filtered datagram found no socket: counted and answered with port unreachable
            assertThat(ns.mib().get(MibCounter.UdpNoPorts)).isEqualTo(1);
            assertThat(ns.mib().get(MibCounter.IcmpOutDestUnreachs)).isEqualTo(1);
            // send without an address goes to the peer
            send(s, "reply", null);
            assertThat(receiveText(peer)).isEqualTo("reply");
            // disconnect (AF_UNSPEC): everyone may send again
            s.connect(null);
            send(other, "again", s.localAddress());
            assertThat(receiveText(s)).isEqualTo("again");
            assertThatThrownBy(() -> send(s, "x", null))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EDESTADDRREQ));
        }
    }

    @Test
    void connectedSocketIsPreferredOverBoundAddressOverWildcard() throws Exception {
        for (String earlyDemux : new String[] {"1", "0"}) {
            NetNamespace ns = ns("udp-demux" + earlyDemux);
            ns.sysctl().set("net.ipv4.udp_early_demux", earlyDemux);
            try (UdpSocket wildcard = UdpSocket.open(ns);
                 UdpSocket specific = UdpSocket.open(ns);
                 UdpSocket connected = UdpSocket.open(ns);
                 UdpSocket peer = bound(ns, "127.0.0.1", 0);
                 UdpSocket stranger = bound(ns, "127.0.0.1", 0)) {
                for (UdpSocket s : List.of(wildcard, specific, connected)) s.setOption(SocketOption.SO_REUSEADDR, true);
                // bind the best match first: "most recently bound" must not decide
                connected.bind(addr("127.0.0.1", 4300));
                connected.connect(peer.localAddress());
                specific.bind(addr("127.0.0.1", 4300));
                wildcard.bind(addr("0.0.0.0", 4300));
                send(peer, "p", addr("127.0.0.1", 4300));
                send(stranger, "s", addr("127.0.0.1", 4300));
                send(stranger, "w", addr("127.0.0.2", 4300));
                for (UdpSocket s : List.of(wildcard, specific, connected)) s.setBlocking(false);
                assertThat(receiveText(connected)).isEqualTo("p");
                assertThat(receiveText(specific)).isEqualTo("s");
                assertThat(receiveText(wildcard)).isEqualTo("w");
                assertThat(receiveText(connected)).isNull();
                assertThat(receiveText(specific)).isNull();
                assertThat(receiveText(wildcard)).isNull();
            }
        }
    }

    @Test
    void connectTakesTheRouteSourceAndPicksAPort() throws Exception {
        NetNamespace ns = ns("udp-csrc");
        try (UdpSocket s = UdpSocket.open(ns)) {
            s.connect(addr("127.0.0.5", 53));
            assertThat(s.localAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.5");
            assertThat(s.localAddress().getPort()).isNotZero();
            assertThat(((UdpSocketImpl) s).remoteAddress()).isEqualTo(addr("127.0.0.5", 53));
            assertThatThrownBy(() -> s.connect(addr("192.0.2.1", 53)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENETUNREACH));
            assertThatThrownBy(() -> send(s, "x", addr("198.51.100.1", 53)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENETUNREACH));
        }
    }

    // ---- sizes, fragmentation --------------------------------------------------------------------

    @Test
    void datagramsLargerThan65507BytesFailWithEmsgsize() throws Exception {
        NetNamespace ns = ns("udp-size");
        try (UdpSocket a = bound(ns, "127.0.0.1", 0); UdpSocket b = bound(ns, "127.0.0.1", 0)) {
            byte[] big = new byte[65508];
            assertThatThrownBy(() -> a.send(big, 0, big.length, b.localAddress()))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EMSGSIZE));
            new Random(2).nextBytes(big);
            a.send(big, 0, 65507, b.localAddress());
            byte[] got = new byte[70000];
            Datagram d = b.receive(got, 0, got.length);
            assertThat(d.length()).isEqualTo(65507);
            assertThat(Arrays.copyOf(got, 65507)).isEqualTo(Arrays.copyOf(big, 65507));
            assertThat(ns.mib().get(MibCounter.UdpOutDatagrams)).isEqualTo(1);
        }
    }

    @Test
    void maximumDatagramCrossesAVethFragmentedAndArrivesWhole() throws Exception {
        NetNamespace a = ns("udp-va");
        NetNamespace b = ns("udp-vb");
        VethPair p = VethPair.create("veth0", "veth1");
        a.attach(p.a());
        b.attach(p.b());
        a.addAddress("veth0", "10.0.0.1/24");
        b.addAddress("veth1", "10.0.0.2/24");
        byte[] data = new byte[Udp.MAX_PAYLOAD];
        new Random(7).nextBytes(data);
        try (UdpSocket rx = bound(b, "10.0.0.2", 9000); UdpSocket tx = bound(a, "10.0.0.1", 0)) {
            tx.send(data, 0, data.length, rx.localAddress());
            tx.send(data, 0, 1000, rx.localAddress());
            byte[] got = new byte[70000];
            Datagram d = rx.receive(got, 0, got.length);
            assertThat(d.length()).isEqualTo(data.length);
            assertThat(d.sender()).isEqualTo(tx.localAddress());
            assertThat(Arrays.copyOf(got, data.length)).isEqualTo(data);
            Datagram small = rx.receive(got, 0, got.length);
            assertThat(small.length()).isEqualTo(1000);
        }
        // 65535-byte IP datagram over a 1500-byte MTU: 1480 payload bytes per fragment, 45 fragments
        assertThat(a.mib().get(MibCounter.IpFragOKs)).isEqualTo(1);
        assertThat(a.mib().get(MibCounter.IpFragCreates)).isEqualTo(45);
        assertThat(b.mib().get(MibCounter.IpReasmOKs)).isEqualTo(1);
        assertThat(b.mib().get(MibCounter.UdpInDatagrams)).isEqualTo(2);
    }

    @Test
    void subnetBroadcastCrossesAVethToEveryWildcardSocket() throws Exception {
        NetNamespace a = ns("udp-ba");
        NetNamespace b = ns("udp-bb");
        VethPair p = VethPair.create("veth0", "veth1");
        a.attach(p.a());
        b.attach(p.b());
        a.addAddress("veth0", "10.0.2.1/24");
        b.addAddress("veth1", "10.0.2.2/24");
        try (UdpSocket r1 = UdpSocket.open(b); UdpSocket r2 = UdpSocket.open(b); UdpSocket tx = UdpSocket.open(a)) {
            r1.setOption(SocketOption.SO_REUSEADDR, true);
            r2.setOption(SocketOption.SO_REUSEADDR, true);
            r1.bind(addr("0.0.0.0", 520));
            r2.bind(addr("0.0.0.0", 520));
            send(tx, "to all", addr("10.0.2.255", 520));
            assertThat(receiveText(r1)).isEqualTo("to all");
            assertThat(receiveText(r2)).isEqualTo("to all");
            send(tx, "nobody", addr("10.0.2.255", 521));
        }
        assertThat(b.mib().get(MibCounter.UdpNoPorts)).isZero();
        assertThat(b.mib().get(MibCounter.IcmpOutMsgs)).isZero();
    }

    @Test
    void longDatagramIsTruncatedAndTheRestDiscarded() throws Exception {
        NetNamespace ns = ns("udp-trunc");
        try (UdpSocket a = bound(ns, "127.0.0.1", 0); UdpSocket b = bound(ns, "127.0.0.1", 0)) {
            send(a, "0123456789abcdef", b.localAddress());
            send(a, "next", b.localAddress());
            byte[] buf = new byte[20];
            Datagram d = b.receive(buf, 2, 10);
            assertThat(d.length()).isEqualTo(10);
            assertThat(d.fullLength()).isEqualTo(16);
            assertThat(d.truncated()).isTrue();
            assertThat(new String(buf, 2, 10, StandardCharsets.UTF_8)).isEqualTo("0123456789");
            assertThat(buf[12]).isZero();
            assertThat(receiveText(b)).isEqualTo("next");
        }
    }

    // ---- ByteBuffer calls -------------------------------------------------------------------------

    @Test
    void byteBuffersGoOutAndComeInWholeHeapOrDirect() throws Exception {
        NetNamespace ns = ns("udp-bb");
        try (UdpSocket a = bound(ns, "127.0.0.1", 0); UdpSocket b = bound(ns, "127.0.0.1", 0)) {
            ByteBuffer heap = ByteBuffer.wrap("xxheap-datagramyy".getBytes(StandardCharsets.UTF_8), 2, 13);
            assertThat(a.send(heap, b.localAddress())).isEqualTo(13);
            assertThat(heap.position()).isEqualTo(15);
            ByteBuffer direct = ByteBuffer.allocateDirect(32).put("direct".getBytes(StandardCharsets.UTF_8)).flip();
            assertThat(a.send(direct, b.localAddress())).isEqualTo(6);
            assertThat(direct.hasRemaining()).isFalse();
            assertThat(a.send(ByteBuffer.allocate(0), b.localAddress())).isZero();

            ByteBuffer in = ByteBuffer.allocateDirect(64);
            in.position(3);
            Datagram d = b.receive(in);
            assertThat(d.length()).isEqualTo(13);
            assertThat(d.fullLength()).isEqualTo(13);
            assertThat(d.sender()).isEqualTo(a.localAddress());
            assertThat(in.position()).isEqualTo(16);
            byte[] got = new byte[13];
            in.get(3, got);
            assertThat(new String(got, StandardCharsets.UTF_8)).isEqualTo("heap-datagram");

            ByteBuffer small = ByteBuffer.allocate(4);
            assertThat(b.read(small)).as("a longer datagram is cut to the space given").isEqualTo(4);
            assertThat(new String(small.array(), StandardCharsets.UTF_8)).isEqualTo("dire");
            assertThat(b.read(ByteBuffer.allocate(8))).as("the rest was discarded; next is the empty one").isZero();
            assertThat(ns.mib().get(MibCounter.UdpInDatagrams)).isEqualTo(3);
        }
    }

    @Test
    void readWithoutADatagramIsMinusOneWhenNonBlockingAndEagainOnTimeout() throws Exception {
        NetNamespace ns = ns("udp-bb-nb");
        try (UdpSocket s = bound(ns, "127.0.0.1", 0)) {
            s.setBlocking(false);
            assertThat(s.read(ByteBuffer.allocate(8))).isEqualTo(-1);
            assertThat(s.receive(ByteBuffer.allocate(8))).isNull();
            s.setBlocking(true);
            s.setOption(SocketOption.SO_RCVTIMEO, Duration.ofMillis(50));
            assertThatThrownBy(() -> s.read(ByteBuffer.allocate(8)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EAGAIN));
        }
    }

    @Test
    void aFailedBufferSendLeavesThePositionAndAReadOnlyBufferTakesNoDatagram() throws Exception {
        NetNamespace ns = ns("udp-bb-err");
        try (UdpSocket a = bound(ns, "127.0.0.1", 0); UdpSocket b = bound(ns, "127.0.0.1", 0)) {
            ByteBuffer big = ByteBuffer.allocateDirect(65508);
            assertThatThrownBy(() -> a.send(big, b.localAddress()))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EMSGSIZE));
            assertThat(big.position()).isZero();
            ByteBuffer msg = ByteBuffer.wrap(new byte[] {1, 2, 3});
            assertThatThrownBy(() -> a.send(msg, addr("198.51.100.1", 9)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENETUNREACH));
            assertThat(msg.position()).isZero();
            assertThat(a.send(msg, b.localAddress())).isEqualTo(3);
            assertThatThrownBy(() -> b.read(ByteBuffer.allocate(8).asReadOnlyBuffer()))
                    .isInstanceOf(java.nio.ReadOnlyBufferException.class);
            ByteBuffer in = ByteBuffer.allocate(8);
            assertThat(b.read(in)).as("the datagram is still queued").isEqualTo(3);
        }
    }

    // ---- errors ----------------------------------------------------------------------------------

    @Test
    void portUnreachableIsReportedToAConnectedSocketOnItsNextCall() throws Exception {
        NetNamespace ns = ns("udp-refused");
        try (UdpSocket s = UdpSocket.open(ns)) {
            s.connect(addr("127.0.0.1", 9999));
            send(s, "anyone?", null); // succeeds: the error comes back asynchronously
            assertThat(ns.mib().get(MibCounter.UdpNoPorts)).isEqualTo(1);
            assertThat(ns.mib().get(MibCounter.IcmpOutDestUnreachs)).isEqualTo(1);
            assertThat(ns.mib().get(MibCounter.IcmpInDestUnreachs)).isEqualTo(1);
            assertThat(s.readyEvents() & Events.POLLERR).isNotZero();
            assertThatThrownBy(() -> send(s, "again", null))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED));
            // reported once
            assertThat(s.readyEvents() & Events.POLLERR).isZero();
            send(s, "third", null);
            byte[] b = new byte[10];
            assertThatThrownBy(() -> s.receive(b, 0, b.length))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED));
            assertThat(ns.mib().get(MibCounter.UdpNoPorts)).isEqualTo(2);
        }
    }

    @Test
    void portUnreachableAcrossVethWakesABlockedReceiver() throws Exception {
        NetNamespace a = ns("udp-ra");
        NetNamespace b = ns("udp-rb");
        VethPair p = VethPair.create("veth0", "veth1");
        a.attach(p.a());
        b.attach(p.b());
        a.addAddress("veth0", "10.0.1.1/24");
        b.addAddress("veth1", "10.0.1.2/24");
        try (UdpSocket s = UdpSocket.open(a)) {
            s.connect(addr("10.0.1.2", 7));
            CountDownLatch waiting = new CountDownLatch(1);
            CompletableFuture<Throwable> rx = CompletableFuture.supplyAsync(() -> {
                waiting.countDown();
                try {
                    s.receive(new byte[10], 0, 10);
                    return null;
                } catch (Exception e) {
                    return e;
                }
            });
            waiting.await();
            Thread.sleep(50); // let the receiver block
            send(s, "x", null);
            Throwable t = rx.get(10, TimeUnit.SECONDS);
            assertThat(t).isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED));
        }
        assertThat(b.mib().get(MibCounter.UdpNoPorts)).isEqualTo(1);
        assertThat(b.mib().get(MibCounter.IcmpOutDestUnreachs)).isEqualTo(1);
    }

    @Test
    void unconnectedSocketIgnoresPortUnreachable() throws Exception {
        NetNamespace ns = ns("udp-unconn");
        try (UdpSocket s = bound(ns, "127.0.0.1", 0)) {
            send(s, "x", addr("127.0.0.1", 9998));
            assertThat(ns.mib().get(MibCounter.IcmpInDestUnreachs)).isEqualTo(1);
            send(s, "y", addr("127.0.0.1", 9998));
            s.setBlocking(false);
            assertThat(s.receive(new byte[4], 0, 4)).isNull();
            assertThat(ns.mib().get(MibCounter.UdpNoPorts)).isEqualTo(2);
        }
    }

    @Test
    void receiveBufferOverflowIsCountedAndBounded() throws Exception {
        NetNamespace ns = ns("udp-rcvbuf");
        try (UdpSocket a = bound(ns, "127.0.0.1", 0); UdpSocket b = bound(ns, "127.0.0.1", 0)) {
            assertThat(b.getOption(SocketOption.SO_RCVBUF)).isEqualTo(212992); // net.core.rmem_default
            b.setOption(SocketOption.SO_RCVBUF, 4096);
            assertThat(b.getOption(SocketOption.SO_RCVBUF)).isEqualTo(8192); // doubled like Linux
            byte[] payload = new byte[1000];
            int sent = 50;
            for (int i = 0; i < sent; i++) a.send(payload, 0, payload.length, b.localAddress());
            b.setBlocking(false);
            int received = 0;
            while (b.receive(new byte[1000], 0, 1000) != null) received++;
            assertThat(received).isPositive().isLessThan(sent);
            assertThat(ns.mib().get(MibCounter.UdpRcvbufErrors)).isEqualTo(sent - received);
            assertThat(ns.mib().get(MibCounter.UdpInErrors)).isEqualTo(sent - received);
            assertThat(ns.mib().get(MibCounter.UdpInDatagrams)).isEqualTo(received);
            // room again once read
            a.send(payload, 0, payload.length, b.localAddress());
            assertThat(b.receive(new byte[1000], 0, 1000)).isNotNull();
        }
    }

    @Test
    void rcvbufIsCappedByRmemMax() throws Exception {
        NetNamespace ns = ns("udp-rmemmax");
        ns.sysctl().set("net.core.rmem_max", "100000");
        try (UdpSocket s = UdpSocket.open(ns)) {
            s.setOption(SocketOption.SO_RCVBUF, 1 << 20);
            assertThat(s.getOption(SocketOption.SO_RCVBUF)).isEqualTo(200000);
            s.setOption(SocketOption.SO_RCVBUF, 1);
            assertThat(s.getOption(SocketOption.SO_RCVBUF)).isEqualTo(2304);
            assertThatThrownBy(() -> s.setOption(SocketOption.SO_LINGER, Duration.ZERO))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOPROTOOPT));
        }
    }

    // ---- blocking behaviour ----------------------------------------------------------------------

    @Test
    void receiveTimeoutThrowsEagain() throws Exception {
        NetNamespace ns = ns("udp-timeo");
        try (UdpSocket s = bound(ns, "127.0.0.1", 0)) {
            s.setOption(SocketOption.SO_RCVTIMEO, Duration.ofMillis(100));
            assertThat(s.getOption(SocketOption.SO_RCVTIMEO)).isEqualTo(Duration.ofMillis(100));
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> s.receive(new byte[10], 0, 10))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EAGAIN));
            assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    @Test
    void nonBlockingReceiveReturnsNullWhenEmpty() throws Exception {
        NetNamespace ns = ns("udp-nb");
        try (UdpSocket s = bound(ns, "127.0.0.1", 0); UdpSocket c = bound(ns, "127.0.0.1", 0)) {
            s.setBlocking(false);
            assertThat(s.isBlocking()).isFalse();
            assertThat(s.receive(new byte[10], 0, 10)).isNull();
            assertThat(s.readyEvents()).isEqualTo(Events.POLLOUT);
            send(c, "now", s.localAddress());
            assertThat(s.readyEvents()).isEqualTo(Events.POLLOUT | Events.POLLIN);
            assertThat(receiveText(s)).isEqualTo("now");
        }
    }

    @Test
    void blockedReceiverGetsADatagramFromAnotherThread() throws Exception {
        NetNamespace ns = ns("udp-block");
        try (UdpSocket s = bound(ns, "127.0.0.1", 0); UdpSocket c = bound(ns, "127.0.0.1", 0)) {
            CompletableFuture<String> rx = CompletableFuture.supplyAsync(() -> {
                try {
                    return receiveText(s);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Thread.sleep(50);
            send(c, "wake", s.localAddress());
            assertThat(rx.get(10, TimeUnit.SECONDS)).isEqualTo("wake");
        }
    }

    @Test
    void concurrentSendersAndABlockingReceiverAccountForEveryDatagram() throws Exception {
        NetNamespace ns = ns("udp-mt");
        int senders = 4, perSender = 1500, total = senders * perSender;
        try (UdpSocket rx = bound(ns, "127.0.0.1", 0)) {
            rx.setOption(SocketOption.SO_RCVTIMEO, Duration.ofMillis(300));
            List<CompletableFuture<Void>> sending = new ArrayList<>();
            for (int t = 0; t < senders; t++) {
                UdpSocket tx = bound(ns, "127.0.0.1", 0);
                sending.add(CompletableFuture.runAsync(() -> {
                    try (tx) {
                        byte[] b = new byte[64];
                        for (int i = 0; i < perSender; i++) tx.send(b, 0, b.length, rx.localAddress());
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }));
            }
            CompletableFuture<Void> allSent = CompletableFuture.allOf(sending.toArray(new CompletableFuture[0]));
            long received = 0;
            byte[] buf = new byte[64];
            while (true) {
                try {
                    assertThat(rx.receive(buf, 0, buf.length).length()).isEqualTo(64);
                    received++;
                } catch (ErrnoException e) {
                    assertThat(e.errno()).isEqualTo(Errno.EAGAIN); // nothing came for 300 ms
                    if (allSent.isDone()) break;
                }
            }
            allSent.get(10, TimeUnit.SECONDS);
            long dropped = ns.mib().get(MibCounter.UdpRcvbufErrors);
            assertThat(received + dropped).isEqualTo(total);
            assertThat(ns.mib().get(MibCounter.UdpOutDatagrams)).isEqualTo(total);
        }
    }

    @Test
    void closeWakesABlockedReceiverWithEbadf() throws Exception {
        NetNamespace ns = ns("udp-close");
        UdpSocket s = bound(ns, "127.0.0.1", 4400);
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Throwable> rx = CompletableFuture.supplyAsync(() -> {
            started.countDown();
            try {
                s.receive(new byte[10], 0, 10);
                return null;
            } catch (Exception e) {
                return e;
            }
        });
        started.await();
        Thread.sleep(50);
        s.close();
        assertThat(rx.get(10, TimeUnit.SECONDS))
                .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EBADF));
        assertThat(s.isClosed()).isTrue();
        assertThat(s.readyEvents()).isEqualTo(Events.POLLHUP);
        assertThatThrownBy(() -> send(s, "x", addr("127.0.0.1", 1)))
                .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EBADF));
        // the port is free again
        try (UdpSocket again = bound(ns, "127.0.0.1", 4400)) {
            assertThat(again.isClosed()).isFalse();
        }
    }

    @Test
    void namespaceCloseClosesItsSockets() throws Exception {
        NetNamespace ns = NetNamespace.create("udp-nsclose");
        UdpSocket s = bound(ns, "127.0.0.1", 0);
        assertThat(ns.extension(UdpProtocol.class).socketCount()).isEqualTo(1);
        ns.close();
        assertThat(s.isClosed()).isTrue();
        assertThat(ns.internalErrors()).isZero();
    }
}
