package io.jnet.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The body of one request, framed as RFC 9112 section 6.3 says: chunked if {@code Transfer-Encoding}
 * ends in {@code chunked}, else {@code Content-Length} bytes, else none. When the client sent
 * {@code Expect: 100-continue} the interim {@code HTTP/1.1 100 Continue} is written the first time the
 * body is {@link #open opened}, never before (RFC 9110 section 10.1.1).
 */
final class RequestBody {

    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final InputStream stream;
    private final boolean present;
    private final boolean expectContinue;
    private final OutputStream out;
    private boolean opened;

    private RequestBody(InputStream stream, boolean present, boolean expectContinue, OutputStream out) {
        this.stream = stream;
        this.present = present;
        this.expectContinue = expectContinue && present;
        this.out = out;
    }

    /**
     * Determines the framing of {@code request}'s body.
     *
     * @param expectContinue whether the client waits for 100 Continue before sending the body
     * @param out            where 100 Continue is written
     * @throws HttpProtocolException 400 for conflicting or malformed framing fields (both Transfer-Encoding
     *                               and Content-Length, Transfer-Encoding in HTTP/1.0, chunked not last,
     *                               bad or differing lengths); 501 for transfer codings other than chunked
     */
    static RequestBody of(HttpRequest request, HttpInput in, HttpLimits limits, boolean expectContinue,
                          OutputStream out) throws HttpProtocolException {
        HttpHeaders headers = request.headers();
        List<String> codings = headers.tokens("Transfer-Encoding");
        if (headers.contains("Transfer-Encoding")) {
            if (request.minorVersion() == 0) {
                throw new HttpProtocolException(400, "Transfer-Encoding in an HTTP/1.0 request");
            }
            if (headers.contains("Content-Length")) {
                throw new HttpProtocolException(400, "both Transfer-Encoding and Content-Length");
            }
            for (String coding : codings) {
                if (!coding.equals("chunked")) {
                    throw new HttpProtocolException(501, "transfer coding not supported: " + HttpHeaders.clip(coding));
                }
            }
            if (codings.size() != 1) {
                throw new HttpProtocolException(400, "chunked must be applied exactly once");
            }
            return new RequestBody(new ChunkedInputStream(in, limits), true, expectContinue, out);
        }
        long length = contentLength(headers);
        if (length < 0) {
            length = 0;
        }
        return new RequestBody(new FixedLengthInputStream(in, length), length > 0, expectContinue, out);
    }

    /**
     * The Content-Length value, -1 if absent (RFC 9112 section 6.3 item 5: repeated identical values
     * are accepted, differing or non-decimal ones are not).
     */
    static long contentLength(HttpHeaders headers) throws HttpProtocolException {
        List<String> values = headers.tokens("Content-Length");
        if (values.isEmpty()) {
            if (headers.contains("Content-Length")) {
                throw new HttpProtocolException(400, "empty Content-Length");
            }
            return -1;
        }
        long length = -1;
        for (String value : values) {
            if (value.isEmpty() || value.length() > 18 || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new HttpProtocolException(400, "bad Content-Length: " + HttpHeaders.clip(value));
            }
            long parsed = Long.parseLong(value);
            if (length >= 0 && parsed != length) {
                throw new HttpProtocolException(400, "differing Content-Length values");
            }
            length = parsed;
        }
        return length;
    }

    /** Whether the request has a non-empty body (chunked, or Content-Length above 0). */
    boolean isPresent() {
        return present;
    }

    /** Whether the client waits for 100 Continue and it was not sent (the client may never send the body). */
    boolean isAwaitingContinue() {
        return expectContinue && !opened;
    }

    /** The body as a stream; sends 100 Continue first if the client expects it. */
    InputStream open() throws IOException {
        if (!opened) {
            opened = true;
            if (expectContinue) {
                out.write(CONTINUE);
                out.flush();
            }
        }
        return stream;
    }

    /** Whether every body byte was read (always true without a body). */
    boolean isFullyRead() {
        if (!present) {
            return true;
        }
        return stream instanceof ChunkedInputStream chunked
                ? chunked.isDone()
                : ((FixedLengthInputStream) stream).remaining() == 0;
    }
}
