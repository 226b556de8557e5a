package io.jnet.perf;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/** Full reads and writes on a {@link PerfConnection}: the loops netperf's send/recv calls run in. */
final class IoLoops {
    private IoLoops() {}

    /** Writes all remaining bytes of {@code buf}. */
    static void writeFully(PerfConnection c, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            c.write(buf);
        }
    }

    /**
     * Reads until {@code buf} is full.
     *
     * @return true when full; false when the stream ended before the first byte (a clean end)
     * @throws EOFException if the stream ends after some but not all bytes
     */
    static boolean readFully(PerfConnection c, ByteBuffer buf) throws IOException {
        int start = buf.position();
        while (buf.hasRemaining()) {
            int n = c.read(buf);
            if (n < 0) {
                if (buf.position() == start) return false;
                throw new EOFException("connection closed after " + (buf.position() - start) + " of "
                        + (buf.limit() - start) + " bytes");
            }
        }
        return true;
    }

    /** Reads and discards until end of stream; returns the number of bytes discarded. */
    static long drain(PerfConnection c, ByteBuffer scratch) throws IOException {
        long total = 0;
        while (true) {
            scratch.clear();
            int n = c.read(scratch);
            if (n < 0) return total;
            total += n;
        }
    }

    /** A direct buffer of {@code size} bytes filled with a repeating pattern (netperf sends its fill pattern, not zeros). */
    static ByteBuffer patterned(int size) {
        ByteBuffer b = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) b.put((byte) ('a' + i % 26));
        return b.flip();
    }
}
