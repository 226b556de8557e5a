package io.jnet.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * jnet serve's routes on the JDK's server, over the host's TCP (this JVM's provider is the kernel's; the routes do
 * not depend on the network), asked by the JDK's client.
 */
@Timeout(60)
class HttpServiceTest {

    private HttpService server;
    private HttpClient client;
    private String base;

    @BeforeEach
    void start() throws Exception {
        server = HttpService.start(null, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        base = "http://127.0.0.1:" + server.address().getPort();
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
        server.close(); // idempotent
    }

    private HttpResponse<byte[]> send(String method, String path, HttpRequest.BodyPublisher body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(base + path)).method(method, body).build(),
                BodyHandlers.ofByteArray());
    }

    private HttpResponse<byte[]> send(String method, String path) throws Exception {
        return send(method, path, HttpRequest.BodyPublishers.noBody());
    }

    @Test
    void bytesGivesThePatternWithItsLength() throws Exception {
        HttpResponse<byte[]> r = send("GET", "/bytes/100000");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Length")).hasValue("100000");
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/octet-stream");
        assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(r.body())))
                .isEqualTo(PatternBytes.sha256(100000));
        HttpResponse<byte[]> empty = send("GET", "/bytes/0");
        assertThat(empty.statusCode()).isEqualTo(200);
        assertThat(empty.body()).isEmpty();
        assertThat(empty.headers().firstValue("Content-Length")).hasValue("0");
    }

    @Test
    void headGivesTheHeadOfAGet() throws Exception {
        HttpResponse<byte[]> r = send("HEAD", "/bytes/12345");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Length")).hasValue("12345");
        assertThat(r.body()).isEmpty();
    }

    @Test
    void putAndPostAnswerTheBodysSha256() throws Exception {
        byte[] data = new byte[3 * 1024 * 1024 + 7];
        new Random(5).nextBytes(data);
        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data)) + "\n";
        HttpResponse<byte[]> put = send("PUT", "/x", HttpRequest.BodyPublishers.ofByteArray(data));
        assertThat(put.statusCode()).isEqualTo(200);
        assertThat(new String(put.body())).isEqualTo(expected);
        // no length known: the client sends it chunked
        HttpResponse<byte[]> post = send("POST", "/y", HttpRequest.BodyPublishers.ofInputStream(
                () -> new java.io.ByteArrayInputStream(data)));
        assertThat(new String(post.body())).isEqualTo(expected);
    }

    @Test
    void errorsForBadCountsPathsAndMethods() throws Exception {
        assertThat(send("GET", "/bytes/12x").statusCode()).isEqualTo(400);
        assertThat(send("GET", "/bytes/" + ((1L << 40) + 1)).statusCode()).isEqualTo(400);
        HttpResponse<byte[]> missing = send("GET", "/nothing");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(new String(missing.body())).isEqualTo("404 Not Found: no resource at /nothing\n");
        HttpResponse<byte[]> delete = send("DELETE", "/x");
        assertThat(delete.statusCode()).isEqualTo(405);
        assertThat(delete.headers().firstValue("Allow")).hasValue("GET, HEAD, PUT, POST");
        assertThat(send("BREW", "/x").statusCode()).isEqualTo(501);
        assertThat(new String(send("GET", "/").body())).contains("GET  /bytes/N");
        assertThat(server.requests()).isEqualTo(6);
        assertThat(server.responses(4)).isEqualTo(4);
        assertThat(server.responses(5)).isEqualTo(1);
        assertThat(server.responses(2)).isEqualTo(1);
    }
}
