package io.jnet.perf;

import java.time.Duration;
import java.util.Objects;

/**
 * What one run of a test does, in netperf's terms.
 *
 * @param kind         which test
 * @param duration     how long the timed part runs ({@code -l}); a run always completes what it started
 * @param sendSize     bytes per write of the data sender in STREAM/MAERTS ({@code -m})
 * @param recvSize     bytes per read of the data receiver in STREAM/MAERTS ({@code -M})
 * @param requestSize  request bytes per transaction in RR/CRR ({@code -r req,resp})
 * @param responseSize response bytes per transaction in RR/CRR
 * @param local        the client's (netperf's "local") socket settings ({@code -s}, {@code -D})
 * @param remote       the server's (netperf's "remote") socket settings ({@code -S}, {@code -D})
 */
public record TestSpec(TestKind kind, Duration duration, int sendSize, int recvSize, int requestSize,
        int responseSize, SocketSettings local, SocketSettings remote) {

    /** Default {@code -m}: bytes per write (netperf uses the send buffer size; a fixed size keeps stacks comparable). */
    public static final int DEFAULT_SEND_SIZE = 65536;
    /** Default {@code -M}: bytes per read (Linux's default tcp_rmem, which is netperf's usual choice). */
    public static final int DEFAULT_RECV_SIZE = 131072;

    /** Checks ranges: positive duration and sizes. */
    public TestSpec {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(remote, "remote");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("test length must be positive: " + duration);
        }
        requirePositive("send size (-m)", sendSize);
        requirePositive("receive size (-M)", recvSize);
        requirePositive("request size (-r)", requestSize);
        requirePositive("response size (-r)", responseSize);
    }

    private static void requirePositive(String what, int v) {
        if (v < 1) throw new IllegalArgumentException(what + " must be at least 1 byte: " + v);
    }

    /** A spec with netperf's defaults for {@code kind}: sizes above, {@code -r 1,1}, no socket options. */
    public static TestSpec defaults(TestKind kind, Duration duration) {
        return new TestSpec(kind, duration, DEFAULT_SEND_SIZE, DEFAULT_RECV_SIZE, 1, 1,
                SocketSettings.defaults(), SocketSettings.defaults());
    }

    /** This spec with another kind. */
    public TestSpec withKind(TestKind k) {
        return new TestSpec(k, duration, sendSize, recvSize, requestSize, responseSize, local, remote);
    }

    /** This spec with another duration. */
    public TestSpec withDuration(Duration d) {
        return new TestSpec(kind, d, sendSize, recvSize, requestSize, responseSize, local, remote);
    }

    /** Length in seconds, for reports. */
    public double durationSeconds() { return duration.toNanos() / 1e9; }
}
