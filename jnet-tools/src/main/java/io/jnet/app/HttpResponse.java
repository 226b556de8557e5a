package io.jnet.app;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * A response the server is about to send: status, content type and length, extra header fields, and
 * a writer producing exactly {@code contentLength} body bytes (not called for HEAD requests).
 *
 * @param status        status code
 * @param contentType   the Content-Type value
 * @param contentLength body length in bytes
 * @param extraHeaders  further fields, such as {@code Allow}
 * @param body          writes the body
 */
record HttpResponse(int status, String contentType, long contentLength,
                    List<Map.Entry<String, String>> extraHeaders, BodyWriter body) {

    /** Writes a response body of the announced length. */
    @FunctionalInterface
    interface BodyWriter {
        void writeTo(OutputStream out) throws IOException;
    }

    /** A {@code text/plain; charset=utf-8} response. */
    static HttpResponse text(int status, String text, List<Map.Entry<String, String>> extraHeaders) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return new HttpResponse(status, "text/plain; charset=utf-8", bytes.length, extraHeaders, out -> out.write(bytes));
    }

    /** A {@code text/plain; charset=utf-8} response. */
    static HttpResponse text(int status, String text) {
        return text(status, text, List.of());
    }

    /** An error response whose body is the status line's reason and {@code detail}. */
    static HttpResponse error(int status, String detail) {
        return text(status, status + " " + HttpStatus.reason(status) + ": " + detail + "\n");
    }
}
