package io.jnet.suite;

import io.jnet.socket.TcpSocket;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.function.BooleanSupplier;

/** Blocking read and write loops for the suite's tests. */
final class SocketIo {
    private SocketIo() {}

    /** Reads exactly {@code n} bytes; EOFException when the stream ends first. */
    static byte[] readExactly(TcpSocket s, int n) throws IOException {
        byte[] b = new byte[n];
        int got = 0;
        while (got < n) {
            int r = s.read(b, got, n - got);
            if (r < 0) throw new EOFException("end of stream after " + got + " of " + n + " bytes");
            got += r;
        }
        return b;
    }

    /** Reads until end of stream. */
    static byte[] readToEnd(TcpSocket s) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] b = new byte[65536];
        int r;
        while ((r = s.read(b, 0, b.length)) >= 0) out.write(b, 0, r);
        return out.toByteArray();
    }

    /** Writes {@code data} in calls of at most {@code chunk} bytes. */
    static void writeInChunks(TcpSocket s, byte[] data, int chunk) throws IOException {
        for (int off = 0; off < data.length; off += chunk) {
            int n = Math.min(chunk, data.length - off);
            int w = s.write(data, off, n);
            if (w != n) throw new IOException("blocking write returned " + w + " of " + n);
        }
    }

    /** Polls {@code condition} every millisecond for up to {@code timeoutMs}; true when it held. */
    static boolean await(BooleanSupplier condition, long timeoutMs) throws InterruptedException {
        long end = System.nanoTime() + timeoutMs * 1_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) return false;
            Thread.sleep(1);
        }
        return true;
    }
}
