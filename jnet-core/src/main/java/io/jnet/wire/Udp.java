package io.jnet.wire;

/** UDP header (RFC 768): 8 bytes; checksum over the IPv4 pseudo-header, 0 meaning "none" (sent as 0xFFFF when it computes to 0). */
public final class Udp {
    private Udp() {}

    public static final int HEADER_LENGTH = 8;
    /** Largest IPv4 UDP payload: 65535 - 20 - 8. */
    public static final int MAX_PAYLOAD = 65507;

    /** Validation results of {@link #validate}. */
    public static final int OK = 0, ERR_TRUNCATED = 1, ERR_LENGTH = 2, ERR_CHECKSUM = 3;

    /**
     * Checks a datagram in the {@code len} bytes of IPv4 payload at {@code off}: at least the 8-byte header,
     * a length field between 8 and {@code len} (bytes past it are trimmed, as Linux __udp4_lib_rcv does), and
     * when asked the checksum over the pseudo-header and {@code length} bytes unless the field is 0.
     * Returns {@link #OK} or an ERR_ code.
     */
    public static int validate(byte[] b, int off, int len, boolean checkChecksum, int srcIp, int dstIp) {
        if (len < HEADER_LENGTH) return ERR_TRUNCATED;
        int ulen = length(b, off);
        if (ulen < HEADER_LENGTH || ulen > len) return ERR_LENGTH;
        if (checkChecksum && !verify(b, off, ulen, srcIp, dstIp)) return ERR_CHECKSUM;
        return OK;
    }

    public static int sourcePort(byte[] b, int off) { return Bytes.u16(b, off); }
    public static int destinationPort(byte[] b, int off) { return Bytes.u16(b, off + 2); }
    /** Header + payload length in bytes. */
    public static int length(byte[] b, int off) { return Bytes.u16(b, off + 4); }
    public static int checksum(byte[] b, int off) { return Bytes.u16(b, off + 6); }

    /**
     * Computes and stores the checksum of a datagram of {@code length} bytes (header + payload) over the IPv4
     * pseudo-header (RFC 768); a computed 0 is sent as 0xFFFF, as 0 means "no checksum".
     */
    public static void fillChecksum(byte[] b, int off, int length, int srcIp, int dstIp) {
        Bytes.put16(b, off + 6, 0);
        int c = Checksum.fold(Checksum.sum(b, off, length, Checksum.pseudoHeaderSum(srcIp, dstIp, Ipv4.PROTO_UDP, length)));
        Bytes.put16(b, off + 6, c == 0 ? 0xFFFF : c);
    }

    /** Writes the header and, over {@code length} bytes, the checksum with the pseudo-header. */
    public static void write(byte[] b, int off, int srcPort, int dstPort, int length, int srcIp, int dstIp) {
        Bytes.put16(b, off, srcPort);
        Bytes.put16(b, off + 2, dstPort);
        Bytes.put16(b, off + 4, length);
        b[off + 6] = 0;
        b[off + 7] = 0;
        int c = Checksum.fold(Checksum.sum(b, off, length, Checksum.pseudoHeaderSum(srcIp, dstIp, Ipv4.PROTO_UDP, length)));
        Bytes.put16(b, off + 6, c == 0 ? 0xFFFF : c);
    }

    /** Verifies the checksum of a datagram of {@code length} bytes (true when the field is 0: not computed). */
    public static boolean verify(byte[] b, int off, int length, int srcIp, int dstIp) {
        if (checksum(b, off) == 0) return true;
        return Checksum.verify(b, off, length, Checksum.pseudoHeaderSum(srcIp, dstIp, Ipv4.PROTO_UDP, length));
    }
}
