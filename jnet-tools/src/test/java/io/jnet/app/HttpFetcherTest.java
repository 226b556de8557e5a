package io.jnet.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class HttpFetcherTest {

    private static final HttpFetcher FETCHER = new HttpFetcher(JdkStreams.connector(5000));

    static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    /** A one-shot server: accepts one connection, records the request head, writes {@code response}, closes. */
    static final class CannedServer implements AutoCloseable {
        final ServerSocket socket;
        final CompletableFuture<String> request;

        CannedServer(byte[] response, boolean holdOpen) throws IOException {
            socket = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
            request = CompletableFuture.supplyAsync(() -> {
                try (Socket s = socket.accept()) {
                    InputStream in = s.getInputStream();
                    ByteArrayOutputStream head = new ByteArrayOutputStream();
                    while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                        int c = in.read();
                        if (c < 0) {
                            break;
                        }
                        head.write(c);
                    }
                    s.getOutputStream().write(response);
                    s.getOutputStream().flush();
                    if (holdOpen) {
                        in.read(); // until the client gives up and closes
                    }
                    return head.toString(StandardCharsets.ISO_8859_1);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
        }

        CannedServer(String response) throws IOException {
            this(response.getBytes(StandardCharsets.ISO_8859_1), false);
        }

        String url(String path) {
            return "http://127.0.0.1:" + socket.getLocalPort() + path;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Test
    void fetchesFromTheHttpServer() throws Exception {
        JdkStreams.Acceptor acceptor = JdkStreams.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        int port = acceptor.localAddress().getPort();
        try (HttpServer server = HttpServer.start(acceptor)) {
            for (long n : new long[] {0, 1, 3 * 1024 * 1024 + 5}) {
                ByteArrayOutputStream sink = new ByteArrayOutputStream();
                FetchResult result = FETCHER.fetch("http://127.0.0.1:" + port + "/bytes/" + n, sink).requireOk();
                assertThat(result.status()).isEqualTo(200);
                assertThat(result.reason()).isEqualTo("OK");
                assertThat(result.bytes()).isEqualTo(n);
                assertThat(result.sha256()).isEqualTo(PatternBytes.sha256(n)).isEqualTo(sha256(sink.toByteArray()));
                assertThat(result.headers().first("content-type")).isEqualTo("application/octet-stream");
                assertThat(result.elapsedNanos()).isPositive();
                assertThat(result.remote().getPort()).isEqualTo(port);
            }
            FetchResult missing = FETCHER.fetch("http://127.0.0.1:" + port + "/nowhere");
            assertThat(missing.status()).isEqualTo(404);
            assertThatThrownBy(missing::requireOk).isInstanceOf(HttpStatusException.class)
                    .hasMessageContaining("HTTP 404 Not Found").hasMessageContaining("/nowhere");
            assertThat(server.requests()).isEqualTo(4);
        }
    }

    @Test
    void sendsAMinimalGetWithHost() throws Exception {
        try (CannedServer server = new CannedServer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")) {
            FetchResult result = FETCHER.fetch(server.url("/a/b?c=d#frag"));
            String request = server.request.get(5, TimeUnit.SECONDS);
            assertThat(request).startsWith("GET /a/b?c=d HTTP/1.1\r\n")
                    .contains("\r\nHost: 127.0.0.1:" + server.socket.getLocalPort() + "\r\n")
                    .contains("\r\nConnection: close\r\n");
            assertThat(result.bytes()).isEqualTo(2);
            assertThat(result.sha256()).isEqualTo(sha256("hi".getBytes(StandardCharsets.US_ASCII)));
        }
    }

    @Test
    void readsChunkedBodiesAndSkipsInterimResponses() throws Exception {
        String response = "HTTP/1.1 100 Continue\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "4;x=y\r\nabcd\r\n3\r\nefg\r\n0\r\nTrailer: t\r\n\r\n";
        try (CannedServer server = new CannedServer(response)) {
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            FetchResult result = FETCHER.fetch(server.url("/"), sink);
            assertThat(result.status()).isEqualTo(200);
            assertThat(sink.toString(StandardCharsets.US_ASCII)).isEqualTo("abcdefg");
            assertThat(result.bytes()).isEqualTo(7);
        }
    }

    @Test
    void readsUntilCloseWithoutFraming() throws Exception {
        try (CannedServer server = new CannedServer("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end")) {
            FetchResult result = FETCHER.fetch(server.url("/"));
            assertThat(result.bytes()).isEqualTo(13);
            assertThat(result.sha256()).isEqualTo(sha256("until the end".getBytes(StandardCharsets.US_ASCII)));
        }
    }

    @Test
    void reportsRedirectsWithoutFollowing() throws Exception {
        try (CannedServer server = new CannedServer(
                "HTTP/1.1 301 Moved Permanently\r\nLocation: http://10.0.0.1/new\r\nContent-Length: 5\r\n\r\nmoved")) {
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            FetchResult result = FETCHER.fetch(server.url("/old"), sink);
            assertThat(result.isRedirect()).isTrue();
            assertThat(result.location()).isEqualTo("http://10.0.0.1/new");
            assertThat(result.bytes()).isEqualTo(5);
            assertThat(sink.size()).as("non-2xx bodies are not written to the sink").isZero();
            assertThatThrownBy(result::requireOk).isInstanceOf(HttpStatusException.class)
                    .hasMessageContaining("301").hasMessageContaining("redirect to http://10.0.0.1/new")
                    .hasMessageContaining("not followed");
        }
    }

    @Test
    void aServerClosingWithoutAnswerIsAnErrorAndNoContentHasNoBody() throws Exception {
        try (CannedServer server = new CannedServer(new byte[0], false)) {
            // a server that closes without answering
            assertThatThrownBy(() -> FETCHER.fetch(server.url("/"))).isInstanceOf(EOFException.class)
                    .hasMessageContaining("without a response");
        }
        try (CannedServer server = new CannedServer("HTTP/1.1 204 No Content\r\n\r\n".getBytes(StandardCharsets.US_ASCII), true)) {
            FetchResult result = FETCHER.fetch(server.url("/"));
            assertThat(result.status()).isEqualTo(204);
            assertThat(result.bytes()).isZero();
        }
    }

    @Test
    void malformedAndTruncatedResponsesAreErrors() throws Exception {
        try (CannedServer server = new CannedServer("ICY 200 OK\r\n\r\n")) {
            assertThatThrownBy(() -> FETCHER.fetch(server.url("/"))).isInstanceOf(HttpProtocolException.class)
                    .hasMessageContaining("bad status line");
        }
        try (CannedServer server = new CannedServer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort")) {
            assertThatThrownBy(() -> FETCHER.fetch(server.url("/"))).isInstanceOf(EOFException.class)
                    .hasMessageContaining("5 of 10");
        }
        try (CannedServer server = new CannedServer("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab")) {
            assertThatThrownBy(() -> FETCHER.fetch(server.url("/"))).isInstanceOf(HttpProtocolException.class)
                    .hasMessageContaining("Content-Length");
        }
        try (CannedServer server = new CannedServer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nq\r\n")) {
            assertThatThrownBy(() -> FETCHER.fetch(server.url("/"))).isInstanceOf(HttpProtocolException.class)
                    .hasMessageContaining("chunk size");
        }
    }

    @Test
    void timesOutWhenTheServerStalls() throws Exception {
        try (CannedServer server = new CannedServer("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nsome".getBytes(StandardCharsets.US_ASCII), true)) {
            HttpFetcher fetcher = new HttpFetcher(JdkStreams.connector(5000), HostResolver.literalsOnly(), Duration.ofMillis(300));
            assertThatThrownBy(() -> fetcher.fetch(server.url("/"))).isInstanceOf(SocketTimeoutException.class)
                    .hasMessageContaining("within PT0.3S");
        }
    }

    @Test
    void resolvesNamesOnlyThroughThePluggableResolver() throws Exception {
        assertThatThrownBy(() -> FETCHER.fetch("http://example.invalid/")).isInstanceOf(UnknownHostException.class)
                .hasMessageContaining("not an IPv4 address literal");
        try (CannedServer server = new CannedServer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")) {
            HttpFetcher named = new HttpFetcher(JdkStreams.connector(5000),
                    HostResolver.fixed(Map.of("server.test", InetAddress.getLoopbackAddress())), null);
            FetchResult result = named.fetch("http://Server.Test:" + server.socket.getLocalPort() + "/");
            assertThat(result.status()).isEqualTo(200);
            assertThat(server.request.get(5, TimeUnit.SECONDS)).contains("Host: server.test:" + server.socket.getLocalPort());
        }
    }

    @Test
    void badUrlsAreRejectedBeforeConnecting() {
        assertThatThrownBy(() -> FETCHER.fetch("https://10.0.0.1/")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("https is not supported");
        assertThatThrownBy(() -> FETCHER.fetch("10.0.0.1/x")).isInstanceOf(IllegalArgumentException.class);
    }
}
