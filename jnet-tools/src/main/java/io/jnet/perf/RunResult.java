package io.jnet.perf;

import org.HdrHistogram.Histogram;

/**
 * What one run measured. Serializable: a lane in a JVM of its own ({@link ChildJvmLane}) sends it back that way.
 *
 * @param kind           the test
 * @param stack          the stack it ran on ({@code jnet}, {@code kernel})
 * @param elapsedSeconds the measured time in seconds (netperf's "Elapsed Time"): for STREAM/MAERTS/SENDFILE from
 *                       the start until the receiver has read everything; for UDP_STREAM the receiver's time from
 *                       the start until the sender's end; for RR/CRR/UDP_RR the transaction loop
 * @param bytesSent      payload bytes written by the data sender (stream tests) or by both sides (RR/CRR/UDP_RR)
 * @param bytesReceived  payload bytes read by the data receiver (stream tests) or by both sides (RR/CRR/UDP_RR)
 * @param transactions   completed transactions (RR/CRR/UDP_RR; 0 for the stream tests)
 * @param latencyNanos   round-trip time of each transaction in nanoseconds (RR/CRR/UDP_RR), or null
 * @param sizes          socket buffer sizes seen on the (first) connection
 * @param datagrams      UDP_STREAM's send and receive counts, or null for the other tests
 * @param lookups        the lookup counters' change over the timed part (summed over the path's namespaces), or
 *                       null when the path has none (the kernel's)
 * @param flows          the flows the run used ({@code --flows})
 * @param flowsSeen      how many of them the server saw traffic on (distinct sockets or sources), or -1 when
 *                       not counted
 * @param setupSeconds   time to open the flows before the timed part (connections, socket pairs), in seconds
 * @param threads        client threads (and as many server threads) the flows were spread over ({@code --threads})
 * @param allocation     heap bytes and allocator lock entries over the timed part, or null when not counted
 *                       (tests other than TCP_RR over flows)
 * @param allocator      the packet allocator of the path's namespaces ({@code --allocator}), or null on a stack
 *                       without one or when not recorded
 */
public record RunResult(TestKind kind, String stack, double elapsedSeconds, long bytesSent, long bytesReceived,
        long transactions, Histogram latencyNanos, SocketSizes sizes, DatagramCounts datagrams, LookupCounts lookups,
        int flows, long flowsSeen, double setupSeconds, int threads, AllocationCounts allocation, String allocator)
        implements java.io.Serializable {

    /** A result on one thread without allocation counts. */
    public RunResult(TestKind kind, String stack, double elapsedSeconds, long bytesSent, long bytesReceived,
            long transactions, Histogram latencyNanos, SocketSizes sizes, DatagramCounts datagrams, LookupCounts lookups,
            int flows, long flowsSeen, double setupSeconds) {
        this(kind, stack, elapsedSeconds, bytesSent, bytesReceived, transactions, latencyNanos, sizes, datagrams, lookups,
                flows, flowsSeen, setupSeconds, 1, null, null);
    }

    /** A one-flow result without lookup counts. */
    public RunResult(TestKind kind, String stack, double elapsedSeconds, long bytesSent, long bytesReceived,
            long transactions, Histogram latencyNanos, SocketSizes sizes, DatagramCounts datagrams) {
        this(kind, stack, elapsedSeconds, bytesSent, bytesReceived, transactions, latencyNanos, sizes, datagrams, null,
                1, -1, 0);
    }

    /** This result with the lookup counts of its timed part (null: none). */
    public RunResult withLookups(LookupCounts l) {
        return new RunResult(kind, stack, elapsedSeconds, bytesSent, bytesReceived, transactions, latencyNanos, sizes,
                datagrams, l, flows, flowsSeen, setupSeconds, threads, allocation, allocator);
    }

    /** This result with its flow figures. */
    public RunResult withFlows(int n, long seen, double setup) {
        return new RunResult(kind, stack, elapsedSeconds, bytesSent, bytesReceived, transactions, latencyNanos, sizes,
                datagrams, lookups, n, seen, setup, threads, allocation, allocator);
    }

    /** This result with its thread count, the allocation counts of its timed part (null: none) and allocator name. */
    public RunResult withThreads(int t, AllocationCounts a, String allocatorName) {
        return new RunResult(kind, stack, elapsedSeconds, bytesSent, bytesReceived, transactions, latencyNanos, sizes,
                datagrams, lookups, flows, flowsSeen, setupSeconds, t, a, allocatorName);
    }

    /** A result without datagram counts (every test but UDP_STREAM). */
    public RunResult(TestKind kind, String stack, double elapsedSeconds, long bytesSent, long bytesReceived,
            long transactions, Histogram latencyNanos, SocketSizes sizes) {
        this(kind, stack, elapsedSeconds, bytesSent, bytesReceived, transactions, latencyNanos, sizes, null);
    }

    /**
     * The figure of merit in the test's {@link TestKind#unit()}: 10^6 bits/s of bytes received for the
     * stream tests (for UDP_STREAM the receiver's rate, not the sender's), transactions per second for RR,
     * CRR and UDP_RR.
     */
    public double value() {
        if (elapsedSeconds <= 0) return 0;
        return kind.isStream() ? bytesReceived * 8.0 / elapsedSeconds / 1e6 : transactions / elapsedSeconds;
    }

    /**
     * UDP_STREAM's send rate in 10^6 bits/s (netperf's first line): bytes the sender got accepted over the
     * sender's time; NaN for other tests.
     */
    public double sendValue() {
        if (datagrams == null || datagrams.sendElapsedSeconds() <= 0) return Double.NaN;
        return bytesSent * 8.0 / datagrams.sendElapsedSeconds() / 1e6;
    }
}
