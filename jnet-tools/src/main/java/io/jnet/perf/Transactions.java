package io.jnet.perf;

import org.HdrHistogram.Histogram;

/**
 * The result of a request/response test (TCP_RR, TCP_CRR, UDP_RR, with one flow or {@code --flows N}): the
 * server must have answered exactly as many requests as the client completed; each transaction counts
 * {@code req + resp} bytes ({@code -r req,resp}) as both sent and received.
 */
final class Transactions {
    private Transactions() {}

    /**
     * Checks the counts and builds the one-flow result, without lookup counts.
     *
     * @param client       what completed the transactions in the mismatch message ("client", "generator")
     * @param completed    transactions the client completed
     * @param served       requests the server answered
     * @param elapsedNanos the client's timed loop, in nanoseconds
     * @param latency      each transaction's round trip, in nanoseconds
     * @throws PerfException when {@code served} is not {@code completed}
     */
    static RunResult result(PerfPath path, TestSpec spec, String client, long completed, long served, long elapsedNanos,
            Histogram latency, SocketSizes sizes) throws PerfException {
        if (served != completed) {
            throw new PerfException(path.stack() + ": transaction count mismatch: " + client + " completed "
                    + completed + ", server answered " + served);
        }
        long bytes = completed * ((long) spec.requestSize() + spec.responseSize());
        return new RunResult(spec.kind(), path.stack(), elapsedNanos / 1e9, bytes, bytes, completed, latency, sizes);
    }
}
