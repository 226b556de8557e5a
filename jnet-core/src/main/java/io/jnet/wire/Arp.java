package io.jnet.wire;

/** ARP for IPv4 over Ethernet (RFC 826): 28 bytes. */
public final class Arp {
    private Arp() {}

    public static final int LENGTH = 28;
    public static final int OP_REQUEST = 1;
    public static final int OP_REPLY = 2;

    public static int hardwareType(byte[] b, int off) { return Bytes.u16(b, off); }
    public static int protocolType(byte[] b, int off) { return Bytes.u16(b, off + 2); }
    public static int hardwareLength(byte[] b, int off) { return Bytes.u8(b, off + 4); }
    public static int protocolLength(byte[] b, int off) { return Bytes.u8(b, off + 5); }
    public static int operation(byte[] b, int off) { return Bytes.u16(b, off + 6); }
    public static long senderMac(byte[] b, int off) { return Bytes.u48(b, off + 8); }
    public static int senderIp(byte[] b, int off) { return Bytes.i32(b, off + 14); }
    public static long targetMac(byte[] b, int off) { return Bytes.u48(b, off + 18); }
    public static int targetIp(byte[] b, int off) { return Bytes.i32(b, off + 24); }

    /** True when {@code len} bytes at {@code off} are an Ethernet/IPv4 ARP packet. */
    public static boolean isValid(byte[] b, int off, int len) {
        return len >= LENGTH && hardwareType(b, off) == 1 && protocolType(b, off) == Ethernet.TYPE_IPV4
                && hardwareLength(b, off) == 6 && protocolLength(b, off) == 4
                && (operation(b, off) == OP_REQUEST || operation(b, off) == OP_REPLY);
    }

    public static void write(byte[] b, int off, int op, long senderMac, int senderIp, long targetMac, int targetIp) {
        Bytes.put16(b, off, 1);
        Bytes.put16(b, off + 2, Ethernet.TYPE_IPV4);
        b[off + 4] = 6;
        b[off + 5] = 4;
        Bytes.put16(b, off + 6, op);
        Bytes.put48(b, off + 8, senderMac);
        Bytes.put32(b, off + 14, senderIp);
        Bytes.put48(b, off + 18, targetMac);
        Bytes.put32(b, off + 24, targetIp);
    }
}
