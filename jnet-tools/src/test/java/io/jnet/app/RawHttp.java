package io.jnet.app;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A hand-driven HTTP/1.1 client over a JDK socket, for byte-exact protocol tests. */
final class RawHttp implements AutoCloseable {

    record Response(int status, String statusLine, Map<String, String> headers, byte[] body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    final Socket socket;
    final InputStream in;
    final OutputStream out;

    RawHttp(int port) throws IOException {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(10_000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    RawHttp send(String text) throws IOException {
        return send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    RawHttp send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Reads one CRLF-terminated line (without the CRLF). */
    String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new EOFException("end of stream after '" + line + "'");
            }
            line.write(c);
        }
        String s = line.toString(StandardCharsets.ISO_8859_1);
        if (!s.endsWith("\r")) {
            throw new IOException("line not ended by CRLF: " + s);
        }
        return s.substring(0, s.length() - 1);
    }

    /** Reads one response; the body by Content-Length (this server always sends one) unless {@code head}. */
    Response read(boolean head) throws IOException {
        String statusLine = readLine();
        Map<String, String> headers = new LinkedHashMap<>();
        String line;
        while (!(line = readLine()).isEmpty()) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).toLowerCase(Locale.ROOT), line.substring(colon + 1).strip());
        }
        int status = Integer.parseInt(statusLine.substring(9, 12));
        byte[] body = new byte[0];
        if (!head && status >= 200) {
            String length = headers.get("content-length");
            if (length == null) {
                throw new IOException("response without Content-Length: " + statusLine);
            }
            body = in.readNBytes(Integer.parseInt(length));
        }
        return new Response(status, statusLine, headers, body);
    }

    Response read() throws IOException {
        return read(false);
    }

    /** Whether the server has closed: end of stream (or a reset) on the next read. */
    boolean isClosedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketException reset) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
