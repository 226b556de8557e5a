package io.jnet.rds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.wire.RdsHeader;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * RdsStreamParser and RdsStreamWriter against the framing of Linux's net/rds/tcp_recv.c (rds_tcp_data_recv:
 * 48-byte header, then h_len payload bytes, either split across any number of reads; a congestion update is
 * h_flags == RDS_FLAG_CONG_BITMAP exactly) and net/rds/tcp_send.c (header, then payload).
 */
class RdsStreamParserTest {
    private static final int MIB = 1 << 20;
    private static final int[] SIZES = {0, 1, 47, 48, 49, 65536, MIB};

    private static RdsMessage message(Random r, int seq, int size) {
        byte[] p = new byte[size];
        r.nextBytes(p);
        byte[] ext = new byte[RdsHeader.EXT_SPACE];
        RdsHeader.addExtension(ext, 0, RdsHeader.EXTHDR_NPATHS, seq & 0xFFFF);
        int flags = r.nextInt(256);
        if (flags == RdsHeader.FLAG_CONG_BITMAP) flags = 0; // the right length only for real updates
        return new RdsMessage(0x8000_0000_0000_0000L + seq, r.nextLong(), r.nextInt(65536), r.nextInt(65536),
                flags, r.nextInt(256), ext, p, 0, size);
    }

    private static List<RdsMessage> messages(long seed, int[] sizes, int copies) {
        Random r = new Random(seed);
        List<RdsMessage> l = new ArrayList<>();
        for (int c = 0; c < copies; c++) for (int s : sizes) l.add(message(r, l.size(), s));
        return l;
    }

    private static byte[] stream(List<RdsMessage> ms) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (RdsMessage m : ms) o.writeBytes(RdsStreamWriter.encode(m));
        return o.toByteArray();
    }

    /** Feeds {@code s} in chunks given by {@code chunk} (called with the bytes left) and returns the output. */
    private static List<RdsMessage> feed(RdsStreamParser p, byte[] s, java.util.function.IntUnaryOperator chunk) {
        List<RdsMessage> out = new ArrayList<>();
        int off = 0;
        while (off < s.length) {
            int n = Math.min(chunk.applyAsInt(s.length - off), s.length - off);
            assertThat(p.feed(s, off, n, out::add)).isEqualTo(n);
            assertThat(p.bufferedBytes()).isLessThanOrEqualTo(p.maxLength() + RdsHeader.LENGTH);
            off += n;
        }
        return out;
    }

    private static void assertSame(List<RdsMessage> got, List<RdsMessage> sent) {
        assertThat(got).hasSameSizeAs(sent);
        for (int i = 0; i < sent.size(); i++) {
            RdsMessage g = got.get(i), s = sent.get(i);
            assertThat(g.sequence()).as("message %d", i).isEqualTo(s.sequence());
            assertThat(g.ack()).isEqualTo(s.ack());
            assertThat(g.sourcePort()).isEqualTo(s.sourcePort());
            assertThat(g.destinationPort()).isEqualTo(s.destinationPort());
            assertThat(g.flags()).isEqualTo(s.flags());
            assertThat(g.credit()).isEqualTo(s.credit());
            assertThat(g.extensions()).isEqualTo(s.extensions());
            assertThat(g.payloadOffset()).isZero();
            assertThat(g.payloadLength()).isEqualTo(s.payloadLength());
            assertThat(g.payload()).hasSize(s.payloadLength()).isEqualTo(s.payloadCopy());
        }
    }

    private static void assertCounters(RdsStreamParser p, List<RdsMessage> sent, long streamBytes) {
        assertThat(p.messages()).isEqualTo(sent.size());
        assertThat(p.bytes()).isEqualTo(streamBytes);
        assertThat(p.drops()).isZero();
        assertThat(p.partial()).isFalse();
        assertThat(p.failed()).isFalse();
        assertThat(p.bufferedBytes()).isZero();
    }

    @Test
    void writerLaysOutHeaderThenPayloadAsLinux() {
        byte[] payload = {9, 8, 7, 6, 5};
        byte[] ext = new byte[RdsHeader.EXT_SPACE];
        RdsHeader.addExtension(ext, 0, RdsHeader.EXTHDR_GEN_NUM, 0xA1B2C3D4L);
        RdsMessage m = new RdsMessage(0x0102030405060708L, 0x1112131415161718L, 0x3132, 0x4142,
                RdsHeader.FLAG_ACK_REQUIRED, 0x61, ext, new byte[] {0, 9, 8, 7, 6, 5, 0}, 1, 5);
        byte[] b = RdsStreamWriter.encode(m);
        assertThat(b).hasSize(RdsHeader.LENGTH + 5);
        assertThat(RdsHeader.sequence(b, 0)).isEqualTo(0x0102030405060708L);
        assertThat(RdsHeader.ack(b, 0)).isEqualTo(0x1112131415161718L);
        assertThat(RdsHeader.length(b, 0)).isEqualTo(5);
        assertThat(RdsHeader.sourcePort(b, 0)).isEqualTo(0x3132);
        assertThat(RdsHeader.destinationPort(b, 0)).isEqualTo(0x4142);
        assertThat(RdsHeader.flags(b, 0)).isEqualTo(RdsHeader.FLAG_ACK_REQUIRED);
        assertThat(RdsHeader.credit(b, 0)).isEqualTo(0x61);
        assertThat(RdsHeader.padding(b, 0)).isZero();
        assertThat(RdsHeader.checksum(b, 0)).isZero(); // rds_tcp_xmit never fills h_csum
        assertThat(RdsHeader.extensionValue(b, RdsHeader.OFF_EXTHDR, 0, RdsHeader.EXTHDR_GEN_NUM))
                .isEqualTo(0xA1B2C3D4L);
        assertThat(java.util.Arrays.copyOfRange(b, RdsHeader.LENGTH, b.length)).isEqualTo(payload);

        // the header piece alone, at an offset, for a write with MSG_MORE before the payload
        byte[] h = new byte[RdsHeader.LENGTH + 3];
        assertThat(RdsStreamWriter.writeHeader(m, h, 3)).isEqualTo(RdsHeader.LENGTH);
        assertThat(java.util.Arrays.copyOfRange(h, 3, h.length))
                .isEqualTo(java.util.Arrays.copyOf(b, RdsHeader.LENGTH));
        assertThatThrownBy(() -> RdsStreamWriter.writeHeader(m, new byte[RdsHeader.LENGTH], 1))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void wholeStreamRoundTrip() {
        List<RdsMessage> sent = messages(1, SIZES, 2);
        byte[] s = stream(sent);
        RdsStreamParser p = new RdsStreamParser();
        List<RdsMessage> got = feed(p, s, left -> left);
        assertSame(got, sent);
        assertCounters(p, sent, s.length);
    }

    @Test
    void oneByteAtATimeForSmallMessages() {
        List<RdsMessage> sent = messages(2, new int[] {0, 1, 47, 48, 49, 0, 0, 300}, 3);
        byte[] s = stream(sent);
        RdsStreamParser p = new RdsStreamParser();
        List<RdsMessage> got = feed(p, s, left -> 1);
        assertSame(got, sent);
        assertCounters(p, sent, s.length);
    }

    @Test
    void everySplitPointOfTwoMessages() {
        List<RdsMessage> sent = messages(3, new int[] {49, 47}, 1);
        byte[] s = stream(sent);
        for (int cut = 0; cut <= s.length; cut++) {
            for (int cut2 = cut; cut2 <= s.length; cut2 += 7) {
                RdsStreamParser p = new RdsStreamParser();
                List<RdsMessage> got = new ArrayList<>();
                p.feed(s, 0, cut, got::add);
                p.feed(s, cut, cut2 - cut, got::add);
                p.feed(s, cut2, s.length - cut2, got::add);
                assertSame(got, sent);
            }
        }
    }

    @Test
    void randomChunksWithFixedSeeds() {
        List<RdsMessage> sent = messages(4, SIZES, 3);
        byte[] s = stream(sent);
        for (int seed = 0; seed < 8; seed++) {
            Random r = new Random(seed);
            int bound = new int[] {3, 64, 1460, 65536, 300_000, 2 * MIB, 49, 1 << 14}[seed];
            RdsStreamParser p = new RdsStreamParser();
            List<RdsMessage> got = feed(p, s, left -> 1 + r.nextInt(bound));
            assertSame(got, sent);
            assertCounters(p, sent, s.length);
        }
    }

    @Test
    void zeroLengthFeedsChangeNothing() {
        RdsStreamParser p = new RdsStreamParser();
        List<RdsMessage> got = new ArrayList<>();
        assertThat(p.feed(new byte[0], 0, 0, got::add)).isZero();
        byte[] s = stream(messages(5, new int[] {10}, 1));
        p.feed(s, 0, 20, got::add);
        assertThat(p.feed(s, 20, 0, got::add)).isZero();
        p.feed(s, 20, s.length - 20, got::add);
        assertThat(got).hasSize(1);
    }

    @Test
    void congestionUpdateIsRecognisedByExactFlags() {
        byte[] map = new byte[RdsHeader.CONG_MAP_BYTES];
        map[16385 / 8] = (byte) (1 << (16385 % 8));
        RdsMessage cong = new RdsMessage(0, 0, 0, RdsHeader.FLAG_CONG_BITMAP, map);
        // the CONG_BITMAP bit with another one: an ordinary message, any length
        RdsMessage notCong = new RdsMessage(7, 0, 0, RdsHeader.FLAG_CONG_BITMAP | RdsHeader.FLAG_ACK_REQUIRED,
                new byte[] {1, 2, 3});
        List<RdsMessage> sent = List.of(cong, notCong, cong);
        byte[] s = stream(sent);
        RdsStreamParser p = new RdsStreamParser();
        List<RdsMessage> got = feed(p, s, left -> 1000);
        assertSame(got, sent);
        assertThat(got).extracting(RdsMessage::isCongestionUpdate).containsExactly(true, false, true);
        assertThat(got.get(0).payload()[16385 / 8]).isEqualTo((byte) 2);
    }

    @Test
    void congestionUpdateOfTheWrongLengthIsSkippedAndCountedAsLinuxIgnoresIt() {
        // rds_tcp_cong_recv returns without using a map whose h_len is not RDS_CONG_MAP_BYTES; the stream goes on
        RdsMessage bad = new RdsMessage(0, 0, 0, RdsHeader.FLAG_CONG_BITMAP, new byte[100]);
        RdsMessage empty = new RdsMessage(0, 0, 0, RdsHeader.FLAG_CONG_BITMAP, new byte[0]);
        RdsMessage after = new RdsMessage(9, 5, 6, 0, new byte[] {42});
        byte[] s = stream(List.of(bad, empty, after));
        RdsStreamParser p = new RdsStreamParser();
        List<RdsMessage> got = feed(p, s, left -> 13);
        assertSame(got, List.of(after));
        assertThat(p.drops()).isEqualTo(2);
        assertThat(p.messages()).isEqualTo(1);
        assertThat(p.bytes()).isEqualTo(s.length);
        assertThat(p.bufferedBytes()).isZero(); // the skipped payload was never held
    }

    @Test
    void oversizedLengthFailsTheParserWithTheReasonAndNothingAfterIsEmitted() {
        RdsStreamParser p = new RdsStreamParser(1000, false);
        RdsMessage ok = new RdsMessage(1, 2, 3, 0, new byte[1000]);
        byte[] s1 = stream(List.of(ok));
        byte[] big = new byte[RdsHeader.LENGTH];
        RdsHeader.write(big, 0, 2, 0, 1001, 2, 3, 0, 0);
        byte[] s2 = stream(List.of(ok, ok));
        byte[] s = new byte[s1.length + big.length + s2.length];
        System.arraycopy(s1, 0, s, 0, s1.length);
        System.arraycopy(big, 0, s, s1.length, big.length);
        System.arraycopy(s2, 0, s, s1.length + big.length, s2.length);

        List<RdsMessage> got = new ArrayList<>();
        assertThat(p.feed(s, 0, s.length, got::add)).isEqualTo(-1);
        assertThat(got).hasSize(1);
        assertThat(p.failed()).isTrue();
        assertThat(p.failure()).isEqualTo(RdsHeader.ERR_LENGTH);
        assertThat(p.failureReason()).contains("1001").contains("1000");
        assertThat(p.drops()).isEqualTo(1);
        assertThat(p.messages()).isEqualTo(1);
        assertThat(p.bytes()).isEqualTo(s1.length + RdsHeader.LENGTH); // nothing read past the bad header
        assertThat(p.bufferedBytes()).isZero(); // the 1001 bytes were never allocated

        // refused from now on: nothing consumed, nothing emitted, counters still
        assertThat(p.feed(s2, 0, s2.length, got::add)).isEqualTo(-1);
        assertThat(p.feed(s2, 0, 0, got::add)).isEqualTo(-1);
        assertThat(got).hasSize(1);
        assertThat(p.bytes()).isEqualTo(s1.length + RdsHeader.LENGTH);

        // a reset (new connection) starts clean, counters kept
        p.reset();
        assertThat(p.failed()).isFalse();
        assertThat(p.failure()).isEqualTo(RdsHeader.OK);
        assertThat(p.feed(s2, 0, s2.length, got::add)).isEqualTo(s2.length);
        assertThat(got).hasSize(3);
        assertThat(p.messages()).isEqualTo(3);
    }

    @Test
    void maximumLengthIsInclusiveAndTheDefaultIsOneMebibyte() {
        RdsStreamParser p = new RdsStreamParser();
        assertThat(p.maxLength()).isEqualTo(RdsHeader.MAX_MSG_SIZE).isEqualTo(MIB);
        byte[] h = new byte[RdsHeader.LENGTH];
        RdsHeader.write(h, 0, 0, 0, MIB, 0, 0, 0, 0);
        assertThat(p.feed(h, 0, h.length, m -> {})).isEqualTo(h.length);
        assertThat(p.partial()).isTrue();
        assertThat(p.bufferedBytes()).as("the payload array grows with what comes").isEqualTo(RdsStreamParser.INITIAL_PAYLOAD);
        RdsHeader.write(h, 0, 0, 0, MIB + 1L, 0, 0, 0, 0);
        RdsStreamParser q = new RdsStreamParser();
        assertThat(q.feed(h, 0, h.length, m -> {})).isEqualTo(-1);
        assertThat(q.failure()).isEqualTo(RdsHeader.ERR_LENGTH);
        // h_len with the top bit set: not taken as negative
        RdsHeader.write(h, 0, 0, 0, 0xFFFF_FFFFL, 0, 0, 0, 0);
        RdsStreamParser z = new RdsStreamParser(Integer.MAX_VALUE - 8, false);
        assertThat(z.feed(h, 0, h.length, m -> {})).isEqualTo(-1);
        assertThat(z.failure()).isEqualTo(RdsHeader.ERR_LENGTH);
        assertThatThrownBy(() -> new RdsStreamParser(-1, false)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void checksumIsCheckedOnlyWhenAsked() {
        RdsMessage m = new RdsMessage(1, 2, 3, 0, new byte[] {1});
        byte[] s = stream(List.of(m));
        RdsHeader.fillChecksum(s, 0);
        List<RdsMessage> got = new ArrayList<>();
        RdsStreamParser checking = new RdsStreamParser(MIB, true);
        assertThat(checking.feed(s, 0, s.length, got::add)).isEqualTo(s.length);
        s[RdsHeader.OFF_CSUM] ^= 1;
        assertThat(new RdsStreamParser().feed(s, 0, s.length, got::add)).isEqualTo(s.length); // as Linux's TCP
        assertThat(checking.feed(s, 0, s.length, got::add)).isEqualTo(-1);
        assertThat(checking.failure()).isEqualTo(RdsHeader.ERR_CHECKSUM);
        assertThat(got).hasSize(2);
    }

    @Test
    void truncatedStreamLeavesPartialStateAndEmitsNothing() {
        List<RdsMessage> sent = messages(6, new int[] {100}, 1);
        byte[] s = stream(sent);
        for (int cut : new int[] {1, 47, 48, 49, s.length - 1}) {
            RdsStreamParser p = new RdsStreamParser();
            List<RdsMessage> got = new ArrayList<>();
            assertThat(p.feed(s, 0, cut, got::add)).isEqualTo(cut);
            assertThat(got).as("cut at %d", cut).isEmpty();
            assertThat(p.partial()).isTrue();
            assertThat(p.failed()).isFalse();
            assertThat(p.messages()).isZero();
            assertThat(p.bytes()).isEqualTo(cut);
            // the rest completes it
            p.feed(s, cut, s.length - cut, got::add);
            assertSame(got, sent);
            assertThat(p.partial()).isFalse();
        }
        // a reset drops the partial message
        RdsStreamParser p = new RdsStreamParser();
        List<RdsMessage> got = new ArrayList<>();
        p.feed(s, 0, 60, got::add);
        p.reset();
        assertThat(p.partial()).isFalse();
        assertThat(p.bufferedBytes()).isZero();
        p.feed(s, 0, s.length, got::add);
        assertSame(got, sent);
    }

    @Test
    void aThrowingConsumerLeavesTheParserReadyForTheNextMessage() {
        List<RdsMessage> sent = messages(7, new int[] {5, 6}, 1);
        byte[] s = stream(sent);
        int first = RdsHeader.LENGTH + 5;
        RdsStreamParser p = new RdsStreamParser();
        assertThatThrownBy(() -> p.feed(s, 0, first, m -> { throw new IllegalStateException("consumer"); }))
                .hasMessage("consumer");
        assertThat(p.partial()).isFalse();
        List<RdsMessage> got = new ArrayList<>();
        p.feed(s, first, s.length - first, got::add);
        assertSame(got, sent.subList(1, 2));
    }

    @Test
    void badArgumentsThrowAndBadSlicesAreRefusedBeforeAnyChange() {
        RdsStreamParser p = new RdsStreamParser();
        assertThatThrownBy(() -> p.feed(new byte[4], 2, 3, m -> {})).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> p.feed(new byte[4], -1, 1, m -> {})).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(p.bytes()).isZero();
        assertThatThrownBy(() -> new RdsMessage(0, 0, 65536, 0, 0, 0, null, new byte[0], 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RdsMessage(0, 0, 0, 0, 256, 0, null, new byte[0], 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RdsMessage(0, 0, 0, 0, 0, 0, new byte[15], new byte[0], 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RdsMessage(0, 0, 0, 0, 0, 0, null, new byte[3], 2, 2))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    /** A peer that announces h_len 1 MiB and sends little makes the parser hold about what came, not h_len. */
    @Test
    void partialPayloadHoldsWhatCameNotTheAnnouncedLength() {
        byte[] payload = new byte[MIB];
        new java.util.Random(3).nextBytes(payload);
        byte[] stream = RdsStreamWriter.encode(new RdsMessage(9, 1000, 2000, 0, payload));
        RdsStreamParser p = new RdsStreamParser();
        List<RdsMessage> got = new ArrayList<>();
        int off = 0;
        for (int chunk : new int[] {RdsHeader.LENGTH, 1, 70_000, 200_000, 1000, 500_000}) {
            assertThat(p.feed(stream, off, chunk, got::add)).isEqualTo(chunk);
            off += chunk;
            int came = off - RdsHeader.LENGTH;
            assertThat(p.bufferedBytes()).as("after %d payload bytes", came)
                    .isLessThanOrEqualTo(Math.max(RdsStreamParser.INITIAL_PAYLOAD, 4 * came));
            assertThat(got).isEmpty();
        }
        // the rest straight into the array, as the TCP receive path reads it
        while (p.directRemaining() > 0) {
            int n = Math.min(p.directRemaining(), 30_000);
            System.arraycopy(stream, off, p.directArray(), p.directOffset(), n);
            p.directFilled(n, got::add);
            off += n;
        }
        assertThat(off).isEqualTo(stream.length);
        assertThat(got).hasSize(1);
        assertThat(got.getFirst().payload()).hasSize(MIB).isEqualTo(payload);
        assertThat(p.bufferedBytes()).isZero();
    }

    /**
     * What the parser allocates per message once warm: the payload array and the RdsMessage, nothing for an
     * extension space of zeros (it used to copy it twice).
     */
    @Test
    void perMessageAllocationIsThePayloadAndTheMessage() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        if (!(mx instanceof com.sun.management.ThreadMXBean tmx) || !tmx.isThreadAllocatedMemorySupported()) {
            System.out.println("skipped: no per-thread allocation counter in this JVM");
            return;
        }
        int per = 1000;
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        for (int i = 0; i < per; i++) bo.writeBytes(RdsStreamWriter.encode(new RdsMessage(i + 1, 1000, 2000, 0, new byte[100])));
        byte[] stream = bo.toByteArray();
        RdsStreamParser p = new RdsStreamParser();
        long[] seen = new long[1];
        java.util.function.Consumer<RdsMessage> sink = m -> seen[0] += m.payloadLength();
        for (int i = 0; i < 200; i++) p.feed(stream, 0, stream.length, sink); // warm
        long tid = Thread.currentThread().threadId();
        int rounds = 100;
        long before = tmx.getThreadAllocatedBytes(tid);
        for (int i = 0; i < rounds; i++) p.feed(stream, 0, stream.length, sink);
        long perMessage = (tmx.getThreadAllocatedBytes(tid) - before) / ((long) rounds * per);
        System.out.println("allocated per message: " + perMessage + " bytes");
        // byte[100] is 116-120 bytes, the RdsMessage about 64; two 16-byte extension arrays would add 64 more
        assertThat(perMessage).as("bytes allocated per message").isLessThanOrEqualTo(120 + 80);
        assertThat(seen[0]).isPositive();
    }
}
