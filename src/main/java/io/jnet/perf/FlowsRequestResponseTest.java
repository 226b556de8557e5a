package io.jnet.perf;

import java.io.EOFException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * TCP_RR over {@code --flows N} connections: the N connections are opened (connect, then accept, one after the
 * other, so that server connection {@code i} is client connection {@code i}'s peer) before the timed part;
 * then transactions go round-robin over them, one in flight as in netperf's TCP_RR, so that consecutive packets
 * belong to different sockets. The server answers on connection {@code i} in the same order. The result is
 * transactions per second as TCP_RR's, with the path's lookup counts over the timed part and how many
 * connections the server served at least once.
 */
final class FlowsRequestResponseTest implements PerfTest {

    private record ClientSide(long transactions, long elapsedNanos, Histogram latency, LookupCounts lookups) {}

    private record ServerSide(long served, BitSet seen) {}

    @Override
    public RunResult run(PerfPath path, TestSpec spec) throws PerfException {
        int n = spec.flows();
        long durationNanos = spec.duration().toNanos();
        PeerRun run = new PeerRun();
        PerfListener listener = run.track(PerfTest.listen(path, spec.remote()));
        List<PerfConnection> clients = new ArrayList<>(n);
        List<PerfConnection> servers = new ArrayList<>(n);
        run.track(() -> {
            for (PerfConnection c : clients) c.close();
            for (PerfConnection c : servers) c.close();
        });
        long setupStart = System.nanoTime();
        boolean opened = false;
        try {
            for (int f = 0; f < n; f++) {
                clients.add(path.connect(listener, spec.local(), f));
                servers.add(listener.accept());
            }
            opened = true;
        } catch (java.io.IOException e) {
            throw new PerfException(path.stack() + ": opening connection " + (clients.size() + 1) + " of " + n
                    + " failed: " + PeerRun.describe(e), e);
        } catch (UnsupportedOperationException e) {
            throw new StackUnavailableException(path.stack() + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new PerfException(path.stack() + ": opening connection " + (clients.size() + 1) + " of " + n
                    + " failed: " + e, e);
        } finally {
            if (!opened) {
                listener.close();
                for (PerfConnection c : clients) c.close();
                for (PerfConnection c : servers) c.close();
            }
        }
        double setupSeconds = (System.nanoTime() - setupStart) / 1e9;
        SocketSizes sizes;
        try {
            sizes = SocketSizes.of(clients.getFirst(), servers.getFirst());
        } catch (java.io.IOException e) {
            throw new PerfException(path.stack() + ": " + PeerRun.describe(e), e);
        }
        PeerRun.Outcome<ServerSide, ClientSide> out = run.run(
                () -> {
                    run.awaitStart(HANG_LIMIT);
                    ByteBuffer req = ByteBuffer.allocateDirect(spec.requestSize());
                    ByteBuffer resp = IoLoops.patterned(spec.responseSize());
                    BitSet seen = new BitSet(n);
                    long served = 0;
                    for (int i = 0; ; i = i + 1 == n ? 0 : i + 1) {
                        PerfConnection c = servers.get(i);
                        req.clear();
                        if (!IoLoops.readFully(c, req)) break; // the client's end of stream on the next flow
                        resp.clear();
                        IoLoops.writeFully(c, resp);
                        seen.set(i);
                        served++;
                    }
                    return new ServerSide(served, seen);
                },
                () -> {
                    ByteBuffer req = IoLoops.patterned(spec.requestSize());
                    ByteBuffer resp = ByteBuffer.allocateDirect(spec.responseSize());
                    Histogram latency = new Histogram(3);
                    run.awaitStart(HANG_LIMIT);
                    LookupCounts before = path.lookupCounts();
                    long t0 = System.nanoTime();
                    long deadline = t0 + durationNanos;
                    long now = t0;
                    long transactions = 0;
                    int i = 0;
                    do {
                        PerfConnection c = clients.get(i);
                        long begin = now;
                        req.clear();
                        IoLoops.writeFully(c, req);
                        resp.clear();
                        if (!IoLoops.readFully(c, resp)) {
                            throw new EOFException("server closed connection " + (i + 1) + " after " + transactions
                                    + " transactions");
                        }
                        now = System.nanoTime();
                        latency.recordValue(now - begin);
                        transactions++;
                        i = i + 1 == n ? 0 : i + 1;
                    } while (now - deadline < 0);
                    LookupCounts after = path.lookupCounts();
                    clients.get(i).shutdownOutput();
                    return new ClientSide(transactions, now - t0, latency, LookupCounts.between(before, after));
                },
                spec.duration().plus(HANG_LIMIT));
        ClientSide client = out.client();
        ServerSide server = out.server();
        return Transactions.result(path, spec, "client", client.transactions(), server.served(), client.elapsedNanos(),
                        client.latency(), sizes)
                .withLookups(client.lookups())
                .withFlows(n, server.seen().cardinality(), setupSeconds);
    }
}
