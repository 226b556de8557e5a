package io.jnet.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TcpOptionsTest {

    private static byte[] hex(String s) { return HexFormat.of().parseHex(s.replace(" ", "")); }

    private static List<TcpRepr> segments(String file) throws MalformedPacketException {
        FrameWalker walker = new FrameWalker(true, true);
        for (PcapFrames.Frame f : PcapFrames.resource(file)) walker.frame(f.data(), 0, f.data().length, new byte[f.data().length]);
        return walker.tcpSegments;
    }

    private static TcpRepr first(List<TcpRepr> segments, int flags) {
        return segments.stream().filter(t -> (t.flags() & 0xFF) == flags).findFirst().orElseThrow();
    }

    @Test
    void linuxSynOptionsFromCapture() throws MalformedPacketException {
        TcpRepr syn = first(segments("tcp-clean.pcap"), Tcp.SYN);
        TcpOptions o = syn.options();
        assertThat(o.mss).isEqualTo(1460);
        assertThat(o.sackPermitted).isTrue();
        assertThat(o.hasTimestamp).isTrue();
        assertThat(Integer.toUnsignedLong(o.tsVal)).isEqualTo(3382175245L);
        assertThat(o.tsEcr).isZero();
        assertThat(o.windowScale).isEqualTo(10);
        assertThat(o.sackBlocks).isZero();
        // mss 1460, SACK_PERM + TS, NOP + wscale 10: Linux's tcp_options_write order
        byte[] linux = hex("020405b4 0402080a c997e60d 00000000 0103030a");
        assertThat(syn.rawOptions()).isEqualTo(linux);

        TcpOptions fresh = new TcpOptions();
        fresh.mss = 1460;
        fresh.sackPermitted = true;
        fresh.hasTimestamp = true;
        fresh.tsVal = (int) 3382175245L;
        fresh.tsEcr = 0;
        fresh.windowScale = 10;
        byte[] written = new byte[40];
        assertThat(fresh.write(written, 0)).isEqualTo(20).isEqualTo(fresh.writtenLength());
        assertThat(java.util.Arrays.copyOf(written, 20)).isEqualTo(linux);
    }

    @Test
    void linuxSynAckOptionsFromCapture() throws MalformedPacketException {
        List<TcpRepr> segs = segments("tcp-clean.pcap");
        TcpRepr syn = first(segs, Tcp.SYN);
        TcpRepr synAck = first(segs, Tcp.SYN | Tcp.ACK);
        TcpOptions o = synAck.options();
        assertThat(o.mss).isEqualTo(1460);
        assertThat(o.sackPermitted).isTrue();
        assertThat(Integer.toUnsignedLong(o.tsVal)).isEqualTo(2532151666L);
        assertThat(o.tsEcr).isEqualTo(syn.options().tsVal);
        assertThat(o.windowScale).isEqualTo(10);
        assertThat(synAck.ack()).isEqualTo(syn.seq() + 1);
        byte[] written = new byte[o.writtenLength()];
        o.write(written, 0);
        assertThat(written).isEqualTo(synAck.rawOptions());
    }

    @Test
    void sackBlocksFromLossyCaptureParse() throws MalformedPacketException {
        List<TcpRepr> sacks = new ArrayList<>();
        for (TcpRepr t : segments("tcp-lossy-sack.pcap")) if (t.options().sackBlocks > 0) sacks.add(t);
        // absolute values as printed by tcpdump -S
        long[][] expected = {
            {3256390314L, 3256396106L, 3256396562L}, {3256390314L, 3256396106L, 3256398010L},
            {3256390314L, 3256396106L, 3256399458L}, {3256390314L, 3256396106L, 3256400906L},
            {3256390314L, 3256396106L, 3256402354L}, {3256390314L, 3256396106L, 3256403802L},
            {3256391762L, 3256396106L, 3256403802L}, {3256393210L, 3256396106L, 3256403802L},
            {3256394658L, 3256396106L, 3256403802L}, {3256425522L, 3256429866L, 3256431314L},
            {3256425522L, 3256429866L, 3256432762L}, {3256425522L, 3256429866L, 3256434210L},
            {3256425522L, 3256429866L, 3256435658L}, {3256425522L, 3256429866L, 3256438554L},
            {3256426970L, 3256429866L, 3256438554L}, {3256428418L, 3256429866L, 3256438554L},
        };
        assertThat(sacks).hasSize(expected.length);
        for (int i = 0; i < expected.length; i++) {
            TcpRepr t = sacks.get(i);
            TcpOptions o = t.options();
            assertThat(o.sackBlocks).isEqualTo(1);
            assertThat(Integer.toUnsignedLong(t.ack())).isEqualTo(expected[i][0]);
            assertThat(Integer.toUnsignedLong(o.sackLeft[0])).isEqualTo(expected[i][1]);
            assertThat(Integer.toUnsignedLong(o.sackRight[0])).isEqualTo(expected[i][2]);
            assertThat(Tcp.seqGt(o.sackLeft[0], t.ack())).as("block above the cumulative ACK").isTrue();
            assertThat(o.hasTimestamp).isTrue();
            assertThat(t.rawOptions()).hasSize(24); // NOP NOP TS, NOP NOP SACK(10)
        }
    }

    @Test
    void optionLengthZeroOrOneIsRejected() {
        TcpOptions o = new TcpOptions();
        assertThat(o.parse(hex("02000000"), 0, 4)).isFalse();
        assertThat(o.parse(hex("08010000"), 0, 4)).isFalse();
        assertThat(o.parse(hex("01 01 fe 00"), 0, 4)).as("unknown kind with length 0").isFalse();
    }

    @Test
    void optionsBeforeAMalformedOneAreKeptAsLinuxKeepsThem() {
        TcpOptions o = new TcpOptions();
        assertThat(o.parse(hex("020405b4 0103 0000"), 0, 8)).as("window scale of length 0").isFalse();
        assertThat(o.mss).isEqualTo(1460);
        assertThat(o.windowScale).isEqualTo(-1);
        assertThat(o.parse(hex("0101080a 00000007 00000009 0101050a 0000"), 0, 20)).as("SACK past the area").isFalse();
        assertThat(o.hasTimestamp).isTrue();
        assertThat(o.tsVal).isEqualTo(7);
        assertThat(o.sackBlocks).isZero();
    }

    @Test
    void optionRunningPastTheHeaderIsRejected() {
        TcpOptions o = new TcpOptions();
        assertThat(o.parse(hex("020405b4"), 0, 3)).isFalse();
        assertThat(o.parse(hex("080a0000 00000000"), 0, 8)).isFalse();
        assertThat(o.parse(hex("01010103"), 0, 4)).as("kind without a length byte").isFalse();
        // the option area given is a window into a larger array: bytes beyond it do not count
        assertThat(o.parse(hex("0101 0204 05b4"), 0, 4)).isFalse();
    }

    @Test
    void unknownOptionsAreSkipped() {
        TcpOptions o = new TcpOptions();
        assertThat(o.parse(hex("fe04abcd 020405b4 1e06 00000000 0101"), 0, 16)).isTrue();
        assertThat(o.mss).isEqualTo(1460);
        assertThat(o.toString()).isEqualTo("[mss 1460]");
    }

    @Test
    void eolStopsParsing() {
        TcpOptions o = new TcpOptions();
        assertThat(o.parse(hex("00 020405b4 000000"), 0, 8)).isTrue();
        assertThat(o.mss).isEqualTo(-1);
        assertThat(o.parse(hex("0303 07 00 0200 ffff"), 0, 8)).as("garbage after EOL is not looked at").isTrue();
        assertThat(o.windowScale).isEqualTo(7);
    }

    @Test
    void windowScaleAbove14IsClampedTo14() {
        TcpOptions o = new TcpOptions();
        for (int shift : new int[] {14, 15, 16, 200, 255}) {
            assertThat(o.parse(new byte[] {1, 3, 3, (byte) shift}, 0, 4)).isTrue();
            assertThat(o.windowScale).isEqualTo(14);
        }
        assertThat(o.parse(hex("01030300"), 0, 4)).isTrue();
        assertThat(o.windowScale).isZero();
    }

    @Test
    void wrongLengthsOfKnownOptionsAreIgnored() {
        TcpOptions o = new TcpOptions();
        assertThat(o.parse(hex("020305 0402 0503aa 0803ff 01"), 0, 12)).isTrue();
        assertThat(o.mss).isEqualTo(-1);
        assertThat(o.sackPermitted).isTrue();
        assertThat(o.sackBlocks).isZero();
        assertThat(o.hasTimestamp).isFalse();
        assertThat(o.parse(hex("050b 0000000100000002 ff 0101"), 0, 13)).as("SACK length 11").isTrue();
        assertThat(o.sackBlocks).isZero();
    }

    @Test
    void mssOfZeroIsIgnoredAsLinuxDoes() {
        TcpOptions o = new TcpOptions();
        assertThat(o.parse(hex("02040000 01030307"), 0, 8)).isTrue();
        assertThat(o.mss).as("absent: the peer gets the default 536, not tcp_min_snd_mss").isEqualTo(-1);
        assertThat(o.windowScale).isEqualTo(7);
        assertThat(o.parse(hex("02040001"), 0, 4)).isTrue();
        assertThat(o.mss).as("a tiny MSS is kept (floored at tcp_min_snd_mss later)").isEqualTo(1);
    }

    @Test
    void fourSackBlocksParseAndParseClearsEarlierState() {
        TcpOptions o = new TcpOptions();
        assertThat(o.parse(hex("020405b4 01030307"), 0, 8)).isTrue();
        byte[] b = hex("0101 0522 00000001 00000002 00000003 00000004 00000005 00000006 00000007 00000008");
        assertThat(o.parse(b, 0, b.length)).isTrue();
        assertThat(o.mss).isEqualTo(-1);
        assertThat(o.windowScale).isEqualTo(-1);
        assertThat(o.sackBlocks).isEqualTo(4);
        assertThat(o.sackLeft).containsExactly(1, 3, 5, 7);
        assertThat(o.sackRight).containsExactly(2, 4, 6, 8);
    }

    @Test
    void writeUsesLinuxOrderForEveryCombination() {
        TcpOptions o = new TcpOptions();
        o.sackPermitted = true;
        assertWrites(o, "01010402");
        o.hasTimestamp = true;
        o.tsVal = 1;
        o.tsEcr = 2;
        assertWrites(o, "0402080a 00000001 00000002");
        o.sackPermitted = false;
        assertWrites(o, "0101080a 00000001 00000002");
        o.sackBlocks = 2;
        o.sackLeft[0] = 10; o.sackRight[0] = 20; o.sackLeft[1] = 30; o.sackRight[1] = 40;
        assertWrites(o, "0101080a 00000001 00000002 01010512 0000000a 00000014 0000001e 00000028");
        o.clear();
        o.mss = 536;
        o.windowScale = 0;
        assertWrites(o, "02040218 01030300");
        o.clear();
        assertWrites(o, "");
    }

    private static void assertWrites(TcpOptions o, String expectedHex) {
        byte[] b = new byte[64];
        int n = o.write(b, 3);
        assertThat(n).isEqualTo(o.writtenLength());
        assertThat(java.util.Arrays.copyOfRange(b, 3, 3 + n)).isEqualTo(hex(expectedHex));
    }

    @Test
    void writeThenParseRoundTripsRandomOptions() {
        Random r = new Random(0x5eed);
        TcpOptions o = new TcpOptions();
        TcpOptions back = new TcpOptions();
        byte[] b = new byte[64];
        for (int i = 0; i < 20_000; i++) {
            o.clear();
            if (r.nextBoolean()) o.mss = r.nextInt(65536);
            if (r.nextBoolean()) o.windowScale = r.nextInt(15);
            o.sackPermitted = r.nextBoolean();
            if (r.nextBoolean()) { o.hasTimestamp = true; o.tsVal = r.nextInt(); o.tsEcr = r.nextInt(); }
            o.sackBlocks = r.nextInt(o.hasTimestamp ? 3 : 4);
            for (int k = 0; k < o.sackBlocks; k++) { o.sackLeft[k] = r.nextInt(); o.sackRight[k] = r.nextInt(); }
            int n = o.write(b, 0);
            assertThat(n % 4).isZero();
            assertThat(back.parse(b, 0, n)).isTrue();
            assertThat(back.toString()).isEqualTo(o.toString());
        }
    }

    @Test
    void sackOptionOfOneToFourBlocksParses() {
        TcpOptions o = new TcpOptions();
        for (int n = 1; n <= 4; n++) {
            byte[] b = new byte[2 + 8 * n + 2];
            b[0] = 1;
            b[1] = 1;
            b[2] = TcpOptions.KIND_SACK;
            b[3] = (byte) (2 + 8 * n);
            for (int k = 0; k < n; k++) {
                Bytes.put32(b, 4 + 8 * k, 1000 * (k + 1));
                Bytes.put32(b, 8 + 8 * k, 1000 * (k + 1) + 500);
            }
            assertThat(o.parse(b, 0, b.length)).isTrue();
            assertThat(o.sackBlocks).isEqualTo(n);
            assertThat(o.sackMalformed).isFalse();
            for (int k = 0; k < n; k++) {
                assertThat(o.sackLeft[k]).isEqualTo(1000 * (k + 1));
                assertThat(o.sackRight[k]).isEqualTo(1000 * (k + 1) + 500);
            }
        }
    }

    @Test
    void sackOptionOfAMalformedLengthIsIgnoredAndFlaggedAsLinuxIgnoresIt() {
        TcpOptions o = new TcpOptions();
        // lengths that are not 2 + 8n (n >= 1): ignored, parsing goes on after them (Linux tcp_parse_options)
        for (int len : new int[] {2, 3, 9, 11, 17, 19, 33, 35}) {
            byte[] b = new byte[40];
            b[0] = TcpOptions.KIND_SACK;
            b[1] = (byte) len;
            int next = len;
            b[next] = TcpOptions.KIND_MSS;
            b[next + 1] = 4;
            Bytes.put16(b, next + 2, 1400);
            assertThat(o.parse(b, 0, next + 4)).as("length %d", len).isTrue();
            assertThat(o.sackBlocks).as("length %d", len).isZero();
            assertThat(o.sackMalformed).as("length %d", len).isTrue();
            assertThat(o.mss).as("the option after it, length %d", len).isEqualTo(1400);
        }
        // running past the option area ends parsing, as for any option
        assertThat(o.parse(hex("0101 052a 00000001 00000002"), 0, 12)).isFalse();
        assertThat(o.sackBlocks).isZero();
        // an SACK-permitted option of another length than 2 is ignored
        assertThat(o.parse(hex("0403 00 01"), 0, 4)).isTrue();
        assertThat(o.sackPermitted).isFalse();
        assertThat(o.parse(hex("0101 0402"), 0, 4)).isTrue();
        assertThat(o.sackPermitted).isTrue();
        assertThat(o.sackMalformed).isFalse();
    }

    @Test
    void sackBlocksWrittenAreCutToTheOptionSpaceAsLinuxDoes() {
        TcpOptions o = new TcpOptions();
        o.sackBlocks = 4;
        for (int k = 0; k < 4; k++) { o.sackLeft[k] = 10 * k + 1; o.sackRight[k] = 10 * k + 5; }
        assertThat(o.sackBlocksWritten()).isEqualTo(4);
        assertThat(o.writtenLength()).isEqualTo(36);
        assertWrites(o, "0101 0522 00000001 00000005 0000000b 0000000f 00000015 00000019 0000001f 00000023");
        o.hasTimestamp = true;
        o.tsVal = 7;
        o.tsEcr = 9;
        // with timestamps 3 blocks fit: NOP NOP TS, NOP NOP SACK(26) = 40 bytes; the first (most recent) are kept
        assertThat(o.sackBlocksWritten()).isEqualTo(3);
        assertThat(o.writtenLength()).isEqualTo(40);
        assertWrites(o, "0101080a 00000007 00000009 0101051a 00000001 00000005 0000000b 0000000f 00000015 00000019");
        o.sackBlocks = 1;
        assertWrites(o, "0101080a 00000007 00000009 0101050a 00000001 00000005");
        // nothing ever exceeds 40 bytes whatever is asked for
        o.mss = 1460;
        o.windowScale = 7;
        o.sackPermitted = true;
        o.sackBlocks = 4;
        assertThat(o.writtenLength()).isLessThanOrEqualTo(TcpOptions.MAX_OPTION_SPACE);
        assertThat(o.sackBlocksWritten()).isEqualTo(2);
    }

    @Test
    void synOptionsWithSackPermittedInLinuxOrder() {
        TcpOptions o = new TcpOptions();
        o.mss = 1460;
        o.sackPermitted = true;
        o.windowScale = 7;
        // no timestamps: MSS, NOP NOP SACK_PERM, NOP WS (tcp_options_write)
        assertWrites(o, "020405b4 01010402 01030307");
        o.hasTimestamp = true;
        o.tsVal = 1;
        o.tsEcr = 0;
        // timestamps: SACK_PERM takes the place of NOP NOP before TS
        assertWrites(o, "020405b4 0402080a 00000001 00000000 01030307");
    }

    @Test
    void randomSackOptionsNeverYieldMoreThanFourBlocksOrThrow() {
        Random r = new Random(0x5ac);
        TcpOptions o = new TcpOptions();
        byte[] b = new byte[40];
        for (int i = 0; i < 200_000; i++) {
            r.nextBytes(b);
            int at = r.nextInt(8);
            for (int k = 0; k < at; k++) b[k] = 1;
            b[at] = (byte) (r.nextBoolean() ? TcpOptions.KIND_SACK : TcpOptions.KIND_SACK_PERM);
            int len = r.nextInt(4) == 0 ? r.nextInt(256) : 2 + 8 * r.nextInt(5) + (r.nextInt(3) == 0 ? r.nextInt(8) : 0);
            if (at + 1 < b.length) b[at + 1] = (byte) len;
            int area = r.nextInt(41);
            o.parse(b, 0, area);
            assertThat(o.sackBlocks).isBetween(0, TcpOptions.MAX_SACK_BLOCKS);
            if (o.sackBlocks > 0) {
                byte[] out = new byte[TcpOptions.MAX_OPTION_SPACE];
                int n = o.write(out, 0);
                assertThat(n).isLessThanOrEqualTo(TcpOptions.MAX_OPTION_SPACE).isEqualTo(o.writtenLength());
            }
        }
    }
}
