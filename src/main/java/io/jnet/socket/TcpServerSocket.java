package io.jnet.socket;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * A listening TCP socket: {@code socket} + {@code bind} + {@code listen} + {@code accept}.
 * The SYN queue and the accept queue are bounded by the backlog (capped by net.core.somaxconn).
 */
public interface TcpServerSocket extends PollableSocket {

    static TcpServerSocket open(SocketProvider ns) {
        return ns.openTcpServerSocket();
    }

    /** Binds; port 0 picks an ephemeral port. Throws EADDRINUSE, EADDRNOTAVAIL. */
    void bind(InetSocketAddress local) throws IOException;

    /** Starts listening with the given backlog (clamped to net.core.somaxconn). */
    void listen(int backlog) throws IOException;

    /** Blocks for the next established connection; non-blocking: returns null when none is ready. Throws EAGAIN on SO_RCVTIMEO. */
    TcpSocket accept() throws IOException;

    <T> void setOption(SocketOption<T> option, T value) throws IOException;

    <T> T getOption(SocketOption<T> option) throws IOException;

    InetSocketAddress localAddress();
}
