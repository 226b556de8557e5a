package io.jnet.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Mutates the frames of the test captures (bit flips, byte sets, truncation, extension, length-field,
 * IHL and data-offset edits, option-area garbage, type/protocol swaps; checksums sometimes repaired so the
 * checking parsers go deep) and runs every validate(), accessor, TcpOptions.parse and Repr parse/emit path
 * over the result. The only allowed outcomes are success or a MalformedPacketException; validate() and the
 * Repr parsers must agree. Fixed seeds: a failure reproduces and names the mutation number.
 */
class WireFuzzTest {
    private static final long SEED = 0x6A6E6574_77697265L;
    private static final String[] CAPTURES = {"tcp-clean.pcap", "tcp-lossy-sack.pcap", "icmp-udp-rst.pcap",
        "vxlan-tcp.pcap", "ipv6-tcp.pcap"};

    /** An IPv4 header found in an original frame: where it and its transport header start, and the protocol. */
    private record Layer(int ip, int l4, int protocol) {}

    /** A frame and the offsets of the headers it holds. */
    private record Target(String name, byte[] frame, List<Layer> layers, List<Integer> vxlan, List<Integer> arp,
                          List<Integer> ethernet) {}

    private static final List<Target> targets = new ArrayList<>();

    @BeforeAll
    static void loadCaptures() {
        for (String file : CAPTURES) {
            for (PcapFrames.Frame f : PcapFrames.resource(file)) {
                Target t = new Target(file + "#" + f.index(), f.data(), new ArrayList<>(), new ArrayList<>(),
                        new ArrayList<>(), new ArrayList<>());
                locate(t, f.data(), 0, 0);
                targets.add(t);
            }
        }
    }

    private static void locate(Target t, byte[] d, int eth, int depth) {
        t.ethernet().add(eth);
        int type = Ethernet.etherType(d, eth);
        int p = eth + Ethernet.HEADER_LENGTH;
        if (type == Ethernet.TYPE_ARP) t.arp().add(p);
        if (type == Ethernet.TYPE_IPV4) locateIp(t, d, p, depth);
    }

    private static void locateIp(Target t, byte[] d, int ip, int depth) {
        int l4 = ip + Ipv4.headerLength(d, ip);
        int proto = Ipv4.protocol(d, ip);
        t.layers().add(new Layer(ip, l4, proto));
        if (proto == Ipv4.PROTO_UDP && Udp.destinationPort(d, l4) == Vxlan.UDP_PORT && depth == 0) {
            t.vxlan().add(l4 + 8);
            locate(t, d, l4 + 16, depth + 1);
        }
        if (proto == Ipv4.PROTO_ICMP && Icmp.type(d, l4) == Icmp.DEST_UNREACH) locateIp(t, d, l4 + 8, depth + 1);
    }

    @Test
    void mutatedCaptureFramesNeverBreakTheParsers() {
        run(200_000, SEED);
    }

    @Test
    @Tag("long")
    void tenMillionMutations() {
        run(10_000_000, SEED + 1);
    }

    private static void run(int mutations, long seed) {
        Random r = new Random(seed);
        FrameWalker strict = new FrameWalker(true, false);
        FrameWalker loose = new FrameWalker(false, false);
        TcpOptions options = new TcpOptions();
        long strictOk = 0, looseOk = 0, deepTcp;
        for (int i = 0; i < mutations; i++) {
            Target t = targets.get(r.nextInt(targets.size()));
            byte[] m = t.frame().clone();
            int ops = 1 + r.nextInt(3);
            for (int k = 0; k < ops; k++) m = mutate(t, m, r);
            if (r.nextInt(3) == 0) repairChecksums(t, m);
            try {
                byte[] out = new byte[m.length];
                try {
                    strict.frame(m, 0, m.length, out);
                    strictOk++;
                } catch (MalformedPacketException expected) {
                    // bad input reported as such
                }
                try {
                    loose.frame(m, 0, m.length, out);
                    looseOk++;
                } catch (MalformedPacketException expected) {
                    // bad input reported as such
                }
                direct(t, m, r, options);
            } catch (Throwable e) {
                fail("mutation " + i + " (seed " + seed + ") of " + t.name() + " threw " + e + "\nframe "
                        + HexFormat.of().formatHex(m), e);
            }
        }
        deepTcp = strict.counts.tcp;
        System.out.printf("%d mutations: %d parsed with checksums (%s), %d without (%s)%n", mutations, strictOk,
                strict.counts, looseOk, loose.counts);
        // the mutations must leave a fair share of frames parseable, or the deep paths would go untested
        assertThat(strictOk).as("frames fully parsed with checksums: %s", strict.counts).isGreaterThan(mutations / 20);
        assertThat(looseOk).as("frames fully parsed without checksums: %s", loose.counts).isGreaterThan(mutations / 10);
        assertThat(mutations - looseOk).as("frames rejected").isGreaterThan(mutations / 10);
        assertThat(deepTcp).isGreaterThan(mutations / 20);
        assertThat(strict.counts.vxlan + strict.counts.icmpQuoted + strict.counts.arp).isPositive();
    }

    /** Calls the accessors and parsers at every known header offset directly, whatever lies before them. */
    private static void direct(Target t, byte[] m, Random r, TcpOptions options) {
        for (int eth : t.ethernet()) {
            if (eth > m.length) continue;
            try {
                EthernetRepr.parse(m, eth, m.length - eth);
            } catch (MalformedPacketException expected) { /* bad input */ }
        }
        for (int a : t.arp()) {
            if (a > m.length) continue;
            boolean valid = Arp.isValid(m, a, m.length - a);
            try {
                ArpRepr.parse(m, a, m.length - a).emit(new byte[Arp.LENGTH], 0);
                assertThat(valid).isTrue();
            } catch (MalformedPacketException e) {
                assertThat(valid).isFalse();
            }
        }
        for (int v : t.vxlan()) {
            if (v > m.length) continue;
            int code = Vxlan.validate(m, v, m.length - v);
            try {
                VxlanRepr.parse(m, v, m.length - v);
                assertThat(code).isEqualTo(Vxlan.OK);
            } catch (MalformedPacketException e) {
                assertThat(code).isNotEqualTo(Vxlan.OK);
            }
        }
        for (Layer l : t.layers()) {
            if (l.ip() <= m.length) {
                int len = m.length - l.ip();
                int code = Ipv4.validate(m, l.ip(), len, true);
                try {
                    Ipv4Repr ip = Ipv4Repr.parse(m, l.ip(), len);
                    assertThat(code).isEqualTo(Ipv4.OK);
                    ip.emit(new byte[ip.headerLength()], 0);
                } catch (MalformedPacketException e) {
                    assertThat(code).isNotEqualTo(Ipv4.OK);
                }
            }
            if (l.l4() > m.length) continue;
            int len = m.length - l.l4();
            int tcp = Tcp.validate(m, l.l4(), len, false, 0, 0);
            if (tcp == Tcp.OK) {
                options.parse(m, l.l4() + Tcp.MIN_HEADER_LENGTH, Tcp.headerLength(m, l.l4()) - Tcp.MIN_HEADER_LENGTH);
                checkSack(options);
            }
            try {
                TcpRepr.parse(m, l.l4(), len).emit(new byte[len], 0, len - Tcp.headerLength(m, l.l4()), 1, 2);
                assertThat(tcp).isEqualTo(Tcp.OK);
            } catch (MalformedPacketException e) { /* bad input */ }
            int udp = Udp.validate(m, l.l4(), len, true, 0, 0);
            try {
                UdpRepr.parse(m, l.l4(), len);
                assertThat(udp).isIn(Udp.OK, Udp.ERR_CHECKSUM);
            } catch (MalformedPacketException e) {
                assertThat(udp).isIn(Udp.ERR_TRUNCATED, Udp.ERR_LENGTH);
            }
            int icmp = Icmp.validate(m, l.l4(), len);
            try {
                IcmpRepr.parse(m, l.l4(), len);
                assertThat(icmp).isEqualTo(Icmp.OK);
            } catch (MalformedPacketException e) {
                assertThat(icmp).isNotEqualTo(Icmp.OK);
            }
        }
        // any window of the frame as an option area
        if (m.length > 0) {
            int off = r.nextInt(m.length);
            options.parse(m, off, r.nextInt(Math.min(40, m.length - off) + 1));
            checkSack(options);
        }
    }

    /** Whatever the bytes, at most 4 SACK blocks come out, and writing them back stays within the 40 option bytes. */
    private static void checkSack(TcpOptions options) {
        assertThat(options.sackBlocks).isBetween(0, TcpOptions.MAX_SACK_BLOCKS);
        assertThat(options.writtenLength()).isLessThanOrEqualTo(TcpOptions.MAX_OPTION_SPACE);
    }

    private static final int[] INTERESTING16 = {0, 1, 7, 8, 19, 20, 21, 40, 59, 60, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF};

    private static byte[] mutate(Target t, byte[] m, Random r) {
        Layer l = t.layers().isEmpty() ? null : t.layers().get(r.nextInt(t.layers().size()));
        switch (r.nextInt(14)) {
            case 0 -> { if (m.length > 0) m[r.nextInt(m.length)] ^= (byte) (1 << r.nextInt(8)); }
            case 1 -> { if (m.length > 0) m[r.nextInt(m.length)] = (byte) (r.nextBoolean() ? r.nextInt(256) : new int[] {0, 1, 0x7F, 0x80, 0xFF}[r.nextInt(5)]); }
            case 2 -> {
                // truncate, often just around a header boundary
                int at = l != null && r.nextBoolean() ? (r.nextBoolean() ? l.ip() : l.l4()) + r.nextInt(64) - 8 : r.nextInt(m.length + 1);
                m = Arrays.copyOf(m, Math.max(0, Math.min(m.length, at)));
            }
            case 3 -> {
                int n = 1 + r.nextInt(64);
                byte[] e = Arrays.copyOf(m, m.length + n);
                for (int i = m.length; i < e.length; i++) e[i] = (byte) r.nextInt(256);
                m = e;
            }
            case 4 -> { if (l != null) put16(m, l.ip() + 2, lengthValue(r, m.length - l.ip())); }
            case 5 -> { if (l != null && l.ip() < m.length) m[l.ip()] = (byte) ((r.nextInt(8) == 0 ? r.nextInt(16) : 4) << 4 | r.nextInt(16)); }
            case 6 -> { if (l != null && l.l4() + 12 < m.length) m[l.l4() + 12] = (byte) (r.nextInt(16) << 4 | (m[l.l4() + 12] & 0x0F)); }
            case 7 -> { if (l != null) optionGarbage(m, l, r); }
            case 8 -> { if (l != null) put16(m, l.l4() + 4, lengthValue(r, m.length - l.l4())); }
            case 9 -> {
                if (!t.vxlan().isEmpty()) {
                    int v = t.vxlan().get(r.nextInt(t.vxlan().size()));
                    if (v < m.length) m[v] = (byte) r.nextInt(256);
                }
            }
            case 10 -> {
                if (!t.arp().isEmpty()) {
                    int a = t.arp().get(0) + new int[] {0, 1, 2, 3, 4, 5, 6, 7}[r.nextInt(8)];
                    if (a < m.length) m[a] = (byte) new int[] {0, 1, 2, 3, 4, 6, 8, 16, 0xFF}[r.nextInt(9)];
                }
            }
            case 11 -> { if (l != null && l.l4() < m.length) m[l.l4()] = (byte) new int[] {0, 3, 8, 11, 5, 12}[r.nextInt(6)]; }
            case 12 -> { if (l != null && l.ip() + 9 < m.length) m[l.ip() + 9] = (byte) new int[] {1, 6, 17, 0, 255}[r.nextInt(5)]; }
            default -> {
                int eth = t.ethernet().get(r.nextInt(t.ethernet().size()));
                put16(m, eth + 12, new int[] {Ethernet.TYPE_IPV4, Ethernet.TYPE_ARP, Ethernet.TYPE_IPV6, Ethernet.TYPE_VLAN, 0}[r.nextInt(5)]);
            }
        }
        return m;
    }

    private static int lengthValue(Random r, int available) {
        return switch (r.nextInt(3)) {
            case 0 -> INTERESTING16[r.nextInt(INTERESTING16.length)];
            case 1 -> Math.max(0, Math.min(0xFFFF, available + r.nextInt(5) - 2));
            default -> r.nextInt(0x10000);
        };
    }

    private static void optionGarbage(byte[] m, Layer l, Random r) {
        int start = l.l4() + Tcp.MIN_HEADER_LENGTH;
        if (l.protocol() != Ipv4.PROTO_TCP || start >= m.length) return;
        int end = Math.min(m.length, l.l4() + Tcp.MAX_HEADER_LENGTH);
        if (r.nextBoolean()) { // grow the header to take in payload bytes as options
            int doff = 5 + r.nextInt(11);
            m[l.l4() + 12] = (byte) (doff << 4 | (m[l.l4() + 12] & 0x0F));
        }
        int[] kinds = {0, 1, 2, 3, 4, 5, 8, 30, 254, 255};
        int[] lengths = {0, 1, 2, 3, 4, 6, 9, 10, 11, 18, 26, 34, 35, 40, 42, 255};
        for (int i = start; i < end; ) {
            m[i++] = (byte) (r.nextInt(4) == 0 ? r.nextInt(256) : kinds[r.nextInt(kinds.length)]);
            if (i < end) m[i++] = (byte) (r.nextInt(4) == 0 ? r.nextInt(256) : lengths[r.nextInt(lengths.length)]);
            int skip = r.nextInt(9);
            for (int k = 0; k < skip && i < end; k++) m[i++] = (byte) r.nextInt(256);
            if (r.nextInt(4) == 0) break;
        }
    }

    private static void put16(byte[] m, int off, int v) {
        if (off >= 0 && off + 1 < m.length) Bytes.put16(m, off, v);
    }

    /** Recomputes the checksums of the headers still in bounds, innermost first, so checking parsers go deeper. */
    private static void repairChecksums(Target t, byte[] m) {
        List<Layer> layers = t.layers();
        for (int i = layers.size() - 1; i >= 0; i--) {
            Layer l = layers.get(i);
            int ip = l.ip();
            if (ip + Ipv4.MIN_HEADER_LENGTH > m.length || Ipv4.version(m, ip) != 4) continue;
            int hl = Ipv4.headerLength(m, ip);
            int tl = Ipv4.totalLength(m, ip);
            if (hl < Ipv4.MIN_HEADER_LENGTH || ip + hl > m.length) continue;
            if (hl <= tl && ip + tl <= m.length) {
                int l4 = ip + hl;
                int len = tl - hl;
                int src = Ipv4.source(m, ip), dst = Ipv4.destination(m, ip);
                switch (Ipv4.protocol(m, ip)) {
                    case Ipv4.PROTO_TCP -> { if (len >= Tcp.MIN_HEADER_LENGTH) Tcp.fillChecksum(m, l4, len, src, dst); }
                    case Ipv4.PROTO_UDP -> {
                        int ulen = len >= Udp.HEADER_LENGTH ? Udp.length(m, l4) : -1;
                        if (ulen >= Udp.HEADER_LENGTH && ulen <= len && Udp.checksum(m, l4) != 0) {
                            Udp.write(m, l4, Udp.sourcePort(m, l4), Udp.destinationPort(m, l4), ulen, src, dst);
                        }
                    }
                    case Ipv4.PROTO_ICMP -> {
                        if (len >= Icmp.HEADER_LENGTH) {
                            Icmp.write(m, l4, len, Icmp.type(m, l4), Icmp.code(m, l4), Bytes.i32(m, l4 + 4));
                        }
                    }
                    default -> { }
                }
            }
            Ipv4.updateChecksum(m, ip);
        }
    }
}
