package io.jnet.perf;

import java.io.EOFException;
import java.nio.ByteBuffer;
import org.HdrHistogram.Histogram;

/**
 * TCP_RR: one connection; a transaction is the client writing a request of {@code -r req} bytes and
 * reading the whole response of {@code -r ,resp} bytes, which the server writes after reading the whole
 * request. The client runs transactions back to back for {@code -l} seconds; the result is transactions
 * per second over the loop's elapsed time, and each transaction's round-trip time goes into a histogram
 * (nanoseconds). The run fails if the server did not answer exactly as many requests as the client counted.
 */
final class RequestResponseTest implements PerfTest {

    private record ClientSide(long transactions, long elapsedNanos, Histogram latency, int sendBuf, int recvBuf,
            LookupCounts lookups) {}

    private record ServerSide(long served, int sendBuf, int recvBuf) {}

    @Override
    public RunResult run(PerfPath path, TestSpec spec) throws PerfException {
        if (spec.flows() > 1) return new FlowsRequestResponseTest().run(path, spec);
        long durationNanos = spec.duration().toNanos();
        PeerRun run = new PeerRun();
        PerfListener listener = run.track(PerfTest.listen(path, spec.remote()));
        PeerRun.Outcome<ServerSide, ClientSide> out = run.run(
                () -> {
                    PerfConnection c = run.track(listener.accept());
                    int snd = c.sendBufferSize();
                    int rcv = c.receiveBufferSize();
                    run.awaitStart(HANG_LIMIT);
                    return new ServerSide(serve(c, spec.requestSize(), spec.responseSize()), snd, rcv);
                },
                () -> {
                    PerfConnection c = run.track(path.connect(listener, spec.local()));
                    int snd = c.sendBufferSize();
                    int rcv = c.receiveBufferSize();
                    run.awaitStart(HANG_LIMIT);
                    ByteBuffer req = IoLoops.patterned(spec.requestSize());
                    ByteBuffer resp = ByteBuffer.allocateDirect(spec.responseSize());
                    Histogram latency = new Histogram(3);
                    LookupCounts before = path.lookupCounts();
                    long t0 = System.nanoTime();
                    long deadline = t0 + durationNanos;
                    long now = t0;
                    long transactions = 0;
                    do {
                        long begin = now;
                        req.clear();
                        IoLoops.writeFully(c, req);
                        resp.clear();
                        if (!IoLoops.readFully(c, resp)) {
                            throw new EOFException("server closed the connection after " + transactions + " transactions");
                        }
                        now = System.nanoTime();
                        latency.recordValue(now - begin);
                        transactions++;
                    } while (now - deadline < 0);
                    LookupCounts after = path.lookupCounts();
                    c.shutdownOutput();
                    IoLoops.drain(c, resp.clear());
                    c.close();
                    return new ClientSide(transactions, now - t0, latency, snd, rcv,
                            LookupCounts.between(before, after));
                },
                spec.duration().plus(HANG_LIMIT));
        ClientSide client = out.client();
        ServerSide server = out.server();
        return Transactions.result(path, spec, "client", client.transactions(), server.served(), client.elapsedNanos(),
                        client.latency(),
                        new SocketSizes(client.sendBuf(), client.recvBuf(), server.sendBuf(), server.recvBuf()))
                .withLookups(client.lookups());
    }

    /** Answers whole requests with whole responses until the client's end of stream; returns the count. */
    private static long serve(PerfConnection c, int requestSize, int responseSize) throws java.io.IOException {
        ByteBuffer req = ByteBuffer.allocateDirect(requestSize);
        ByteBuffer resp = IoLoops.patterned(responseSize);
        long served = 0;
        while (true) {
            req.clear();
            if (!IoLoops.readFully(c, req)) break;
            resp.clear();
            IoLoops.writeFully(c, resp);
            served++;
        }
        c.close();
        return served;
    }
}
