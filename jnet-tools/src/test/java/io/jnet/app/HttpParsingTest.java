package io.jnet.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Message parsing with input arriving in the smallest pieces and with small buffers. */
class HttpParsingTest {

    /** Delivers at most one byte per read, like a peer sending tiny segments. */
    static InputStream trickle(String text) {
        ByteArrayInputStream bytes = new ByteArrayInputStream(text.getBytes(StandardCharsets.ISO_8859_1));
        return new InputStream() {
            @Override
            public int read() {
                return bytes.read();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                return len == 0 ? 0 : bytes.read(b, off, 1);
            }
        };
    }

    @Test
    void linesSpanningReadsAndBuffers() throws IOException {
        HttpInput in = new HttpInput(trickle("first line\r\nsecond\n\r\nthird without end"), 4);
        assertThat(in.readLine(100, 400)).isEqualTo("first line");
        assertThat(in.readLine(100, 400)).isEqualTo("second");
        assertThat(in.readLine(100, 400)).isEmpty();
        assertThatThrownBy(() -> in.readLine(100, 400)).isInstanceOf(EOFException.class);
        assertThat(new HttpInput(trickle(""), 4).readLine(100, 400)).isNull();
    }

    @Test
    void lineLimitCountsBytesWithoutTheLineEnd() throws IOException {
        String exact = "x".repeat(64);
        assertThat(new HttpInput(trickle(exact + "\r\n"), 16).readLine(64, 414)).isEqualTo(exact);
        assertThat(new HttpInput(trickle(exact + "\n"), 16).readLine(64, 414)).isEqualTo(exact);
        assertThatThrownBy(() -> new HttpInput(trickle(exact + "y\r\n"), 16).readLine(64, 414))
                .isInstanceOfSatisfying(HttpProtocolException.class, e -> assertThat(e.status()).isEqualTo(414));
        assertThatThrownBy(() -> new HttpInput(trickle("a\rb\r\n"), 16).readLine(64, 414))
                .isInstanceOfSatisfying(HttpProtocolException.class, e -> assertThat(e.status()).isEqualTo(400));
    }

    @Test
    void chunkedDecodingLeavesTheNextMessageInPlace() throws IOException {
        HttpInput in = new HttpInput(trickle("a\r\n0123456789\r\n1;e=\"q\"\r\nX\r\n0\r\nT: 1\r\nU: 2\r\n\r\nNEXT\r\n"), 8);
        ChunkedInputStream body = new ChunkedInputStream(in, HttpLimits.DEFAULT);
        assertThat(new String(body.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("0123456789X");
        assertThat(body.isDone()).isTrue();
        assertThat(body.trailers().first("u")).isEqualTo("2");
        assertThat(body.read()).isEqualTo(-1);
        assertThat(in.readLine(100, 400)).isEqualTo("NEXT");
    }

    @Test
    void chunkSizes() throws HttpProtocolException {
        assertThat(ChunkedInputStream.parseSize("fF")).isEqualTo(255);
        assertThat(ChunkedInputStream.parseSize("0010 ; ext")).isEqualTo(16);
        for (String bad : List.of("", ";x", "-1", "0x10", "g", "1 0", "10000000000000000")) {
            assertThatThrownBy(() -> ChunkedInputStream.parseSize(bad)).as(bad).isInstanceOf(HttpProtocolException.class);
        }
    }

    @Test
    void truncatedBodiesAreEofErrors() {
        HttpInput chunked = new HttpInput(trickle("5\r\nab"), 8);
        assertThatThrownBy(() -> new ChunkedInputStream(chunked, HttpLimits.DEFAULT).readAllBytes())
                .isInstanceOf(EOFException.class);
        FixedLengthInputStream fixed = new FixedLengthInputStream(trickle("abc"), 5);
        assertThatThrownBy(fixed::readAllBytes).isInstanceOf(EOFException.class).hasMessageContaining("3 of 5");
    }

    @Test
    void headerTokensAndCaseInsensitiveNames() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("Connection", "Keep-Alive, ,Upgrade");
        headers.add("connection", "CLOSE");
        assertThat(headers.tokens("CONNECTION")).containsExactly("keep-alive", "upgrade", "close");
        assertThat(headers.first("cOnNeCtIoN")).isEqualTo("Keep-Alive, ,Upgrade");
        assertThat(headers.all("x")).isEmpty();
    }

    @Test
    void requestTargets() throws HttpProtocolException {
        assertThat(HttpRequestParser.pathOf("/a/b?c#d")).isEqualTo("/a/b");
        assertThat(HttpRequestParser.pathOf("http://h:1/x?y")).isEqualTo("/x");
        assertThat(HttpRequestParser.pathOf("http://h:1?y")).isEqualTo("/");
        assertThat(HttpRequestParser.pathOf("*")).isEqualTo("*");
        assertThatThrownBy(() -> HttpRequestParser.pathOf("relative")).isInstanceOf(HttpProtocolException.class);
        assertThat(HttpRequestParser.parseVersion("HTTP/1.9")).isEqualTo(1);
        assertThat(HttpRequestParser.parseVersion("HTTP/1.0")).isZero();
    }

    @Test
    void aSessionFedOneByteAtATimeAnswersPipelinedRequestsInOrder() throws IOException {
        String requests = "GET /bytes/3 HTTP/1.1\r\nHost: a\r\n\r\n"
                + "POST /p HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
                + "PUT /p HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\nabc"
                + "GET /missing HTTP/1.1\r\nHost: a\r\n\r\n";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StreamConnection connection = new StreamConnection() {
            final InputStream in = trickle(requests);

            @Override
            public InputStream in() {
                return in;
            }

            @Override
            public OutputStream out() {
                return out;
            }

            @Override
            public void shutdownOutput() {}

            @Override
            public String peer() {
                return "memory";
            }

            @Override
            public void close() {}
        };
        HttpServer.Counters counters = new HttpServer.Counters();
        new HttpSession(connection, HttpLimits.DEFAULT, counters).run();

        String written = out.toString(StandardCharsets.ISO_8859_1);
        Matcher statusLines = Pattern.compile("HTTP/1\\.1 (\\d{3}) ").matcher(written);
        List<String> statuses = statusLines.results().map(m -> m.group(1)).toList();
        assertThat(statuses).containsExactly("200", "200", "100", "200", "404");
        String abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n";
        assertThat(written.split(abc, -1)).hasSize(3);
        assertThat(counters.requests.sum()).isEqualTo(4);
        assertThat(counters.statusClasses[2].sum()).isEqualTo(3);
        assertThat(counters.statusClasses[4].sum()).isEqualTo(1);
    }
}
