package io.jnet.app;

import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The deterministic byte pattern served by {@code GET /bytes/N}: byte number {@code i} (counting from 0)
 * of any pattern stream is
 *
 * <pre>{@code  byte(i) = (i * 0x9E3779B97F4A7C15) >>> 56      (64-bit unsigned multiply, modulo 2^64)}</pre>
 *
 * that is, the top 8 bits of {@code i} times the 64-bit golden-ratio constant (Fibonacci hashing).
 * Every byte depends on all bits of its offset, so a segment delivered at the wrong offset (a lost,
 * duplicated or misplaced segment, even one shifted by a multiple of 64 KiB) changes the digest. In
 * Python: {@code ((i * 0x9E3779B97F4A7C15) % 2**64) >> 56}. The first bytes are
 * {@code 00 9e 3c da 78 17 b5 53}.
 *
 * <p>Bytes are generated on demand ({@link #fill}); a pattern stream is never materialised.
 */
public final class PatternBytes {

    /** The multiplier: 2^64 divided by the golden ratio, rounded to odd. */
    public static final long MULTIPLIER = 0x9E3779B97F4A7C15L;

    private static final int CHUNK = 64 * 1024;

    private PatternBytes() {}

    /** Byte number {@code i} of the pattern ({@code i >= 0}). */
    public static byte byteAt(long i) {
        return (byte) ((i * MULTIPLIER) >>> 56);
    }

    /**
     * Writes pattern bytes {@code offset .. offset+len-1} into {@code b[off .. off+len-1]}.
     *
     * @throws IllegalArgumentException  if {@code offset} is negative
     * @throws IndexOutOfBoundsException if {@code off}/{@code len} do not fit {@code b}
     */
    public static void fill(long offset, byte[] b, int off, int len) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0: " + offset);
        }
        Objects.checkFromIndexSize(off, len, b.length);
        long x = offset * MULTIPLIER;
        for (int k = off, end = off + len; k < end; k++) {
            b[k] = (byte) (x >>> 56);
            x += MULTIPLIER;
        }
    }

    /**
     * The SHA-256 of the first {@code n} pattern bytes as 64 lowercase hex digits; computed by streaming
     * (time proportional to {@code n}, memory constant).
     *
     * @throws IllegalArgumentException if {@code n} is negative
     */
    public static String sha256(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("length must be >= 0: " + n);
        }
        MessageDigest digest = newSha256();
        byte[] chunk = new byte[(int) Math.min(CHUNK, Math.max(n, 1))];
        for (long done = 0; done < n; ) {
            int len = (int) Math.min(chunk.length, n - done);
            fill(done, chunk, 0, len);
            digest.update(chunk, 0, len);
            done += len;
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /** An input stream of the first {@code n} pattern bytes (for uploads and tests). */
    public static InputStream inputStream(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("length must be >= 0: " + n);
        }
        return new InputStream() {
            private long position;

            @Override
            public int read() {
                return position < n ? byteAt(position++) & 0xFF : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                Objects.checkFromIndexSize(off, len, b.length);
                if (len == 0) {
                    return 0;
                }
                if (position >= n) {
                    return -1;
                }
                int count = (int) Math.min(len, n - position);
                fill(position, b, off, count);
                position += count;
                return count;
            }

            @Override
            public int available() {
                return (int) Math.min(Integer.MAX_VALUE, n - position);
            }
        };
    }

    /** A new SHA-256 digest (present in every Java SE runtime). */
    static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by the Java SE specification", e);
        }
    }
}
