package io.jnet.wire;

/** Ethernet II header (IEEE 802.3 with EtherType): destination MAC, source MAC, EtherType; 14 bytes. */
public final class Ethernet {
    private Ethernet() {}

    public static final int HEADER_LENGTH = 14;
    public static final int TYPE_IPV4 = 0x0800;
    public static final int TYPE_ARP = 0x0806;
    public static final int TYPE_VLAN = 0x8100;
    public static final int TYPE_IPV6 = 0x86DD;
    public static final long BROADCAST = 0xFFFF_FFFF_FFFFL;

    public static long destination(byte[] b, int off) { return Bytes.u48(b, off); }
    public static long source(byte[] b, int off) { return Bytes.u48(b, off + 6); }
    public static int etherType(byte[] b, int off) { return Bytes.u16(b, off + 12); }

    /** Writes a header at {@code off}. MACs are 48-bit values. */
    public static void write(byte[] b, int off, long dst, long src, int etherType) {
        Bytes.put48(b, off, dst);
        Bytes.put48(b, off + 6, src);
        Bytes.put16(b, off + 12, etherType);
    }

    /** True for a multicast or broadcast destination (I/G bit set). */
    public static boolean isMulticast(long mac) { return ((mac >>> 40) & 1) != 0; }

    /** Formats a MAC as {@code aa:bb:cc:dd:ee:ff}. */
    public static String macToString(long mac) {
        StringBuilder sb = new StringBuilder(17);
        for (int i = 5; i >= 0; i--) {
            int v = (int) (mac >>> (i * 8)) & 0xFF;
            if (sb.length() > 0) sb.append(':');
            sb.append(Character.forDigit(v >>> 4, 16)).append(Character.forDigit(v & 15, 16));
        }
        return sb.toString();
    }

    /**
     * Parses {@code aa:bb:cc:dd:ee:ff}: six groups of one or two hex digits separated by colons.
     *
     * @throws IllegalArgumentException on bad input (including null)
     */
    public static long parseMac(String s) {
        if (s == null) throw new IllegalArgumentException("bad MAC address: null");
        String[] p = s.split(":", -1);
        if (p.length != 6) throw new IllegalArgumentException("bad MAC address: " + s);
        long v = 0;
        for (String x : p) {
            if (x.isEmpty() || x.length() > 2) throw new IllegalArgumentException("bad MAC address: " + s);
            int o = 0;
            for (int i = 0; i < x.length(); i++) {
                char c = x.charAt(i);
                int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
                if (d < 0) throw new IllegalArgumentException("bad MAC address: " + s);
                o = (o << 4) | d;
            }
            v = (v << 8) | o;
        }
        return v;
    }
}
