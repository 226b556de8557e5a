package io.jnet.perf;

import org.HdrHistogram.Histogram;

/**
 * What one run measured.
 *
 * @param kind           the test
 * @param stack          the stack it ran on ({@code jnet}, {@code kernel})
 * @param elapsedSeconds the measured time in seconds (netperf's "Elapsed Time"): for STREAM/MAERTS from the
 *                       start until the receiver has read everything; for RR/CRR the transaction loop
 * @param bytesSent      payload bytes written by the data sender (STREAM/MAERTS) or by both sides (RR/CRR)
 * @param bytesReceived  payload bytes read by the data receiver (STREAM/MAERTS) or by both sides (RR/CRR)
 * @param transactions   completed transactions (RR/CRR; 0 for the stream tests)
 * @param latencyNanos   round-trip time of each transaction in nanoseconds (RR/CRR), or null
 * @param sizes          socket buffer sizes seen on the (first) connection
 */
public record RunResult(TestKind kind, String stack, double elapsedSeconds, long bytesSent, long bytesReceived,
        long transactions, Histogram latencyNanos, SocketSizes sizes) {

    /**
     * The figure of merit in the test's {@link TestKind#unit()}: 10^6 bits/s of bytes received for the
     * stream tests, transactions per second for RR and CRR.
     */
    public double value() {
        if (elapsedSeconds <= 0) return 0;
        return kind.isStream() ? bytesReceived * 8.0 / elapsedSeconds / 1e6 : transactions / elapsedSeconds;
    }
}
