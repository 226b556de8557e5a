package io.jnet.app;

/**
 * Size limits applied while parsing HTTP/1.1 message heads (RFC 9112 section 2.3 leaves them to the
 * implementation). A request line longer than {@code maxLineBytes} is answered 414, a longer header
 * line or more than {@code maxHeaders} fields 431; a client gives up on such a response.
 *
 * @param maxLineBytes longest request line, status line, header line or chunk-size line, in bytes,
 *                     excluding the CRLF
 * @param maxHeaders   most header (or trailer) fields in one message
 */
public record HttpLimits(int maxLineBytes, int maxHeaders) {

    /** 8 KiB lines, 100 fields. */
    public static final HttpLimits DEFAULT = new HttpLimits(8 * 1024, 100);

    public HttpLimits {
        if (maxLineBytes < 64) {
            throw new IllegalArgumentException("maxLineBytes must be >= 64: " + maxLineBytes);
        }
        if (maxHeaders < 1) {
            throw new IllegalArgumentException("maxHeaders must be >= 1: " + maxHeaders);
        }
    }
}
