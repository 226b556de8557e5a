package io.jnet.rds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.jnet.wire.RdsHeader;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Feeds RdsStreamParser random byte streams and mutated well-formed ones (bit flips, byte sets, h_len and h_flags
 * edits, truncation, inserted and deleted bytes) in random chunks, and checks it against a plain reference
 * reading of the whole stream after rds_tcp_data_recv (net/rds/tcp_recv.c): the same messages in the same order,
 * the same failure, drops, bytes consumed and partial state. Nothing may throw, and the parser never holds more
 * than the maximum message plus one header. Fixed seeds: a failure names the seed and case number.
 */
class RdsStreamParserFuzzTest {
    private static final long SEED = 0x7264735F_73747265L;

    @Test
    void randomAndMutatedStreams() {
        run(6_000, SEED);
    }

    @Test
    @Tag("long")
    void manyMoreStreams() {
        run(1_000_000, SEED + 1);
    }

    /** What the reference reading expects. */
    private record Expected(List<byte[]> messages, int failure, long drops, long bytes, boolean partial) {}

    /** The whole stream at once, message by message, with RdsHeader.validate; no state machine. */
    private static Expected reference(byte[] s, int max, boolean checksum) {
        List<byte[]> out = new ArrayList<>();
        int pos = 0;
        long drops = 0;
        while (s.length - pos >= RdsHeader.LENGTH) {
            int code = RdsHeader.validate(s, pos, s.length - pos, max, checksum);
            if (code == RdsHeader.ERR_LENGTH || code == RdsHeader.ERR_CHECKSUM) {
                return new Expected(out, code, drops + 1, pos + RdsHeader.LENGTH, false);
            }
            long len = RdsHeader.length(s, pos);
            if (code != RdsHeader.OK) { // counted once its header is in, whether its payload comes or not
                assertThat(code).isEqualTo(RdsHeader.ERR_CONG_MAP_LENGTH);
                drops++;
            }
            if (pos + RdsHeader.LENGTH + len > s.length) break;
            if (code == RdsHeader.OK) out.add(Arrays.copyOfRange(s, pos, pos + RdsHeader.LENGTH + (int) len));
            pos += RdsHeader.LENGTH + (int) len;
        }
        return new Expected(out, RdsHeader.OK, drops, s.length, pos != s.length);
    }

    private static void run(int cases, long seed) {
        Random r = new Random(seed);
        long emitted = 0, failed = 0, partial = 0, dropped = 0;
        for (int i = 0; i < cases; i++) {
            byte[] s = r.nextInt(5) == 0 ? randomBytes(r) : mutate(wellFormed(r), r);
            int max = new int[] {0, 48, RdsHeader.CONG_MAP_BYTES, 20_000, RdsHeader.MAX_MSG_SIZE}[r.nextInt(5)];
            boolean checksum = r.nextInt(8) == 0;
            try {
                Expected e = reference(s, max, checksum);
                RdsStreamParser p = new RdsStreamParser(max, checksum);
                List<RdsMessage> got = new ArrayList<>();
                int off = 0;
                int mode = r.nextInt(4);
                while (off < s.length) {
                    int n = switch (mode) {
                        case 0 -> s.length - off;
                        case 1 -> 1;
                        case 2 -> 1 + r.nextInt(64);
                        default -> r.nextInt(4096); // zero-length feeds too
                    };
                    n = Math.min(n, s.length - off);
                    int ret = p.feed(s, off, n, got::add);
                    assertThat(p.bufferedBytes()).isLessThanOrEqualTo(max + RdsHeader.LENGTH);
                    if (ret == -1) {
                        assertThat(p.failed()).isTrue();
                        assertThat(p.feed(s, off, s.length - off, got::add)).isEqualTo(-1);
                        break;
                    }
                    assertThat(ret).isEqualTo(n);
                    off += n;
                }
                assertThat(p.failure()).isEqualTo(e.failure());
                assertThat(p.failed()).isEqualTo(e.failure() != RdsHeader.OK);
                assertThat(p.drops()).isEqualTo(e.drops());
                assertThat(p.bytes()).isEqualTo(e.bytes());
                assertThat(p.messages()).isEqualTo(e.messages().size());
                if (!p.failed()) assertThat(p.partial()).isEqualTo(e.partial());
                assertThat(got).hasSameSizeAs(e.messages());
                for (int k = 0; k < got.size(); k++) {
                    RdsMessage m = got.get(k);
                    assertThat(m.payloadLength()).isLessThanOrEqualTo(max);
                    byte[] back = RdsStreamWriter.encode(m);
                    byte[] want = e.messages().get(k).clone();
                    // the parser keeps neither h_padding nor h_csum; the writer sends them as zero
                    Arrays.fill(want, RdsHeader.OFF_PADDING, RdsHeader.OFF_EXTHDR, (byte) 0);
                    assertThat(back).isEqualTo(want);
                }
                emitted += got.size();
                if (p.failed()) failed++;
                else if (p.partial()) partial++;
                dropped += p.drops();
            } catch (AssertionError | RuntimeException ex) {
                fail("seed " + seed + " case " + i + " max " + max + " stream " + s.length + " bytes: " + ex, ex);
            }
        }
        // the generator reaches every outcome
        assertThat(emitted).isPositive();
        assertThat(failed).isPositive();
        assertThat(partial).isPositive();
        assertThat(dropped).isPositive();
    }

    private static byte[] randomBytes(Random r) {
        byte[] b = new byte[r.nextInt(400)];
        r.nextBytes(b);
        if (b.length >= RdsHeader.LENGTH && r.nextBoolean()) {
            // a plausible h_len so the random stream sometimes frames a message or two
            int len = r.nextInt(b.length - RdsHeader.LENGTH + 1);
            b[16] = 0; b[17] = 0; b[18] = (byte) (len >> 8); b[19] = (byte) len;
        }
        return b;
    }

    /** A stream of a few well-formed messages, congestion updates among them. */
    private static byte[] wellFormed(Random r) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (int k = 0, n = r.nextInt(6); k < n; k++) {
            int kind = r.nextInt(10);
            int flags = kind == 0 ? RdsHeader.FLAG_CONG_BITMAP : r.nextInt(256);
            if (kind != 0 && flags == RdsHeader.FLAG_CONG_BITMAP) flags = 0;
            int size = kind == 0 ? RdsHeader.CONG_MAP_BYTES
                    : new int[] {0, 1, 47, 48, 49, r.nextInt(300), r.nextInt(30_000)}[r.nextInt(7)];
            byte[] p = new byte[size];
            r.nextBytes(p);
            byte[] ext = new byte[RdsHeader.EXT_SPACE];
            if (r.nextBoolean()) r.nextBytes(ext);
            RdsMessage m = new RdsMessage(r.nextLong(), r.nextLong(), r.nextInt(65536), r.nextInt(65536), flags,
                    r.nextInt(256), ext, p, 0, size);
            byte[] b = RdsStreamWriter.encode(m);
            if (r.nextInt(4) == 0) RdsHeader.fillChecksum(b, 0);
            o.writeBytes(b);
        }
        return o.toByteArray();
    }

    private static byte[] mutate(byte[] b, Random r) {
        for (int k = 0, n = r.nextInt(4); k < n && b.length > 0; k++) {
            switch (r.nextInt(7)) {
                case 0 -> b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
                case 1 -> b[r.nextInt(b.length)] = (byte) r.nextInt(256);
                case 2 -> { // h_len of some header-aligned guess: a random byte of a length field
                    int at = r.nextInt(b.length);
                    int lenAt = at - at % RdsHeader.LENGTH + 16 + r.nextInt(4);
                    if (lenAt < b.length) b[lenAt] = (byte) r.nextInt(256);
                }
                case 3 -> b = Arrays.copyOf(b, r.nextInt(b.length + 1)); // truncation
                case 4 -> { // flags set to exactly CONG_BITMAP somewhere
                    int at = r.nextInt(b.length);
                    int flagsAt = at - at % RdsHeader.LENGTH + RdsHeader.OFF_FLAGS;
                    if (flagsAt < b.length) b[flagsAt] = RdsHeader.FLAG_CONG_BITMAP;
                }
                case 5 -> { // inserted bytes: the framing shifts
                    int at = r.nextInt(b.length + 1), n2 = 1 + r.nextInt(8);
                    byte[] c = new byte[b.length + n2];
                    System.arraycopy(b, 0, c, 0, at);
                    for (int j = 0; j < n2; j++) c[at + j] = (byte) r.nextInt(256);
                    System.arraycopy(b, at, c, at + n2, b.length - at);
                    b = c;
                }
                default -> { // deleted bytes
                    int at = r.nextInt(b.length), n2 = Math.min(1 + r.nextInt(8), b.length - at);
                    byte[] c = new byte[b.length - n2];
                    System.arraycopy(b, 0, c, 0, at);
                    System.arraycopy(b, at + n2, c, at, b.length - at - n2);
                    b = c;
                }
            }
        }
        return b;
    }
}
