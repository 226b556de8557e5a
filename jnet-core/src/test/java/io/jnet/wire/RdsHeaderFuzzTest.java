package io.jnet.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Runs RdsHeader's validate, decode/encode, checksum and extension iteration and addition over random bytes and
 * over mutated well-formed headers (bit flips, byte sets, truncation, h_len and h_flags edits, extension-space
 * garbage made of known, unknown and out-of-range types). The only allowed outcomes are an error code or a
 * result; nothing may throw, an iteration ends within 16 steps and never reports a payload past the extension
 * space, and an addition writes only inside it. Fixed seeds: a failure names the case number. The layout under
 * test is struct rds_header of Linux's net/rds/rds.h (48 bytes, h_exthdr at 32); see RdsHeaderTest.
 */
class RdsHeaderFuzzTest {
    private static final long SEED = 0x7264735F_77697265L;
    /** Guard bytes around the header, to catch a read or write outside it. */
    private static final int GUARD = 8;

    @Test
    void randomAndMutatedHeadersNeverBreakTheParser() {
        run(200_000, SEED);
    }

    @Test
    @Tag("long")
    void tenMillionCases() {
        run(10_000_000, SEED + 1);
    }

    private static void run(int cases, long seed) {
        Random r = new Random(seed);
        RdsHeader h = new RdsHeader();
        RdsHeader again = new RdsHeader();
        long ok = 0, truncated = 0, tooLong = 0, cong = 0, withExtensions = 0, added = 0;
        for (int i = 0; i < cases; i++) {
            byte[] m = r.nextInt(4) == 0 ? randomBytes(r) : mutate(wellFormed(r), r);
            try {
                int len = m.length - 2 * GUARD;
                long max = new long[] {0, 1, RdsHeader.CONG_MAP_BYTES, RdsHeader.MAX_MSG_SIZE, 0xFFFFFFFFL,
                    Long.MAX_VALUE, r.nextInt(1 << 21)}[r.nextInt(7)];
                int code = RdsHeader.validate(m, GUARD, len, max);
                int decoded = h.decode(m, GUARD, len, max);
                assertThat(decoded).isEqualTo(code);
                switch (code) {
                    case RdsHeader.OK -> ok++;
                    case RdsHeader.ERR_TRUNCATED -> { truncated++; continue; }
                    case RdsHeader.ERR_LENGTH -> tooLong++;
                    case RdsHeader.ERR_CONG_MAP_LENGTH -> cong++;
                    default -> fail("unexpected code " + code);
                }
                assertThat(len).isGreaterThanOrEqualTo(RdsHeader.LENGTH);
                // decode then encode gives the bytes back
                byte[] out = new byte[RdsHeader.LENGTH];
                h.encode(out, 0);
                assertThat(out).isEqualTo(Arrays.copyOfRange(m, GUARD, GUARD + RdsHeader.LENGTH));
                assertThat(again.decode(out, 0, out.length, Long.MAX_VALUE)).isIn(RdsHeader.OK,
                        RdsHeader.ERR_CONG_MAP_LENGTH);
                byte[] twice = new byte[RdsHeader.LENGTH];
                again.encode(twice, 0);
                assertThat(twice).isEqualTo(out);
                // the checksum never throws and a filled one verifies
                int withCheck = RdsHeader.validate(m, GUARD, len, max, true);
                assertThat(withCheck).isIn(code, RdsHeader.ERR_CHECKSUM);
                if (withCheck == RdsHeader.ERR_CHECKSUM) assertThat(code).isEqualTo(RdsHeader.OK);
                RdsHeader.fillChecksum(out, 0);
                assertThat(RdsHeader.verifyChecksum(out, 0)).isTrue();
                // iteration, over the array and over the holder
                int ext = GUARD + RdsHeader.OFF_EXTHDR;
                int steps = walk(m, ext);
                assertThat(walk(h.extensions, 0)).isEqualTo(steps);
                if (steps > 0) withExtensions++;
                for (int t = 0; t < 20; t++) h.findExtension(t);
                // addition writes inside the space only
                byte[] before = m.clone();
                int type = r.nextBoolean() ? new int[] {1, 2, 3, 4, 5, 6, 8}[r.nextInt(7)] : r.nextInt(256) - 8;
                if (RdsHeader.addExtension(m, ext, type, r.nextLong())) {
                    added++;
                    assertThat(RdsHeader.findExtension(m, ext, type)).isNotNegative();
                }
                for (int k = 0; k < m.length; k++) {
                    if ((k < ext || k >= ext + RdsHeader.EXT_SPACE) && m[k] != before[k]) fail("wrote byte " + k);
                }
                walk(m, ext);
            } catch (Throwable e) {
                fail("case " + i + " (seed " + seed + ") threw " + e + "\nbytes " + HexFormat.of().formatHex(m), e);
            }
        }
        System.out.printf("%d RDS headers: %d ok, %d truncated, %d over max, %d bad cong length, %d with extensions,"
                + " %d additions%n", cases, ok, truncated, tooLong, cong, withExtensions, added);
        // every outcome must be reached, or some path went untested
        assertThat(ok).isGreaterThan(cases / 10);
        assertThat(truncated).isGreaterThan(cases / 50);
        assertThat(tooLong).isGreaterThan(cases / 50);
        assertThat(cong).isPositive();
        assertThat(withExtensions).isGreaterThan(cases / 10);
        assertThat(added).isGreaterThan(cases / 20);
    }

    /** Iterates the 16-byte space at {@code ext}; returns the number of extensions, checking the bounds. */
    private static int walk(byte[] b, int ext) {
        int n = 0;
        int pos = 0;
        for (int t; (t = RdsHeader.extensionAt(b, ext, pos)) != RdsHeader.EXTHDR_NONE; ) {
            int next = RdsHeader.nextExtension(pos, t);
            if (t < 1 || t >= RdsHeader.EXTHDR_MAX || next <= pos || next > RdsHeader.EXT_SPACE) {
                fail("type " + t + " at " + pos + ", next " + next);
            }
            RdsHeader.extensionValue(b, ext, pos, t);
            pos = next;
            if (++n > RdsHeader.EXT_SPACE) fail("more than 16 extensions");
        }
        return n;
    }

    private static byte[] randomBytes(Random r) {
        byte[] m = new byte[2 * GUARD + r.nextInt(RdsHeader.LENGTH + 16)];
        r.nextBytes(m);
        return m;
    }

    /** A header as Linux would send it, with some extensions, between guard bytes. */
    private static byte[] wellFormed(Random r) {
        byte[] m = new byte[2 * GUARD + RdsHeader.LENGTH + r.nextInt(16)];
        r.nextBytes(m);
        boolean congUpdate = r.nextInt(8) == 0;
        RdsHeader.write(m, GUARD, r.nextLong(), r.nextLong(),
                congUpdate ? RdsHeader.CONG_MAP_BYTES : r.nextInt(RdsHeader.MAX_MSG_SIZE + 1),
                congUpdate ? 0 : r.nextInt(0x10000), congUpdate ? 0 : r.nextInt(0x10000),
                congUpdate ? RdsHeader.FLAG_CONG_BITMAP : r.nextInt(8) & ~RdsHeader.FLAG_CONG_BITMAP, r.nextInt(256));
        int ext = GUARD + RdsHeader.OFF_EXTHDR;
        for (int k = r.nextInt(5); k > 0; k--) {
            RdsHeader.addExtension(m, ext, new int[] {1, 2, 3, 4, 5, 6, 8}[r.nextInt(7)], r.nextLong());
        }
        if (r.nextBoolean()) RdsHeader.fillChecksum(m, GUARD);
        return m;
    }

    private static byte[] mutate(byte[] m, Random r) {
        int ops = r.nextInt(4);
        for (int k = 0; k < ops; k++) {
            switch (r.nextInt(7)) {
                case 0 -> m[r.nextInt(m.length)] ^= (byte) (1 << r.nextInt(8));
                case 1 -> m[r.nextInt(m.length)] = (byte) new int[] {0, 1, 7, 8, 15, 16, 0x7F, 0x80, 0xFF}[r.nextInt(9)];
                case 2 -> { // truncate around the header's end
                    int keep = GUARD + Math.max(0, RdsHeader.LENGTH + r.nextInt(9) - 6);
                    m = Arrays.copyOf(m, Math.min(m.length, keep + GUARD));
                }
                case 3 -> Bytes.put32(m, GUARD + RdsHeader.OFF_LEN, new int[] {0, 1, RdsHeader.CONG_MAP_BYTES,
                    RdsHeader.MAX_MSG_SIZE, RdsHeader.MAX_MSG_SIZE + 1, -1, r.nextInt()}[r.nextInt(7)]);
                case 4 -> m[GUARD + RdsHeader.OFF_FLAGS] = (byte) new int[] {0, 1, 2, 3, 4, 0x20, 0xFF}[r.nextInt(7)];
                case 5 -> { // extension-space garbage: known, size-less and out-of-range types
                    int[] types = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 0x80, 0xFF};
                    for (int i = GUARD + RdsHeader.OFF_EXTHDR; i < GUARD + RdsHeader.LENGTH; i++) {
                        m[i] = (byte) (r.nextInt(3) == 0 ? types[r.nextInt(types.length)] : r.nextInt(256));
                    }
                }
                default -> { // the extension space full of one type
                    Arrays.fill(m, GUARD + RdsHeader.OFF_EXTHDR, GUARD + RdsHeader.LENGTH,
                            (byte) new int[] {7, 8, 5, 16, 0xFF}[r.nextInt(5)]);
                }
            }
        }
        return m;
    }
}
