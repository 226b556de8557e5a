package io.jnet.socket;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A UDP socket (RFC 768): bind, connect, send, receive. Datagrams up to 65507 bytes; larger than the
 * path MTU they are fragmented by IPv4. A connected socket that gets ICMP port unreachable reports
 * ECONNREFUSED on its next send or receive, like Linux.
 */
public interface UdpSocket extends PollableSocket {

    static UdpSocket open(SocketProvider ns) {
        return ns.openUdpSocket();
    }

    /** Binds; port 0 picks an ephemeral port. Throws EADDRINUSE, EADDRNOTAVAIL. */
    void bind(InetSocketAddress local) throws IOException;

    /** Sets the default destination and filters received datagrams to that peer. */
    void connect(InetSocketAddress remote) throws IOException;

    /**
     * Sends one datagram to {@code to} (or to the connected peer when {@code to} is null).
     * Throws EMSGSIZE above 65507 bytes, EDESTADDRREQ, ENETUNREACH, ECONNREFUSED (pending ICMP error).
     */
    void send(byte[] b, int off, int len, InetSocketAddress to) throws IOException;

    /**
     * Sends {@code src}'s remaining bytes as one datagram (send(2)/sendto(2)), copied straight from the buffer
     * (heap or direct) into the packet; the position advances past them. Same destinations and errors as
     * {@link #send(byte[], int, int, InetSocketAddress)}; on an error the position does not move.
     *
     * @return the number of payload bytes sent (all that were remaining)
     */
    int send(ByteBuffer src, InetSocketAddress to) throws IOException;

    /**
     * Receives one datagram into {@code b}; a longer datagram is truncated (MSG_TRUNC semantics: the rest
     * is discarded). Returns null in non-blocking mode when none is queued. Throws EAGAIN on SO_RCVTIMEO.
     */
    Datagram receive(byte[] b, int off, int len) throws IOException;

    /**
     * recvfrom(2) into a buffer: copies one datagram into {@code dst}'s remaining space (heap or direct), the
     * rest of a longer datagram is discarded; the position advances by the bytes copied. Same blocking and
     * errors as {@link #receive(byte[], int, int)}.
     *
     * @return the lengths and the sender, or null in non-blocking mode when no datagram is queued
     */
    Datagram receive(ByteBuffer dst) throws IOException;

    /**
     * recv(2) into a buffer: as {@link #receive(ByteBuffer)} without the sender's address, so that it
     * allocates nothing. A zero-length datagram returns 0.
     *
     * @return the number of bytes copied into {@code dst}, or -1 in non-blocking mode when no datagram is
     *         queued
     * @throws IOException EBADF once closed, EAGAIN when SO_RCVTIMEO expires, a pending ICMP error
     *                     (ECONNREFUSED...) on a connected socket
     */
    int read(ByteBuffer dst) throws IOException;

    <T> void setOption(SocketOption<T> option, T value) throws IOException;

    <T> T getOption(SocketOption<T> option) throws IOException;

    InetSocketAddress localAddress();

    /** The result of a receive: how many bytes were copied, the datagram's full length, and its sender. */
    record Datagram(int length, int fullLength, InetSocketAddress sender) {
        public boolean truncated() { return fullLength > length; }
    }
}
