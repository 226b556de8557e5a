package io.jnet.perf;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.HdrHistogram.Histogram;

/**
 * UDP_RR: TCP_RR over UDP. A transaction is the client sending a request datagram of {@code -r req}
 * bytes on a socket connected to the server and reading the response datagram of {@code -r ,resp} bytes,
 * which the server sends with sendto(2) to whoever sent the request (it is not connected, as netperf's
 * netserver). Transactions run back to back for {@code -l} seconds; the result is transactions per second
 * over the loop's time, and each transaction's round trip goes into a histogram (nanoseconds), as in
 * TCP_RR.
 *
 * <p>UDP does not retransmit and neither does netperf: one lost request or response stops the exchange,
 * and netperf's UDP_RR then waits until its timer ends. Here a {@link StallWatch} ends the run with an error
 * naming the transaction when no response came for {@link #LOSS_TIMEOUT}. The run also fails on a
 * datagram of the wrong size, and when the server did not answer exactly as many requests as the client
 * completed.
 */
final class UdpRequestResponseTest implements PerfTest {

    /** How long the client waits for a response before the run fails as stalled by a lost datagram. */
    static final Duration LOSS_TIMEOUT = Duration.ofSeconds(2);

    private record ClientSide(long transactions, long elapsedNanos, Histogram latency, int sendBuf, int recvBuf,
            LookupCounts lookups) {}

    private record ServerSide(long served, int sendBuf, int recvBuf) {}

    private final Duration lossTimeout;

    UdpRequestResponseTest() {
        this(LOSS_TIMEOUT);
    }

    /** A test that gives up after {@code lossTimeout} without a response. */
    UdpRequestResponseTest(Duration lossTimeout) {
        this.lossTimeout = lossTimeout;
    }

    @Override
    public RunResult run(PerfPath path, TestSpec spec) throws PerfException {
        if (spec.udp() == UdpMode.CONNECTED) return new FlowsUdpTest().run(path, spec);
        if (spec.udp() == UdpMode.UNCONNECTED) return new GeneratorUdpTest().run(path, spec);
        long durationNanos = spec.duration().toNanos();
        int requestSize = spec.requestSize();
        int responseSize = spec.responseSize();
        PeerRun run = new PeerRun();
        PerfDatagramSocket server = run.track(UdpEnds.bind(path, spec.remote()));
        CountDownLatch ended = new CountDownLatch(1);
        PeerRun.Outcome<ServerSide, ClientSide> out = run.run(
                () -> {
                    int snd = server.sendBufferSize();
                    int rcv = server.receiveBufferSize();
                    run.awaitStart(HANG_LIMIT);
                    long served = serve(server, requestSize, responseSize);
                    ended.countDown();
                    return new ServerSide(served, snd, rcv);
                },
                () -> {
                    PerfDatagramSocket c = run.track(path.connectDatagram(server.localAddress(), spec.local()));
                    int snd = c.sendBufferSize();
                    int rcv = c.receiveBufferSize();
                    ByteBuffer req = IoLoops.patterned(requestSize);
                    ByteBuffer resp = ByteBuffer.allocateDirect(responseSize + 1);
                    Histogram latency = new Histogram(3);
                    run.awaitStart(HANG_LIMIT);
                    LookupCounts before = path.lookupCounts();
                    long t0 = System.nanoTime();
                    long deadline = t0 + durationNanos;
                    long now = t0;
                    long transactions = 0;
                    try (StallWatch watch = new StallWatch(lossTimeout, c)) {
                        try {
                            do {
                                long begin = now;
                                exchange(c, req, resp, responseSize, transactions + 1);
                                now = System.nanoTime();
                                latency.recordValue(now - begin);
                                transactions++;
                                watch.progress(transactions);
                            } while (now - deadline < 0);
                        } catch (IOException e) {
                            if (watch.stalled()) throw stalled(transactions, e);
                            throw e;
                        }
                    }
                    LookupCounts after = path.lookupCounts();
                    UdpEnds.sendEnd(c, requestSize, ended);
                    c.close();
                    return new ClientSide(transactions, now - t0, latency, snd, rcv,
                            LookupCounts.between(before, after));
                },
                spec.duration().plus(HANG_LIMIT));
        ClientSide client = out.client();
        ServerSide srv = out.server();
        return Transactions.result(path, spec, "client", client.transactions(), srv.served(), client.elapsedNanos(),
                        client.latency(),
                        new SocketSizes(client.sendBuf(), client.recvBuf(), srv.sendBuf(), srv.recvBuf()))
                .withLookups(client.lookups());
    }

    /**
     * One transaction on the connected {@code c}: sends {@code req} and reads the response into {@code resp}
     * (one byte larger than {@code responseSize}, so that a longer datagram shows).
     *
     * @param number the transaction's number from 1, for the error messages
     * @throws PerfException when the stack refuses the request (ENOBUFS) or the response is not
     *                       {@code responseSize} bytes
     */
    static void exchange(PerfDatagramSocket c, ByteBuffer req, ByteBuffer resp, int responseSize, long number)
            throws IOException, PerfException {
        req.clear();
        if (c.send(req) < 0) {
            throw new PerfException("request " + number + " refused by the stack: no buffer space (ENOBUFS)");
        }
        resp.clear();
        int n = c.read(resp);
        if (n != responseSize) {
            throw new PerfException("response " + number + " has " + n + " bytes, expected " + responseSize);
        }
    }

    private PerfException stalled(long transactions, IOException cause) {
        return new PerfException("no response to request " + (transactions + 1) + " within "
                + lossTimeout.toMillis() / 1000.0 + " s: a request or response datagram was lost, and UDP_RR "
                + "does not retransmit (netperf's UDP_RR would stall until the end of the run)", cause);
    }

    /**
     * Answers each request with a response to its sender until the end-of-test datagram; returns the
     * number answered.
     */
    private static long serve(PerfDatagramSocket s, int requestSize, int responseSize) throws IOException, PerfException {
        ByteBuffer req = ByteBuffer.allocateDirect(requestSize + 1);
        ByteBuffer resp = IoLoops.patterned(responseSize);
        long served = 0;
        while (true) {
            req.clear();
            InetSocketAddress from = s.receive(req);
            int n = req.position();
            if (n != requestSize) {
                throw new PerfException("request " + (served + 1) + " has " + n + " bytes, expected " + requestSize);
            }
            if (UdpEnds.isEnd(req)) return served;
            resp.clear();
            if (s.sendTo(resp, from) < 0) {
                throw new PerfException("response " + (served + 1) + " refused by the stack: no buffer space (ENOBUFS)");
            }
            served++;
        }
    }
}
