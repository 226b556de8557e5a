package io.jnet.wire;

import static io.jnet.wire.MalformedPacketException.Reason.BAD_CHECKSUM;
import static io.jnet.wire.MalformedPacketException.Reason.BAD_FLAGS;
import static io.jnet.wire.MalformedPacketException.Reason.BAD_LENGTH;
import static io.jnet.wire.MalformedPacketException.Reason.TRUNCATED;
import static io.jnet.wire.MalformedPacketException.Reason.UNSUPPORTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class ReprTest {
    private static final int SRC = 0xC0000201, DST = 0xC0000202;

    private static byte[] hex(String s) { return HexFormat.of().parseHex(s.replace(" ", "")); }

    static void assertMalformed(ThrowingCallable c, MalformedPacketException.Reason reason) {
        assertThatThrownBy(c).isInstanceOf(MalformedPacketException.class)
                .satisfies(e -> assertThat(((MalformedPacketException) e).reason()).isEqualTo(reason))
                .hasMessageStartingWith(reason.name());
    }

    @Test
    void ethernetRoundTripAndTruncation() throws MalformedPacketException {
        EthernetRepr e = new EthernetRepr(Ethernet.BROADCAST, 0x5A22D5F1C6E8L, Ethernet.TYPE_ARP);
        byte[] b = new byte[16];
        assertThat(e.emit(b, 2)).isEqualTo(14);
        assertThat(Arrays.copyOfRange(b, 2, 16)).isEqualTo(hex("ffffffffffff 5a22d5f1c6e8 0806"));
        assertThat(EthernetRepr.parse(b, 2, 14)).isEqualTo(e);
        assertMalformed(() -> EthernetRepr.parse(b, 0, 13), TRUNCATED);
        assertThatThrownBy(() -> new EthernetRepr(1L << 48, 0, 0x800)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new EthernetRepr(0, 0, 0x10000)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void arpRoundTripAndRejections() throws MalformedPacketException {
        ArpRepr a = new ArpRepr(Arp.OP_REQUEST, 0xA2B678EE81A3L, SRC, 0, DST);
        byte[] b = new byte[46]; // with Ethernet padding after it
        assertThat(a.emit(b, 0)).isEqualTo(28);
        assertThat(ArpRepr.parse(b, 0, 46)).isEqualTo(a);
        assertMalformed(() -> ArpRepr.parse(b, 0, 27), TRUNCATED);
        byte[] op3 = b.clone();
        Bytes.put16(op3, 6, 3);
        assertMalformed(() -> ArpRepr.parse(op3, 0, 28), UNSUPPORTED);
        byte[] ieee802 = b.clone();
        Bytes.put16(ieee802, 0, 6);
        assertMalformed(() -> ArpRepr.parse(ieee802, 0, 28), UNSUPPORTED);
        byte[] ipv6 = b.clone();
        ipv6[5] = 16;
        assertMalformed(() -> ArpRepr.parse(ipv6, 0, 28), UNSUPPORTED);
    }

    @Test
    void ipv4WithOptionsReEmitsByteForByte() throws MalformedPacketException {
        // Router Alert (RFC 2113) as IGMP uses it, then NOP padding words
        byte[] options = hex("94040000 01010100");
        Ipv4Repr r = new Ipv4Repr(0xc0, 8, 0x1234, Ipv4.FLAG_DF, 1, 2, SRC, Ipv4.parseAddress("224.0.0.22"), options);
        assertThat(r.headerLength()).isEqualTo(28);
        assertThat(r.totalLength()).isEqualTo(36);
        byte[] b = new byte[36];
        assertThat(r.emit(b, 0)).isEqualTo(28);
        assertThat(b[0]).isEqualTo((byte) 0x47);
        assertThat(Arrays.copyOfRange(b, 20, 28)).isEqualTo(options);
        assertThat(Ipv4.validate(b, 0, 36, true)).isEqualTo(Ipv4.OK);
        Ipv4Repr back = Ipv4Repr.parse(b, 0, 36);
        assertThat(back).isEqualTo(r).hasSameHashCodeAs(r);
        byte[] again = new byte[36];
        back.emit(again, 0);
        assertThat(again).isEqualTo(b);
        // the record keeps its own copy of the options
        options[0] = 0;
        r.options()[1] = 0;
        assertThat(r.options()).startsWith((byte) 0x94, (byte) 4);
    }

    @Test
    void randomIpv4HeadersReEmitByteForByte() throws MalformedPacketException {
        Random rnd = new Random(791);
        byte[] b = new byte[80];
        byte[] out = new byte[80];
        for (int i = 0; i < 20_000; i++) {
            rnd.nextBytes(b);
            int hl = 20 + 4 * rnd.nextInt(11);
            b[0] = (byte) (0x40 | hl / 4);
            Ipv4.setTotalLength(b, 0, hl + rnd.nextInt(80 - hl + 1));
            Ipv4.updateChecksum(b, 0);
            Ipv4Repr r = Ipv4Repr.parse(b, 0, 80);
            Arrays.fill(out, (byte) 0);
            assertThat(r.emit(out, 0)).isEqualTo(hl);
            assertThat(Arrays.copyOf(out, hl)).isEqualTo(Arrays.copyOf(b, hl));
        }
    }

    @Test
    void ipv4RecordRejectsBadValues() {
        assertThatThrownBy(() -> new Ipv4Repr(0, 0, 0, 0, 64, 6, SRC, DST, new byte[3]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Ipv4Repr(0, 0, 0, 0, 64, 6, SRC, DST, new byte[44]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Ipv4Repr(0, 65516, 0, 0, 64, 6, SRC, DST, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Ipv4Repr(0, 0, 0, 0, 256, 6, SRC, DST, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new Ipv4Repr(0, 65515, 0, 0, 64, 6, SRC, DST, null).totalLength()).isEqualTo(65535);
    }

    @Test
    void icmpEchoRoundTripAndChecksum() throws MalformedPacketException {
        IcmpRepr echo = new IcmpRepr(Icmp.ECHO_REQUEST, 0, (4639 << 16) | 1, "abcdefg".getBytes());
        byte[] b = new byte[15];
        assertThat(echo.emit(b, 0)).isEqualTo(15);
        assertThat(Icmp.validate(b, 0, 15)).isEqualTo(Icmp.OK);
        assertThat(Icmp.echoIdentifier(b, 0)).isEqualTo(4639);
        assertThat(Icmp.echoSequence(b, 0)).isEqualTo(1);
        assertThat(IcmpRepr.parse(b, 0, 15)).isEqualTo(echo);
        assertThat(echo.isError()).isFalse();
        for (int type = 0; type < 256; type++) {
            assertThat(new IcmpRepr(type, 0, 0, null).isError()).as("type %d", type)
                    .isEqualTo(type == 3 || type == 4 || type == 5 || type == 11 || type == 12);
        }
        b[14] ^= 1;
        assertThat(Icmp.validate(b, 0, 15)).isEqualTo(Icmp.ERR_CHECKSUM);
        assertMalformed(() -> IcmpRepr.parse(b, 0, 15), BAD_CHECKSUM);
        assertThat(IcmpRepr.parse(b, 0, 15, false).data()).hasSize(7);
        assertMalformed(() -> IcmpRepr.parse(b, 0, 7), TRUNCATED);
        assertThat(Icmp.validate(b, 0, 7)).isEqualTo(Icmp.ERR_TRUNCATED);
    }

    @Test
    void udpLengthAndChecksumRules() throws MalformedPacketException {
        byte[] b = new byte[16];
        b[8] = 'h';
        b[9] = 'i';
        UdpRepr u = new UdpRepr(44120, 7777, 10, true);
        u.emit(b, 0, SRC, DST);
        assertThat(UdpRepr.parse(b, 0, 16, SRC, DST)).isEqualTo(u);
        assertThat(u.payloadLength()).isEqualTo(2);
        assertMalformed(() -> UdpRepr.parse(b, 0, 16, SRC, DST + 1), BAD_CHECKSUM);
        assertThat(Udp.validate(b, 0, 16, true, SRC, DST + 1)).isEqualTo(Udp.ERR_CHECKSUM);
        assertThat(UdpRepr.parse(b, 0, 16)).as("no checksum check without addresses").isEqualTo(u);
        assertMalformed(() -> UdpRepr.parse(b, 0, 9), BAD_LENGTH);
        assertMalformed(() -> UdpRepr.parse(b, 0, 7), TRUNCATED);
        Bytes.put16(b, 4, 7);
        assertMalformed(() -> UdpRepr.parse(b, 0, 16), BAD_LENGTH);
        assertThat(Udp.validate(b, 0, 16, false, 0, 0)).isEqualTo(Udp.ERR_LENGTH);
        assertThatThrownBy(() -> new UdpRepr(1, 2, 7, true)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new UdpRepr(65536, 2, 8, true)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tcpRawOptionsInForeignOrderReEmitVerbatim() throws MalformedPacketException {
        // a SYN with options in the order Windows sends them: MSS, NOP, WS, NOP, NOP, SACK_PERM
        byte[] foreign = hex("020405b4 01030308 01010402");
        byte[] seg = new byte[32 + 3];
        TcpRepr syn = new TcpRepr(49152, 80, 1000, 0, Tcp.SYN, 64240, 0, null, foreign);
        seg[32] = 'x';
        assertThat(syn.emit(seg, 0, 3, SRC, DST)).isEqualTo(32);
        assertThat(Tcp.validate(seg, 0, seg.length, true, SRC, DST)).isEqualTo(Tcp.OK);
        TcpRepr back = TcpRepr.parse(seg, 0, seg.length, SRC, DST);
        assertThat(back.rawOptions()).isEqualTo(foreign);
        assertThat(back.options().mss).isEqualTo(1460);
        assertThat(back.options().windowScale).isEqualTo(8);
        assertThat(back.options().sackPermitted).isTrue();
        byte[] again = seg.clone();
        Arrays.fill(again, 0, 32, (byte) 0);
        back.emit(again, 0, 3, SRC, DST);
        assertThat(again).isEqualTo(seg);

        // without raw bytes the same options come out in Linux's order
        TcpRepr linux = new TcpRepr(49152, 80, 1000, 0, Tcp.SYN, 64240, 0, back.options(), null);
        assertThat(linux.headerLength()).isEqualTo(32);
        byte[] l = new byte[35];
        l[32] = 'x';
        linux.emit(l, 0, 3, SRC, DST);
        assertThat(Arrays.copyOfRange(l, 20, 32)).isEqualTo(hex("020405b4 01010402 01030308"));
        assertThat(Tcp.validate(l, 0, 35, true, SRC, DST)).isEqualTo(Tcp.OK);
        assertThat(TcpRepr.parse(l, 0, 35).options().toString()).isEqualTo(back.options().toString());
    }

    @Test
    void tcpKeepsReservedBitsAndUrgentPointer() throws MalformedPacketException {
        TcpRepr t = new TcpRepr(1, 2, -1, 0x80000000, 0x100 | Tcp.URG | Tcp.ACK | Tcp.CWR, 0, 0xBEEF, null, null);
        byte[] b = new byte[20];
        t.emit(b, 0, 0, SRC, DST);
        assertThat(b[12]).isEqualTo((byte) 0x51);
        assertThat(Tcp.flags(b, 0)).isEqualTo(Tcp.URG | Tcp.ACK | Tcp.CWR);
        assertThat(Tcp.urgentPointer(b, 0)).isEqualTo(0xBEEF);
        TcpRepr back = TcpRepr.parse(b, 0, 20, SRC, DST);
        assertThat(back.flags()).isEqualTo(t.flags());
        assertThat(back.rawOptions()).isEmpty();
        assertThat(back).isEqualTo(new TcpRepr(1, 2, -1, 0x80000000, t.flags(), 0, 0xBEEF, null, new byte[0]));
    }

    @Test
    void tcpOptionsThatDoNotFitAreRefused() {
        TcpOptions o = new TcpOptions();
        o.mss = 1460;
        o.hasTimestamp = true;
        o.windowScale = 7;
        o.sackBlocks = 4; // 4 + 12 + 4 + 36 = 56 bytes > 40
        assertThatThrownBy(() -> new TcpRepr(1, 2, 0, 0, Tcp.ACK, 0, 0, o, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TcpRepr(1, 2, 0, 0, Tcp.ACK, 0, 0, null, new byte[6]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TcpRepr(1, 2, 0, 0, 0x1000, 0, 0, null, null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void vxlanHeader() throws MalformedPacketException {
        byte[] b = new byte[8];
        assertThat(new VxlanRepr(42).emit(b, 0)).isEqualTo(8);
        assertThat(b).isEqualTo(hex("08000000 00002a00"));
        assertThat(Vxlan.vni(b, 0)).isEqualTo(42);
        assertThat(VxlanRepr.parse(b, 0, 8)).isEqualTo(new VxlanRepr(42));
        new VxlanRepr(Vxlan.MAX_VNI).emit(b, 0);
        assertThat(b).isEqualTo(hex("08000000 ffffff00"));
        assertThat(VxlanRepr.parse(b, 0, 8).vni()).isEqualTo(0xFFFFFF);
        byte[] reserved = hex("ff123456 000001ff");
        assertThat(VxlanRepr.parse(reserved, 0, 8).vni()).as("reserved bits ignored").isEqualTo(1);
        assertMalformed(() -> VxlanRepr.parse(hex("00000000 00002a00"), 0, 8), BAD_FLAGS);
        assertThat(Vxlan.validate(hex("f7000000 00002a00"), 0, 8)).isEqualTo(Vxlan.ERR_FLAGS);
        assertMalformed(() -> VxlanRepr.parse(b, 0, 7), TRUNCATED);
        assertThatThrownBy(() -> new VxlanRepr(1 << 24)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new VxlanRepr(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void vxlanFramesFromCaptureCarryVni42() throws MalformedPacketException {
        int n = 0;
        for (PcapFrames.Frame f : PcapFrames.resource("vxlan-tcp.pcap")) {
            byte[] d = f.data();
            if (Ethernet.etherType(d, 0) != Ethernet.TYPE_IPV4) continue;
            Ipv4Repr ip = Ipv4Repr.parse(d, 14, d.length - 14);
            UdpRepr udp = UdpRepr.parse(d, 14 + ip.headerLength(), ip.payloadLength(), ip.source(), ip.destination());
            assertThat(udp.destinationPort()).isEqualTo(Vxlan.UDP_PORT);
            int vx = 14 + ip.headerLength() + 8;
            assertThat(VxlanRepr.parse(d, vx, udp.payloadLength()).vni()).isEqualTo(42);
            assertThat(Vxlan.flags(d, vx)).isEqualTo(Vxlan.FLAG_I);
            n++;
        }
        assertThat(n).isEqualTo(57);
    }
}
