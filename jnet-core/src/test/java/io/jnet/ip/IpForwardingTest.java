package io.jnet.ip;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.icmp.IcmpProtocol;
import io.jnet.link.ForwardingDevice;
import io.jnet.link.FrameReceiver;
import io.jnet.link.NetDevice;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.TcpTransfers;
import io.jnet.topology.Topology;
import io.jnet.topology.Topology.Routed;
import io.jnet.wire.Bytes;
import io.jnet.wire.Icmp;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** IPv4 forwarding through a router namespace: host A - R - host B over two veth pairs. */
class IpForwardingTest {
    private NetNamespace a;
    private NetNamespace r;
    private NetNamespace b;

    @BeforeEach
    void create() {
        a = NetNamespace.create("fwd-a");
        r = NetNamespace.create("fwd-r");
        b = NetNamespace.create("fwd-b");
    }

    @AfterEach
    void close() {
        for (NetNamespace ns : new NetNamespace[] {a, r, b}) {
            assertThat(ns.internalErrors()).as(ns.name() + " internal errors").isZero();
            ns.close();
        }
    }

    /** A decorator that records the frames it passes (bytes of frames up to 2000 bytes, lengths of all). */
    static final class Recorder extends ForwardingDevice {
        final List<byte[]> sent = Collections.synchronizedList(new ArrayList<>());
        final List<byte[]> received = Collections.synchronizedList(new ArrayList<>());
        final List<Integer> sentLengths = Collections.synchronizedList(new ArrayList<>());
        final List<Integer> receivedLengths = Collections.synchronizedList(new ArrayList<>());

        Recorder(NetDevice inner) { super(inner); }

        @Override
        public void transmit(PacketBuffer frame) {
            sentLengths.add(frame.length());
            if (frame.length() <= 2000) sent.add(frame.toBytes());
            super.transmit(frame);
        }

        @Override
        public void setReceiver(FrameReceiver receiver) {
            super.setReceiver(receiver == null ? null : (d, f) -> {
                receivedLengths.add(f.length());
                if (f.length() <= 2000) received.add(f.toBytes());
                receiver.receive(d, f);
            });
        }

        /** Received ICMP messages of {@code type}, as whole frames. */
        List<byte[]> receivedIcmp(int type) {
            List<byte[]> out = new ArrayList<>();
            synchronized (received) {
                for (byte[] f : received) {
                    if (f.length >= 14 + 20 + 8 && Bytes.u16(f, 12) == 0x0800 && Ipv4.protocol(f, 14) == Ipv4.PROTO_ICMP
                            && (f[14 + Ipv4.headerLength(f, 14)] & 0xFF) == type) out.add(f);
                }
            }
            return out;
        }
    }

    private static final AtomicInteger SEQ = new AtomicInteger();

    /** Sends an ICMP echo request of {@code size} payload bytes from {@code ns} with the given source, TTL and DF. */
    private static int sendEcho(NetNamespace ns, String src, String dst, int size, int ttl, boolean df) {
        int len = Icmp.HEADER_LENGTH + size;
        PacketBuffer p = PacketBuffer.allocate(PacketBuffer.DEFAULT_HEADROOM, len);
        int off = p.put(len);
        Icmp.write(p.array(), off, len, Icmp.ECHO_REQUEST, 0, (7 << 16) | SEQ.incrementAndGet());
        return ns.extension(Ipv4Layer.class).output(p, src == null ? 0 : Ipv4.parseAddress(src), Ipv4.parseAddress(dst),
                Ipv4.PROTO_ICMP, 0, ttl, df, null);
    }

    private static long count(NetNamespace ns, MibCounter c) { return ns.mib().get(c); }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(2);
        }
    }

    @Test
    void pingCrossesTheRouterAndCountsForwardedDatagrams() throws Exception {
        Topology.routed(a, r, b);
        assertThat(a.extension(IcmpProtocol.class).sendEcho(Ipv4.parseAddress(Routed.B), 1, 1, new byte[56])).isZero();
        await("echo reply at A", () -> count(a, MibCounter.IcmpInEchoReps) == 1);
        assertThat(count(b, MibCounter.IcmpInEchos)).isEqualTo(1);
        assertThat(count(r, MibCounter.IpForwDatagrams)).isEqualTo(2);
        assertThat(count(r, MibCounter.IpInDelivers)).isZero();
        assertThat(count(r, MibCounter.IpOutRequests)).isZero();
    }

    @Test
    void tcpTransferAcrossTheRouterIsByteExact() throws Exception {
        Topology.routed(a, r, b);
        TcpTransfers.transfer(a, b, Routed.B, 4 << 20);
        assertThat(count(r, MibCounter.IpForwDatagrams)).isPositive();
        assertThat(count(r, MibCounter.IpFragFails)).isZero();
        assertThat(count(a, MibCounter.IcmpInDestUnreachs)).isZero();
    }

    @Test
    void ttlExpiryIsAnsweredWithTimeExceededFromTheRouter() throws Exception {
        Topology.routed(a, r, b);
        Recorder rec = (Recorder) a.interpose("eth0", Recorder::new);
        assertThat(sendEcho(a, null, Routed.B, 32, 1, false)).isZero();
        await("time exceeded at A", () -> count(a, MibCounter.IcmpInTimeExcds) == 1);
        assertThat(count(r, MibCounter.IpInHdrErrors)).isEqualTo(1);
        assertThat(count(r, MibCounter.IcmpOutTimeExcds)).isEqualTo(1);
        assertThat(count(r, MibCounter.IpForwDatagrams)).isZero();
        assertThat(count(b, MibCounter.IpInReceives)).isZero();
        byte[] f = rec.receivedIcmp(Icmp.TIME_EXCEEDED).getFirst();
        int icmp = 14 + Ipv4.headerLength(f, 14);
        assertThat(f[icmp + 1]).as("code: TTL exceeded in transit").isEqualTo((byte) 0);
        assertThat(Ipv4.source(f, 14)).isEqualTo(Ipv4.parseAddress(Routed.R_A));
        assertThat(Ipv4.destination(f, 14)).isEqualTo(Ipv4.parseAddress(Routed.A));
        // the quoted header is the packet as it arrived
        assertThat(Ipv4.destination(f, icmp + 8)).isEqualTo(Ipv4.parseAddress(Routed.B));
        // TTL 2 passes with TTL 1 at B
        assertThat(sendEcho(a, null, Routed.B, 32, 2, false)).isZero();
        await("echo at B", () -> count(b, MibCounter.IcmpInEchos) == 1);
    }

    @Test
    void forwardingOffDropsAndCountsInAddrErrors() throws Exception {
        Topology.routed(a, r, b);
        r.sysctl().set("net.ipv4.ip_forward", "0");
        assertThat(r.sysctl().get("net.ipv4.conf.eth0.forwarding")).isEqualTo("0");
        assertThat(a.extension(IcmpProtocol.class).sendEcho(Ipv4.parseAddress(Routed.B), 1, 1, new byte[8])).isZero();
        await("drop at R", () -> count(r, MibCounter.IpInAddrErrors) == 1);
        assertThat(count(r, MibCounter.IpForwDatagrams)).isZero();
        assertThat(count(b, MibCounter.IpInReceives)).isZero();
    }

    @Test
    void forwardingIsDecidedByTheInputDevice() throws Exception {
        Topology.routed(a, r, b);
        // eth0 (from A) off, eth1 (from B) on: A's echo is dropped at R, B's is forwarded
        r.sysctl().set("net.ipv4.conf.eth0.forwarding", "0");
        assertThat(r.sysctl().get("net.ipv4.ip_forward")).isEqualTo("1");
        assertThat(r.sysctl().get("net.ipv4.conf.eth1.forwarding")).isEqualTo("1");
        assertThat(a.extension(IcmpProtocol.class).sendEcho(Ipv4.parseAddress(Routed.B), 1, 1, new byte[8])).isZero();
        await("drop at R", () -> count(r, MibCounter.IpInAddrErrors) == 1);
        assertThat(b.extension(IcmpProtocol.class).sendEcho(Ipv4.parseAddress(Routed.A), 1, 1, new byte[8])).isZero();
        await("echo at A", () -> count(a, MibCounter.IcmpInEchos) == 1);
        assertThat(count(r, MibCounter.IpForwDatagrams)).isEqualTo(1); // A's reply is dropped again
        await("reply dropped at R", () -> count(r, MibCounter.IpInAddrErrors) == 2);
    }

    @Test
    void forwardingBackOutTheInputDeviceSendsARedirectAndForwards() throws Exception {
        Topology.routed(a, r, b);
        // a better gateway for 10.0.3.0/24 on A's own link
        r.extension(Ipv4Layer.class).addRoute("10.0.3.0/24", "10.0.1.3", "eth0");
        Recorder rec = (Recorder) a.interpose("eth0", Recorder::new);
        assertThat(sendEcho(a, null, "10.0.3.5", 8, 0, false)).isZero();
        await("redirect at A", () -> !rec.receivedIcmp(Icmp.REDIRECT).isEmpty());
        byte[] f = rec.receivedIcmp(Icmp.REDIRECT).getFirst();
        int icmp = 14 + Ipv4.headerLength(f, 14);
        assertThat(f[icmp + 1]).as("code: redirect for the host").isEqualTo((byte) 1);
        assertThat(Bytes.i32(f, icmp + 4)).as("gateway").isEqualTo(Ipv4.parseAddress("10.0.1.3"));
        assertThat(Ipv4.source(f, 14)).isEqualTo(Ipv4.parseAddress(Routed.R_A));
        assertThat(count(r, MibCounter.IcmpOutRedirects)).isEqualTo(1);
        assertThat(count(r, MibCounter.IpForwDatagrams)).as("forwarded as well").isEqualTo(1);
        // send_redirects off on both conf.all and the device: forwarded without a redirect
        r.sysctl().set("net.ipv4.conf.all.send_redirects", "0");
        r.sysctl().set("net.ipv4.conf.eth0.send_redirects", "0");
        assertThat(sendEcho(a, null, "10.0.3.6", 8, 0, false)).isZero();
        await("second forward", () -> count(r, MibCounter.IpForwDatagrams) == 2);
        assertThat(count(r, MibCounter.IcmpOutRedirects)).isEqualTo(1);
        // across the router (out another device): never a redirect
        r.sysctl().set("net.ipv4.conf.all.send_redirects", "1");
        assertThat(a.extension(IcmpProtocol.class).sendEcho(Ipv4.parseAddress(Routed.B), 1, 1, new byte[8])).isZero();
        await("echo reply at A", () -> count(a, MibCounter.IcmpInEchoReps) == 1);
        assertThat(count(r, MibCounter.IcmpOutRedirects)).isEqualTo(1);
    }

    @Test
    void noRouteIsAnsweredWithNetworkUnreachable() throws Exception {
        Topology.routed(a, r, b);
        assertThat(sendEcho(a, null, "10.0.9.9", 8, 0, false)).isZero();
        await("unreachable at A", () -> count(a, MibCounter.IcmpInDestUnreachs) == 1);
        assertThat(count(r, MibCounter.IpExtInNoRoutes)).isEqualTo(1);
        assertThat(count(r, MibCounter.IpForwDatagrams)).isZero();
    }

    @Test
    void dfPacketLargerThanTheNextLinkGetsFragmentationNeededWithItsMtu() throws Exception {
        Topology.routed(a, r, b, 1280, UnaryOperator.identity());
        Recorder rec = (Recorder) a.interpose("eth0", Recorder::new);
        assertThat(sendEcho(a, null, Routed.B, 1400 - 28, 0, true)).isZero();
        await("frag needed at A", () -> count(a, MibCounter.IcmpInDestUnreachs) == 1);
        assertThat(count(r, MibCounter.IpFragFails)).isEqualTo(1);
        assertThat(count(r, MibCounter.IcmpOutDestUnreachs)).isEqualTo(1);
        assertThat(count(b, MibCounter.IpInReceives)).isZero();
        byte[] f = rec.receivedIcmp(Icmp.DEST_UNREACH).getFirst();
        int icmp = 14 + Ipv4.headerLength(f, 14);
        assertThat(f[icmp + 1]).isEqualTo((byte) Icmp.CODE_FRAG_NEEDED);
        assertThat(Bytes.u16(f, icmp + 6)).as("next-hop MTU (RFC 1191)").isEqualTo(1280);
        // fragmentation needed is never rate limited (Linux icmpv4_mask_allow): 200 at once, 200 answers
        for (int i = 0; i < 200; i++) assertThat(sendEcho(a, null, Routed.B, 1400 - 28, 0, true)).isZero();
        await("200 more frag needed at A", () -> count(a, MibCounter.IcmpInDestUnreachs) == 201);
        assertThat(count(r, MibCounter.IcmpOutRateLimitGlobal)).isZero();
        // without DF the router fragments, and B's reply (fragmented by B) comes back
        assertThat(sendEcho(a, null, Routed.B, 1400 - 28, 0, false)).isZero();
        await("echo reply at A", () -> count(a, MibCounter.IcmpInEchoReps) == 1);
        assertThat(count(r, MibCounter.IpFragOKs)).isEqualTo(1);
        assertThat(count(r, MibCounter.IpFragCreates)).isEqualTo(2);
        assertThat(count(b, MibCounter.IpReasmOKs)).isEqualTo(1);
    }

    @Test
    void largeTcpSegmentsAreSegmentedForALinkWithoutGso() throws Exception {
        Recorder[] out = new Recorder[1];
        Topology.routed(a, r, b, 1280, d -> out[0] = new Recorder(d));
        Recorder in = (Recorder) r.interpose("eth0", Recorder::new);
        TcpTransfers.transfer(a, b, Routed.B, 3 << 20);
        assertThat(in.receivedLengths).as("A hands R segments larger than the MTU").anyMatch(n -> n > 1514);
        assertThat(out[0].sentLengths).as("R sends B nothing over the MTU").allMatch(n -> n <= 1280 + 14);
        assertThat(count(r, MibCounter.IpFragFails)).isZero();
        assertThat(count(r, MibCounter.IpFragCreates)).isZero();
        assertThat(count(a, MibCounter.IcmpInDestUnreachs)).isZero();
        assertThat(count(b, MibCounter.TcpInCsumErrors)).isZero();
    }

    @Test
    void aLargeSegmentIsCutAtItsGsoSizeIntoValidSegments() throws Exception {
        Recorder[] out = new Recorder[1];
        Topology.routed(a, r, b, 1500, d -> out[0] = new Recorder(d));
        int payload = 4 * 1000 + 300;
        int len = Tcp.MIN_HEADER_LENGTH + payload;
        PacketBuffer p = PacketBuffer.allocate(PacketBuffer.DEFAULT_HEADROOM, len);
        int off = p.put(len);
        byte[] pb = p.array();
        for (int i = 0; i < payload; i++) pb[off + Tcp.MIN_HEADER_LENGTH + i] = (byte) (i * 7);
        int seq = 0xFFFF_F000; // wraps within the segment
        Tcp.writeHeader(pb, off, 40000, 5001, seq, 1, Tcp.MIN_HEADER_LENGTH, Tcp.ACK | Tcp.PSH | Tcp.FIN | Tcp.CWR, 1000);
        int srcIp = Ipv4.parseAddress(Routed.A);
        int dstIp = Ipv4.parseAddress(Routed.B);
        Tcp.fillChecksum(pb, off, len, srcIp, dstIp);
        p.setGsoSize(1000);
        assertThat(a.extension(Ipv4Layer.class).output(p, 0, dstIp, Ipv4.PROTO_TCP, 0, 0, true, null)).isZero();
        await("five segments out of R", () -> out[0].sent.stream().filter(f -> Bytes.u16(f, 12) == 0x0800
                && Ipv4.protocol(f, 14) == Ipv4.PROTO_TCP).count() == 5);
        List<byte[]> segs = out[0].sent.stream().filter(f -> Bytes.u16(f, 12) == 0x0800 && Ipv4.protocol(f, 14) == Ipv4.PROTO_TCP).toList();
        int firstId = Ipv4.identification(segs.getFirst(), 14);
        for (int i = 0; i < 5; i++) {
            byte[] f = segs.get(i);
            int ip = 14;
            int n = i < 4 ? 1000 : 300;
            assertThat(Ipv4.validate(f, ip, f.length - ip, true)).isEqualTo(Ipv4.OK);
            assertThat(Ipv4.totalLength(f, ip)).isEqualTo(20 + 20 + n);
            assertThat(Ipv4.identification(f, ip)).isEqualTo((firstId + i) & 0xFFFF);
            assertThat(Ipv4.ttl(f, ip)).isEqualTo(63);
            int t = ip + 20;
            assertThat(Tcp.validate(f, t, 20 + n, true, srcIp, dstIp)).as("segment %d checksum", i).isEqualTo(Tcp.OK);
            assertThat(Tcp.seq(f, t)).isEqualTo(seq + i * 1000);
            int flags = Tcp.flags(f, t);
            assertThat((flags & (Tcp.FIN | Tcp.PSH)) != 0).as("FIN/PSH on the last only").isEqualTo(i == 4);
            assertThat((flags & Tcp.CWR) != 0).as("CWR on the first only").isEqualTo(i == 0);
            assertThat(flags & Tcp.ACK).isEqualTo(Tcp.ACK);
            for (int k = 0; k < n; k++) assertThat(f[t + 20 + k]).isEqualTo((byte) ((i * 1000 + k) * 7));
        }
        await("five segments at B", () -> count(b, MibCounter.IpInReceives) == 5); // each answered with a reset
        assertThat(count(b, MibCounter.TcpInCsumErrors)).isZero();
    }

    @Test
    void martianSourcesAndDestinationsAreNotForwarded() throws Exception {
        Topology.routed(a, r, b);
        a.extension(Ipv4Layer.class).addRoute("169.254.0.0/16", Routed.R_A, "eth0");
        int sent = 0;
        for (String src : new String[] {"127.0.0.1", "169.254.1.1", "224.0.0.1", "0.0.0.1"}) {
            assertThat(sendEcho(a, src, Routed.B, 8, 0, false)).isZero();
            sent++;
            int n = sent;
            await("martian source " + src, () -> count(r, MibCounter.RtCacheInMartianSrc) == n);
        }
        assertThat(sendEcho(a, null, "169.254.9.9", 8, 0, false)).isZero();
        await("martian destination", () -> count(r, MibCounter.RtCacheInMartianDst) == 1);
        assertThat(sendEcho(a, null, "10.0.2.255", 8, 0, false)).isZero();
        await("directed broadcast", () -> count(r, MibCounter.IpInAddrErrors) == 1);
        assertThat(count(r, MibCounter.IpForwDatagrams)).isZero();
        assertThat(count(b, MibCounter.IpInReceives)).isZero();
    }

    @Test
    void rpFilterStrictDropsASpoofedSourceAndLoosePassesIt() throws Exception {
        Topology.routed(a, r, b);
        // strict on eth0: a legitimate source passes
        r.sysctl().set("net.ipv4.conf.eth0.rp_filter", "1");
        assertThat(a.extension(IcmpProtocol.class).sendEcho(Ipv4.parseAddress(Routed.B), 1, 1, new byte[8])).isZero();
        await("echo reply at A", () -> count(a, MibCounter.IcmpInEchoReps) == 1);
        // a source in B's subnet arriving from A's side is routed back out eth1, not eth0
        assertThat(sendEcho(a, "10.0.2.77", Routed.B, 8, 0, false)).isZero();
        await("strict drop", () -> count(r, MibCounter.TcpExtIPReversePathFilter) == 1);
        assertThat(count(b, MibCounter.IcmpInEchos)).isEqualTo(1);
        // loose through conf.all (the larger of all and the device applies): any route back will do
        r.sysctl().set("net.ipv4.conf.eth0.rp_filter", "0");
        r.sysctl().set("net.ipv4.conf.all.rp_filter", "2");
        assertThat(sendEcho(a, "10.0.2.77", Routed.B, 8, 0, false)).isZero();
        await("loose pass", () -> count(b, MibCounter.IcmpInEchos) == 2);
        // a source with no route back at all fails loose too
        assertThat(sendEcho(a, "192.0.2.1", Routed.B, 8, 0, false)).isZero();
        await("loose drop", () -> count(r, MibCounter.TcpExtIPReversePathFilter) == 2);
        assertThat(count(b, MibCounter.IcmpInEchos)).isEqualTo(2);
        // off: forwarded
        r.sysctl().set("net.ipv4.conf.all.rp_filter", "0");
        assertThat(sendEcho(a, "192.0.2.1", Routed.B, 8, 0, false)).isZero();
        await("rp_filter off", () -> count(b, MibCounter.IcmpInEchos) == 3);
    }
}
