package io.jnet.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ChecksumTest {

    /** Straightforward RFC 1071 reference: 16-bit words, odd byte padded with zero, end-around carry. */
    private static int reference(byte[] b, int off, int len) {
        int s = 0;
        for (int i = 0; i < len; i += 2) {
            int w = (b[off + i] & 0xFF) << 8;
            if (i + 1 < len) w |= b[off + i + 1] & 0xFF;
            s += w;
            s = (s & 0xFFFF) + (s >>> 16);
        }
        return ~s & 0xFFFF;
    }

    @Test
    void rfc1071NumericalExample() {
        // RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sums to 2ddf0, folds to ddf2
        byte[] b = HexFormat.of().parseHex("0001f203f4f5f6f7");
        // the unfolded sum may carry in wider words (deferred carries, RFC 1071 2.(C)); it is congruent mod 0xFFFF
        assertThat(Checksum.sum(b, 0, 8, 0) % 0xFFFF).isEqualTo(0x2ddf0L % 0xFFFF);
        assertThat(Checksum.fold(Checksum.sum(b, 0, 8, 0))).isEqualTo(~0xddf2 & 0xFFFF);
        assertThat(Checksum.compute(b, 0, 8)).isEqualTo(0x220d);
        // byte order independence (RFC 1071 1.2.B): the swapped input gives the swapped sum
        byte[] swapped = HexFormat.of().parseHex("010003f2f5f4f7f6");
        assertThat(Checksum.compute(swapped, 0, 8)).isEqualTo(0x0d22);
    }

    @Test
    void emptyAndAllZeroRanges() {
        assertThat(Checksum.compute(new byte[0], 0, 0)).isEqualTo(0xFFFF);
        assertThat(Checksum.compute(new byte[7], 0, 7)).isEqualTo(0xFFFF);
        assertThat(Checksum.verify(new byte[8], 0, 8, 0)).as("all zero never verifies").isFalse();
    }

    @Test
    void matchesReferenceForOddLengthsAndOffsets() {
        Random r = new Random(1071);
        byte[] b = new byte[256];
        for (int i = 0; i < 20_000; i++) {
            r.nextBytes(b);
            int off = r.nextInt(64);
            int len = r.nextInt(b.length - off + 1);
            assertThat(Checksum.compute(b, off, len)).as("off %d len %d", off, len).isEqualTo(reference(b, off, len));
        }
        byte[] odd = {(byte) 0xAB};
        assertThat(Checksum.sum(odd, 0, 1, 0)).isEqualTo(0xAB00L);
    }

    @Test
    void chainedSumsEqualOneSumWhenSplitAtEvenOffsets() {
        Random r = new Random(42);
        byte[] b = new byte[1500];
        for (int i = 0; i < 5_000; i++) {
            r.nextBytes(b);
            int len = r.nextInt(b.length + 1);
            int split = r.nextInt(len / 2 + 1) * 2;
            long chained = Checksum.sum(b, split, len - split, Checksum.sum(b, 0, split, 0));
            assertThat(Checksum.fold(chained)).isEqualTo(Checksum.compute(b, 0, len));
            // and with a pseudo-header style initial value
            long init = r.nextInt(1 << 20);
            assertThat(Checksum.fold(Checksum.sum(b, 0, len, init)))
                    .isEqualTo(Checksum.fold(Checksum.sum(b, split, len - split, Checksum.sum(b, 0, split, init))));
        }
    }

    @Test
    void verifyAcceptsARangeCarryingItsChecksum() {
        Random r = new Random(7);
        byte[] b = new byte[64];
        for (int i = 0; i < 2_000; i++) {
            r.nextBytes(b);
            b[10] = 0;
            b[11] = 0;
            Bytes.put16(b, 10, Checksum.compute(b, 0, 20));
            assertThat(Checksum.verify(b, 0, 20, 0)).isTrue();
            b[r.nextInt(20)] ^= (byte) (1 << r.nextInt(8));
            assertThat(Checksum.verify(b, 0, 20, 0)).as("single bit error detected").isFalse();
        }
    }

    @Test
    void rfc1624Example() {
        // RFC 1624 section 4: HC 0xDD2F, m 0x5555 -> m' 0x3285; eqn. 3 gives 0x0000 (eqn. 2 gives 0xFFFF)
        assertThat(Checksum.update16(0xDD2F, 0x5555, 0x3285)).isEqualTo(0x0000);
    }

    @Test
    void incrementalUpdateEqualsRecomputationOverRandomHeaders() {
        Random r = new Random(1624);
        byte[] h = new byte[60];
        for (int i = 0; i < 100_000; i++) {
            int hl = 20 + 4 * r.nextInt(11);
            r.nextBytes(h);
            h[0] = (byte) (0x40 | hl / 4);
            Ipv4.updateChecksum(h, 0);
            int hc = Ipv4.checksum(h, 0);
            // a 16-bit word other than version/IHL/TOS and the checksum itself
            int word = 2 + 2 * r.nextInt(hl / 2 - 1);
            if (word == 10) word = 8;
            int old16 = Bytes.u16(h, word);
            int new16 = r.nextInt(8) == 0 ? (r.nextBoolean() ? 0 : 0xFFFF) : r.nextInt(0x10000);
            Bytes.put16(h, word, new16);
            int updated = Checksum.update16(hc, old16, new16);
            Ipv4.updateChecksum(h, 0);
            assertThat(updated).as("word %d %04x -> %04x", word, old16, new16).isEqualTo(Ipv4.checksum(h, 0));
            // a 32-bit address, as NAT rewrites it
            hc = Ipv4.checksum(h, 0);
            int oldAddr = Ipv4.source(h, 0);
            int newAddr = r.nextInt();
            Ipv4.setSource(h, 0, newAddr);
            updated = Checksum.update32(hc, oldAddr, newAddr);
            Ipv4.updateChecksum(h, 0);
            assertThat(updated).isEqualTo(Ipv4.checksum(h, 0));
            assertThat(Checksum.verify(h, 0, hl, 0)).isTrue();
        }
    }

    @Test
    void incrementalUpdateOfTransportChecksumKeepsItVerifying() {
        // NAT of a TCP segment: the address is in the pseudo-header only
        Random r = new Random(99);
        byte[] seg = new byte[60];
        for (int i = 0; i < 10_000; i++) {
            r.nextBytes(seg);
            int src = r.nextInt(), dst = r.nextInt();
            Tcp.fillChecksum(seg, 0, seg.length, src, dst);
            int newSrc = r.nextInt();
            Tcp.setChecksum(seg, 0, Checksum.update32(Tcp.checksum(seg, 0), src, newSrc));
            assertThat(Tcp.validate(seg, 0, seg.length, true, newSrc, dst)).isIn(Tcp.OK, Tcp.ERR_DATA_OFFSET);
            assertThat(Checksum.verify(seg, 0, seg.length, Checksum.pseudoHeaderSum(newSrc, dst, Ipv4.PROTO_TCP, seg.length)))
                    .isTrue();
        }
    }

    @Test
    void udpChecksumComputingToZeroIsSentAsAllOnes() {
        int src = Ipv4.parseAddress("192.0.2.1"), dst = Ipv4.parseAddress("192.0.2.2");
        byte[] d = new byte[10];
        Udp.write(d, 0, 1234, 5678, 10, src, dst);
        int c = Udp.checksum(d, 0);
        // a payload word equal to that checksum brings the one's complement sum to 0xFFFF: checksum 0
        Bytes.put16(d, 8, c);
        long sum = Checksum.sum(d, 0, 6, Checksum.pseudoHeaderSum(src, dst, Ipv4.PROTO_UDP, 10)) + Bytes.u16(d, 8);
        assertThat(Checksum.fold(sum)).isZero();
        Udp.write(d, 0, 1234, 5678, 10, src, dst);
        assertThat(Udp.checksum(d, 0)).isEqualTo(0xFFFF);
        assertThat(Udp.verify(d, 0, 10, src, dst)).isTrue();
        assertThat(Udp.validate(d, 0, 10, true, src, dst)).isEqualTo(Udp.OK);
        // the record's policy gives the same
        new UdpRepr(1234, 5678, 10, true).emit(d, 0, src, dst);
        assertThat(Udp.checksum(d, 0)).isEqualTo(0xFFFF);
        // and a zero field means "not computed": accepted whatever the data
        new UdpRepr(1234, 5678, 10, false).emit(d, 0, src, dst);
        assertThat(Udp.checksum(d, 0)).isZero();
        d[9] ^= 1;
        assertThat(Udp.validate(d, 0, 10, true, src, dst)).isEqualTo(Udp.OK);
    }

    @Test
    void decrementingTheTtlUpdatesTheHeaderChecksumAsARecomputationWould() {
        Random rnd = new Random(1624);
        byte[] b = new byte[2 + 60];
        int off = 2;
        int checked = 0;
        for (int round = 0; round < 20_000; round++) {
            int words = 5 + (round % 3 == 0 ? rnd.nextInt(11) : 0); // with options now and then
            rnd.nextBytes(b);
            b[off] = (byte) (0x40 | words);
            if (round % 5 == 0) { // headers whose checksum lands on the edges (0x0000, 0xFF00 .. 0xFFFF)
                b[off + 4] = 0;
                b[off + 5] = 0;
                Ipv4.updateChecksum(b, off);
                int c = Ipv4.checksum(b, off);
                int want = round % 10 == 0 ? 0x0000 : 0xFF00 + rnd.nextInt(0x100);
                int adj = (~want & 0xFFFF) - (~c & 0xFFFF); // move the sum by adjusting the identification field
                Bytes.put16(b, off + 4, adj < 0 ? adj - 1 : adj); // one's complement: -x is x - 1 in 16 bits
            }
            int ttl = 1 + rnd.nextInt(255);
            Ipv4.setTtl(b, off, ttl);
            Ipv4.updateChecksum(b, off);
            byte[] expected = b.clone();
            Ipv4.setTtl(expected, off, ttl - 1);
            Ipv4.updateChecksum(expected, off);
            assertThat(Ipv4.decrementTtl(b, off)).isEqualTo(ttl - 1);
            assertThat(Ipv4.checksum(b, off)).as("ttl %d, header %s", ttl, HexFormat.of().formatHex(b, off, off + 4 * words))
                    .isEqualTo(Ipv4.checksum(expected, off));
            assertThat(b).isEqualTo(expected);
            checked++;
        }
        assertThat(checked).isEqualTo(20_000);
    }
}
