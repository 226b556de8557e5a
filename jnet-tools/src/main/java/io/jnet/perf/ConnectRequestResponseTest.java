package io.jnet.perf;

import java.io.EOFException;
import java.nio.ByteBuffer;
import org.HdrHistogram.Histogram;

/**
 * TCP_CRR: a transaction is a new connection: connect, write the request, read the whole response, close.
 * The server accepts one connection at a time, reads the request, writes the response and waits for the
 * client's close before closing its end, so TIME-WAIT lands on the client as in netperf. After the timed
 * loop the client opens one more connection and closes it without a request, which tells the server to
 * stop. The result is transactions per second; each transaction's time (connect to response) goes into a
 * histogram in nanoseconds. Socket sizes are those of the first connection.
 */
final class ConnectRequestResponseTest implements PerfTest {

    private record ClientSide(long transactions, long elapsedNanos, Histogram latency, int sendBuf, int recvBuf) {}

    private record ServerSide(long served, int sendBuf, int recvBuf) {}

    @Override
    public RunResult run(PerfPath path, TestSpec spec) throws PerfException {
        long durationNanos = spec.duration().toNanos();
        PeerRun run = new PeerRun();
        PerfListener listener = run.track(PerfTest.listen(path, spec.remote()));
        PeerRun.Outcome<ServerSide, ClientSide> out = run.run(
                () -> {
                    run.awaitStart(HANG_LIMIT);
                    return serve(run, listener, spec.requestSize(), spec.responseSize());
                },
                () -> {
                    run.awaitStart(HANG_LIMIT);
                    ByteBuffer req = IoLoops.patterned(spec.requestSize());
                    ByteBuffer resp = ByteBuffer.allocateDirect(spec.responseSize());
                    Histogram latency = new Histogram(3);
                    int snd = -1;
                    int rcv = -1;
                    long t0 = System.nanoTime();
                    long deadline = t0 + durationNanos;
                    long now = t0;
                    long transactions = 0;
                    do {
                        long begin = now;
                        PerfConnection c = run.track(path.connect(listener, spec.local()));
                        if (transactions == 0) {
                            snd = c.sendBufferSize();
                            rcv = c.receiveBufferSize();
                        }
                        req.clear();
                        IoLoops.writeFully(c, req);
                        resp.clear();
                        if (!IoLoops.readFully(c, resp)) {
                            throw new EOFException("server closed connection " + (transactions + 1) + " before responding");
                        }
                        run.release(c);
                        now = System.nanoTime();
                        latency.recordValue(now - begin);
                        transactions++;
                    } while (now - deadline < 0);
                    PerfConnection last = run.track(path.connect(listener, spec.local()));
                    last.shutdownOutput();
                    IoLoops.drain(last, resp.clear());
                    run.release(last);
                    return new ClientSide(transactions, now - t0, latency, snd, rcv);
                },
                spec.duration().plus(HANG_LIMIT));
        ClientSide client = out.client();
        ServerSide server = out.server();
        return Transactions.result(path, spec, "client", client.transactions(), server.served(), client.elapsedNanos(),
                client.latency(),
                new SocketSizes(client.sendBuf(), client.recvBuf(), server.sendBuf(), server.recvBuf()));
    }

    private static ServerSide serve(PeerRun run, PerfListener listener, int requestSize, int responseSize)
            throws Exception {
        ByteBuffer req = ByteBuffer.allocateDirect(requestSize);
        ByteBuffer resp = IoLoops.patterned(responseSize);
        ByteBuffer scratch = ByteBuffer.allocateDirect(64);
        long served = 0;
        int snd = -1;
        int rcv = -1;
        while (true) {
            PerfConnection c = run.track(listener.accept());
            if (served == 0) {
                snd = c.sendBufferSize();
                rcv = c.receiveBufferSize();
            }
            req.clear();
            if (!IoLoops.readFully(c, req)) {
                run.release(c);
                return new ServerSide(served, snd, rcv);
            }
            resp.clear();
            IoLoops.writeFully(c, resp);
            IoLoops.drain(c, scratch);
            run.release(c);
            served++;
        }
    }
}
