package io.jnet.drill.kernel;

/**
 * The {@code struct virtio_net_hdr} (10 bytes, little-endian on x86_64) a TUN device opened with {@code IFF_VNET_HDR}
 * puts before each packet: {@code flags} (bit 0 {@code VIRTIO_NET_HDR_F_NEEDS_CSUM}), {@code gso_type},
 * {@code hdr_len}, {@code gso_size}, {@code csum_start}, {@code csum_offset}. With checksum offload on, the kernel
 * leaves the transport checksum partial (only the pseudo-header's sum, uncomplemented) and says where it starts;
 * {@link #completeChecksum} finishes it as a NIC would, so the packet handed on verifies like one on a wire.
 * With segmentation offload a TCP packet may carry many segments' worth of data (up to 64 KB, {@code gso_size} bytes
 * a segment): packetdrill sees those "super-packets" too, and scripts are written for them.
 */
final class VnetHeader {

    /** {@code sizeof(struct virtio_net_hdr)}, bytes. */
    static final int SIZE = 10;
    static final int F_NEEDS_CSUM = 1;

    private VnetHeader() {}

    static int flags(byte[] b) { return b[0] & 0xFF; }

    static int gsoType(byte[] b) { return b[1] & 0xFF; }

    static int gsoSize(byte[] b) { return le16(b, 4); }

    static int csumStart(byte[] b) { return le16(b, 6); }

    static int csumOffset(byte[] b) { return le16(b, 8); }

    private static int le16(byte[] b, int at) {
        return (b[at] & 0xFF) | (b[at + 1] & 0xFF) << 8;
    }

    /**
     * Completes a partial checksum in {@code packet} (the bytes after the header {@code hdr}, {@code length} of them)
     * when the header asks for it: the one's complement of the sum from {@code csum_start} to the end, stored at
     * {@code csum_start + csum_offset}. A UDP checksum that comes out 0 is sent as 0xFFFF (RFC 768).
     *
     * @return false when the header's offsets do not fit the packet (it is left as it is)
     */
    static boolean completeChecksum(byte[] hdr, byte[] packet, int length, boolean udp) {
        if ((flags(hdr) & F_NEEDS_CSUM) == 0) return true;
        int start = csumStart(hdr);
        int field = start + csumOffset(hdr);
        if (start >= length || field + 2 > length) return false;
        long sum = 0;
        int i = start;
        for (; i + 1 < length; i += 2) sum += (packet[i] & 0xFF) << 8 | (packet[i + 1] & 0xFF);
        if (i < length) sum += (packet[i] & 0xFF) << 8;
        while ((sum >>> 16) != 0) sum = (sum & 0xFFFF) + (sum >>> 16);
        int csum = (int) (~sum & 0xFFFF);
        if (csum == 0 && udp) csum = 0xFFFF;
        packet[field] = (byte) (csum >>> 8);
        packet[field + 1] = (byte) csum;
        return true;
    }
}
