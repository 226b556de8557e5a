package io.jnet.nio.programs;

import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.CountDownLatch;

/**
 * A plain JDK HttpServer on 0.0.0.0:PORT, nothing of jnet in it: {@code GET /blob} sends SIZE bytes of a fixed
 * pattern ({@link #patternByte}), {@code POST /sha256} answers the SHA-256 of the body in hex, {@code GET /quit}
 * stops it. Prints "listening" once it accepts.
 */
public final class JdkHttpServerProgram {
    private JdkHttpServerProgram() {}

    /** The byte at {@code offset} of the blob. */
    public static byte patternByte(long offset) { return (byte) (offset * 131 + (offset >>> 13)); }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        long size = Long.parseLong(args[1]);
        CountDownLatch quit = new CountDownLatch(1);
        HttpServer s = HttpServer.create(new InetSocketAddress(port), 0);
        s.createContext("/blob", ex -> {
            ex.sendResponseHeaders(200, size);
            byte[] buf = new byte[65536];
            try (OutputStream o = ex.getResponseBody()) {
                for (long off = 0; off < size; ) {
                    int n = (int) Math.min(buf.length, size - off);
                    for (int i = 0; i < n; i++) buf[i] = patternByte(off + i);
                    o.write(buf, 0, n);
                    off += n;
                }
            }
        });
        s.createContext("/sha256", ex -> {
            try {
                MessageDigest md = MessageDigest.getInstance("SHA-256");
                byte[] buf = new byte[65536];
                try (InputStream in = ex.getRequestBody()) {
                    for (int n; (n = in.read(buf)) > 0; ) md.update(buf, 0, n);
                }
                byte[] hex = HexFormat.of().formatHex(md.digest()).getBytes();
                ex.sendResponseHeaders(200, hex.length);
                try (OutputStream o = ex.getResponseBody()) { o.write(hex); }
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        });
        s.createContext("/quit", ex -> {
            ex.sendResponseHeaders(200, -1);
            ex.close();
            quit.countDown();
        });
        s.start();
        System.out.println("listening");
        System.out.flush();
        quit.await();
        s.stop(0);
    }
}
