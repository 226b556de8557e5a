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
 * @param flows        distinct 4-tuples the traffic is spread over ({@code --flows}, default 1): TCP_RR opens that
 *                     many connections, the UDP tests that many socket pairs ({@link UdpMode#CONNECTED}) or
 *                     source address/port pairs ({@link UdpMode#UNCONNECTED}), used round-robin
 * @param udp          how the UDP tests use their sockets ({@code --udp}); {@link UdpMode#NETPERF} for TCP tests
 * @param threads      client threads, and as many server threads, the flows are spread over ({@code --threads},
 *                     default 1; above 1 only for TCP_RR, at most {@code flows})
 * @param allocator    the packet allocator the jnet namespaces of the path use ({@code --allocator}, a name of
 *                     {@link io.jnet.buffer.PacketAllocators#names()}), or null for what a namespace gets
 *                     ({@code jnet.allocator})
 */
public record TestSpec(TestKind kind, Duration duration, int sendSize, int recvSize, int requestSize,
        int responseSize, SocketSettings local, SocketSettings remote, int flows, UdpMode udp, int threads,
        String allocator)
        implements java.io.Serializable {

    /** A spec on one thread with the namespaces' own allocator. */
    public TestSpec(TestKind kind, Duration duration, int sendSize, int recvSize, int requestSize,
            int responseSize, SocketSettings local, SocketSettings remote, int flows, UdpMode udp) {
        this(kind, duration, sendSize, recvSize, requestSize, responseSize, local, remote, flows, udp, 1, null);
    }

    /** Most flows of TCP_RR and of connected UDP (each a connection or a socket pair: 2 sockets per flow). */
    public static final int MAX_FLOWS = 100_000;
    /** Most source address/port pairs of unconnected UDP ({@link UdpMode#UNCONNECTED}). */
    public static final int MAX_SOURCES = 1_000_000;

    /** A spec with one flow and netperf's UDP shape. */
    public TestSpec(TestKind kind, Duration duration, int sendSize, int recvSize, int requestSize,
            int responseSize, SocketSettings local, SocketSettings remote) {
        this(kind, duration, sendSize, recvSize, requestSize, responseSize, local, remote, 1, UdpMode.NETPERF);
    }

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
        Objects.requireNonNull(udp, "udp");
        String bad = flowsProblem(kind, flows, udp);
        if (bad == null) bad = threadsProblem(kind, flows, threads);
        if (bad != null) throw new IllegalArgumentException(bad);
        if (allocator != null && !io.jnet.buffer.PacketAllocators.names().contains(allocator)) {
            throw new IllegalArgumentException("--allocator: one of " + io.jnet.buffer.PacketAllocators.names()
                    + ", not '" + allocator + "'");
        }
    }

    /**
     * Why {@code --threads threads} does not fit {@code kind} over {@code flows} flows, or null when it does: at
     * least 1; above 1 only for TCP_RR (each client thread drives its share of the connections, each server
     * thread serves the same share); at most {@code flows}, so that every thread has a connection.
     */
    public static String threadsProblem(TestKind kind, int flows, int threads) {
        if (threads < 1) return "--threads must be at least 1: " + threads;
        if (threads == 1) return null;
        if (kind != TestKind.TCP_RR) {
            return "--threads " + threads + ": only TCP_RR spreads its flows over several threads, not " + kind;
        }
        if (threads > flows) {
            return "--threads " + threads + " is above --flows " + flows + ": every thread needs a connection of its own";
        }
        return null;
    }

    /** This spec over {@code t} client and server threads; checked as the constructor does. */
    public TestSpec withThreads(int t) {
        return new TestSpec(kind, duration, sendSize, recvSize, requestSize, responseSize, local, remote, flows, udp, t,
                allocator);
    }

    /** This spec with the allocator named {@code name} (null: the namespaces' own); checked as the constructor does. */
    public TestSpec withAllocator(String name) {
        return new TestSpec(kind, duration, sendSize, recvSize, requestSize, responseSize, local, remote, flows, udp,
                threads, name);
    }

    /**
     * Why {@code --flows flows} with {@code --udp udp} does not fit {@code kind}, or null when it does: at
     * least 1; above 1 only for TCP_RR, UDP_RR and UDP_STREAM; at most {@value #MAX_FLOWS} (TCP, connected UDP)
     * or {@value #MAX_SOURCES} (unconnected UDP); a UDP mode other than netperf's only for the UDP tests; more
     * than one UDP flow only in the connected or unconnected mode (netperf's shape has one client socket).
     */
    public static String flowsProblem(TestKind kind, int flows, UdpMode udp) {
        if (flows < 1) return "--flows must be at least 1: " + flows;
        if (udp != UdpMode.NETPERF && !kind.isUdp()) {
            return "--udp " + udp.label() + " applies to UDP_STREAM and UDP_RR, not " + kind;
        }
        if (flows == 1) return null;
        if (kind != TestKind.TCP_RR && kind != TestKind.UDP_RR && kind != TestKind.UDP_STREAM) {
            return "--flows " + flows + ": only TCP_RR, UDP_RR and UDP_STREAM spread traffic over flows, not " + kind;
        }
        if (kind.isUdp() && udp == UdpMode.NETPERF) {
            return "--flows " + flows + " with " + kind + " needs --udp connected (a socket pair per flow) or "
                    + "--udp unconnected (one server socket, many sources from a frame generator)";
        }
        int max = udp == UdpMode.UNCONNECTED ? MAX_SOURCES : MAX_FLOWS;
        if (flows > max) {
            return "--flows " + flows + " is above the limit of " + max + " for "
                    + (udp == UdpMode.UNCONNECTED ? "unconnected UDP (source address/port pairs)"
                            : kind.isUdp() ? "connected UDP (socket pairs)" : "TCP (connections)");
        }
        return null;
    }

    /** This spec spread over {@code n} flows in UDP mode {@code mode}; checked as the constructor does. */
    public TestSpec withFlows(int n, UdpMode mode) {
        return new TestSpec(kind, duration, sendSize, recvSize, requestSize, responseSize, local, remote, n, mode,
                threads, allocator);
    }

    /** True when the test uses more than netperf's one flow or a UDP mode of its own (flows reported). */
    public boolean manyFlows() { return flows > 1 || threads > 1 || udp != UdpMode.NETPERF; }

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
        return new TestSpec(k, duration, sendSize, recvSize, requestSize, responseSize, local, remote, flows,
                k.isUdp() ? udp : UdpMode.NETPERF, k == TestKind.TCP_RR ? threads : 1, allocator);
    }

    /**
     * This spec's settings for another test of a suite: as {@link #withKind}, except that the sizes of a UDP
     * test are clipped to {@value #MAX_DATAGRAM} bytes, so that a {@code -m} meant for the TCP tests does not
     * make the suite's UDP test fail.
     */
    public TestSpec forKind(TestKind k) {
        if (!k.isUdp()) return withKind(k);
        return new TestSpec(k, duration, Math.min(sendSize, MAX_DATAGRAM), recvSize, Math.min(requestSize, MAX_DATAGRAM),
                Math.min(responseSize, MAX_DATAGRAM), local, remote, flows, udp, 1, allocator);
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
            return new TestSpec(kind, duration, size, keepRecvSize ? recvSize : size, requestSize, responseSize, local,
                    remote, flows, udp, threads, allocator);
        }
        return new TestSpec(kind, duration, sendSize, recvSize, size, size, local, remote, flows, udp, threads, allocator);
    }

    /** This spec with another duration. */
    public TestSpec withDuration(Duration d) {
        return new TestSpec(kind, d, sendSize, recvSize, requestSize, responseSize, local, remote, flows, udp, threads,
                allocator);
    }

    /** Length in seconds, for reports. */
    public double durationSeconds() { return duration.toNanos() / 1e9; }
}
