package io.jnet.link.pcap;

import io.jnet.buffer.PacketBuffer;
import io.jnet.wire.Ethernet;
import io.jnet.wire.Ipv4;

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
        Ipv4.fillTransportChecksum(b, ip);
        frame.setChecksumPartial(false);
    }
}
