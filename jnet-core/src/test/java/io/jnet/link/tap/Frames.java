package io.jnet.link.tap;

import java.util.Arrays;

/**
 * Hand-built Ethernet, ARP (RFC 826), IPv4 (RFC 791) and ICMP (RFC 792) frames for tests that talk to
 * the kernel, independent of jnet's own wire code so they check it rather than mirror it.
 */
final class Frames {

    static final int ETH_HLEN = 14;
    static final int ETHERTYPE_IPV4 = 0x0800;
    static final int ETHERTYPE_ARP = 0x0806;

    private Frames() {}

    static int u8(byte[] f, int at) { return f[at] & 0xff; }

    static int u16(byte[] f, int at) { return (u8(f, at) << 8) | u8(f, at + 1); }

    static int u32(byte[] f, int at) { return (u16(f, at) << 16) | u16(f, at + 2); }

    static long mac(byte[] f, int at) {
        long v = 0;
        for (int i = 0; i < 6; i++) v = (v << 8) | u8(f, at + i);
        return v;
    }

    static void putMac(byte[] f, int at, long mac) {
        for (int i = 0; i < 6; i++) f[at + i] = (byte) (mac >>> (40 - 8 * i));
    }

    static void put16(byte[] f, int at, int v) {
        f[at] = (byte) (v >>> 8);
        f[at + 1] = (byte) v;
    }

    static void put32(byte[] f, int at, int v) {
        put16(f, at, v >>> 16);
        put16(f, at + 2, v);
    }

    static int ipv4(int a, int b, int c, int d) {
        return (a << 24) | (b << 16) | (c << 8) | d;
    }

    static int ethertype(byte[] f) {
        return f.length >= ETH_HLEN ? u16(f, 12) : -1;
    }

    /** True for an ARP request (opcode 1) for IPv4 over Ethernet asking for {@code targetIp}. */
    static boolean isArpRequestFor(byte[] f, int targetIp) {
        return ethertype(f) == ETHERTYPE_ARP && f.length >= ETH_HLEN + 28
                && u16(f, 14) == 1 && u16(f, 16) == ETHERTYPE_IPV4 && u8(f, 18) == 6 && u8(f, 19) == 4
                && u16(f, 20) == 1 && u32(f, 38) == targetIp;
    }

    /** The ARP reply (opcode 2) to {@code request}, saying {@code ourIp} is at {@code ourMac}. */
    static byte[] arpReply(byte[] request, long ourMac, int ourIp) {
        long senderMac = mac(request, 22);
        int senderIp = u32(request, 28);
        byte[] f = new byte[ETH_HLEN + 28];
        putMac(f, 0, senderMac);
        putMac(f, 6, ourMac);
        put16(f, 12, ETHERTYPE_ARP);
        put16(f, 14, 1);              // htype Ethernet
        put16(f, 16, ETHERTYPE_IPV4); // ptype
        f[18] = 6;
        f[19] = 4;
        put16(f, 20, 2);              // opcode reply
        putMac(f, 22, ourMac);
        put32(f, 28, ourIp);
        putMac(f, 32, senderMac);
        put32(f, 38, senderIp);
        return f;
    }

    /** True for an IPv4 ICMP echo request (type 8) addressed to {@code dstIp}. */
    static boolean isEchoRequestTo(byte[] f, int dstIp) {
        if (ethertype(f) != ETHERTYPE_IPV4 || f.length < ETH_HLEN + 20) return false;
        int ihl = (u8(f, 14) & 0x0f) * 4;
        return (u8(f, 14) >> 4) == 4 && u8(f, 23) == 1 && u32(f, 30) == dstIp
                && f.length >= ETH_HLEN + ihl + 8 && u8(f, ETH_HLEN + ihl) == 8;
    }

    /** The echo reply (type 0) to {@code request}: addresses swapped, same identifier, sequence and data. */
    static byte[] echoReply(byte[] request) {
        int ihl = (u8(request, 14) & 0x0f) * 4;
        int totalLength = u16(request, 16);
        byte[] f = Arrays.copyOf(request, ETH_HLEN + totalLength);
        putMac(f, 0, mac(request, 6));
        putMac(f, 6, mac(request, 0));
        f[22] = 64;                                     // TTL
        put32(f, 26, u32(request, 30));                 // source = request's destination
        put32(f, 30, u32(request, 26));                 // destination = request's source
        put16(f, 24, 0);
        put16(f, 24, checksum(f, ETH_HLEN, ihl));
        int icmp = ETH_HLEN + ihl;
        f[icmp] = 0;                                    // type echo reply
        put16(f, icmp + 2, 0);
        put16(f, icmp + 2, checksum(f, icmp, totalLength - ihl));
        return f;
    }

    /** The Internet checksum (RFC 1071) of {@code len} bytes at {@code off}. */
    static int checksum(byte[] b, int off, int len) {
        long sum = 0;
        int i = 0;
        for (; i + 1 < len; i += 2) sum += u16(b, off + i);
        if (i < len) sum += u8(b, off + i) << 8;
        while ((sum >>> 16) != 0) sum = (sum & 0xffff) + (sum >>> 16);
        return (int) (~sum & 0xffff);
    }
}
