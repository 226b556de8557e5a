package io.jnet.perf;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * UDP_STREAM and UDP_RR in {@link UdpMode#UNCONNECTED}: one bound, not connected server socket receives from
 * {@code --flows N} source address/port pairs that a {@link FrameGenerator} writes as frames into a veth of the
 * server's namespace, each datagram from the next source in turn.
 *
 * <p>UDP_STREAM: the generator sends for {@code -l} seconds; the server reads with recvfrom(2) and counts
 * datagrams, and the sources it saw; figures as UDP_STREAM's. UDP_RR: the generator sends a request from the
 * next source and waits for the server's reply (which the server sends to the request's sender with sendto(2),
 * routed back through the veth) on its veth end, then sends the next; one transaction in flight, transactions
 * per second. A reply missing for {@link UdpRequestResponseTest#LOSS_TIMEOUT} fails the run.
 */
final class GeneratorUdpTest implements PerfTest {

    @Override
    public RunResult run(PerfPath path, TestSpec spec) throws PerfException {
        int payload = spec.kind() == TestKind.UDP_RR ? spec.requestSize() : spec.sendSize();
        FrameGenerator gen;
        long setupStart = System.nanoTime();
        try {
            gen = path.generator(spec.flows(), payload, spec.remote());
        } catch (UnsupportedOperationException e) {
            throw new StackUnavailableException(path.stack() + ": " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            throw new PerfException(path.stack() + ": setting up the frame generator failed: " + PeerRun.describe(e), e);
        }
        double setupSeconds = (System.nanoTime() - setupStart) / 1e9;
        PeerRun run = new PeerRun();
        run.track(gen);
        SocketSizes sizes;
        try {
            sizes = new SocketSizes(-1, -1, gen.server().sendBufferSize(), gen.server().receiveBufferSize());
        } catch (IOException e) {
            gen.close();
            throw new PerfException(path.stack() + ": " + PeerRun.describe(e), e);
        }
        RunResult r = spec.kind() == TestKind.UDP_RR ? requestResponse(path, spec, run, gen, sizes)
                : stream(path, spec, run, gen, sizes);
        return r.withFlows(spec.flows(), r.flowsSeen(), setupSeconds);
    }

    private record Receiver(long messages, long elapsedNanos, BitSet seen) {}

    private record Sender(long messages, long elapsedNanos, LookupCounts lookups) {}

    private static RunResult stream(PerfPath path, TestSpec spec, PeerRun run, FrameGenerator gen, SocketSizes sizes)
            throws PerfException {
        int size = spec.sendSize();
        long durationNanos = spec.duration().toNanos();
        CountDownLatch ended = new CountDownLatch(1);
        AtomicLong start = new AtomicLong();
        PerfDatagramSocket server = gen.server();
        PeerRun.Outcome<Receiver, Sender> out = run.run(
                () -> {
                    ByteBuffer buf = ByteBuffer.allocateDirect(size + 1);
                    BitSet seen = new BitSet(gen.sources());
                    run.awaitStart(HANG_LIMIT);
                    long messages = 0;
                    while (true) {
                        buf.clear();
                        InetSocketAddress from = server.receive(buf);
                        UdpStreamTest.checkSize(buf.position(), size);
                        if (UdpEnds.isEnd(buf)) break;
                        int i = gen.sourceIndex(from);
                        if (i < 0) throw new PerfException("received a datagram from " + from + ", none of the generator's sources");
                        seen.set(i);
                        messages++;
                    }
                    long elapsed = System.nanoTime() - start.get();
                    ended.countDown();
                    return new Receiver(messages, elapsed, seen);
                },
                () -> {
                    run.awaitStart(HANG_LIMIT);
                    LookupCounts before = path.lookupCounts();
                    long t0 = System.nanoTime();
                    start.set(t0);
                    long deadline = t0 + durationNanos;
                    long sent0 = gen.sent();
                    long now;
                    do {
                        for (int k = 0; k < UdpStreamTest.CLOCK_EVERY; k++) gen.sendNext();
                        now = System.nanoTime();
                    } while (now - deadline < 0);
                    long sent = gen.sent() - sent0;
                    LookupCounts after = path.lookupCounts();
                    do {
                        gen.sendEnd();
                    } while (!ended.await(200, java.util.concurrent.TimeUnit.MICROSECONDS));
                    return new Sender(sent, now - t0, LookupCounts.between(before, after));
                },
                spec.duration().plus(HANG_LIMIT));
        Sender sender = out.client();
        Receiver receiver = out.server();
        return UdpStreamTest.result(path, spec, sender.messages(), 0, sender.elapsedNanos(), receiver.messages(),
                        receiver.elapsedNanos(), sizes)
                .withLookups(sender.lookups())
                .withFlows(spec.flows(), receiver.seen().cardinality(), 0);
    }

    private record RrServer(long served, BitSet seen) {}

    private record RrClient(long transactions, long elapsedNanos, Histogram latency, LookupCounts lookups) {}

    private static RunResult requestResponse(PerfPath path, TestSpec spec, PeerRun run, FrameGenerator gen,
            SocketSizes sizes) throws PerfException {
        int requestSize = spec.requestSize();
        int responseSize = spec.responseSize();
        long durationNanos = spec.duration().toNanos();
        long lossNanos = UdpRequestResponseTest.LOSS_TIMEOUT.toNanos();
        PerfDatagramSocket server = gen.server();
        CountDownLatch ended = new CountDownLatch(1);
        PeerRun.Outcome<RrServer, RrClient> out = run.run(
                () -> {
                    ByteBuffer req = ByteBuffer.allocateDirect(requestSize + 1);
                    ByteBuffer resp = IoLoops.patterned(responseSize);
                    BitSet seen = new BitSet(gen.sources());
                    run.awaitStart(HANG_LIMIT);
                    long served = 0;
                    while (true) {
                        req.clear();
                        InetSocketAddress from = server.receive(req);
                        if (req.position() != requestSize) {
                            throw new PerfException("request " + (served + 1) + " has " + req.position()
                                    + " bytes, expected " + requestSize);
                        }
                        if (UdpEnds.isEnd(req)) break;
                        int i = gen.sourceIndex(from);
                        if (i < 0) throw new PerfException("request from " + from + ", none of the generator's sources");
                        resp.clear();
                        if (server.sendTo(resp, from) < 0) {
                            throw new PerfException("response " + (served + 1) + " refused by the stack: no buffer space (ENOBUFS)");
                        }
                        seen.set(i);
                        served++;
                    }
                    ended.countDown();
                    return new RrServer(served, seen);
                },
                () -> {
                    Histogram latency = new Histogram(3);
                    run.awaitStart(HANG_LIMIT);
                    LookupCounts before = path.lookupCounts();
                    long t0 = System.nanoTime();
                    long deadline = t0 + durationNanos;
                    long now = t0;
                    long transactions = 0;
                    long replies = gen.replies();
                    do {
                        long begin = now;
                        gen.sendNext();
                        int spins = 0;
                        while (gen.replies() == replies) {
                            if (++spins > 1000) {
                                LockSupport.parkNanos(10_000);
                                if (System.nanoTime() - begin > lossNanos) {
                                    throw new PerfException("no reply to request " + (transactions + 1) + " within "
                                            + lossNanos / 1e9 + " s: a datagram was lost ("
                                            + gen.strayFrames() + " stray frames on the generator's veth)");
                                }
                            } else {
                                Thread.onSpinWait();
                            }
                        }
                        replies++;
                        now = System.nanoTime();
                        latency.recordValue(now - begin);
                        transactions++;
                    } while (now - deadline < 0);
                    LookupCounts after = path.lookupCounts();
                    do {
                        gen.sendEnd();
                    } while (!ended.await(200, java.util.concurrent.TimeUnit.MICROSECONDS));
                    return new RrClient(transactions, now - t0, latency, LookupCounts.between(before, after));
                },
                spec.duration().plus(HANG_LIMIT));
        return Transactions.result(path, spec, "generator", out.client().transactions(), out.server().served(),
                        out.client().elapsedNanos(), out.client().latency(), sizes)
                .withLookups(out.client().lookups())
                .withFlows(spec.flows(), out.server().seen().cardinality(), 0);
    }
}
