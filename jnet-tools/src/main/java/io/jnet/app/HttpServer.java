package io.jnet.app;

import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * A small HTTP/1.1 origin server (RFC 9110, RFC 9112). Each connection runs on its own virtual thread
 * via {@link ConnectionServer}. Routes:
 * <ul>
 *   <li>{@code GET /}: a plain-text index of the routes;</li>
 *   <li>{@code GET /bytes/N}: {@code N} bytes of {@link PatternBytes} ({@code 0 <= N <= 2^40}, decimal digits
 *       only, else 400), {@code application/octet-stream} with {@code Content-Length: N}, generated while
 *       sending, never held in memory;</li>
 *   <li>{@code PUT} or {@code POST} to any path: the body, of any size, is hashed while it streams in; the
 *       answer is 200 with {@code text/plain} body: its SHA-256 in 64 lowercase hex digits and {@code "\n"};</li>
 *   <li>{@code HEAD} of a GET route: the same head, no body.</li>
 * </ul>
 * Other paths give 404; OPTIONS, DELETE, TRACE, CONNECT and PATCH give 405 with
 * {@code Allow: GET, HEAD, PUT, POST}; unknown methods 501.
 *
 * <p>Protocol behaviour: persistent connections (HTTP/1.1 default; {@code Connection: close} honoured;
 * HTTP/1.0 closes after one response), pipelining, request heads limited by {@link HttpLimits}
 * (8 KiB lines, 100 fields by default), Content-Length and chunked request bodies,
 * {@code Expect: 100-continue}. Malformed requests get 400 and the connection closes; an over-long
 * request line 414, over-long or too many header fields 431, unsupported transfer codings 501,
 * HTTP/2+ request lines 505, other expectations 417. Streams use 64 KiB buffers.
 */
public final class HttpServer implements AutoCloseable {

    /** The well-known port, 80. */
    public static final int DEFAULT_PORT = 80;

    /** Request and response counters shared by the connections. */
    static final class Counters {
        final LongAdder requests = new LongAdder();
        final LongAdder protocolErrors = new LongAdder();
        final LongAdder[] statusClasses = {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder(),
                new LongAdder(), new LongAdder()};

        void countStatus(int status) {
            int statusClass = status / 100;
            if (statusClass >= 1 && statusClass <= 5) {
                statusClasses[statusClass].increment();
            }
        }
    }

    private final Counters counters = new Counters();
    private final ConnectionServer server;

    private HttpServer(StreamAcceptor acceptor, HttpLimits limits) {
        this.server = ConnectionServer.start("http", acceptor,
                connection -> new HttpSession(connection, limits, counters).run());
    }

    /** Starts serving connections from {@code acceptor} (owned by the server from now on) with default limits. */
    public static HttpServer start(StreamAcceptor acceptor) {
        return start(acceptor, HttpLimits.DEFAULT);
    }

    /** Starts serving connections from {@code acceptor} (owned by the server from now on). */
    public static HttpServer start(StreamAcceptor acceptor, HttpLimits limits) {
        Objects.requireNonNull(acceptor, "acceptor");
        Objects.requireNonNull(limits, "limits");
        return new HttpServer(acceptor, limits);
    }

    /** Request heads parsed successfully since start. */
    public long requests() {
        return counters.requests.sum();
    }

    /** Requests rejected for malformed or oversized heads or framing, or unsupported expectations. */
    public long protocolErrors() {
        return counters.protocolErrors.sum();
    }

    /**
     * Final responses sent with a status in class {@code statusClass} (2 for 2xx, 4 for 4xx, ...);
     * 100 Continue is not counted.
     *
     * @throws IllegalArgumentException unless {@code 1 <= statusClass <= 5}
     */
    public long responses(int statusClass) {
        if (statusClass < 1 || statusClass > 5) {
            throw new IllegalArgumentException("status class must be 1..5: " + statusClass);
        }
        return counters.statusClasses[statusClass].sum();
    }

    /** The accept loop, for connection counters. */
    public ConnectionServer server() {
        return server;
    }

    /** Stops accepting and closes live connections (see {@link ConnectionServer#close()}). */
    @Override
    public void close() {
        server.close();
    }
}
