package io.jnet.perf;

/**
 * Socket buffer sizes in bytes as getsockopt reported them once the test connection was up (netperf's
 * "Socket Size" columns). "Local" is the client, "remote" the server. -1 when not known (no connection,
 * e.g. a failed run).
 */
public record SocketSizes(int localSend, int localRecv, int remoteSend, int remoteRecv) implements java.io.Serializable {

    /** Sizes not known. */
    public static final SocketSizes UNKNOWN = new SocketSizes(-1, -1, -1, -1);

    /** Reads the sizes of both ends of a connection. */
    static SocketSizes of(PerfConnection client, PerfConnection server) throws java.io.IOException {
        return new SocketSizes(client.sendBufferSize(), client.receiveBufferSize(),
                server.sendBufferSize(), server.receiveBufferSize());
    }

    /** Reads the sizes of a client's and a server's UDP socket. */
    static SocketSizes of(PerfDatagramSocket client, PerfDatagramSocket server) throws java.io.IOException {
        return new SocketSizes(client.sendBufferSize(), client.receiveBufferSize(),
                server.sendBufferSize(), server.receiveBufferSize());
    }
}
