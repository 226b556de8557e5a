package io.jnet.app;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * A body in the chunked transfer coding (RFC 9112 section 7.1): chunk-size lines in hex (chunk
 * extensions after ';' are ignored), chunk data each followed by CRLF, a zero-size last chunk, optional
 * trailer fields and an empty line. Reads return the decoded data, then end of stream. Closing does not
 * close the connection.
 *
 * <p>Malformed framing throws {@link HttpProtocolException} (400); a connection that ends early throws
 * {@link EOFException}.
 */
final class ChunkedInputStream extends InputStream {

    /** Largest accepted chunk size: 2^60 bytes (keeps sums of sizes from overflowing). */
    private static final long MAX_CHUNK = 1L << 60;

    private final HttpInput in;
    private final HttpLimits limits;
    private long chunkRemaining;
    private boolean done;
    private HttpHeaders trailers = new HttpHeaders();

    ChunkedInputStream(HttpInput in, HttpLimits limits) {
        this.in = in;
        this.limits = limits;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return done ? -1 : 0;
        }
        while (!done && chunkRemaining == 0) {
            startChunk();
        }
        if (done) {
            return -1;
        }
        int n = in.read(b, off, (int) Math.min(len, chunkRemaining));
        if (n < 0) {
            throw new EOFException("chunked body truncated: connection closed inside a chunk");
        }
        chunkRemaining -= n;
        if (chunkRemaining == 0) {
            endChunk();
        }
        return n;
    }

    private void startChunk() throws IOException {
        String line = in.readLine(limits.maxLineBytes(), 400);
        if (line == null) {
            throw new EOFException("chunked body truncated: connection closed before a chunk-size line");
        }
        long size = parseSize(line);
        if (size == 0) {
            trailers = HttpHeaders.read(in, limits);
            done = true;
        } else {
            chunkRemaining = size;
        }
    }

    private void endChunk() throws IOException {
        String line = in.readLine(limits.maxLineBytes(), 400);
        if (line == null) {
            throw new EOFException("chunked body truncated: connection closed after chunk data");
        }
        if (!line.isEmpty()) {
            throw new HttpProtocolException(400, "chunk data not followed by CRLF");
        }
    }

    static long parseSize(String line) throws HttpProtocolException {
        int end = line.indexOf(';');
        String hex = (end < 0 ? line : line.substring(0, end)).stripTrailing();
        if (hex.isEmpty()) {
            throw new HttpProtocolException(400, "empty chunk size");
        }
        long size = 0;
        for (int i = 0; i < hex.length(); i++) {
            int digit = hexDigit(hex.charAt(i));
            if (digit < 0) {
                throw new HttpProtocolException(400, "bad chunk size: " + HttpHeaders.clip(hex));
            }
            if (size > MAX_CHUNK >>> 4) {
                throw new HttpProtocolException(400, "chunk size too large: " + HttpHeaders.clip(hex));
            }
            size = size * 16 + digit;
            if (size > MAX_CHUNK) {
                throw new HttpProtocolException(400, "chunk size too large: " + HttpHeaders.clip(hex));
            }
        }
        return size;
    }

    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    /** Whether the last chunk and the trailer section were read. */
    boolean isDone() {
        return done;
    }

    /** Trailer fields after the last chunk (empty until then). */
    HttpHeaders trailers() {
        return trailers;
    }

    @Override
    public void close() {
        // the connection stays open for the next message
    }
}
