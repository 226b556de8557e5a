package io.jnet.perf;

import java.time.Duration;
import java.util.Objects;

/**
 * What one run of a test does, in netperf's terms. Serializable: a lane in a JVM of its own ({@link ChildJvmLane})
 * receives it that way.
 *
 * @param kind         which test
 * @param duration     how long the timed part runs ({@code -l}); a run always completes what it started
 * @param sendSize     bytes per write of the data sender in STREAM/MAERTS, per sendfile call in SENDFILE, per
 *                     datagram in UDP_STREAM ({@code -m})
 * @param recvSize     bytes per read of the data receiver in STREAM/MAERTS/SENDFILE ({@code -M})
 * @param requestSize  request bytes per transaction in RR/CRR/UDP_RR ({@code -r req,resp})
 * @param responseSize response bytes per transaction in RR/CRR/UDP_RR
 * @param local        the client's (netperf's "local") socket settings ({@code -s}, {@code -D})
 * @param remote       the server's (netperf's "remote") socket settings ({@code -S}, {@code -D})
 */
public record TestSpec(TestKind kind, Duration duration, int sendSize, int recvSize, int requestSize,
        int responseSize, SocketSettings local, SocketSettings remote) implements java.io.Serializable {

    /** Default {@code -m}: bytes per write (netperf uses the send buffer size; a fixed size keeps stacks comparable). */
    public static final int DEFAULT_SEND_SIZE = 65536;
    /** Default {@code -M}: bytes per read (Linux's default tcp_rmem, which is netperf's usual choice). */
    public static final int DEFAULT_RECV_SIZE = 131072;
    /**
     * Default {@code -m} of UDP_STREAM: 1472 bytes, the most one datagram carries in a 1500-byte Ethernet
     * frame without fragmentation (netperf's default is SO_SNDBUF capped at {@value #MAX_DATAGRAM}, which
     * measures copying more than packets; {@code -m 65507} gives it, {@code -m 64} the small-packet rate).
     */
    public static final int DEFAULT_UDP_SEND_SIZE = 1472;
    /** The largest UDP payload over IPv4 in bytes: 65535 - 20 (IP header) - 8 (UDP header). */
    public static final int MAX_DATAGRAM = 65507;

    /** Checks ranges: positive duration and sizes; UDP messages within {@value #MAX_DATAGRAM} bytes. */
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
        if (kind == TestKind.UDP_STREAM) requireDatagram(kind, "-m", sendSize);
        if (kind == TestKind.UDP_RR) {
            requireDatagram(kind, "-r request", requestSize);
            requireDatagram(kind, "-r response", responseSize);
        }
    }

    private static void requireDatagram(TestKind kind, String what, int v) {
        if (v > MAX_DATAGRAM) {
            throw new IllegalArgumentException(kind + ": " + what + " " + v + " bytes does not fit one datagram (at most "
                    + MAX_DATAGRAM + " bytes, the largest UDP payload over IPv4)");
        }
    }

    /** The default {@code -m} of {@code kind}: {@value #DEFAULT_UDP_SEND_SIZE} for UDP_STREAM, {@value #DEFAULT_SEND_SIZE} otherwise. */
    public static int defaultSendSize(TestKind kind) {
        return kind == TestKind.UDP_STREAM ? DEFAULT_UDP_SEND_SIZE : DEFAULT_SEND_SIZE;
    }

    private static void requirePositive(String what, int v) {
        if (v < 1) throw new IllegalArgumentException(what + " must be at least 1 byte: " + v);
    }

    /** A spec with netperf's defaults for {@code kind}: sizes above ({@link #defaultSendSize}), {@code -r 1,1}, no socket options. */
    public static TestSpec defaults(TestKind kind, Duration duration) {
        return new TestSpec(kind, duration, defaultSendSize(kind), DEFAULT_RECV_SIZE, 1, 1,
                SocketSettings.defaults(), SocketSettings.defaults());
    }

    /**
     * This spec with another kind.
     *
     * @throws IllegalArgumentException for a UDP kind when a message size exceeds one datagram (see {@link #forKind})
     */
    public TestSpec withKind(TestKind k) {
        return new TestSpec(k, duration, sendSize, recvSize, requestSize, responseSize, local, remote);
    }

    /**
     * This spec's settings for another test of a suite: as {@link #withKind}, except that the sizes of a UDP
     * test are clipped to {@value #MAX_DATAGRAM} bytes, so that a {@code -m} meant for the TCP tests does not
     * make the suite's UDP test fail.
     */
    public TestSpec forKind(TestKind k) {
        if (!k.isUdp()) return withKind(k);
        return new TestSpec(k, duration, Math.min(sendSize, MAX_DATAGRAM), recvSize, Math.min(requestSize, MAX_DATAGRAM),
                Math.min(responseSize, MAX_DATAGRAM), local, remote);
    }

    /**
     * This spec at one size of a sweep, the way netperf's size tables are made: the stream tests write
     * {@code size} bytes per call ({@code -m}) and read {@code size} per call ({@code -M}) unless
     * {@code keepRecvSize}; the request/response tests send requests and responses of {@code size} bytes
     * ({@code -r size,size}).
     *
     * @throws IllegalArgumentException for a size below 1, or a UDP test's size above {@value #MAX_DATAGRAM}
     */
    public TestSpec withMessageSize(int size, boolean keepRecvSize) {
        if (kind.isStream()) {
            return new TestSpec(kind, duration, size, keepRecvSize ? recvSize : size, requestSize, responseSize, local, remote);
        }
        return new TestSpec(kind, duration, sendSize, recvSize, size, size, local, remote);
    }

    /** This spec with another duration. */
    public TestSpec withDuration(Duration d) {
        return new TestSpec(kind, d, sendSize, recvSize, requestSize, responseSize, local, remote);
    }

    /** Length in seconds, for reports. */
    public double durationSeconds() { return duration.toNanos() / 1e9; }
}
