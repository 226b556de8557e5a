package io.jnet.perf;

import java.io.EOFException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;

/**
 * TCP_RR over {@code --flows N} connections and {@code --threads T} client threads and as many server threads:
 * the N connections are opened (connect, then accept, one after the other, so that server connection {@code i}
 * is client connection {@code i}'s peer) before the timed part. Flow {@code f} belongs to thread
 * {@code f % T}; each client thread runs transactions round-robin over its flows, one in flight as in netperf's
 * TCP_RR, so that consecutive packets of a thread belong to different sockets, and server thread {@code t}
 * answers on the same flows in the same order. With T = 1 this is one client over all N flows.
 *
 * <p>The timed part starts when every thread is at the start barrier and ends when every client thread has run
 * out its time; the result is the transactions of all client threads over that time, with the path's lookup
 * counts, the heap bytes the JVM allocated and the packet allocators' lock entries over it
 * ({@link AllocationCounts}), and how many connections the servers served at least once.
 */
final class FlowsRequestResponseTest implements PerfTest {

    private record ClientSide(long transactions, Histogram latency) {}

    private record ServerSide(long served, BitSet seen) {}

    /** The readings at the start and at the end of the timed part, taken by the barriers' actions. */
    private static final class Marks {
        volatile long t0;
        volatile long t1;
        volatile LookupCounts lookups0;
        volatile LookupCounts lookups1;
        volatile AllocationCounts alloc0;
        volatile AllocationCounts alloc1;
    }

    @Override
    public RunResult run(PerfPath path, TestSpec spec) throws PerfException {
        int n = spec.flows();
        int threads = spec.threads();
        long durationNanos = spec.duration().toNanos();
        Marks marks = new Marks();
        PeerRun run = new PeerRun(threads, () -> {
            marks.lookups0 = path.lookupCounts();
            marks.alloc0 = path.allocationCounts();
            marks.t0 = System.nanoTime();
        });
        CyclicBarrier end = new CyclicBarrier(threads, () -> {
            marks.t1 = System.nanoTime();
            marks.lookups1 = path.lookupCounts();
            marks.alloc1 = path.allocationCounts();
        });
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
        List<PeerRun.Side<ServerSide>> serverSides = new ArrayList<>(threads);
        List<PeerRun.Side<ClientSide>> clientSides = new ArrayList<>(threads);
        for (int t = 0; t < threads; t++) {
            int[] flows = flowsOf(t, threads, n);
            serverSides.add(() -> serve(run, spec, flows, servers, n));
            clientSides.add(() -> drive(run, end, marks, spec, durationNanos, flows, clients));
        }
        PeerRun.Outcome<List<ServerSide>, List<ClientSide>> out =
                run.runAll(serverSides, clientSides, spec.duration().plus(HANG_LIMIT));
        long transactions = 0;
        Histogram latency = new Histogram(3);
        for (ClientSide c : out.client()) {
            transactions += c.transactions();
            latency.add(c.latency());
        }
        long served = 0;
        BitSet seen = new BitSet(n);
        for (ServerSide s : out.server()) {
            served += s.served();
            seen.or(s.seen());
        }
        return Transactions.result(path, spec, threads == 1 ? "client" : "clients", transactions, served, marks.t1 - marks.t0, latency, sizes)
                .withLookups(LookupCounts.between(marks.lookups0, marks.lookups1))
                .withFlows(n, seen.cardinality(), setupSeconds)
                .withThreads(threads, AllocationCounts.between(marks.alloc0, marks.alloc1), path.allocatorName());
    }

    /** The flows of thread {@code t} of {@code threads}: {@code t}, {@code t + threads}, ... below {@code n}. */
    static int[] flowsOf(int t, int threads, int n) {
        int[] flows = new int[(n - t + threads - 1) / threads];
        for (int i = 0; i < flows.length; i++) flows[i] = t + i * threads;
        return flows;
    }

    /** A server thread: answers on its flows round-robin until its client's end of stream. */
    private static ServerSide serve(PeerRun run, TestSpec spec, int[] flows, List<PerfConnection> servers, int n)
            throws Exception {
        run.awaitStart(HANG_LIMIT);
        ByteBuffer req = ByteBuffer.allocateDirect(spec.requestSize());
        ByteBuffer resp = IoLoops.patterned(spec.responseSize());
        BitSet seen = new BitSet(n);
        long served = 0;
        for (int i = 0; ; i = i + 1 == flows.length ? 0 : i + 1) {
            PerfConnection c = servers.get(flows[i]);
            req.clear();
            if (!IoLoops.readFully(c, req)) break; // the client's end of stream on its next flow
            resp.clear();
            IoLoops.writeFully(c, resp);
            seen.set(flows[i]);
            served++;
        }
        return new ServerSide(served, seen);
    }

    /**
     * A client thread: transactions round-robin over its flows until the shared deadline, then the end barrier
     * (so the end readings come after every client's last transaction), then end of stream on its next flow.
     */
    private static ClientSide drive(PeerRun run, CyclicBarrier end, Marks marks, TestSpec spec, long durationNanos,
            int[] flows, List<PerfConnection> clients) throws Exception {
        ByteBuffer req = IoLoops.patterned(spec.requestSize());
        ByteBuffer resp = ByteBuffer.allocateDirect(spec.responseSize());
        Histogram latency = new Histogram(3);
        run.awaitStart(HANG_LIMIT);
        long deadline = marks.t0 + durationNanos;
        long now = System.nanoTime();
        long transactions = 0;
        int i = 0;
        do {
            PerfConnection c = clients.get(flows[i]);
            long begin = now;
            req.clear();
            IoLoops.writeFully(c, req);
            resp.clear();
            if (!IoLoops.readFully(c, resp)) {
                throw new EOFException("server closed connection " + (flows[i] + 1) + " after " + transactions
                        + " transactions");
            }
            now = System.nanoTime();
            latency.recordValue(now - begin);
            transactions++;
            i = i + 1 == flows.length ? 0 : i + 1;
        } while (now - deadline < 0);
        try {
            end.await(HANG_LIMIT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (BrokenBarrierException e) {
            throw new PerfException("another client failed before the end", e);
        } catch (TimeoutException e) {
            throw new PerfException("the other clients did not finish within " + HANG_LIMIT.toSeconds() + " s", e);
        }
        clients.get(flows[i]).shutdownOutput();
        return new ClientSide(transactions, latency);
    }
}
