package io.jnet.app;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The resources of {@link HttpServer}:
 * <ul>
 *   <li>{@code GET /}: a plain-text index of these routes;</li>
 *   <li>{@code GET /bytes/N}: {@code N} bytes ({@code 0 <= N <= 2^40}, decimal digits only, else 400) of
 *       {@link PatternBytes}, {@code application/octet-stream}, generated while sending;</li>
 *   <li>{@code PUT} or {@code POST} to any path: reads the body while hashing it and answers 200 with the
 *       body's SHA-256 as 64 lowercase hex digits and a newline;</li>
 *   <li>{@code HEAD} of a GET route: its head without the body.</li>
 * </ul>
 * Other paths give 404; other methods defined by RFC 9110 or RFC 5789 give 405 with {@code Allow}, unknown
 * methods 501.
 */
final class HttpRoutes {

    /** Largest N for {@code /bytes/N}: 2^40 bytes (1 TiB). */
    static final long MAX_BYTES = 1L << 40;

    static final int BUFFER_BYTES = 64 * 1024;

    static final String ALLOW = "GET, HEAD, PUT, POST";

    private static final Set<String> KNOWN_METHODS = Set.of("OPTIONS", "DELETE", "TRACE", "CONNECT", "PATCH");

    static final String INDEX = """
            jnet HTTP/1.1 server
            GET  /          this index
            GET  /bytes/N   N bytes (0 <= N <= 2^40) of the pattern byte(i) = (i * 0x9E3779B97F4A7C15 mod 2^64) >> 56,
                            application/octet-stream
            PUT  /any       upload any body (Content-Length or chunked; Expect: 100-continue honoured);
            POST /any       the answer is the body's sha256 in lowercase hex and a newline
            HEAD            the head of a GET route without its body
            """;

    /**
     * Answers {@code request}; reads the body only for PUT and POST.
     *
     * @throws HttpProtocolException if a chunked body is malformed
     * @throws IOException           if the connection fails while reading the body
     */
    HttpResponse handle(HttpRequest request, RequestBody body) throws IOException {
        String method = request.method();
        switch (method) {
            case "GET", "HEAD" -> {
                return get(request.path());
            }
            case "PUT", "POST" -> {
                return hashBody(body);
            }
            default -> {
                if (KNOWN_METHODS.contains(method)) {
                    return HttpResponse.text(405, "405 Method Not Allowed: " + method + "\n",
                            List.of(Map.entry("Allow", ALLOW)));
                }
                return HttpResponse.error(501, "method " + HttpHeaders.clip(method) + " is not implemented");
            }
        }
    }

    private static HttpResponse get(String path) {
        if (path.equals("/")) {
            return HttpResponse.text(200, INDEX);
        }
        if (path.startsWith("/bytes/")) {
            long n = parseCount(path.substring("/bytes/".length()));
            if (n < 0) {
                return HttpResponse.error(400, "/bytes/N needs a decimal N from 0 to " + MAX_BYTES);
            }
            return new HttpResponse(200, "application/octet-stream", n, List.of(), out -> {
                byte[] chunk = new byte[(int) Math.min(BUFFER_BYTES, Math.max(n, 1))];
                for (long sent = 0; sent < n; ) {
                    int len = (int) Math.min(chunk.length, n - sent);
                    PatternBytes.fill(sent, chunk, 0, len);
                    out.write(chunk, 0, len);
                    sent += len;
                }
            });
        }
        return HttpResponse.error(404, "no resource at " + HttpHeaders.clip(path));
    }

    /** Parses N of /bytes/N: decimal digits only, at most {@link #MAX_BYTES}; -1 if invalid. */
    static long parseCount(String digits) {
        if (digits.isEmpty() || digits.length() > 18) {
            return -1;
        }
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
        }
        long n = Long.parseLong(digits);
        return n <= MAX_BYTES ? n : -1;
    }

    private static HttpResponse hashBody(RequestBody body) throws IOException {
        MessageDigest digest = PatternBytes.newSha256();
        InputStream in = body.open();
        byte[] buffer = new byte[BUFFER_BYTES];
        int n;
        while ((n = in.read(buffer)) >= 0) {
            digest.update(buffer, 0, n);
        }
        return HttpResponse.text(200, HexFormat.of().formatHex(digest.digest()) + "\n");
    }
}
