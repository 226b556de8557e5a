package io.jnet.perf;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * UDP_STREAM: the client sends datagrams of {@code -m} bytes for {@code -l} seconds on a socket connected
 * to the server, as fast as the stack takes them; the server reads them until the test's end. UDP has no
 * flow control, so datagrams the receiver cannot keep up with are dropped on the way; as netperf does,
 * the run reports both sides: the sender's messages "Okay" (accepted by the stack), its send "Errors"
 * (refused for lack of buffer space, not retried) and its rate over its own time, and the receiver's
 * messages and rate. The figure of merit is the receiver's rate, 10^6 bits/s of payload received: a
 * stack that drops what it accepted gains nothing from accepting it.
 *
 * <p>The receiver's time runs from the sender's start (the two threads leave the start barrier at
 * slightly different times, and datagrams sent meanwhile wait in the receive queue) until the end-of-test
 * datagram ({@link UdpEnds}) arrives behind the last data; the receiver fails the run on a datagram of
 * another size than {@code -m}, and the run fails
 * if more datagrams arrived than were sent. The sender reads the clock every {@value #CLOCK_EVERY}
 * datagrams, so that small messages measure the stack rather than the clock.
 */
final class UdpStreamTest implements PerfTest {

    /** Datagrams sent between two readings of the clock. */
    static final int CLOCK_EVERY = 8;

    private record Receiver(long messages, long elapsedNanos, int sendBuf, int recvBuf) {}

    private record Sender(long messages, long errors, long elapsedNanos, int sendBuf, int recvBuf, LookupCounts lookups) {}

    @Override
    public RunResult run(PerfPath path, TestSpec spec) throws PerfException {
        if (spec.udp() == UdpMode.CONNECTED) return new FlowsUdpTest().run(path, spec);
        if (spec.udp() == UdpMode.UNCONNECTED) return new GeneratorUdpTest().run(path, spec);
        int size = spec.sendSize();
        long durationNanos = spec.duration().toNanos();
        PeerRun run = new PeerRun();
        PerfDatagramSocket server = run.track(UdpEnds.bind(path, spec.remote()));
        CountDownLatch ended = new CountDownLatch(1);
        AtomicLong start = new AtomicLong();
        PeerRun.Outcome<Receiver, Sender> out = run.run(
                () -> {
                    int snd = server.sendBufferSize();
                    int rcv = server.receiveBufferSize();
                    ByteBuffer buf = ByteBuffer.allocateDirect(size + 1); // one byte more: a longer datagram shows
                    run.awaitStart(HANG_LIMIT);
                    long messages = 0;
                    while (true) {
                        buf.clear();
                        checkSize(server.read(buf), size);
                        if (UdpEnds.isEnd(buf)) break;
                        messages++;
                    }
                    long elapsed = System.nanoTime() - start.get(); // the sender set it before its first datagram
                    ended.countDown();
                    return new Receiver(messages, elapsed, snd, rcv);
                },
                () -> {
                    PerfDatagramSocket c = run.track(path.connectDatagram(server.localAddress(), spec.local()));
                    int snd = c.sendBufferSize();
                    int rcv = c.receiveBufferSize();
                    ByteBuffer msg = IoLoops.patterned(size);
                    run.awaitStart(HANG_LIMIT);
                    LookupCounts before = path.lookupCounts();
                    long t0 = System.nanoTime();
                    start.set(t0);
                    long deadline = t0 + durationNanos;
                    long sent = 0;
                    long errors = 0;
                    long now;
                    do {
                        for (int i = 0; i < CLOCK_EVERY; i++) {
                            msg.clear();
                            if (c.send(msg) < 0) errors++;
                            else sent++;
                        }
                        now = System.nanoTime();
                    } while (now - deadline < 0);
                    LookupCounts after = path.lookupCounts();
                    UdpEnds.sendEnd(c, size, ended);
                    c.close();
                    return new Sender(sent, errors, now - t0, snd, rcv, LookupCounts.between(before, after));
                },
                spec.duration().plus(HANG_LIMIT));
        Sender sender = out.client();
        Receiver receiver = out.server();
        SocketSizes sizes = new SocketSizes(sender.sendBuf(), sender.recvBuf(), receiver.sendBuf(), receiver.recvBuf());
        return result(path, spec, sender.messages(), sender.errors(), sender.elapsedNanos(), receiver.messages(),
                receiver.elapsedNanos(), sizes).withLookups(sender.lookups());
    }

    /** Fails the run on a received datagram of {@code got} bytes in a test of {@code size}-byte messages. */
    static void checkSize(int got, int size) throws PerfException {
        if (got != size) {
            throw new PerfException("received a datagram of " + got + " bytes in a test of " + size + "-byte messages");
        }
    }

    /**
     * Checks the counts and builds the one-flow result, without lookup counts: datagrams of {@code -m} bytes,
     * the sender's over its own time, the receiver's over {@code receiverNanos}.
     *
     * @param sent          datagrams the stack accepted from the sender
     * @param errors        sends the stack refused (ENOBUFS), not retried
     * @param senderNanos   the sender's timed loop, in nanoseconds
     * @param received      datagrams the receiver read, the end-of-test datagram not counted
     * @param receiverNanos from the sender's start to the end-of-test datagram's arrival, in nanoseconds
     * @throws PerfException when more datagrams arrived than were sent
     */
    static RunResult result(PerfPath path, TestSpec spec, long sent, long errors, long senderNanos, long received,
            long receiverNanos, SocketSizes sizes) throws PerfException {
        if (received > sent) {
            throw new PerfException(path.stack() + ": received " + received + " datagrams but only " + sent
                    + " were sent");
        }
        int size = spec.sendSize();
        DatagramCounts counts = new DatagramCounts(sent, errors, received, senderNanos / 1e9);
        return new RunResult(spec.kind(), path.stack(), receiverNanos / 1e9, sent * size, received * size, 0, null,
                sizes, counts);
    }
}
