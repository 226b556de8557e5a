package io.jnet.app;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * A message body framed by {@code Content-Length} (RFC 9112 section 6.2): exactly {@code length}
 * bytes, then end of stream. Closing does not close the connection.
 */
final class FixedLengthInputStream extends InputStream {

    private final InputStream in;
    private final long length;
    private long remaining;

    /**
     * @param in     the connection input, positioned at the first body byte
     * @param length the body length in bytes ({@code >= 0})
     */
    FixedLengthInputStream(InputStream in, long length) {
        this.in = in;
        this.length = length;
        this.remaining = length;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    /** @throws EOFException if the connection ends before {@code length} bytes arrived */
    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (remaining == 0) {
            return -1;
        }
        if (len == 0) {
            return 0;
        }
        int n = in.read(b, off, (int) Math.min(len, remaining));
        if (n < 0) {
            throw new EOFException("body truncated: connection closed after " + (length - remaining)
                    + " of " + length + " bytes");
        }
        remaining -= n;
        return n;
    }

    /** Body bytes not yet read. */
    long remaining() {
        return remaining;
    }

    @Override
    public void close() {
        // the connection stays open for the next message
    }
}
