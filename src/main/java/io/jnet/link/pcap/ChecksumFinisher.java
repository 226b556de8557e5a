package io.jnet.link.pcap;

import io.jnet.buffer.PacketBuffer;
import io.jnet.wire.Bytes;
import io.jnet.wire.Checksum;
import io.jnet.wire.Ethernet;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import io.jnet.wire.Udp;

/**
 * Completes the TCP or UDP checksum of an Ethernet/IPv4 frame whose transport checksum was left out
 * (loopback checksum offload), so a capture shows what would be on a wire. Leaves other frames alone.
 */
public final class ChecksumFinisher implements FrameFinisher {
    public static final ChecksumFinisher INSTANCE = new ChecksumFinisher();

    @Override
    public void finish(PacketBuffer frame) {
        frame.linearize(); // the checksum is computed over the array
        byte[] b = frame.array();
        int off = frame.dataStart();
        int len = frame.length();
        if (len < Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH || Ethernet.etherType(b, off) != Ethernet.TYPE_IPV4) return;
        int ip = off + Ethernet.HEADER_LENGTH;
        if (Ipv4.validate(b, ip, len - Ethernet.HEADER_LENGTH, false) != Ipv4.OK || Ipv4.isFragment(b, ip)) return;
        int hl = Ipv4.headerLength(b, ip);
        int tlen = Ipv4.totalLength(b, ip) - hl;
        int t = ip + hl;
        int src = Ipv4.source(b, ip);
        int dst = Ipv4.destination(b, ip);
        switch (Ipv4.protocol(b, ip)) {
            case Ipv4.PROTO_TCP -> {
                if (tlen >= Tcp.MIN_HEADER_LENGTH) Tcp.fillChecksum(b, t, tlen, src, dst);
            }
            case Ipv4.PROTO_UDP -> {
                if (tlen >= Udp.HEADER_LENGTH) {
                    Bytes.put16(b, t + 6, 0);
                    int c = Checksum.fold(Checksum.sum(b, t, tlen, Checksum.pseudoHeaderSum(src, dst, Ipv4.PROTO_UDP, tlen)));
                    Bytes.put16(b, t + 6, c == 0 ? 0xFFFF : c);
                }
            }
            default -> { }
        }
        frame.setChecksumPartial(false);
    }
}
