package io.jnet.wire;

/**
 * VXLAN header (RFC 7348 section 5): 8 bytes carried in UDP (destination port 4789) in front of an inner
 * Ethernet frame. Layout: flags (8 bits; 0x08 = I, VNI valid), 24 reserved bits, 24-bit VXLAN Network
 * Identifier (VNI), 8 reserved bits.
 */
public final class Vxlan {
    private Vxlan() {}

    public static final int HEADER_LENGTH = 8;
    /** IANA-assigned UDP destination port (RFC 7348 section 5). */
    public static final int UDP_PORT = 4789;
    /** The I flag: the VNI field is valid. */
    public static final int FLAG_I = 0x08;
    /** Largest VNI (24 bits). */
    public static final int MAX_VNI = 0xFF_FFFF;

    /** Validation results of {@link #validate}. */
    public static final int OK = 0, ERR_TRUNCATED = 1, ERR_FLAGS = 2;

    /** The flags byte. */
    public static int flags(byte[] b, int off) { return Bytes.u8(b, off); }

    /** The 24-bit VNI. */
    public static int vni(byte[] b, int off) { return Bytes.i32(b, off + 4) >>> 8; }

    /**
     * Checks {@code len} bytes at {@code off} (the UDP payload): at least the 8-byte header and the I flag
     * set. Reserved bits are ignored on receipt as RFC 7348 says (Linux vxlan_rcv is stricter and drops
     * frames with unknown flags). Returns {@link #OK} or an ERR_ code.
     */
    public static int validate(byte[] b, int off, int len) {
        if (len < HEADER_LENGTH) return ERR_TRUNCATED;
        if ((flags(b, off) & FLAG_I) == 0) return ERR_FLAGS;
        return OK;
    }

    /** Writes a header with the I flag, reserved fields zero, and the given 24-bit VNI. */
    public static void write(byte[] b, int off, int vni) {
        b[off] = (byte) FLAG_I;
        b[off + 1] = 0;
        b[off + 2] = 0;
        b[off + 3] = 0;
        Bytes.put32(b, off + 4, vni << 8);
    }
}
