package io.jnet.app.rdsstress;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.RdsSocket;
import io.jnet.socket.SocketOption;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Supplier;

/** Opening the tasks' RDS sockets, and what both sides share about them. */
final class StressSockets {
    /** SO_RCVTIMEO and SO_SNDTIMEO of every socket: how often a blocked thread looks at the run's state. */
    static final Duration POLL = Duration.ofMillis(100);

    private StressSockets() {}

    /**
     * Opens an RDS socket with SO_SNDBUF and SO_RCVBUF of {@code buffer} bytes and {@link #POLL} timeouts, bound
     * to {@code local}:{@code port}.
     *
     * @throws IOException naming the address when a socket option or the bind fails (the socket is closed)
     */
    static RdsSocket open(Supplier<RdsSocket> opener, InetAddress local, int port, int buffer) throws IOException {
        RdsSocket s = opener.get();
        InetSocketAddress at = new InetSocketAddress(local, port);
        try {
            s.setOption(SocketOption.SO_SNDBUF, buffer);
            s.setOption(SocketOption.SO_RCVBUF, buffer);
            s.setOption(SocketOption.SO_RCVTIMEO, POLL);
            s.setOption(SocketOption.SO_SNDTIMEO, POLL);
            s.bind(at);
            return s;
        } catch (IOException e) {
            s.close();
            throw new IOException("cannot bind an RDS socket to " + name(at) + ": " + e.getMessage(), e);
        }
    }

    /**
     * True for the errors after which a send or receive is tried again. The sockets are blocking with
     * {@link #POLL} timeouts: a send to a congested port waits in rds_cong_wait and one to a full send buffer
     * for room, each up to {@link #POLL} (then ETIMEDOUT), so a retry comes at most every {@link #POLL}, never
     * in a busy loop; ENOBUFS and EAGAIN, which only non-blocking sockets get, are listed for completeness.
     */
    static boolean retry(ErrnoException e) {
        return e.errno() == Errno.EAGAIN || e.errno() == Errno.ETIMEDOUT || e.errno() == Errno.ENOBUFS;
    }

    /** {@code 192.0.2.1:4000}. */
    static String name(InetSocketAddress a) {
        return a.getAddress().getHostAddress() + ":" + a.getPort();
    }
}
