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

    /**
     * shutdown(SHUT_RD) or shutdown(SHUT_RDWR): as Linux's inet_shutdown, which disconnects a listening socket
     * (tcp_disconnect, inet_csk_listen_stop), the listener stops: connections not yet accepted are reset, accept()
     * fails with EINVAL (a blocked one too), TCP_INFO reports {@link TcpInfo#TCP_CLOSE} and poll POLLHUP. The socket
     * keeps a port given to {@link #bind} (an ephemeral one is released) and may {@link #listen} again.
     *
     * @throws ErrnoException ENOTCONN when not listening (Linux's inet_shutdown in TCP_CLOSE)
     */
    void shutdownInput() throws IOException;

    /**
     * shutdown(SHUT_WR): nothing happens to a listening socket (Linux's inet_shutdown).
     *
     * @throws ErrnoException ENOTCONN when not listening
     */
    void shutdownOutput() throws IOException;

    <T> void setOption(SocketOption<T> option, T value) throws IOException;

    <T> T getOption(SocketOption<T> option) throws IOException;

    InetSocketAddress localAddress();

    /**
     * TCP_INFO of a listener, as Linux reports one (see {@link TcpInfo}): state {@link TcpInfo#TCP_LISTEN}
     * (or {@link TcpInfo#TCP_CLOSE} before {@link #listen} and after close), {@code unacked} = connections
     * waiting in the accept queue, {@code sacked} = the backlog given to {@link #listen}, {@code sndCwnd}
     * 10, {@code reordering} 3, {@code pacingRate} -1; the rest 0.
     */
    TcpInfo info();

    /**
     * ioctl(SIOCINQ): Linux refuses it on a listening socket; before {@link #listen} and after close the
     * socket has nothing queued and the answer is 0.
     *
     * @throws ErrnoException EINVAL while listening (Linux's tcp_ioctl for TCP_LISTEN)
     */
    int inq() throws IOException;

    /**
     * ioctl(SIOCOUTQ): as {@link #inq()}.
     *
     * @throws ErrnoException EINVAL while listening
     */
    int outq() throws IOException;

    /**
     * ioctl(SIOCOUTQNSD): as {@link #inq()}.
     *
     * @throws ErrnoException EINVAL while listening
     */
    int outqNotSent() throws IOException;
}
