package io.jnet.perf;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A blocking UDP socket as the UDP perf tests use it, whichever stack is underneath: a jnet
 * {@code UdpSocket} or a JDK {@code DatagramChannel}. The server's socket is bound and not connected (it
 * answers with sendto(2), as netperf's netserver does); the client's is connected to the server, so that
 * it sends with send(2) and receives only from the server.
 */
public interface PerfDatagramSocket extends AutoCloseable {

    /** The bound address and port (what clients send to). */
    InetSocketAddress localAddress();

    /**
     * send(2) on a connected socket: {@code src}'s remaining bytes as one datagram; the position advances
     * past them when it was sent.
     *
     * @return the number of bytes sent, or -1 when the stack refused the datagram for lack of buffer space
     *         (ENOBUFS or EAGAIN; netperf counts these as send "Errors" and goes on)
     * @throws IOException for any other error: EMSGSIZE above 65507 bytes, ECONNREFUSED after an ICMP port
     *                     unreachable, a closed socket
     */
    int send(ByteBuffer src) throws IOException;

    /** sendto(2): as {@link #send} to {@code to}, on a socket that need not be connected. */
    int sendTo(ByteBuffer src, InetSocketAddress to) throws IOException;

    /**
     * recv(2): blocks for the next datagram and copies it into {@code dst}'s remaining space (the rest of a
     * longer datagram is discarded); the position advances by the bytes copied.
     *
     * @return the number of bytes copied
     * @throws IOException on a closed socket (also when closed by another thread while blocked) or a
     *                     pending ICMP error
     */
    int read(ByteBuffer dst) throws IOException;

    /**
     * recvfrom(2): as {@link #read}, and says who sent the datagram.
     *
     * @return the sender's address and port
     */
    InetSocketAddress receive(ByteBuffer dst) throws IOException;

    /** The effective SO_SNDBUF in bytes, as getsockopt reports it (Linux reports twice the value set). */
    int sendBufferSize() throws IOException;

    /** The effective SO_RCVBUF in bytes, as getsockopt reports it. */
    int receiveBufferSize() throws IOException;

    /** Closes the socket; never throws; idempotent. Unblocks a thread blocked in a receive. */
    @Override
    void close();
}
