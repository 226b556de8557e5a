package io.jnet.wire;

/**
 * TCP header (RFC 9293 section 3.1) accessors. Sequence numbers are ints compared with
 * {@link #seqLt} and friends (modulo 2^32 arithmetic).
 */
public final class Tcp {
    private Tcp() {}

    public static final int MIN_HEADER_LENGTH = 20;
    public static final int MAX_HEADER_LENGTH = 60;
    public static final int FIN = 0x01, SYN = 0x02, RST = 0x04, PSH = 0x08, ACK = 0x10, URG = 0x20, ECE = 0x40, CWR = 0x80;

    /** Validation results. */
    public static final int OK = 0, ERR_TRUNCATED = 1, ERR_DATA_OFFSET = 2, ERR_CHECKSUM = 3, ERR_OPTION = 4;

    public static int sourcePort(byte[] b, int off) { return Bytes.u16(b, off); }
    public static int destinationPort(byte[] b, int off) { return Bytes.u16(b, off + 2); }
    public static int seq(byte[] b, int off) { return Bytes.i32(b, off + 4); }
    public static int ack(byte[] b, int off) { return Bytes.i32(b, off + 8); }
    /** Data offset in bytes (header length including options). */
    public static int headerLength(byte[] b, int off) { return ((b[off + 12] & 0xFF) >>> 4) * 4; }
    public static int flags(byte[] b, int off) { return b[off + 13] & 0xFF; }
    /** Window field as sent (not scaled). */
    public static int window(byte[] b, int off) { return Bytes.u16(b, off + 14); }
    public static int checksum(byte[] b, int off) { return Bytes.u16(b, off + 16); }
    public static int urgentPointer(byte[] b, int off) { return Bytes.u16(b, off + 18); }

    public static void setChecksum(byte[] b, int off, int v) { Bytes.put16(b, off + 16, v); }
    public static void setWindow(byte[] b, int off, int v) { Bytes.put16(b, off + 14, v); }

    /**
     * Checks a segment of {@code len} bytes: data offset at least 5 words and within the segment,
     * and (when asked) the checksum over the pseudo-header.
     */
    public static int validate(byte[] b, int off, int len, boolean checkChecksum, int srcIp, int dstIp) {
        if (len < MIN_HEADER_LENGTH) return ERR_TRUNCATED;
        int hl = headerLength(b, off);
        if (hl < MIN_HEADER_LENGTH || hl > len) return ERR_DATA_OFFSET;
        if (checkChecksum && !Checksum.verify(b, off, len, Checksum.pseudoHeaderSum(srcIp, dstIp, Ipv4.PROTO_TCP, len)))
            return ERR_CHECKSUM;
        return OK;
    }

    /** Writes the fixed header (checksum zeroed). {@code headerLength} includes options (multiple of 4). */
    public static void writeHeader(byte[] b, int off, int srcPort, int dstPort, int seq, int ack, int headerLength,
                                   int flags, int window) {
        Bytes.put16(b, off, srcPort);
        Bytes.put16(b, off + 2, dstPort);
        Bytes.put32(b, off + 4, seq);
        Bytes.put32(b, off + 8, ack);
        b[off + 12] = (byte) ((headerLength / 4) << 4);
        b[off + 13] = (byte) flags;
        Bytes.put16(b, off + 14, window);
        b[off + 16] = 0;
        b[off + 17] = 0;
        b[off + 18] = 0;
        b[off + 19] = 0;
    }

    /**
     * Sets URG and the urgent pointer ({@code ptr}, 16 bits: the offset from the segment's sequence number) in
     * the header at {@code off}; the checksum is filled afterwards.
     */
    public static void setUrgent(byte[] b, int off, int ptr) {
        b[off + 13] |= (byte) URG;
        Bytes.put16(b, off + 18, ptr);
    }

    /** Computes and stores the checksum of a segment of {@code length} bytes (header + payload). */
    public static void fillChecksum(byte[] b, int off, int length, int srcIp, int dstIp) {
        b[off + 16] = 0;
        b[off + 17] = 0;
        int c = Checksum.fold(Checksum.sum(b, off, length, Checksum.pseudoHeaderSum(srcIp, dstIp, Ipv4.PROTO_TCP, length)));
        Bytes.put16(b, off + 16, c);
    }

    public static boolean seqLt(int a, int b) { return a - b < 0; }
    public static boolean seqLeq(int a, int b) { return a - b <= 0; }
    public static boolean seqGt(int a, int b) { return a - b > 0; }
    public static boolean seqGeq(int a, int b) { return a - b >= 0; }

    /** Flags as tcpdump prints them: S F R P . U E W (ACK is {@code .}, ECE {@code E}, CWR {@code W}). */
    public static String flagsToString(int f) {
        StringBuilder sb = new StringBuilder();
        if ((f & SYN) != 0) sb.append('S');
        if ((f & FIN) != 0) sb.append('F');
        if ((f & RST) != 0) sb.append('R');
        if ((f & PSH) != 0) sb.append('P');
        if ((f & ACK) != 0) sb.append('.');
        if ((f & URG) != 0) sb.append('U');
        if ((f & ECE) != 0) sb.append('E');
        if ((f & CWR) != 0) sb.append('W');
        return sb.toString();
    }
}
