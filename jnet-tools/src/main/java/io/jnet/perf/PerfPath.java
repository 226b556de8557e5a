package io.jnet.perf;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The network a test runs over: a way to listen and to connect on one stack (jnet or the kernel), over TCP
 * and over UDP.
 * This is the seam between the harness and a stack: the tests see only this interface, so a fake path can
 * stand in for either stack in tests.
 *
 * <p>One path serves many runs: listeners and connections are opened per run and closed by the test.
 * All methods may be called from the test's server and client threads concurrently.
 */
public interface PerfPath extends AutoCloseable {

    /** The stack's name as reports show it: {@code jnet}, {@code kernel}. */
    String stack();

    /** Where the traffic goes, for report headings, e.g. {@code 127.0.0.1 via lo}. */
    String description();

    /**
     * Opens a listening socket on the server's address with an ephemeral port, SO_REUSEADDR on, the
     * {@code server} receive buffer set before listen(2), and a backlog of at least 128.
     *
     * @param server the settings the accepted connections get (netperf's {@code -S}, {@code -D})
     * @throws IOException if the socket cannot be bound or listen fails
     */
    PerfListener listen(SocketSettings server) throws IOException;

    /**
     * Opens a socket on the client's side, sets {@code client} options before connect(2) (so window scaling
     * sees the buffer sizes), and connects to {@code listener}'s address.
     *
     * @param listener the server to connect to, opened by {@link #listen} on this path
     * @param client   the client's settings (netperf's {@code -s}, {@code -D})
     * @throws IOException ECONNREFUSED, ETIMEDOUT, EADDRNOTAVAIL (ephemeral ports exhausted) and the like
     */
    PerfConnection connect(PerfListener listener, SocketSettings client) throws IOException;

    /**
     * Opens the server's UDP socket: bound to the server's address with an ephemeral port, not connected,
     * with the {@code server} buffer sizes set (netperf's {@code -S}).
     *
     * @throws IOException                   if the socket cannot be bound
     * @throws UnsupportedOperationException if the path has no UDP (the default)
     */
    default PerfDatagramSocket bindDatagram(SocketSettings server) throws IOException {
        throw new UnsupportedOperationException(stack() + " path has no UDP");
    }

    /**
     * Opens the client's UDP socket on the client's side, sets the {@code client} buffer sizes (netperf's
     * {@code -s}) and connects it to {@code server} (connect(2) on UDP: the default destination, and only
     * datagrams from there are received).
     *
     * @param server the address of a socket opened by {@link #bindDatagram} on this path
     * @throws IOException                   ENETUNREACH and the like
     * @throws UnsupportedOperationException if the path has no UDP (the default)
     */
    default PerfDatagramSocket connectDatagram(InetSocketAddress server, SocketSettings client) throws IOException {
        throw new UnsupportedOperationException(stack() + " path has no UDP");
    }

    /**
     * The lookup counters of the path's namespaces, summed over them ({@link LookupCounts}); null when the
     * stack has none to show (the default: the kernel's are not per test).
     */
    default LookupCounts lookupCounts() { return null; }

    /**
     * This JVM's allocated heap bytes so far ({@link AllocationCounts#jvmAllocatedBytes()}) and the packet
     * allocators' lock entries of the path's namespaces, each distinct allocator counted once; the default
     * (a stack without packet allocators) has the bytes only, lock entries -1.
     */
    default AllocationCounts allocationCounts() {
        return new AllocationCounts(AllocationCounts.jvmAllocatedBytes(), -1, -1);
    }

    /**
     * Gives the path's namespaces a new packet allocator of the kind {@code name}
     * ({@link io.jnet.buffer.PacketAllocators#create}) before a run's traffic, unless they already have one of
     * that kind from an earlier call; null leaves them as they are. The default (a stack without packet
     * allocators) ignores it.
     *
     * @throws IllegalArgumentException for a name {@link io.jnet.buffer.PacketAllocators} does not know
     */
    default void useAllocator(String name) {}

    /** The name of the packet allocator the path's namespaces use, or null on a stack without them (the default). */
    default String allocatorName() { return null; }

    /**
     * As {@link #connect(PerfListener, SocketSettings)} for flow number {@code flow} of a run over many flows
     * ({@code --flows}): a path whose one client address runs out of ephemeral ports binds later flows to
     * further addresses of its own.
     *
     * @param flow 0-based flow number
     * @throws IOException as {@link #connect(PerfListener, SocketSettings)}; EADDRNOTAVAIL when the ports run out
     */
    default PerfConnection connect(PerfListener listener, SocketSettings client, int flow) throws IOException {
        return connect(listener, client);
    }

    /**
     * Opens flow {@code flow} of connected UDP ({@link UdpMode#CONNECTED}): a server socket bound to one of the
     * server's addresses with an ephemeral port, a client socket connected to it, and the server socket then
     * connected back to the client's address, so that each end only receives from the other.
     *
     * @return the server's socket, then the client's
     * @throws IOException                   if a socket cannot be bound or connected (EADDRINUSE when ports run out)
     * @throws UnsupportedOperationException if the path has no UDP (the default)
     */
    default PerfDatagramSocket[] connectedPair(SocketSettings server, SocketSettings client, int flow) throws IOException {
        throw new UnsupportedOperationException(stack() + " path has no connected UDP socket pairs");
    }

    /**
     * A receiver of datagrams from any of {@code sockets} (epoll over them), for a server with one socket per
     * flow. The sockets stay owned by the caller.
     *
     * @throws UnsupportedOperationException if the path cannot wait on many sockets (the default)
     */
    default PerfDatagramSet datagramSet(java.util.List<PerfDatagramSocket> sockets) throws IOException {
        throw new UnsupportedOperationException(stack() + " path cannot wait on many UDP sockets");
    }

    /**
     * Sets up unconnected UDP over many sources ({@link UdpMode#UNCONNECTED}): a server socket, bound and not
     * connected, fed by a generator that writes frames from {@code sources} source address/port pairs into a
     * veth joined to the server's namespace.
     *
     * @param sources      source address/port pairs, 1 to {@link TestSpec#MAX_SOURCES}
     * @param payloadSize  bytes of each datagram the generator sends
     * @throws UnsupportedOperationException if the path has no generator (the default; jnet paths have one)
     */
    default FrameGenerator generator(int sources, int payloadSize, SocketSettings server) throws IOException {
        throw new UnsupportedOperationException(stack() + " path has no frame generator: --udp unconnected needs a jnet path");
    }

    /** Releases the path (namespaces, devices); never throws; idempotent. */
    @Override
    void close();
}
