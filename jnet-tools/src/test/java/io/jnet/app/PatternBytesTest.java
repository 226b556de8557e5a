package io.jnet.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PatternBytesTest {

    @Test
    void firstBytesMatchTheDocumentedFormula() {
        byte[] b = new byte[8];
        PatternBytes.fill(0, b, 0, 8);
        assertThat(HexFormat.of().formatHex(b)).isEqualTo("009e3cda7817b553");
        for (long i : new long[] {0, 1, 255, 256, 65535, 65536, 1L << 40, (1L << 40) + 12345}) {
            long expected = Long.divideUnsigned(i * 0x9E3779B97F4A7C15L, 1L << 56) & 0xFF;
            assertThat(PatternBytes.byteAt(i) & 0xFF).as("byte %d", i).isEqualTo((int) expected);
        }
    }

    @Test
    void fillAtAnyOffsetAgreesWithByteAt() {
        Random random = new Random(7);
        for (int round = 0; round < 50; round++) {
            long offset = random.nextLong(1L << 41);
            int len = random.nextInt(3000);
            byte[] b = new byte[len + 10];
            PatternBytes.fill(offset, b, 5, len);
            for (int k = 0; k < len; k++) {
                assertThat(b[5 + k]).isEqualTo(PatternBytes.byteAt(offset + k));
            }
            assertThat(b[0]).isZero();
            assertThat(b[len + 9]).isZero();
        }
    }

    @Test
    void shiftedBlocksDiffer() {
        byte[] a = new byte[4096];
        byte[] b = new byte[4096];
        PatternBytes.fill(0, a, 0, a.length);
        PatternBytes.fill(65536, b, 0, b.length);
        assertThat(b).isNotEqualTo(a);
        PatternBytes.fill(1L << 32, b, 0, b.length);
        assertThat(b).isNotEqualTo(a);
    }

    @Test
    void sha256MatchesADigestOverTheMaterialisedBytes() throws Exception {
        assertThat(PatternBytes.sha256(0)).isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        for (int n : new int[] {1, 100, 65535, 65536, 65537, 300_001}) {
            byte[] all = new byte[n];
            PatternBytes.fill(0, all, 0, n);
            String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(all));
            assertThat(PatternBytes.sha256(n)).as("n=%d", n).isEqualTo(expected);
        }
    }

    @Test
    void inputStreamYieldsExactlyNPatternBytes() throws IOException {
        try (InputStream in = PatternBytes.inputStream(100_003)) {
            byte[] all = in.readAllBytes();
            assertThat(all).hasSize(100_003);
            byte[] expected = new byte[100_003];
            PatternBytes.fill(0, expected, 0, expected.length);
            assertThat(all).isEqualTo(expected);
            assertThat(in.read()).isEqualTo(-1);
        }
    }

    @Test
    void rejectsNegativeOffsetsAndBadRanges() {
        assertThatThrownBy(() -> PatternBytes.fill(-1, new byte[1], 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PatternBytes.fill(0, new byte[1], 0, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> PatternBytes.sha256(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
