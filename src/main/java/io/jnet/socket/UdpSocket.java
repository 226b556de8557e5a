package io.jnet.socket;

import java.io.IOException;
import java.net.InetSocketAddress;

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
     * Receives one datagram into {@code b}; a longer datagram is truncated (MSG_TRUNC semantics: the rest
     * is discarded). Returns null in non-blocking mode when none is queued. Throws EAGAIN on SO_RCVTIMEO.
     */
    Datagram receive(byte[] b, int off, int len) throws IOException;

    <T> void setOption(SocketOption<T> option, T value) throws IOException;

    <T> T getOption(SocketOption<T> option) throws IOException;

    InetSocketAddress localAddress();

    /** The result of a receive: how many bytes were copied, the datagram's full length, and its sender. */
    record Datagram(int length, int fullLength, InetSocketAddress sender) {
        public boolean truncated() { return fullLength > length; }
    }
}
