package io.jnet.perf;

import java.time.Duration;

/** One netperf test: runs once over a path and says what it measured. */
public interface PerfTest {

    /** Slack beyond {@code -l} before a run counts as hung and is aborted. */
    Duration HANG_LIMIT = Duration.ofSeconds(30);

    /**
     * Runs the test once: opens a listener and connection(s) (or two UDP sockets) on {@code path}, runs
     * server and client in two threads for {@code spec.duration()}, closes everything.
     *
     * @throws StackUnavailableException when the path's stack cannot open sockets at all
     * @throws PerfException             on any socket error, a byte or transaction count mismatch, or a hang
     */
    RunResult run(PerfPath path, TestSpec spec) throws PerfException;

    /** The implementation of {@code kind}. */
    static PerfTest of(TestKind kind) {
        return switch (kind) {
            case TCP_STREAM, TCP_MAERTS -> new StreamTest();
            case TCP_RR -> new RequestResponseTest();
            case TCP_CRR -> new ConnectRequestResponseTest();
            case TCP_SENDFILE -> new SendfileTest();
            case UDP_STREAM -> new UdpStreamTest();
            case UDP_RR -> new UdpRequestResponseTest();
        };
    }

    /** Opens the listener, mapping a stack that is not there to {@link StackUnavailableException}. */
    static PerfListener listen(PerfPath path, SocketSettings settings) throws PerfException {
        try {
            return path.listen(settings);
        } catch (UnsupportedOperationException e) {
            throw new StackUnavailableException(path.stack() + ": " + e.getMessage(), e);
        } catch (java.io.IOException e) {
            throw new PerfException(path.stack() + ": listen failed: " + PeerRun.describe(e), e);
        }
    }
}
