package io.jnet.perf;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * TCP_SENDFILE: TCP_STREAM with the data sender (the client) calling sendfile(2) on a file instead of
 * send(2) on a buffer ({@link PerfConnection#transferFrom}). As netperf does without {@code -F}, the file is
 * a temporary one of {@code width} slots of {@code -m} bytes, each filled like a send buffer, where width
 * is netperf's send ring width: SO_SNDBUF / {@code -m} + 1, at least 2 (capped so that the file stays
 * within {@value #MAX_FILE_BYTES} bytes). Each call sends the next slot, wrapping at the end of the file, for
 * {@code -l} seconds; then the sender shuts down its output and waits for the receiver's close. The
 * receiver reads {@code -M} bytes per call until end of stream, as in TCP_STREAM. Throughput is bytes
 * received over the time from the start until the receiver has read everything; the run fails if the
 * receiver did not get exactly the bytes sent. The file is deleted when the run ends.
 */
final class SendfileTest implements PerfTest {

    /** The largest send ring file, in bytes. */
    static final long MAX_FILE_BYTES = 256L << 20;

    /** One side's result: payload bytes moved and its socket sizes. */
    private record Side(long bytes, long elapsedNanos, int sendBuf, int recvBuf) {}

    @Override
    public RunResult run(PerfPath path, TestSpec spec) throws PerfException {
        int size = spec.sendSize();
        long durationNanos = spec.duration().toNanos();
        PeerRun run = new PeerRun();
        PerfListener listener = run.track(PerfTest.listen(path, spec.remote()));
        PeerRun.Outcome<Side, Side> out = run.run(
                () -> {
                    PerfConnection c = run.track(listener.accept());
                    int snd = c.sendBufferSize();
                    int rcv = c.receiveBufferSize();
                    run.awaitStart(HANG_LIMIT);
                    long t0 = System.nanoTime();
                    long bytes = IoLoops.drain(c, ByteBuffer.allocateDirect(spec.recvSize()));
                    c.close();
                    return new Side(bytes, System.nanoTime() - t0, snd, rcv);
                },
                () -> {
                    PerfConnection c = run.track(path.connect(listener, spec.local()));
                    int snd = c.sendBufferSize();
                    int rcv = c.receiveBufferSize();
                    int width = ringWidth(snd, size);
                    FileChannel file = run.track(sendRing(size, width));
                    run.awaitStart(HANG_LIMIT);
                    long t0 = System.nanoTime();
                    long bytes = send(c, file, size, width, t0 + durationNanos);
                    return new Side(bytes, System.nanoTime() - t0, snd, rcv);
                },
                spec.duration().plus(HANG_LIMIT));
        Side sender = out.client();
        Side receiver = out.server();
        if (sender.bytes() != receiver.bytes()) {
            throw new PerfException(path.stack() + ": byte count mismatch: sent " + sender.bytes()
                    + ", received " + receiver.bytes());
        }
        SocketSizes sizes = new SocketSizes(out.client().sendBuf(), out.client().recvBuf(),
                out.server().sendBuf(), out.server().recvBuf());
        return new RunResult(spec.kind(), path.stack(), sender.elapsedNanos() / 1e9, sender.bytes(),
                receiver.bytes(), 0, null, sizes);
    }

    /**
     * netperf's send ring width for a socket send buffer of {@code sendBuf} bytes and messages of
     * {@code size} bytes: sendBuf / size + 1, at least 2, at most what fits {@link #MAX_FILE_BYTES} (at least 1).
     */
    static int ringWidth(int sendBuf, int size) {
        long width = Math.max(2, Math.max(0, sendBuf) / size + 1L);
        return (int) Math.max(1, Math.min(width, MAX_FILE_BYTES / size));
    }

    /** A temporary file of {@code width} slots of {@code size} bytes, each holding the fill pattern; deleted on close. */
    static FileChannel sendRing(int size, int width) throws IOException {
        Path p = Files.createTempFile("jnet-perf-sendfile", ".bin");
        FileChannel f;
        try {
            f = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    StandardOpenOption.DELETE_ON_CLOSE);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(p);
            throw e;
        }
        try {
            ByteBuffer slot = IoLoops.patterned(size);
            for (int i = 0; i < width; i++) {
                slot.clear();
                long at = (long) i * size;
                while (slot.hasRemaining()) at += f.write(slot, at);
            }
            return f;
        } catch (IOException | RuntimeException e) {
            f.close();
            throw e;
        }
    }

    /**
     * Sends the ring's slots in turn, one sendfile call per slot (looping over short transfers), until
     * {@code deadline}; then shuts down, waits for the peer's close and closes. Returns the bytes sent.
     */
    private static long send(PerfConnection c, FileChannel file, int size, int width, long deadlineNanos)
            throws IOException {
        long sent = 0;
        int slot = 0;
        do {
            long position = (long) slot * size;
            long left = size;
            while (left > 0) {
                long n = c.transferFrom(file, position, left);
                if (n <= 0) {
                    throw new EOFException("sendfile sent nothing from offset " + position + " of a "
                            + file.size() + "-byte file");
                }
                position += n;
                left -= n;
            }
            sent += size;
            if (++slot == width) slot = 0;
        } while (System.nanoTime() - deadlineNanos < 0);
        c.shutdownOutput();
        IoLoops.drain(c, ByteBuffer.allocateDirect(64));
        c.close();
        return sent;
    }
}
