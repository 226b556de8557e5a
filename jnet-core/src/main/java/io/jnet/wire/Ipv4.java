package io.jnet.wire;

/**
 * IPv4 header (RFC 791) accessors over a byte array; all multi-byte fields in network byte order.
 * Addresses are ints holding the four octets big-endian ({@code 192.0.2.1 == 0xC0000201}).
 */
public final class Ipv4 {
    private Ipv4() {}

    public static final int MIN_HEADER_LENGTH = 20;
    public static final int MAX_HEADER_LENGTH = 60;
    public static final int MAX_PACKET = 65535;
    public static final int PROTO_ICMP = 1;
    public static final int PROTO_TCP = 6;
    public static final int PROTO_UDP = 17;
    public static final int FLAG_DF = 0x4000;
    public static final int FLAG_MF = 0x2000;

    /** Validation results of {@link #validate}. */
    public static final int OK = 0, ERR_TRUNCATED = 1, ERR_VERSION = 2, ERR_HEADER_LENGTH = 3, ERR_TOTAL_LENGTH = 4,
            ERR_CHECKSUM = 5;

    public static int version(byte[] b, int off) { return (b[off] & 0xFF) >>> 4; }
    /** Header length in bytes (IHL * 4). */
    public static int headerLength(byte[] b, int off) { return (b[off] & 0x0F) * 4; }
    public static int tos(byte[] b, int off) { return Bytes.u8(b, off + 1); }
    /** Total length in bytes (header + payload). */
    public static int totalLength(byte[] b, int off) { return Bytes.u16(b, off + 2); }
    public static int identification(byte[] b, int off) { return Bytes.u16(b, off + 4); }
    /** Flags and fragment offset field (16 bits). */
    public static int flagsFragment(byte[] b, int off) { return Bytes.u16(b, off + 6); }
    public static boolean dontFragment(byte[] b, int off) { return (flagsFragment(b, off) & FLAG_DF) != 0; }
    public static boolean moreFragments(byte[] b, int off) { return (flagsFragment(b, off) & FLAG_MF) != 0; }
    /** Fragment offset in bytes. */
    public static int fragmentOffset(byte[] b, int off) { return (flagsFragment(b, off) & 0x1FFF) * 8; }
    public static boolean isFragment(byte[] b, int off) { return (flagsFragment(b, off) & (FLAG_MF | 0x1FFF)) != 0; }
    public static int ttl(byte[] b, int off) { return Bytes.u8(b, off + 8); }
    public static int protocol(byte[] b, int off) { return Bytes.u8(b, off + 9); }
    public static int checksum(byte[] b, int off) { return Bytes.u16(b, off + 10); }
    public static int source(byte[] b, int off) { return Bytes.i32(b, off + 12); }
    public static int destination(byte[] b, int off) { return Bytes.i32(b, off + 16); }

    public static void setTotalLength(byte[] b, int off, int v) { Bytes.put16(b, off + 2, v); }
    public static void setFlagsFragment(byte[] b, int off, int v) { Bytes.put16(b, off + 6, v); }
    public static void setTtl(byte[] b, int off, int v) { b[off + 8] = (byte) v; }
    public static void setDestination(byte[] b, int off, int v) { Bytes.put32(b, off + 16, v); }
    public static void setSource(byte[] b, int off, int v) { Bytes.put32(b, off + 12, v); }

    /**
     * Checks a packet of {@code len} bytes at {@code off}: version 4, IHL 5..15 within the data, total
     * length between the header length and {@code len}; optionally the header checksum.
     * Returns {@link #OK} or an ERR_ code.
     */
    public static int validate(byte[] b, int off, int len, boolean checkChecksum) {
        if (len < MIN_HEADER_LENGTH) return ERR_TRUNCATED;
        if (version(b, off) != 4) return ERR_VERSION;
        int hl = headerLength(b, off);
        if (hl < MIN_HEADER_LENGTH || hl > len) return ERR_HEADER_LENGTH;
        int tl = totalLength(b, off);
        if (tl < hl || tl > len) return ERR_TOTAL_LENGTH;
        if (checkChecksum && !Checksum.verify(b, off, hl, 0)) return ERR_CHECKSUM;
        return OK;
    }

    /**
     * Writes a 20-byte header without options and its checksum.
     *
     * @param totalLength header + payload, bytes
     * @param flagsFragment flags (DF/MF) and fragment offset in 8-byte units
     */
    public static void write(byte[] b, int off, int tos, int totalLength, int id, int flagsFragment, int ttl,
                             int protocol, int src, int dst) {
        b[off] = 0x45;
        b[off + 1] = (byte) tos;
        Bytes.put16(b, off + 2, totalLength);
        Bytes.put16(b, off + 4, id);
        Bytes.put16(b, off + 6, flagsFragment);
        b[off + 8] = (byte) ttl;
        b[off + 9] = (byte) protocol;
        b[off + 10] = 0;
        b[off + 11] = 0;
        Bytes.put32(b, off + 12, src);
        Bytes.put32(b, off + 16, dst);
        Bytes.put16(b, off + 10, Checksum.compute(b, off, MIN_HEADER_LENGTH));
    }

    /**
     * Fills in the TCP or UDP checksum of the IPv4 packet whose header is at {@code off} (one left out for a
     * device's checksum offload); does nothing for a fragment, another protocol, or a transport header that does
     * not fit in the total length.
     */
    public static void fillTransportChecksum(byte[] b, int off) {
        if (isFragment(b, off)) return;
        int hl = headerLength(b, off);
        int tlen = totalLength(b, off) - hl;
        int t = off + hl;
        switch (protocol(b, off)) {
            case PROTO_TCP -> {
                if (tlen >= Tcp.MIN_HEADER_LENGTH) Tcp.fillChecksum(b, t, tlen, source(b, off), destination(b, off));
            }
            case PROTO_UDP -> {
                if (tlen >= Udp.HEADER_LENGTH) Udp.fillChecksum(b, t, tlen, source(b, off), destination(b, off));
            }
            default -> { }
        }
    }

    /** Recomputes the header checksum in place. */
    public static void updateChecksum(byte[] b, int off) {
        b[off + 10] = 0;
        b[off + 11] = 0;
        Bytes.put16(b, off + 10, Checksum.compute(b, off, headerLength(b, off)));
    }

    /**
     * Decrements the TTL by one and updates the header checksum incrementally (RFC 1624; Linux
     * ip_decrease_ttl): the TTL is the high byte of the header's fifth 16-bit word, so the checksum grows by
     * 0x0100 in one's complement; the result equals {@link #updateChecksum}'s. The TTL must be at least 1.
     *
     * @return the new TTL
     */
    public static int decrementTtl(byte[] b, int off) {
        int check = Bytes.u16(b, off + 10) + 0x0100;
        Bytes.put16(b, off + 10, check >= 0xFFFF ? check + 1 : check); // end-around carry, as Linux (0xFFFF gives 0)
        int ttl = ttl(b, off) - 1;
        setTtl(b, off, ttl);
        return ttl;
    }

    /** Formats an address as dotted quad. */
    public static String addressToString(int a) {
        return ((a >>> 24) & 0xFF) + "." + ((a >>> 16) & 0xFF) + "." + ((a >>> 8) & 0xFF) + "." + (a & 0xFF);
    }

    /**
     * Parses a dotted quad ({@code "192.0.2.1"}) the way inet_pton(3) does: exactly four decimal
     * octets 0..255, digits only, no leading zeros (so {@code "010.0.0.1"} is rejected rather than read
     * as octal the way inet_aton would). Surrounding whitespace is ignored.
     *
     * @throws IllegalArgumentException on bad input (including null)
     */
    public static int parseAddress(String s) {
        if (s == null) throw new IllegalArgumentException("bad IPv4 address: null");
        String[] p = s.trim().split("\\.", -1);
        if (p.length != 4) throw new IllegalArgumentException("bad IPv4 address: " + s);
        int v = 0;
        for (String x : p) {
            int n = x.length();
            if (n == 0 || n > 3 || (n > 1 && x.charAt(0) == '0')) throw new IllegalArgumentException("bad IPv4 address: " + s);
            int o = 0;
            for (int i = 0; i < n; i++) {
                char c = x.charAt(i);
                if (c < '0' || c > '9') throw new IllegalArgumentException("bad IPv4 address: " + s);
                o = o * 10 + (c - '0');
            }
            if (o > 255) throw new IllegalArgumentException("bad IPv4 address: " + s);
            v = (v << 8) | o;
        }
        return v;
    }

    /**
     * Netmask int for a prefix length 0..32 ({@code 24 -> 0xFFFFFF00}).
     *
     * @throws IllegalArgumentException for a prefix length outside 0..32
     */
    public static int prefixMask(int prefixLength) {
        if (prefixLength < 0 || prefixLength > 32) throw new IllegalArgumentException("bad prefix length: " + prefixLength);
        return prefixLength == 0 ? 0 : -1 << (32 - prefixLength);
    }

    public static java.net.Inet4Address toInet(int a) {
        try {
            return (java.net.Inet4Address) java.net.InetAddress.getByAddress(
                    new byte[] {(byte) (a >>> 24), (byte) (a >>> 16), (byte) (a >>> 8), (byte) a});
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** The int form of an IPv4 {@link java.net.InetAddress}; throws IllegalArgumentException for IPv6. */
    public static int fromInet(java.net.InetAddress a) {
        byte[] x = a.getAddress();
        if (x.length != 4) throw new IllegalArgumentException("not an IPv4 address: " + a);
        return Bytes.i32(x, 0);
    }

    public static boolean isMulticast(int a) { return (a >>> 28) == 0xE; }
    public static boolean isLoopback(int a) { return (a >>> 24) == 127; }
}
