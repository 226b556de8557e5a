package io.jnet.wire;

/** ICMPv4 (RFC 792, RFC 1191 for fragmentation needed): 8-byte header then data. */
public final class Icmp {
    private Icmp() {}

    public static final int HEADER_LENGTH = 8;
    public static final int ECHO_REPLY = 0;
    public static final int DEST_UNREACH = 3;
    public static final int SOURCE_QUENCH = 4;
    public static final int REDIRECT = 5;
    public static final int ECHO_REQUEST = 8;
    public static final int TIME_EXCEEDED = 11;
    public static final int PARAMETER_PROBLEM = 12;
    /** Destination unreachable codes. */
    public static final int CODE_NET_UNREACH = 0, CODE_HOST_UNREACH = 1, CODE_PROTO_UNREACH = 2, CODE_PORT_UNREACH = 3,
            CODE_FRAG_NEEDED = 4;

    /** Validation results of {@link #validate}. */
    public static final int OK = 0, ERR_TRUNCATED = 1, ERR_CHECKSUM = 2;

    /**
     * Checks a message of {@code len} bytes at {@code off} (the whole IPv4 payload): at least the 8-byte
     * header, and a checksum over the whole message that verifies (RFC 792; Linux icmp_rcv drops both).
     * Returns {@link #OK} or an ERR_ code.
     */
    public static int validate(byte[] b, int off, int len) {
        if (len < HEADER_LENGTH) return ERR_TRUNCATED;
        if (!Checksum.verify(b, off, len, 0)) return ERR_CHECKSUM;
        return OK;
    }

    public static int type(byte[] b, int off) { return Bytes.u8(b, off); }
    public static int code(byte[] b, int off) { return Bytes.u8(b, off + 1); }
    public static int checksum(byte[] b, int off) { return Bytes.u16(b, off + 2); }
    public static int echoIdentifier(byte[] b, int off) { return Bytes.u16(b, off + 4); }
    public static int echoSequence(byte[] b, int off) { return Bytes.u16(b, off + 6); }
    /** Next-hop MTU of a fragmentation-needed message (RFC 1191). */
    public static int nextHopMtu(byte[] b, int off) { return Bytes.u16(b, off + 6); }

    /** Writes type/code/rest-of-header and computes the checksum over {@code len} bytes (header + data already in place). */
    public static void write(byte[] b, int off, int len, int type, int code, int restOfHeader) {
        b[off] = (byte) type;
        b[off + 1] = (byte) code;
        b[off + 2] = 0;
        b[off + 3] = 0;
        Bytes.put32(b, off + 4, restOfHeader);
        Bytes.put16(b, off + 2, Checksum.compute(b, off, len));
    }
}
