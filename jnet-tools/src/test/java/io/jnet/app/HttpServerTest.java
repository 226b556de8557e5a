package io.jnet.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(30)
class HttpServerTest {

    private HttpServer server;
    private int port;

    @BeforeEach
    void start() throws IOException {
        JdkStreams.Acceptor acceptor = JdkStreams.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        port = acceptor.localAddress().getPort();
        server = HttpServer.start(acceptor);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    static byte[] randomBytes(int n, long seed) {
        byte[] data = new byte[n];
        new Random(seed).nextBytes(data);
        return data;
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static HttpClient client() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 1024 * 1024 + 7})
    void getBytesStreamsThePattern(long n) throws Exception {
        try (HttpClient client = client()) {
            var response = client.send(java.net.http.HttpRequest.newBuilder(uri("/bytes/" + n)).build(),
                    BodyHandlers.ofInputStream());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/octet-stream");
            assertThat(response.headers().firstValueAsLong("Content-Length")).hasValue(n);
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            long count = 0;
            byte[] buffer = new byte[8192];
            byte[] expected = new byte[8192];
            try (InputStream body = response.body()) {
                int r;
                while ((r = body.read(buffer)) >= 0) {
                    PatternBytes.fill(count, expected, 0, r);
                    assertThat(java.util.Arrays.equals(buffer, 0, r, expected, 0, r)).as("bytes at %d", count).isTrue();
                    digest.update(buffer, 0, r);
                    count += r;
                }
            }
            assertThat(count).isEqualTo(n);
            String received = HexFormat.of().formatHex(digest.digest());
            assertThat(received).isEqualTo(PatternBytes.sha256(n));
        }
    }

    @Test
    void putAndChunkedPostAnswerTheBodysSha256() throws Exception {
        byte[] data = randomBytes(3 * 1024 * 1024, 1);
        String expected = sha256(data) + "\n";
        try (HttpClient client = client()) {
            var put = client.send(java.net.http.HttpRequest.newBuilder(uri("/upload"))
                    .PUT(BodyPublishers.ofByteArray(data)).build(), BodyHandlers.ofString());
            assertThat(put.statusCode()).isEqualTo(200);
            assertThat(put.body()).isEqualTo(expected);

            // an InputStream publisher has no known length: the JDK client sends it chunked
            var chunked = client.send(java.net.http.HttpRequest.newBuilder(uri("/post"))
                    .POST(BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(data))).build(),
                    BodyHandlers.ofString());
            assertThat(chunked.statusCode()).isEqualTo(200);
            assertThat(chunked.body()).isEqualTo(expected);

            var expecting = client.send(java.net.http.HttpRequest.newBuilder(uri("/x")).expectContinue(true)
                    .PUT(BodyPublishers.ofByteArray(data)).build(), BodyHandlers.ofString());
            assertThat(expecting.statusCode()).isEqualTo(200);
            assertThat(expecting.body()).isEqualTo(expected);
        }
    }

    @Test
    void continueArrivesBeforeTheBodyIsSent() throws Exception {
        byte[] data = randomBytes(3 * 1024 * 1024, 2);
        try (RawHttp http = new RawHttp(port)) {
            http.send("PUT /file HTTP/1.1\r\nHost: test\r\nExpect: 100-continue\r\nContent-Length: "
                    + data.length + "\r\n\r\n");
            // nothing of the body has been sent; a server not sending 100 Continue would time this read out
            assertThat(http.readLine()).isEqualTo("HTTP/1.1 100 Continue");
            assertThat(http.readLine()).isEmpty();
            http.send(data);
            RawHttp.Response response = http.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.text()).isEqualTo(sha256(data) + "\n");
            assertThat(response.header("Connection")).isNull();

            // the connection stays usable
            http.send("GET /bytes/5 HTTP/1.1\r\nHost: test\r\n\r\n");
            RawHttp.Response next = http.read();
            assertThat(next.status()).isEqualTo(200);
            assertThat(next.body()).hasSize(5);
        }
    }

    @Test
    void continueIsNotSentForARequestWhoseBodyIsNotWanted() throws Exception {
        try (RawHttp http = new RawHttp(port)) {
            http.send("GET /missing HTTP/1.1\r\nHost: test\r\nExpect: 100-continue\r\nContent-Length: 100000\r\n\r\n");
            RawHttp.Response response = http.read();
            assertThat(response.status()).isEqualTo(404);
            assertThat(response.header("Connection")).isEqualTo("close");
            assertThat(http.isClosedByServer()).isTrue();
        }
    }

    @Test
    void chunkedBodyWithExtensionsAndTrailers() throws Exception {
        try (RawHttp http = new RawHttp(port)) {
            http.send("POST /x HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nX-Checksum: none\r\n\r\n");
            RawHttp.Response response = http.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.text()).isEqualTo(sha256("hello world".getBytes(StandardCharsets.US_ASCII)) + "\n");
            http.send("POST /empty HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
            assertThat(http.read().text()).isEqualTo(PatternBytes.sha256(0) + "\n");
        }
    }

    @Test
    void keepAliveServesSeveralRequestsOnOneConnection() throws Exception {
        try (RawHttp http = new RawHttp(port)) {
            http.send("GET /bytes/10 HTTP/1.1\r\nHost: test\r\n\r\n");
            RawHttp.Response first = http.read();
            http.send("GET / HTTP/1.1\r\nHost: test\r\n\r\n");
            RawHttp.Response second = http.read();
            assertThat(first.status()).isEqualTo(200);
            assertThat(first.body()).hasSize(10);
            assertThat(second.status()).isEqualTo(200);
            assertThat(second.text()).contains("/bytes/N");
            assertThat(second.header("Content-Type")).startsWith("text/plain");
            assertThat(second.header("Date")).endsWith("GMT");

            // pipelined: two requests in one write, answered in order; the last asks to close
            http.send("PUT /a HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\n\r\nabc"
                    + "GET /bytes/3 HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
            RawHttp.Response put = http.read();
            RawHttp.Response last = http.read();
            assertThat(put.text()).isEqualTo(sha256("abc".getBytes(StandardCharsets.US_ASCII)) + "\n");
            assertThat(last.body()).hasSize(3);
            assertThat(last.header("Connection")).isEqualTo("close");
            assertThat(http.isClosedByServer()).isTrue();
        }
        assertThat(server.server().acceptedConnections()).isEqualTo(1);
        assertThat(server.requests()).isEqualTo(4);
    }

    @Test
    void http10ClosesAfterOneResponse() throws Exception {
        try (RawHttp http = new RawHttp(port)) {
            http.send("GET /bytes/4 HTTP/1.0\r\n\r\n");
            RawHttp.Response response = http.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.statusLine()).startsWith("HTTP/1.1 200");
            assertThat(response.header("Connection")).isEqualTo("close");
            assertThat(http.isClosedByServer()).isTrue();
        }
    }

    @Test
    void headSendsTheHeadWithoutTheBody() throws Exception {
        try (RawHttp http = new RawHttp(port)) {
            http.send("HEAD /bytes/100000 HTTP/1.1\r\nHost: test\r\n\r\n");
            RawHttp.Response head = http.read(true);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("Content-Length")).isEqualTo("100000");
            // had any body bytes been sent, this response would not parse
            http.send("GET /bytes/2 HTTP/1.1\r\nHost: test\r\n\r\n");
            RawHttp.Response next = http.read();
            assertThat(next.statusLine()).isEqualTo("HTTP/1.1 200 OK");
            assertThat(next.body()).containsExactly(PatternBytes.byteAt(0), PatternBytes.byteAt(1));
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "GARBAGE                                                                       | 400",
        "GET / HTTP/1.1\\r\\n                                                            | 400",
        "GET  / HTTP/1.1\\r\\nHost: a\\r\\n                                              | 400",
        "GET / HTTP/1.1\\r\\nHost: a\\r\\nHost: b\\r\\n                                  | 400",
        "GET / HTTX/1.1\\r\\nHost: a\\r\\n                                               | 400",
        "GET / HTTP/2.0\\r\\nHost: a\\r\\n                                               | 505",
        "GET / HTTP/1.1\\r\\nHost: a\\r\\nNo colon here\\r\\n                            | 400",
        "GET / HTTP/1.1\\r\\nHost: a\\r\\nName : v\\r\\n                                 | 400",
        "GET / HTTP/1.1\\r\\nHost: a\\r\\nX: 1\\r\\n  folded\\r\\n                         | 400",
        "GET / HTTP/1.1\\r\\nHost: a\\rX: 1\\r\\n                                        | 400",
        "POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: abc\\r\\n                     | 400",
        "POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 1, 2\\r\\n                    | 400",
        "POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 3\\r\\nTransfer-Encoding: chunked\\r\\n | 400",
        "POST / HTTP/1.1\\r\\nHost: a\\r\\nTransfer-Encoding: gzip, chunked\\r\\n        | 501",
        "POST / HTTP/1.1\\r\\nHost: a\\r\\nTransfer-Encoding: chunked, chunked\\r\\n     | 400",
        "POST / HTTP/1.0\\r\\nTransfer-Encoding: chunked\\r\\n                           | 400",
        "POST / HTTP/1.1\\r\\nHost: a\\r\\nExpect: magic\\r\\nContent-Length: 1\\r\\n   | 417",
    })
    void malformedRequestsAreRejectedAndTheConnectionClosed(String head, int status) throws Exception {
        String request = head.strip().replace("\\r", "\r").replace("\\n", "\n") + "\r\n";
        try (RawHttp http = new RawHttp(port)) {
            http.send(request);
            RawHttp.Response response = http.read();
            assertThat(response.status()).isEqualTo(status);
            assertThat(response.header("Connection")).isEqualTo("close");
            assertThat(http.isClosedByServer()).isTrue();
        }
    }

    @Test
    void badChunkFramingIsRejected() throws Exception {
        try (RawHttp http = new RawHttp(port)) {
            http.send("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXX\r\n0\r\n\r\n");
            RawHttp.Response response = http.read();
            assertThat(response.status()).isEqualTo(400);
            assertThat(http.isClosedByServer()).isTrue();
        }
        try (RawHttp http = new RawHttp(port)) {
            http.send("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
            assertThat(http.read().status()).isEqualTo(400);
        }
        assertThat(server.protocolErrors()).isEqualTo(2);
    }

    @Test
    void oversizedHeadsAreRejected() throws Exception {
        try (RawHttp http = new RawHttp(port)) {
            http.send("GET /" + "a".repeat(9000) + " HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(http.read().status()).isEqualTo(414);
            assertThat(http.isClosedByServer()).isTrue();
        }
        try (RawHttp http = new RawHttp(port)) {
            http.send("GET / HTTP/1.1\r\nHost: a\r\nX-Long: " + "b".repeat(9000) + "\r\n\r\n");
            assertThat(http.read().status()).isEqualTo(431);
        }
        try (RawHttp http = new RawHttp(port)) {
            StringBuilder many = new StringBuilder("GET / HTTP/1.1\r\nHost: a\r\n");
            for (int i = 0; i < 100; i++) {
                many.append("X-").append(i).append(": v\r\n");
            }
            http.send(many.append("\r\n").toString());
            assertThat(http.read().status()).isEqualTo(431);
        }
        // exactly at the limits is fine: a request line of 8192 bytes and 100 fields
        try (RawHttp http = new RawHttp(port)) {
            String target = "/" + "c".repeat(8192 - "GET / HTTP/1.1".length());
            StringBuilder head = new StringBuilder("GET " + target + " HTTP/1.1\r\nHost: a\r\n");
            for (int i = 0; i < 99; i++) {
                head.append("X-").append(i).append(": v\r\n");
            }
            http.send(head.append("\r\n").toString());
            assertThat(http.read().status()).isEqualTo(404);
        }
    }

    @ParameterizedTest
    @CsvSource({
        "GET, /bytes/abc, 400",
        "GET, /bytes/-1, 400",
        "GET, /bytes/, 400",
        "GET, /bytes/1099511627777, 400",
        "GET, /bytes/99999999999999999999999, 400",
        "GET, /nothing, 404",
        "DELETE, /bytes/1, 405",
        "OPTIONS, /, 405",
        "BREW, /pot, 501",
    })
    void routeErrorsKeepTheConnection(String method, String path, int status) throws Exception {
        try (RawHttp http = new RawHttp(port)) {
            http.send(method + " " + path + " HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response response = http.read();
            assertThat(response.status()).isEqualTo(status);
            if (status == 405) {
                assertThat(response.header("Allow")).isEqualTo("GET, HEAD, PUT, POST");
            }
            http.send("GET /bytes/1 HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(http.read().status()).isEqualTo(200);
        }
    }

    @Test
    void largestCountIsAcceptedAndAbsoluteFormTargetsWork() throws Exception {
        try (RawHttp http = new RawHttp(port)) {
            http.send("HEAD /bytes/1099511627776 HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response head = http.read(true);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("Content-Length")).isEqualTo("1099511627776");
            http.send("GET http://a/bytes/3?x=1 HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(http.read().body()).hasSize(3);
        }
    }

    @Test
    void tolerantOfBareLineFeedsAndLeadingEmptyLines() throws Exception {
        try (RawHttp http = new RawHttp(port)) {
            http.send("\r\nGET /bytes/2 HTTP/1.1\nHost: a\n\n");
            assertThat(http.read().body()).hasSize(2);
        }
    }

    @Test
    void clientDisappearingMidBodyDoesNotHurtTheServer() throws Exception {
        try (RawHttp http = new RawHttp(port)) {
            http.send("PUT /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000\r\n\r\n" + "z".repeat(1000));
        }
        try (RawHttp http = new RawHttp(port)) {
            http.send("GET /bytes/1 HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(http.read().status()).isEqualTo(200);
        }
    }
}
