package io.jnet.drill.jnet;

import io.jnet.socket.PollableSocket;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.socket.UdpSocket;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One socket descriptor as Linux has it: {@code socket(2)} makes it before anyone knows whether it will listen or
 * connect, so a TCP descriptor holds its options, its bound address and its mode until {@code listen} makes it a
 * jnet {@link TcpServerSocket} or {@code connect} a {@link TcpSocket}. A UDP descriptor is a {@link UdpSocket} at
 * once.
 */
final class SocketFile {
    final boolean stream;
    volatile boolean nonBlocking;
    /** Options set before the jnet socket exists, applied to it in order when it is made. */
    final Map<SocketOption<?>, Object> pendingOptions = new LinkedHashMap<>();
    InetSocketAddress bound;
    volatile TcpSocket connection;
    volatile TcpServerSocket listener;
    final UdpSocket udp;

    SocketFile(boolean stream, boolean nonBlocking, UdpSocket udp) {
        this.stream = stream;
        this.nonBlocking = nonBlocking;
        this.udp = udp;
    }

    /** The jnet socket behind this descriptor, or null while a TCP descriptor has neither listened nor connected. */
    PollableSocket socket() {
        if (udp != null) return udp;
        TcpSocket c = connection;
        if (c != null) return c;
        return listener;
    }
}
