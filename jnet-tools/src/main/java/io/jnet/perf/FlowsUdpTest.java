package io.jnet.perf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * UDP_RR and UDP_STREAM over {@code --flows N} connected socket pairs ({@link UdpMode#CONNECTED}): pair
 * {@code i} is a server socket and a client socket connected to each other ({@link PerfPath#connectedPair}),
 * all opened before the timed part; the client uses them round-robin, so that consecutive datagrams belong
 * to different flows.
 *
 * <p>UDP_RR: one transaction in flight; the server reads request {@code k} on pair {@code k mod N} and answers
 * on the same connected socket. A response missing for {@link UdpRequestResponseTest#LOSS_TIMEOUT} ends the
 * run with an error, as in UDP_RR. UDP_STREAM: the client sends round-robin for {@code -l} seconds; the server
 * reads from all N sockets through {@link PerfPath#datagramSet} (epoll) and counts datagrams as UDP_STREAM
 * does. Both report the path's lookup counts over the timed part and how many of the server's sockets
 * received at least one datagram.
 */
final class FlowsUdpTest implements PerfTest {

    @Override
    public RunResult run(PerfPath path, TestSpec spec) throws PerfException {
        int n = spec.flows();
        PeerRun run = new PeerRun();
        List<PerfDatagramSocket> servers = new ArrayList<>(n);
        List<PerfDatagramSocket> clients = new ArrayList<>(n);
        run.track(() -> {
            for (PerfDatagramSocket s : clients) s.close();
            for (PerfDatagramSocket s : servers) s.close();
        });
        long setupStart = System.nanoTime();
        boolean opened = false;
        try {
            for (int f = 0; f < n; f++) {
                PerfDatagramSocket[] pair = path.connectedPair(spec.remote(), spec.local(), f);
                servers.add(pair[0]);
                clients.add(pair[1]);
            }
            prime(servers, clients);
            opened = true;
        } catch (UnsupportedOperationException e) {
            throw new StackUnavailableException(path.stack() + ": " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            throw new PerfException(path.stack() + ": opening UDP socket pair " + (servers.size() + 1) + " of " + n
                    + " failed: " + PeerRun.describe(e), e);
        } finally {
            if (!opened) {
                for (PerfDatagramSocket s : clients) s.close();
                for (PerfDatagramSocket s : servers) s.close();
            }
        }
        double setupSeconds = (System.nanoTime() - setupStart) / 1e9;
        SocketSizes sizes;
        try {
            sizes = SocketSizes.of(clients.getFirst(), servers.getFirst());
        } catch (IOException e) {
            throw new PerfException(path.stack() + ": " + PeerRun.describe(e), e);
        }
        RunResult r = spec.kind() == TestKind.UDP_RR
                ? requestResponse(path, spec, run, servers, clients, sizes)
                : stream(path, spec, run, servers, clients, sizes);
        return r.withFlows(n, r.flowsSeen(), setupSeconds);
    }

    /**
     * One datagram each way on every pair before the timed part, so that the flows are established ones: each
     * socket has received once, which is where a stack keeps the flow's input route (Linux's sk_rx_dst is set
     * by the first packet early demux finds), as TCP's handshake does for a connection. Without it a run over
     * more flows than it has packets would meet every socket for the first time.
     */
    private static void prime(List<PerfDatagramSocket> servers, List<PerfDatagramSocket> clients)
            throws IOException, PerfException {
        ByteBuffer out = ByteBuffer.allocateDirect(1);
        ByteBuffer in = ByteBuffer.allocateDirect(2);
        for (int i = 0; i < servers.size(); i++) {
            for (PerfDatagramSocket[] way : new PerfDatagramSocket[][] {{clients.get(i), servers.get(i)},
                    {servers.get(i), clients.get(i)}}) {
                out.clear().put(0, (byte) 'a');
                if (way[0].send(out) < 0) throw new PerfException("priming flow " + (i + 1) + ": no buffer space (ENOBUFS)");
                in.clear();
                if (way[1].read(in) != 1) throw new PerfException("priming flow " + (i + 1) + ": datagram of the wrong size");
            }
        }
    }

    private record RrClient(long transactions, long elapsedNanos, Histogram latency, LookupCounts lookups) {}

    private record RrServer(long served, BitSet seen) {}

    private static RunResult requestResponse(PerfPath path, TestSpec spec, PeerRun run, List<PerfDatagramSocket> servers,
            List<PerfDatagramSocket> clients, SocketSizes sizes) throws PerfException {
        int n = servers.size();
        int requestSize = spec.requestSize();
        int responseSize = spec.responseSize();
        long durationNanos = spec.duration().toNanos();
        Duration lossTimeout = UdpRequestResponseTest.LOSS_TIMEOUT;
        CountDownLatch ended = new CountDownLatch(1);
        PeerRun.Outcome<RrServer, RrClient> out = run.run(
                () -> {
                    ByteBuffer req = ByteBuffer.allocateDirect(requestSize + 1);
                    ByteBuffer resp = IoLoops.patterned(responseSize);
                    BitSet seen = new BitSet(n);
                    run.awaitStart(HANG_LIMIT);
                    long served = 0;
                    for (int i = 0; ; i = i + 1 == n ? 0 : i + 1) {
                        PerfDatagramSocket s = servers.get(i);
                        req.clear();
                        int got = s.read(req);
                        if (got != requestSize) {
                            throw new PerfException("request " + (served + 1) + " on flow " + (i + 1) + " has " + got
                                    + " bytes, expected " + requestSize);
                        }
                        if (UdpEnds.isEnd(req)) break;
                        resp.clear();
                        if (s.send(resp) < 0) {
                            throw new PerfException("response " + (served + 1) + " refused by the stack: no buffer space (ENOBUFS)");
                        }
                        seen.set(i);
                        served++;
                    }
                    ended.countDown();
                    return new RrServer(served, seen);
                },
                () -> {
                    ByteBuffer req = IoLoops.patterned(requestSize);
                    ByteBuffer resp = ByteBuffer.allocateDirect(responseSize + 1);
                    Histogram latency = new Histogram(3);
                    run.awaitStart(HANG_LIMIT);
                    LookupCounts before = path.lookupCounts();
                    long t0 = System.nanoTime();
                    long deadline = t0 + durationNanos;
                    long now = t0;
                    long transactions = 0;
                    int i = 0;
                    AutoCloseable all = () -> {
                        for (PerfDatagramSocket s : clients) s.close();
                    };
                    try (StallWatch watch = new StallWatch(lossTimeout, all)) {
                        try {
                            do {
                                long begin = now;
                                UdpRequestResponseTest.exchange(clients.get(i), req, resp, responseSize,
                                        transactions + 1);
                                now = System.nanoTime();
                                latency.recordValue(now - begin);
                                transactions++;
                                watch.progress(transactions);
                                i = i + 1 == n ? 0 : i + 1;
                            } while (now - deadline < 0);
                        } catch (IOException e) {
                            if (watch.stalled()) {
                                throw new PerfException("no response to request " + (transactions + 1) + " (flow "
                                        + (i + 1) + ") within " + lossTimeout.toMillis() / 1000.0
                                        + " s: a datagram was lost, and UDP_RR does not retransmit", e);
                            }
                            throw e;
                        }
                    }
                    LookupCounts after = path.lookupCounts();
                    UdpEnds.sendEnd(clients.get(i), requestSize, ended);
                    return new RrClient(transactions, now - t0, latency, LookupCounts.between(before, after));
                },
                spec.duration().plus(HANG_LIMIT));
        return Transactions.result(path, spec, "client", out.client().transactions(), out.server().served(),
                        out.client().elapsedNanos(), out.client().latency(), sizes)
                .withLookups(out.client().lookups())
                .withFlows(n, out.server().seen().cardinality(), 0);
    }

    private record Receiver(long messages, long elapsedNanos, BitSet seen) {}

    private record Sender(long messages, long errors, long elapsedNanos, LookupCounts lookups) {}

    private static RunResult stream(PerfPath path, TestSpec spec, PeerRun run, List<PerfDatagramSocket> servers,
            List<PerfDatagramSocket> clients, SocketSizes sizes) throws PerfException {
        int n = servers.size();
        int size = spec.sendSize();
        long durationNanos = spec.duration().toNanos();
        CountDownLatch ended = new CountDownLatch(1);
        AtomicLong start = new AtomicLong();
        PerfDatagramSet set;
        try {
            set = run.track(path.datagramSet(servers));
        } catch (UnsupportedOperationException e) {
            throw new StackUnavailableException(path.stack() + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new PerfException(path.stack() + ": " + PeerRun.describe(e), e);
        }
        PeerRun.Outcome<Receiver, Sender> out = run.run(
                () -> {
                    ByteBuffer buf = ByteBuffer.allocateDirect(size + 1);
                    BitSet seen = new BitSet(n);
                    run.awaitStart(HANG_LIMIT);
                    long messages = 0;
                    while (true) {
                        buf.clear();
                        UdpStreamTest.checkSize(set.read(buf), size);
                        if (UdpEnds.isEnd(buf)) break;
                        seen.set(set.lastIndex());
                        messages++;
                    }
                    long elapsed = System.nanoTime() - start.get();
                    ended.countDown();
                    return new Receiver(messages, elapsed, seen);
                },
                () -> {
                    ByteBuffer msg = IoLoops.patterned(size);
                    run.awaitStart(HANG_LIMIT);
                    LookupCounts before = path.lookupCounts();
                    long t0 = System.nanoTime();
                    start.set(t0);
                    long deadline = t0 + durationNanos;
                    long sent = 0;
                    long errors = 0;
                    long now;
                    int i = 0;
                    do {
                        for (int k = 0; k < UdpStreamTest.CLOCK_EVERY; k++) {
                            msg.clear();
                            if (clients.get(i).send(msg) < 0) errors++;
                            else sent++;
                            i = i + 1 == n ? 0 : i + 1;
                        }
                        now = System.nanoTime();
                    } while (now - deadline < 0);
                    LookupCounts after = path.lookupCounts();
                    UdpEnds.sendEnd(clients.get(i), size, ended);
                    return new Sender(sent, errors, now - t0, LookupCounts.between(before, after));
                },
                spec.duration().plus(HANG_LIMIT));
        Sender sender = out.client();
        Receiver receiver = out.server();
        return UdpStreamTest.result(path, spec, sender.messages(), sender.errors(), sender.elapsedNanos(),
                        receiver.messages(), receiver.elapsedNanos(), sizes)
                .withLookups(sender.lookups())
                .withFlows(n, receiver.seen().cardinality(), 0);
    }
}
