package io.jnet.wire;

import static io.jnet.wire.MalformedPacketException.Reason.BAD_CHECKSUM;
import static io.jnet.wire.MalformedPacketException.Reason.BAD_HEADER_LENGTH;
import static io.jnet.wire.MalformedPacketException.Reason.BAD_LENGTH;
import static io.jnet.wire.MalformedPacketException.Reason.BAD_OPTION;
import static io.jnet.wire.MalformedPacketException.Reason.BAD_VERSION;
import static io.jnet.wire.MalformedPacketException.Reason.TRUNCATED;
import static io.jnet.wire.ReprTest.assertMalformed;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Regression cases for the header checks the receive path relies on. */
class HeaderValidationTest {
    private static final int SRC = 0xC0000201, DST = 0xC0000202;

    private static byte[] ipv4(int payload) {
        byte[] b = new byte[20 + payload];
        Ipv4.write(b, 0, 0, b.length, 1, Ipv4.FLAG_DF, 64, Ipv4.PROTO_TCP, SRC, DST);
        return b;
    }

    @Test
    void ipv4HeaderLengthBelowFiveWordsIsRejected() {
        for (int ihl = 0; ihl < 5; ihl++) {
            byte[] b = ipv4(40);
            b[0] = (byte) (0x40 | ihl);
            Ipv4.updateChecksum(b, 0);
            assertThat(Ipv4.validate(b, 0, b.length, false)).isEqualTo(Ipv4.ERR_HEADER_LENGTH);
            assertMalformed(() -> Ipv4Repr.parse(b, 0, b.length, false), BAD_HEADER_LENGTH);
        }
    }

    @Test
    void ipv4HeaderLengthPastThePacketIsRejected() {
        byte[] b = ipv4(4);
        b[0] = 0x46; // 24 bytes: fits
        Ipv4.updateChecksum(b, 0);
        assertThat(Ipv4.validate(b, 0, 24, true)).isEqualTo(Ipv4.OK);
        b[0] = 0x47; // 28 bytes in a 24-byte buffer
        assertThat(Ipv4.validate(b, 0, 24, false)).isEqualTo(Ipv4.ERR_HEADER_LENGTH);
        assertMalformed(() -> Ipv4Repr.parse(b, 0, 24, false), BAD_HEADER_LENGTH);
        b[0] = 0x4F; // 60 bytes
        assertMalformed(() -> Ipv4Repr.parse(b, 0, 24, false), BAD_HEADER_LENGTH);
    }

    @Test
    void ipv4TotalLengthBeyondTheBufferOrBelowTheHeaderIsRejected() throws MalformedPacketException {
        byte[] b = ipv4(10);
        assertThat(Ipv4Repr.parse(b, 0, 30).payloadLength()).isEqualTo(10);
        assertThat(Ipv4Repr.parse(Arrays.copyOf(b, 64), 0, 64).payloadLength()).as("link padding after the packet").isEqualTo(10);
        assertThat(Ipv4.validate(b, 0, 29, true)).isEqualTo(Ipv4.ERR_TOTAL_LENGTH);
        assertMalformed(() -> Ipv4Repr.parse(b, 0, 29), BAD_LENGTH);
        for (int tl : new int[] {0, 19, 31, 0xFFFF}) {
            byte[] c = b.clone();
            Ipv4.setTotalLength(c, 0, tl);
            Ipv4.updateChecksum(c, 0);
            assertThat(Ipv4.validate(c, 0, c.length, true)).as("total length %d", tl).isEqualTo(Ipv4.ERR_TOTAL_LENGTH);
            assertMalformed(() -> Ipv4Repr.parse(c, 0, c.length), BAD_LENGTH);
        }
    }

    @Test
    void ipv4VersionTruncationAndChecksum() {
        byte[] b = ipv4(0);
        assertMalformed(() -> Ipv4Repr.parse(b, 0, 19), TRUNCATED);
        byte[] v6 = b.clone();
        v6[0] = 0x65;
        assertMalformed(() -> Ipv4Repr.parse(v6, 0, 20), BAD_VERSION);
        byte[] bad = b.clone();
        bad[8]--; // TTL changed without the checksum
        assertThat(Ipv4.validate(bad, 0, 20, true)).isEqualTo(Ipv4.ERR_CHECKSUM);
        assertMalformed(() -> Ipv4Repr.parse(bad, 0, 20), BAD_CHECKSUM);
        assertThat(Ipv4.validate(bad, 0, 20, false)).isEqualTo(Ipv4.OK);
    }

    private static byte[] tcp(byte[] options, int payload) {
        byte[] b = new byte[20 + options.length + payload];
        Tcp.writeHeader(b, 0, 1234, 80, 1, 2, 20 + options.length, Tcp.ACK, 1000);
        System.arraycopy(options, 0, b, 20, options.length);
        Tcp.fillChecksum(b, 0, b.length, SRC, DST);
        return b;
    }

    @Test
    void tcpDataOffsetBelowFiveWordsIsRejected() {
        for (int doff = 0; doff < 5; doff++) {
            byte[] b = tcp(new byte[0], 20);
            b[12] = (byte) (doff << 4);
            Tcp.fillChecksum(b, 0, b.length, SRC, DST);
            assertThat(Tcp.validate(b, 0, b.length, true, SRC, DST)).isEqualTo(Tcp.ERR_DATA_OFFSET);
            assertMalformed(() -> TcpRepr.parse(b, 0, b.length, SRC, DST), BAD_HEADER_LENGTH);
        }
    }

    @Test
    void tcpDataOffsetPastTheSegmentIsRejected() {
        byte[] b = tcp(new byte[] {1, 1, 1, 1}, 0);
        b[12] = (byte) 0x70; // 28 bytes in a 24-byte segment
        assertThat(Tcp.validate(b, 0, b.length, false, 0, 0)).isEqualTo(Tcp.ERR_DATA_OFFSET);
        assertMalformed(() -> TcpRepr.parse(b, 0, b.length), BAD_HEADER_LENGTH);
        assertMalformed(() -> TcpRepr.parse(b, 0, 19), TRUNCATED);
    }

    @Test
    void tcpMalformedOptionAreasAreRejected() {
        for (byte[] opts : List.of(new byte[] {2, 0, 0, 0}, new byte[] {8, 1, 0, 0}, new byte[] {1, 1, 2, 4},
                new byte[] {1, 1, 1, 3}, new byte[] {8, 10, 0, 0, 0, 0, 0, 0})) {
            byte[] b = tcp(opts, 5);
            assertThat(Tcp.validate(b, 0, b.length, true, SRC, DST)).isEqualTo(Tcp.OK);
            assertMalformed(() -> TcpRepr.parse(b, 0, b.length, SRC, DST), BAD_OPTION);
        }
    }

    @Test
    void tcpChecksumCoversThePseudoHeader() throws MalformedPacketException {
        byte[] b = tcp(new byte[] {2, 4, 5, (byte) 0xb4}, 7);
        assertThat(TcpRepr.parse(b, 0, b.length, SRC, DST).options().mss).isEqualTo(1460);
        assertMalformed(() -> TcpRepr.parse(b, 0, b.length, SRC, DST ^ 0x100), BAD_CHECKSUM);
        assertMalformed(() -> TcpRepr.parse(b, 0, b.length - 1, SRC, DST), BAD_CHECKSUM);
        assertThat(Tcp.validate(b, 0, b.length, true, DST, SRC)).as("addresses swapped sum the same").isEqualTo(Tcp.OK);
    }

    @Test
    void quotedPacketOfPortUnreachable() throws MalformedPacketException {
        PcapFrames.Frame f = PcapFrames.resource("icmp-udp-rst.pcap").get(5);
        byte[] d = f.data();
        Ipv4Repr ip = Ipv4Repr.parse(d, 14, d.length - 14);
        assertThat(ip.protocol()).isEqualTo(Ipv4.PROTO_ICMP);
        assertThat(ip.tos()).isEqualTo(0xc0);
        int icmpOff = 14 + ip.headerLength();
        IcmpRepr icmp = IcmpRepr.parse(d, icmpOff, ip.payloadLength());
        assertThat(icmp.type()).isEqualTo(Icmp.DEST_UNREACH);
        assertThat(icmp.code()).isEqualTo(Icmp.CODE_PORT_UNREACH);
        assertThat(icmp.isError()).isTrue();
        byte[] quote = icmp.data();
        Ipv4Repr inner = Ipv4Repr.parse(quote, 0, quote.length);
        assertThat(inner.source()).isEqualTo(Ipv4.parseAddress("192.0.2.1"));
        assertThat(inner.destination()).isEqualTo(Ipv4.parseAddress("192.0.2.2"));
        assertThat(inner.protocol()).isEqualTo(Ipv4.PROTO_UDP);
        UdpRepr udp = UdpRepr.parse(quote, inner.headerLength(), inner.payloadLength(), inner.source(), inner.destination());
        assertThat(udp.sourcePort()).isEqualTo(44120);
        assertThat(udp.destinationPort()).isEqualTo(7777);
        assertThat(udp.payloadLength()).isEqualTo(3);
        assertThat(udp.checksummed()).isTrue();
    }
}
