package io.jnet.ip;

import io.jnet.buffer.PacketBuffer;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Udp;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Builds IPv4 datagrams and fragments for the fragmentation and reassembly tests. */
final class FragPackets {
    private FragPackets() {}

    static final int SRC = Ipv4.parseAddress("192.0.2.1");
    static final int DST = Ipv4.parseAddress("198.51.100.7");

    /**
     * A UDP datagram of {@code udpPayload} bytes of seeded random data (65507 gives a 65535-byte datagram),
     * IPv4 header with {@code options} (a multiple of 4 bytes) and {@code flagsFragment}.
     */
    static PacketBuffer udpDatagram(int id, int udpPayload, int flagsFragment, byte[] options, long seed) {
        int hl = Ipv4.MIN_HEADER_LENGTH + options.length;
        int udpLength = Udp.HEADER_LENGTH + udpPayload;
        PacketBuffer p = PacketBuffer.allocate(PacketBuffer.DEFAULT_HEADROOM, hl + udpLength);
        int at = p.put(hl + udpLength);
        byte[] b = p.array();
        Ipv4.write(b, at, 0, hl + udpLength, id, flagsFragment, 64, Ipv4.PROTO_UDP, SRC, DST);
        if (options.length > 0) {
            b[at] = (byte) (0x40 | hl / 4);
            System.arraycopy(options, 0, b, at + Ipv4.MIN_HEADER_LENGTH, options.length);
            Ipv4.updateChecksum(b, at);
        }
        byte[] data = new byte[udpPayload];
        new Random(seed).nextBytes(data);
        System.arraycopy(data, 0, b, at + hl + Udp.HEADER_LENGTH, udpPayload);
        Udp.write(b, at + hl, 40000, 9, udpLength, SRC, DST);
        p.setNetworkOffset(at);
        return p;
    }

    static PacketBuffer udpDatagram(int id, int udpPayload, long seed) {
        return udpDatagram(id, udpPayload, 0, new byte[0], seed);
    }

    /**
     * A hand-made fragment: payload bytes {@code [offset, offset + length)} of a datagram whose byte at
     * payload position {@code i} is {@code (byte) (i * 7 + fill)}.
     */
    static PacketBuffer fragment(int id, int offset, int length, boolean more, int fill) {
        if ((offset & 7) != 0) throw new IllegalArgumentException("offset " + offset);
        int total = Ipv4.MIN_HEADER_LENGTH + length;
        PacketBuffer p = PacketBuffer.allocate(PacketBuffer.DEFAULT_HEADROOM, total);
        int at = p.put(total);
        byte[] b = p.array();
        Ipv4.write(b, at, 0, total, id, (more ? Ipv4.FLAG_MF : 0) | offset / 8, 64, Ipv4.PROTO_UDP, SRC, DST);
        for (int i = 0; i < length; i++) b[at + Ipv4.MIN_HEADER_LENGTH + i] = (byte) ((offset + i) * 7 + fill);
        return p;
    }

    /** The expected payload of a datagram assembled from {@link #fragment} pieces. */
    static byte[] expectedPayload(int length, int fill) {
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) out[i] = (byte) (i * 7 + fill);
        return out;
    }

    /** Fragments {@code datagram} at {@code mtu} and returns the pieces. */
    static List<PacketBuffer> split(Ipv4Fragmenter f, PacketBuffer datagram, int mtu) {
        List<PacketBuffer> out = new ArrayList<>();
        int n = f.fragment(datagram, mtu, out::add);
        if (n != out.size()) throw new AssertionError("fragment returned " + n + " but emitted " + out.size());
        return out;
    }

    /** Payload bytes (after the IPv4 header, up to total length) of the packet whose data starts at its header. */
    static byte[] payload(PacketBuffer p) {
        byte[] b = p.array();
        int off = p.dataStart();
        int hl = Ipv4.headerLength(b, off);
        byte[] out = new byte[Ipv4.totalLength(b, off) - hl];
        System.arraycopy(b, off + hl, out, 0, out.length);
        return out;
    }

    /** The IPv4 header bytes of the packet whose data starts at its header. */
    static byte[] header(PacketBuffer p) {
        byte[] b = p.array();
        int off = p.dataStart();
        byte[] out = new byte[Ipv4.headerLength(b, off)];
        System.arraycopy(b, off, out, 0, out.length);
        return out;
    }
}
