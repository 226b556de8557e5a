package io.jnet.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;

/**
 * The HTTP service of {@code jnet serve}: the JDK's {@link HttpServer} (HTTP/1.1, persistent connections,
 * Content-Length and chunked request bodies, {@code Expect: 100-continue}, its own answers to malformed requests)
 * with these resources:
 * <ul>
 *   <li>{@code GET /}: a plain-text index of the routes;</li>
 *   <li>{@code GET /bytes/N}: {@code N} bytes of {@link PatternBytes} ({@code 0 <= N <= 2^40}, decimal digits
 *       only, else 400), {@code application/octet-stream} with {@code Content-Length: N}, generated while
 *       sending, never held in memory;</li>
 *   <li>{@code PUT} or {@code POST} to any path: the body, of any size, is hashed while it streams in; the
 *       answer is 200 with a {@code text/plain} body: its SHA-256 in 64 lowercase hex digits and {@code "\n"};</li>
 *   <li>{@code HEAD} of a GET route: the same head, no body.</li>
 * </ul>
 * Other paths give 404; OPTIONS, DELETE, TRACE, CONNECT and PATCH give 405 with
 * {@code Allow: GET, HEAD, PUT, POST}; unknown methods 501. Each exchange runs on a virtual thread.
 *
 * <p>On a jnet namespace the JVM-wide provider must be jnet's (see {@link JdkHttp}); without a namespace the server
 * opens its channels through the JVM-wide provider as it is (the kernel's in a JVM without the property).
 */
public final class HttpService implements AutoCloseable {

    /** The well-known port, 80. */
    public static final int DEFAULT_PORT = 80;

    /** Largest N for {@code /bytes/N}: 2^40 bytes (1 TiB). */
    static final long MAX_BYTES = 1L << 40;

    static final int BUFFER_BYTES = 64 * 1024;

    static final String ALLOW = "GET, HEAD, PUT, POST";

    private static final Set<String> KNOWN_METHODS = Set.of("OPTIONS", "DELETE", "TRACE", "CONNECT", "PATCH");

    static final String INDEX = """
            jnet serve (the JDK's HttpServer on jnet)
            GET  /          this index
            GET  /bytes/N   N bytes (0 <= N <= 2^40) of the pattern byte(i) = (i * 0x9E3779B97F4A7C15 mod 2^64) >> 56,
                            application/octet-stream
            PUT  /any       upload any body (Content-Length or chunked; Expect: 100-continue honoured);
            POST /any       the answer is the body's sha256 in lowercase hex and a newline
            HEAD            the head of a GET route without its body
            """;

    private final HttpServer server;
    private final ExecutorService executor;
    private final LongAdder requests = new LongAdder();
    private final LongAdder[] statusClasses = {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder(),
            new LongAdder(), new LongAdder()};
    private volatile boolean closed;

    private HttpService(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Binds {@code address} and starts serving.
     *
     * @param ns the jnet namespace to listen in, or null for the JVM-wide provider's network as it is
     * @param backlog accept queue length
     * @throws IOException when the listener cannot bind (a {@link java.net.BindException})
     * @throws IllegalStateException when {@code ns} is given and the JVM-wide provider is not jnet's
     */
    public static HttpService start(NetNamespace ns, InetSocketAddress address, int backlog) throws IOException {
        Objects.requireNonNull(address, "address");
        return ns == null ? create(address, backlog) : JdkHttp.on(ns, () -> create(address, backlog));
    }

    private static HttpService create(InetSocketAddress address, int backlog) throws IOException {
        HttpServer server = HttpServer.create(address, backlog);
        ExecutorService executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("http-", 0).factory());
        HttpService service = new HttpService(server, executor);
        server.createContext("/", service::handle);
        server.setExecutor(executor);
        server.start();
        return service;
    }

    /** The address the server listens on (with the port given when 0 was asked for). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    /** Requests received since start. */
    public long requests() {
        return requests.sum();
    }

    /**
     * Final responses sent with a status in class {@code statusClass} (2 for 2xx, 4 for 4xx, ...), the JDK's own
     * answers to malformed requests not included.
     *
     * @throws IllegalArgumentException unless {@code 1 <= statusClass <= 5}
     */
    public long responses(int statusClass) {
        if (statusClass < 1 || statusClass > 5) {
            throw new IllegalArgumentException("status class must be 1..5: " + statusClass);
        }
        return statusClasses[statusClass].sum();
    }

    /** Stops accepting and closes the connections. Idempotent. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        requests.increment();
        try (exchange) {
            String method = exchange.getRequestMethod();
            switch (method) {
                case "GET", "HEAD" -> get(exchange, exchange.getRequestURI().getRawPath(), method.equals("HEAD"));
                case "PUT", "POST" -> hashBody(exchange);
                default -> {
                    if (KNOWN_METHODS.contains(method)) {
                        exchange.getResponseHeaders().set("Allow", ALLOW);
                        text(exchange, 405, "405 Method Not Allowed: " + method + "\n");
                    } else {
                        error(exchange, 501, "method " + clip(method) + " is not implemented");
                    }
                }
            }
        }
    }

    private void get(HttpExchange exchange, String path, boolean head) throws IOException {
        if (path == null) path = "";
        if (path.equals("/")) {
            text(exchange, 200, INDEX);
            return;
        }
        if (!path.startsWith("/bytes/")) {
            error(exchange, 404, "no resource at " + clip(path));
            return;
        }
        long n = parseCount(path.substring("/bytes/".length()));
        if (n < 0) {
            error(exchange, 400, "/bytes/N needs a decimal N from 0 to " + MAX_BYTES);
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
        if (head) {
            // the JDK's server sends no length of its own for HEAD: the head a GET would have
            exchange.getResponseHeaders().set("Content-Length", Long.toString(n));
            send(exchange, 200, -1);
            return;
        }
        send(exchange, 200, n == 0 ? -1 : n);
        OutputStream out = exchange.getResponseBody();
        byte[] chunk = new byte[(int) Math.min(BUFFER_BYTES, Math.max(n, 1))];
        for (long sent = 0; sent < n; ) {
            int len = (int) Math.min(chunk.length, n - sent);
            PatternBytes.fill(sent, chunk, 0, len);
            out.write(chunk, 0, len);
            sent += len;
        }
    }

    /** Parses N of /bytes/N: decimal digits only, at most {@link #MAX_BYTES}; -1 if invalid. */
    static long parseCount(String digits) {
        if (digits.isEmpty() || digits.length() > 18) return -1;
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') return -1;
        }
        long n = Long.parseLong(digits);
        return n <= MAX_BYTES ? n : -1;
    }

    private void hashBody(HttpExchange exchange) throws IOException {
        MessageDigest digest = PatternBytes.newSha256();
        InputStream in = exchange.getRequestBody();
        byte[] buffer = new byte[BUFFER_BYTES];
        int n;
        while ((n = in.read(buffer)) >= 0) {
            digest.update(buffer, 0, n);
        }
        text(exchange, 200, HexFormat.of().formatHex(digest.digest()) + "\n");
    }

    private void text(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.getResponseHeaders().set("Content-Length", Integer.toString(bytes.length));
            send(exchange, status, -1);
            return;
        }
        send(exchange, status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    private void error(HttpExchange exchange, int status, String detail) throws IOException {
        text(exchange, status, status + " " + HttpStatus.reason(status) + ": " + detail + "\n");
    }

    private void send(HttpExchange exchange, int status, long length) throws IOException {
        statusClasses[status / 100].increment();
        exchange.sendResponseHeaders(status, length);
    }

    /** {@code s} cut to 100 characters, control characters shown as {@code ?}, for messages. */
    static String clip(String s) {
        String t = s.length() > 100 ? s.substring(0, 100) + "..." : s;
        StringBuilder b = new StringBuilder(t.length());
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            b.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return b.toString();
    }
}
