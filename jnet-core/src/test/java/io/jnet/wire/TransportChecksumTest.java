package io.jnet.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Filling in a TCP or UDP checksum left out for offload, from the IPv4 header (RFC 9293 3.1, RFC 768). */
class TransportChecksumTest {
    private static final int SRC = Ipv4.parseAddress("192.0.2.1"), DST = Ipv4.parseAddress("192.0.2.2");

    /** An IPv4 header (20 bytes, no checksum needed here) followed by {@code transport}. */
    private static byte[] packet(int protocol, byte[] transport, int flagsFrag) {
        byte[] b = new byte[20 + transport.length];
        b[0] = 0x45;
        Bytes.put16(b, 2, b.length);
        Bytes.put16(b, 6, flagsFrag);
        b[8] = 64;
        b[9] = (byte) protocol;
        Bytes.put32(b, 12, SRC);
        Bytes.put32(b, 16, DST);
        System.arraycopy(transport, 0, b, 20, transport.length);
        return b;
    }

    @Test
    void udpAndTcpChecksumsAreFilledAndValidate() {
        Random r = new Random(3);
        byte[] udp = new byte[8 + 101];
        r.nextBytes(udp);
        Bytes.put16(udp, 4, udp.length);
        byte[] p = packet(Ipv4.PROTO_UDP, udp, 0);
        Ipv4.fillTransportChecksum(p, 0);
        assertThat(Udp.validate(p, 20, udp.length, true, SRC, DST)).isEqualTo(Udp.OK);

        byte[] tcp = new byte[20 + 57];
        r.nextBytes(tcp);
        tcp[12] = 0x50; // data offset 5
        p = packet(Ipv4.PROTO_TCP, tcp, 0);
        Ipv4.fillTransportChecksum(p, 0);
        assertThat(Tcp.validate(p, 20, tcp.length, true, SRC, DST)).isEqualTo(Tcp.OK);
    }

    @Test
    void aUdpChecksumOfZeroIsSentAsAllOnes() {
        // find a payload whose checksum folds to 0: then the field must carry 0xFFFF (0 means none)
        byte[] udp = new byte[10];
        Bytes.put16(udp, 4, udp.length);
        for (int v = 0; v < 65536; v++) {
            Bytes.put16(udp, 8, v);
            byte[] p = packet(Ipv4.PROTO_UDP, udp, 0);
            Ipv4.fillTransportChecksum(p, 0);
            int c = Udp.checksum(p, 20);
            assertThat(c).isNotZero();
            if (c == 0xFFFF) return;
        }
        throw new AssertionError("no payload gave a zero checksum");
    }

    @Test
    void fragmentsAndOtherProtocolsAreLeftAlone() {
        byte[] udp = new byte[20];
        Bytes.put16(udp, 4, udp.length);
        byte[] frag = packet(Ipv4.PROTO_UDP, udp, 0x2000); // more fragments
        Ipv4.fillTransportChecksum(frag, 0);
        assertThat(Udp.checksum(frag, 20)).isZero();
        byte[] icmp = packet(Ipv4.PROTO_ICMP, new byte[12], 0);
        byte[] before = icmp.clone();
        Ipv4.fillTransportChecksum(icmp, 0);
        assertThat(icmp).isEqualTo(before);
    }
}
