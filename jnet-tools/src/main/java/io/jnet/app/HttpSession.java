package io.jnet.app;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/**
 * Serves the HTTP/1.1 requests of one connection in order (RFC 9112 section 9): persistent by default
 * in HTTP/1.1, closed after the response when the request says {@code Connection: close}, when it is
 * HTTP/1.0, after a protocol error, or when a request body was left unread. Pipelined requests are
 * answered in order.
 *
 * <p>Closing is "lingering" (RFC 9112 section 9.6): the server half-closes, then reads and discards
 * what the client still sends (up to 1 MiB, for up to 2 s) before closing, so that unread request bytes
 * do not make the transport reset the connection before the client has read the response.
 */
final class HttpSession {

    private static final int BUFFER_BYTES = 64 * 1024;
    private static final long LINGER_BYTES = 1 << 20;
    private static final Duration LINGER_TIME = Duration.ofSeconds(2);
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);

    private final StreamConnection connection;
    private final HttpLimits limits;
    private final HttpServer.Counters counters;
    private final HttpRequestParser parser;
    private final HttpRoutes routes = new HttpRoutes();

    HttpSession(StreamConnection connection, HttpLimits limits, HttpServer.Counters counters) {
        this.connection = connection;
        this.limits = limits;
        this.counters = counters;
        this.parser = new HttpRequestParser(limits);
    }

    /** Serves requests until the connection is to close; IOExceptions mean the transport failed. */
    void run() throws IOException {
        HttpInput in = new HttpInput(connection.in(), BUFFER_BYTES);
        OutputStream out = new BufferedOutputStream(connection.out(), BUFFER_BYTES);
        boolean keepAlive = true;
        while (keepAlive) {
            HttpRequest request;
            try {
                request = parser.read(in);
            } catch (HttpProtocolException e) {
                counters.protocolErrors.increment();
                writeResponse(out, HttpResponse.error(e.status(), e.getMessage()), false, false);
                out.flush();
                break;
            }
            if (request == null) {
                break;
            }
            counters.requests.increment();
            keepAlive = serve(request, in, out);
            out.flush();
        }
        lingeringClose(in);
    }

    /** Answers one request; returns whether the connection stays open. */
    private boolean serve(HttpRequest request, HttpInput in, OutputStream out) throws IOException {
        HttpHeaders headers = request.headers();
        boolean keepAlive = request.minorVersion() >= 1 && !headers.tokens("Connection").contains("close");
        boolean head = request.method().equals("HEAD");

        boolean expectContinue = false;
        if (headers.contains("Expect") && request.minorVersion() >= 1) {
            // RFC 9110 section 10.1.1: 100-continue is the only expectation; HTTP/1.0 requests' are ignored
            if (!headers.tokens("Expect").equals(java.util.List.of("100-continue"))) {
                counters.protocolErrors.increment();
                writeResponse(out, HttpResponse.error(417, "only Expect: 100-continue is supported"), false, head);
                return false;
            }
            expectContinue = true;
        }

        RequestBody body;
        HttpResponse response;
        try {
            body = RequestBody.of(request, in, limits, expectContinue, out);
            response = routes.handle(request, body);
        } catch (HttpProtocolException e) {
            counters.protocolErrors.increment();
            writeResponse(out, HttpResponse.error(e.status(), e.getMessage()), false, head);
            return false;
        }
        if (!body.isFullyRead()) {
            // an unread body (or one the client holds back awaiting 100 Continue) ends the connection
            keepAlive = false;
        }
        writeResponse(out, response, keepAlive, head);
        return keepAlive;
    }

    private void writeResponse(OutputStream out, HttpResponse response, boolean keepAlive, boolean head)
            throws IOException {
        counters.countStatus(response.status());
        StringBuilder sb = new StringBuilder(256);
        sb.append("HTTP/1.1 ").append(response.status()).append(' ').append(HttpStatus.reason(response.status()))
                .append("\r\n");
        sb.append("Date: ").append(IMF_FIXDATE.format(ZonedDateTime.now(ZoneOffset.UTC))).append("\r\n");
        sb.append("Server: jnet\r\n");
        sb.append("Content-Type: ").append(response.contentType()).append("\r\n");
        sb.append("Content-Length: ").append(response.contentLength()).append("\r\n");
        for (Map.Entry<String, String> field : response.extraHeaders()) {
            sb.append(field.getKey()).append(": ").append(field.getValue()).append("\r\n");
        }
        if (!keepAlive) {
            sb.append("Connection: close\r\n");
        }
        sb.append("\r\n");
        out.write(sb.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (!head && response.contentLength() > 0) {
            response.body().writeTo(out);
        }
    }

    private void lingeringClose(InputStream in) {
        try {
            connection.shutdownOutput();
        } catch (IOException e) {
            return;
        }
        CloseTimer timer = CloseTimer.start(connection, LINGER_TIME);
        try {
            byte[] discard = new byte[BUFFER_BYTES];
            long total = 0;
            int n;
            while (total < LINGER_BYTES && (n = in.read(discard)) >= 0) {
                total += n;
            }
        } catch (IOException e) {
            // the client reset or the linger time passed: either way the connection is done
        } finally {
            timer.close();
        }
    }
}
