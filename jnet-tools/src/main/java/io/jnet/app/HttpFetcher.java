package io.jnet.app;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * A minimal HTTP/1.1 client for downloads (RFC 9110, RFC 9112): one {@code GET} per connection
 * ({@code Connection: close}), the body read by chunked coding, Content-Length, or until the server
 * closes (RFC 9112 section 6.3), hashed with SHA-256 and counted while streaming in 64 KiB reads.
 *
 * <p>Redirects are not followed: the result reports the status and {@link FetchResult#location()}.
 * Interim 1xx responses are skipped. Any final status is returned; call {@link FetchResult#requireOk()}
 * to turn a non-200 status into an {@link HttpStatusException}.
 *
 * <p>Errors: {@link IllegalArgumentException} for a bad URL; {@link java.net.UnknownHostException} when
 * the resolver does not know the host; the connector's IOException when connecting fails;
 * {@link HttpProtocolException} for a malformed response; {@link EOFException} when the connection ends
 * before the announced body; {@link SocketTimeoutException} when the timeout passes.
 */
public final class HttpFetcher {

    private static final int BUFFER_BYTES = 64 * 1024;
    /** The HttpProtocolException status for malformed responses: what a gateway would answer (502). */
    private static final int BAD_RESPONSE = 502;

    private final StreamConnector connector;
    private final HostResolver resolver;
    private final Duration timeout;
    private final HttpLimits limits;

    /** A fetcher accepting only address literals as hosts, without a timeout. */
    public HttpFetcher(StreamConnector connector) {
        this(connector, HostResolver.literalsOnly(), null);
    }

    /**
     * @param connector opens connections (jnet TCP, or {@link JdkStreams#connector(int)})
     * @param resolver  maps URL hosts to addresses
     * @param timeout   limit for the exchange once connected (request, response head and body), or null
     *                  for none; the connect itself is limited by the connector
     */
    public HttpFetcher(StreamConnector connector, HostResolver resolver, Duration timeout) {
        this.connector = Objects.requireNonNull(connector, "connector");
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.timeout = timeout;
        this.limits = HttpLimits.DEFAULT;
    }

    /** Fetches {@code url}, hashing and counting the body without keeping it. */
    public FetchResult fetch(String url) throws IOException {
        return fetch(HttpUrl.parse(url), OutputStream.nullOutputStream());
    }

    /**
     * Fetches {@code url}; the body of a 2xx response is also written to {@code sink} (not closed here;
     * other statuses' bodies are hashed and counted but not written).
     */
    public FetchResult fetch(String url, OutputStream sink) throws IOException {
        return fetch(HttpUrl.parse(url), sink);
    }

    /** Fetches {@code url}; see {@link #fetch(String, OutputStream)}. */
    public FetchResult fetch(HttpUrl url, OutputStream sink) throws IOException {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(sink, "sink");
        long start = System.nanoTime();
        InetAddress address = resolver.resolve(url.host());
        InetSocketAddress remote = new InetSocketAddress(address, url.port());
        StreamConnection connection = connector.connect(remote);
        CloseTimer timer = timeout == null ? null : CloseTimer.start(connection, timeout);
        try {
            sendRequest(connection.out(), url);
            HttpInput in = new HttpInput(connection.in(), BUFFER_BYTES);
            Head head = readFinalHead(in);
            MessageDigest digest = PatternBytes.newSha256();
            OutputStream target = head.status >= 200 && head.status < 300 ? sink : OutputStream.nullOutputStream();
            long bytes = copyBody(bodyOf(head, in), digest, target);
            long elapsed = System.nanoTime() - start;
            return new FetchResult(url, remote, head.status, head.reason, head.headers, bytes,
                    HexFormat.of().formatHex(digest.digest()), elapsed);
        } catch (IOException e) {
            if (timer != null && timer.fired()) {
                SocketTimeoutException timedOut = new SocketTimeoutException(url + ": no complete response within " + timeout);
                timedOut.initCause(e);
                throw timedOut;
            }
            throw e;
        } finally {
            if (timer != null) {
                timer.close();
            }
            connection.close();
        }
    }

    private static void sendRequest(OutputStream out, HttpUrl url) throws IOException {
        String request = "GET " + url.target() + " HTTP/1.1\r\n"
                + "Host: " + url.authority() + "\r\n"
                + "User-Agent: jnet-fetch\r\n"
                + "Accept: */*\r\n"
                + "Connection: close\r\n"
                + "\r\n";
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private record Head(int status, String reason, HttpHeaders headers) {}

    /** Reads response heads, skipping 1xx interim responses (RFC 9110 section 15.2). */
    private Head readFinalHead(HttpInput in) throws IOException {
        while (true) {
            String line = in.readLine(limits.maxLineBytes(), BAD_RESPONSE);
            if (line == null) {
                throw new EOFException("server closed the connection without a response");
            }
            Head head = parseStatusLine(line, in);
            if (head.status == 101) {
                throw new HttpProtocolException(BAD_RESPONSE, "unexpected 101 Switching Protocols");
            }
            if (head.status >= 200) {
                return head;
            }
        }
    }

    private Head parseStatusLine(String line, HttpInput in) throws IOException {
        // status-line = HTTP-version SP status-code SP [ reason-phrase ]  (RFC 9112 section 4)
        boolean ok = line.length() >= 12 && line.startsWith("HTTP/1.") && line.charAt(8) == ' '
                && line.charAt(7) >= '0' && line.charAt(7) <= '9';
        int status = -1;
        if (ok) {
            String code = line.substring(9, 12);
            ok = code.chars().allMatch(c -> c >= '0' && c <= '9') && (line.length() == 12 || line.charAt(12) == ' ');
            status = ok ? Integer.parseInt(code) : -1;
            ok &= status >= 100 && status <= 599;
        }
        if (!ok) {
            throw new HttpProtocolException(BAD_RESPONSE, "bad status line: " + HttpHeaders.clip(line));
        }
        String reason = line.length() > 13 ? line.substring(13) : "";
        HttpHeaders headers = HttpHeaders.read(in, limits);
        return new Head(status, reason, headers);
    }

    /** The response body per RFC 9112 section 6.3 (this client never sends HEAD). */
    private InputStream bodyOf(Head head, HttpInput in) throws IOException {
        if (head.status == 204 || head.status == 304) {
            return InputStream.nullInputStream();
        }
        HttpHeaders headers = head.headers;
        if (headers.contains("Transfer-Encoding")) {
            List<String> codings = headers.tokens("Transfer-Encoding");
            if (!codings.isEmpty() && codings.getLast().equals("chunked")) {
                if (codings.size() != 1) {
                    throw new HttpProtocolException(BAD_RESPONSE, "unsupported transfer codings " + codings);
                }
                return new ChunkedInputStream(in, limits);
            }
            return in;
        }
        try {
            long length = RequestBody.contentLength(headers);
            return length < 0 ? in : new FixedLengthInputStream(in, length);
        } catch (HttpProtocolException e) {
            throw new HttpProtocolException(BAD_RESPONSE, "response has " + e.getMessage());
        }
    }

    private static long copyBody(InputStream body, MessageDigest digest, OutputStream sink) throws IOException {
        byte[] buffer = new byte[BUFFER_BYTES];
        long total = 0;
        int n;
        while ((n = body.read(buffer)) >= 0) {
            digest.update(buffer, 0, n);
            sink.write(buffer, 0, n);
            total += n;
        }
        sink.flush();
        return total;
    }
}
