package io.jnet.lossy;

import io.jnet.socket.TcpSocket;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;

/**
 * One direction of a transfer between two non-blocking sockets: writes {@code size} seeded random bytes
 * in writes of {@code writeSize} bytes, then shuts the writer's output; reads the other socket to end of
 * stream and checks the byte count and SHA-256 against the data written.
 */
final class StreamPump {
    private final TcpSocket from;
    private final TcpSocket to;
    private final byte[] data;
    private final int writeSize;
    private final MessageDigest received = sha256();
    private final byte[] buf = new byte[64 << 10];
    private long written;
    private long read;
    private boolean shut;
    private boolean eof;

    /**
     * @param from the writing socket (non-blocking)
     * @param to the reading socket (non-blocking)
     * @param size bytes to send, at most {@link Integer#MAX_VALUE}
     * @param writeSize bytes per write call, at least 1
     * @param seed seed of the data
     */
    StreamPump(TcpSocket from, TcpSocket to, long size, int writeSize, long seed) {
        this.from = from;
        this.to = to;
        this.data = data(size, seed);
        this.writeSize = writeSize;
    }

    /** {@code size} bytes from a random generator seeded with {@code seed}. */
    static byte[] data(long size, long seed) {
        byte[] d = new byte[Math.toIntExact(size)];
        new SplittableRandom(seed).nextBytes(d);
        return d;
    }

    /**
     * Writes what the send buffer takes and reads what has arrived, without blocking.
     *
     * @return true when a byte moved, the output was shut or the end of stream was seen
     * @throws AssertionError at end of stream when the bytes received differ from those sent
     */
    boolean step() throws IOException {
        boolean moved = false;
        while (written < data.length) {
            int n = from.write(data, (int) written, (int) Math.min(writeSize, data.length - written));
            if (n <= 0) break;
            written += n;
            moved = true;
            if (writeSize > 1) break; // one large write per step; 1-byte writes fill the buffer like a tight loop
        }
        if (written == data.length && !shut) {
            from.shutdownOutput();
            shut = true;
            moved = true;
        }
        while (!eof) {
            int n = to.read(buf, 0, buf.length);
            if (n < 0) {
                eof = true;
                check();
                moved = true;
            } else if (n > 0) {
                received.update(buf, 0, n);
                read += n;
                moved = true;
            } else {
                break;
            }
        }
        return moved;
    }

    private void check() {
        if (read != data.length) throw new AssertionError("end of stream after " + read + " of " + data.length + " bytes");
        byte[] got = received.digest();
        byte[] want = sha256().digest(data);
        if (!Arrays.equals(got, want)) {
            throw new AssertionError("SHA-256 of the " + read + " bytes received " + HexFormat.of().formatHex(got)
                    + " differs from that of the bytes sent " + HexFormat.of().formatHex(want));
        }
    }

    boolean done() { return eof; }

    long written() { return written; }

    long read() { return read; }

    @Override
    public String toString() {
        return "written " + written + (shut ? " + FIN" : "") + ", read " + read + (eof ? " + EOF" : "") + " of " + data.length;
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
