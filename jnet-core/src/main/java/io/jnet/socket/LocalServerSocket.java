package io.jnet.socket;

import java.io.IOException;

/**
 * A listening local stream socket (AF_UNIX SOCK_STREAM): {@code socket} + {@code bind} + {@code listen} +
 * {@code accept}. See {@link LocalSocket} for the connections it accepts.
 *
 * <p>Its queue holds connections that completed their {@link LocalSocket#connect} and wait to be accepted; as
 * Linux's {@code unix_recvq_full}, it is full when it holds more than the backlog. Closing the listener closes
 * the connections still queued: their clients read ECONNRESET once, then end of stream. The name stays taken
 * after close until {@link LocalNames#unlink}; meanwhile connecting to it gives ECONNREFUSED.
 *
 * <p>Readiness: {@link Events#POLLIN} while a connection is queued; before {@link #listen}, as any unconnected
 * stream socket on Linux, {@link Events#POLLOUT} and {@link Events#POLLHUP}.
 */
public interface LocalServerSocket extends PollableSocket {

    /** Opens an unbound socket to listen with (socket(AF_UNIX, SOCK_STREAM, 0)). */
    static LocalServerSocket open(SocketProvider ns) {
        return ns.openLocalServerSocket();
    }

    /**
     * bind(2) to {@code path}: names as {@link LocalSocket#bind}.
     *
     * @throws ErrnoException EADDRINUSE when the name exists; EINVAL for a malformed name or a second bind;
     *                        EBADF after close
     */
    void bind(String path) throws IOException;

    /**
     * listen(2): accepts connections from now on, with room for {@code backlog} + 1 of them in the queue.
     * A backlog above net.core.somaxconn, or negative, is net.core.somaxconn (Linux compares it unsigned).
     * Calling it again changes the backlog; a larger one lets waiting connects in.
     *
     * @throws ErrnoException EINVAL when the socket has no name (Linux: no listen on an unbound socket); EBADF
     *                        after close
     */
    void listen(int backlog) throws IOException;

    /**
     * Takes the next queued connection, blocking until there is one; non-blocking: returns null when none is
     * queued. The accepted socket has the listener's name as {@link LocalSocket#localAddress()} and default
     * options (Linux does not copy the listener's).
     *
     * @throws ErrnoException EINVAL when not listening; EAGAIN when SO_RCVTIMEO expires; EBADF after close
     *                        (also for an accept blocked when the listener closed)
     */
    LocalSocket accept() throws IOException;

    /**
     * Options as {@link LocalSocket#setOption}; SO_RCVTIMEO bounds {@link #accept}, the others are kept and
     * reported only.
     */
    <T> void setOption(SocketOption<T> option, T value) throws IOException;

    <T> T getOption(SocketOption<T> option) throws IOException;

    /** The bound name, null before bind. */
    String localAddress();

    /** Connections queued for accept now. */
    int queued();
}
