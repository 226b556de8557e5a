package io.jnet.drill.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.net.Inet4Address;

/** IPv4/TCP packets crafted and parsed with jnet-core's wire classes, for the kernel target's tests. */
final class Packets {

    private Packets() {}

    /** A checksummed IPv4 TCP packet. */
    static byte[] tcp(Inet4Address src, Inet4Address dst, int sport, int dport, int seq, int ack, int flags, int window,
                      TcpOptions opts, byte[] payload) {
        int optLen = opts == null ? 0 : opts.writtenLength();
        int tcpLen = Tcp.MIN_HEADER_LENGTH + optLen + payload.length;
        byte[] p = new byte[Ipv4.MIN_HEADER_LENGTH + tcpLen];
        int s = Ipv4.fromInet(src);
        int d = Ipv4.fromInet(dst);
        Ipv4.write(p, 0, 0, p.length, 0x1234, Ipv4.FLAG_DF, 64, Ipv4.PROTO_TCP, s, d);
        int t = Ipv4.MIN_HEADER_LENGTH;
        Tcp.writeHeader(p, t, sport, dport, seq, ack, Tcp.MIN_HEADER_LENGTH + optLen, flags, window);
        if (opts != null) opts.write(p, t + Tcp.MIN_HEADER_LENGTH);
        System.arraycopy(payload, 0, p, t + Tcp.MIN_HEADER_LENGTH + optLen, payload.length);
        Tcp.fillChecksum(p, t, tcpLen, s, d);
        return p;
    }

    /** A parsed TCP segment: ports, numbers, flags, options and payload, after checking both checksums. */
    record Segment(int src, int dst, int sport, int dport, int seq, int ack, int flags, int window, TcpOptions options,
                   byte[] payload, int length) {

        static Segment parse(byte[] p) {
            assertThat(p).as("an outbound packet").isNotNull();
            assertThat(Ipv4.validate(p, 0, p.length, true)).as("IPv4 header").isEqualTo(Ipv4.OK);
            assertThat(Ipv4.protocol(p, 0)).as("protocol").isEqualTo(Ipv4.PROTO_TCP);
            int hl = Ipv4.headerLength(p, 0);
            int len = Ipv4.totalLength(p, 0) - hl;
            int src = Ipv4.source(p, 0);
            int dst = Ipv4.destination(p, 0);
            assertThat(Tcp.validate(p, hl, len, true, src, dst)).as("TCP checksum").isEqualTo(Tcp.OK);
            int thl = Tcp.headerLength(p, hl);
            TcpOptions opts = new TcpOptions();
            opts.parse(p, hl + Tcp.MIN_HEADER_LENGTH, thl - Tcp.MIN_HEADER_LENGTH);
            byte[] payload = java.util.Arrays.copyOfRange(p, hl + thl, hl + len);
            return new Segment(src, dst, Tcp.sourcePort(p, hl), Tcp.destinationPort(p, hl), Tcp.seq(p, hl),
                    Tcp.ack(p, hl), Tcp.flags(p, hl), Tcp.window(p, hl), opts, payload, p.length);
        }
    }

    static TcpOptions options(int mss, int wscale, boolean sackPermitted) {
        TcpOptions o = new TcpOptions();
        o.mss = mss;
        o.windowScale = wscale;
        o.sackPermitted = sackPermitted;
        return o;
    }
}
