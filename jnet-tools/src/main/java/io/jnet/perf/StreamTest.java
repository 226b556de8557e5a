package io.jnet.perf;

import java.nio.ByteBuffer;

/**
 * TCP_STREAM and TCP_MAERTS: one connection, the data sender writes {@code -m} bytes per call for
 * {@code -l} seconds then shuts down its output; the receiver reads {@code -M} bytes per call until end of
 * stream, then closes. In TCP_STREAM the client sends, in TCP_MAERTS the server does.
 *
 * <p>Elapsed time is measured by the client from the start barrier until the transfer is complete: the
 * STREAM client (sender) waits for the receiver's close, so data still queued counts; the MAERTS client
 * (receiver) stops at end of stream. Throughput is bytes received by the receiver. The run fails if the
 * receiver did not get exactly the bytes the sender wrote.
 */
final class StreamTest implements PerfTest {

    /** One side's result: payload bytes moved and its socket sizes. */
    private record Side(long bytes, long elapsedNanos, int sendBuf, int recvBuf) {}

    @Override
    public RunResult run(PerfPath path, TestSpec spec) throws PerfException {
        boolean clientSends = spec.kind() == TestKind.TCP_STREAM;
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
                    long bytes = clientSends ? receive(c, spec.recvSize()) : send(c, spec.sendSize(), t0 + durationNanos);
                    return new Side(bytes, System.nanoTime() - t0, snd, rcv);
                },
                () -> {
                    PerfConnection c = run.track(path.connect(listener, spec.local()));
                    int snd = c.sendBufferSize();
                    int rcv = c.receiveBufferSize();
                    run.awaitStart(HANG_LIMIT);
                    long t0 = System.nanoTime();
                    long bytes = clientSends ? send(c, spec.sendSize(), t0 + durationNanos) : receive(c, spec.recvSize());
                    return new Side(bytes, System.nanoTime() - t0, snd, rcv);
                },
                spec.duration().plus(HANG_LIMIT));
        Side sender = clientSends ? out.client() : out.server();
        Side receiver = clientSends ? out.server() : out.client();
        if (sender.bytes() != receiver.bytes()) {
            throw new PerfException(path.stack() + ": byte count mismatch: sent " + sender.bytes()
                    + ", received " + receiver.bytes());
        }
        SocketSizes sizes = new SocketSizes(out.client().sendBuf(), out.client().recvBuf(),
                out.server().sendBuf(), out.server().recvBuf());
        return new RunResult(spec.kind(), path.stack(), out.client().elapsedNanos() / 1e9,
                sender.bytes(), receiver.bytes(), 0, null, sizes);
    }

    /** Writes {@code size}-byte messages until {@code deadline}, shuts down, waits for the peer's close. */
    private static long send(PerfConnection c, int size, long deadlineNanos) throws java.io.IOException {
        ByteBuffer buf = IoLoops.patterned(size);
        long sent = 0;
        do {
            buf.clear();
            IoLoops.writeFully(c, buf);
            sent += size;
        } while (System.nanoTime() - deadlineNanos < 0);
        c.shutdownOutput();
        IoLoops.drain(c, ByteBuffer.allocateDirect(64));
        c.close();
        return sent;
    }

    /** Reads {@code size} bytes per call until end of stream, then closes. */
    private static long receive(PerfConnection c, int size) throws java.io.IOException {
        long received = IoLoops.drain(c, ByteBuffer.allocateDirect(size));
        c.close();
        return received;
    }
}
