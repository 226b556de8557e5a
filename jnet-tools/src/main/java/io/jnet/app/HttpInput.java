package io.jnet.app;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A buffered reader of one HTTP/1.1 connection's input: message-head lines ({@link #readLine}) and
 * raw body bytes ({@link #read}) share one buffer, so pipelined messages and bodies following a head are
 * never lost.
 *
 * <p>Lines end in CRLF; a bare LF is accepted as a line end too (RFC 9112 section 2.2), a CR anywhere
 * else is rejected with 400. Line bytes are decoded as ISO-8859-1, one char per byte.
 */
final class HttpInput extends InputStream {

    private final InputStream in;
    private final byte[] buffer;
    private int position;
    private int limit;
    private byte[] line = new byte[256];

    /**
     * @param in          the connection's input stream
     * @param bufferBytes buffer size in bytes (64 KiB is used for bulk transfers)
     */
    HttpInput(InputStream in, int bufferBytes) {
        this.in = Objects.requireNonNull(in, "in");
        this.buffer = new byte[bufferBytes];
    }

    /**
     * Reads one line without its line ending.
     *
     * @param maxBytes      longest accepted line, excluding the line ending
     * @param tooLongStatus the status of the {@link HttpProtocolException} thrown for a longer line
     * @return the line, or null if the stream ended before the line's first byte
     * @throws EOFException           if the stream ends in the middle of a line
     * @throws HttpProtocolException  if the line is too long or holds a bare CR
     */
    String readLine(int maxBytes, int tooLongStatus) throws IOException {
        int length = 0;
        while (true) {
            if (position == limit && !fill()) {
                if (length == 0) {
                    return null;
                }
                throw new EOFException("connection closed in the middle of a line");
            }
            int start = position;
            int newline = -1;
            while (position < limit) {
                if (buffer[position++] == '\n') {
                    newline = position - 1;
                    break;
                }
            }
            int end = newline >= 0 ? newline : position;
            int count = end - start;
            // one byte of slack for the CR before the LF
            if (length + count > maxBytes + 1) {
                throw new HttpProtocolException(tooLongStatus, "line longer than " + maxBytes + " bytes");
            }
            if (length + count > line.length) {
                line = Arrays.copyOf(line, Math.max(line.length * 2, length + count));
            }
            System.arraycopy(buffer, start, line, length, count);
            length += count;
            if (newline >= 0) {
                if (length > 0 && line[length - 1] == '\r') {
                    length--;
                }
                if (length > maxBytes) {
                    throw new HttpProtocolException(tooLongStatus, "line longer than " + maxBytes + " bytes");
                }
                for (int i = 0; i < length; i++) {
                    if (line[i] == '\r') {
                        throw new HttpProtocolException(400, "bare CR in a message line");
                    }
                }
                return new String(line, 0, length, StandardCharsets.ISO_8859_1);
            }
        }
    }

    private boolean fill() throws IOException {
        int n = in.read(buffer, 0, buffer.length);
        if (n <= 0) {
            return false;
        }
        position = 0;
        limit = n;
        return true;
    }

    /** Bytes buffered and readable without blocking. */
    @Override
    public int available() {
        return limit - position;
    }

    @Override
    public int read() throws IOException {
        if (position == limit && !fill()) {
            return -1;
        }
        return buffer[position++] & 0xFF;
    }

    /** Reads buffered bytes first; with an empty buffer, large reads go straight to the connection. */
    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (position == limit) {
            if (len >= buffer.length) {
                return in.read(b, off, len);
            }
            if (!fill()) {
                return -1;
            }
        }
        int n = Math.min(len, limit - position);
        System.arraycopy(buffer, position, b, off, n);
        position += n;
        return n;
    }
}
