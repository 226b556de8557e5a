package io.jnet.app;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.SocketProvider;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * Adapters from jnet's TCP sockets ({@link TcpSocket}, {@link TcpServerSocket}) to
 * {@link StreamConnection}, {@link StreamAcceptor} and {@link StreamConnector}, so that the
 * services {@link EchoService} and {@link DiscardService} run over a jnet namespace exactly as they run over
 * the host's kernel with {@link JdkStreams}.
 *
 * <p>All sockets are used in blocking mode. Closing an acceptor makes a blocked {@code accept} throw
 * (EBADF); closing a connection from another thread wakes its blocked reads and writes, which then
 * throw an {@link ErrnoException}.
 */
public final class JnetStreams {

    private JnetStreams() {}

    /**
     * Opens a listening socket in {@code ns} bound to {@code local} (SO_REUSEADDR set, like most
     * servers, so a restart is not refused by connections in TIME-WAIT).
     *
     * @param backlog accept queue length, clamped by the namespace's net.core.somaxconn
     * @throws IOException EADDRINUSE, EADDRNOTAVAIL (the address is not one of the namespace's)
     */
    public static Acceptor listen(SocketProvider ns, InetSocketAddress local, int backlog) throws IOException {
        Objects.requireNonNull(ns, "ns");
        Objects.requireNonNull(local, "local");
        TcpServerSocket server = TcpServerSocket.open(ns);
        try {
            server.setOption(SocketOption.SO_REUSEADDR, true);
            server.bind(local);
            server.listen(backlog);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        return new Acceptor(server);
    }

    /** Wraps a connected jnet socket (which the connection owns from now on). */
    public static StreamConnection wrap(TcpSocket socket) {
        return new Connection(Objects.requireNonNull(socket, "socket"));
    }

    /**
     * A connector opening jnet sockets in {@code ns} with TCP_NODELAY set.
     *
     * @param connectTimeout limit for the three-way handshake (applied with SO_SNDTIMEO, then cleared),
     *     or null to wait as long as the stack retries SYNs (net.ipv4.tcp_syn_retries); expiry throws
     *     an {@link ErrnoException} (ETIMEDOUT)
     */
    public static StreamConnector connector(SocketProvider ns, Duration connectTimeout) {
        Objects.requireNonNull(ns, "ns");
        if (connectTimeout != null && (connectTimeout.isNegative() || connectTimeout.isZero())) {
            throw new IllegalArgumentException("connect timeout must be positive: " + connectTimeout);
        }
        return remote -> {
            TcpSocket socket = TcpSocket.open(ns);
            try {
                socket.setOption(SocketOption.TCP_NODELAY, true);
                if (connectTimeout != null) socket.setOption(SocketOption.SO_SNDTIMEO, connectTimeout);
                try {
                    socket.connect(remote);
                } catch (ErrnoException e) {
                    if (e.errno() == Errno.EINPROGRESS) {
                        ErrnoException timedOut = new ErrnoException(Errno.ETIMEDOUT,
                                "connect to " + hostPort(remote) + " within " + seconds(connectTimeout));
                        timedOut.initCause(e);
                        throw timedOut;
                    }
                    throw e;
                }
                if (connectTimeout != null) socket.setOption(SocketOption.SO_SNDTIMEO, Duration.ZERO);
            } catch (IOException | RuntimeException e) {
                socket.close();
                throw e;
            }
            return new Connection(socket);
        };
    }

    /** {@code 192.0.2.1:8000} ({@code [2001:db8::1]:8000} for IPv6), never the {@code name/address} form of {@link InetSocketAddress#toString()}. */
    static String hostPort(InetSocketAddress a) {
        String host = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    /** {@code 3 s}, {@code 2.5 s}, {@code 0.001 s}: a duration in seconds without trailing zeros. */
    public static String seconds(Duration d) {
        return java.math.BigDecimal.valueOf(d.toNanos(), 9).stripTrailingZeros().toPlainString() + " s";
    }

    /** A {@link StreamAcceptor} over a listening jnet socket. */
    public static final class Acceptor implements StreamAcceptor {
        private final TcpServerSocket server;

        private Acceptor(TcpServerSocket server) {
            this.server = server;
        }

        /** The bound local address (with the chosen port if bound to port 0). */
        public InetSocketAddress localAddress() {
            return server.localAddress();
        }

        /** Blocks for the next connection; throws EBADF once {@link #close() closed}. */
        @Override
        public StreamConnection accept() throws IOException {
            TcpSocket socket = server.accept();
            if (socket == null) {
                // only a non-blocking listener returns null; this one is blocking unless closed meanwhile
                throw new ErrnoException(server.isClosed() ? Errno.EBADF : Errno.EAGAIN, "accept");
            }
            try {
                socket.setOption(SocketOption.TCP_NODELAY, true);
            } catch (IOException | RuntimeException e) {
                socket.close();
                throw e;
            }
            return new Connection(socket);
        }

        @Override
        public void close() {
            server.close();
        }

        @Override
        public String toString() {
            return "jnet-listen " + server.localAddress();
        }
    }

    private static final class Connection implements StreamConnection {
        private final TcpSocket socket;
        private final InputStream in;
        private final OutputStream out;
        private final String peer;
        private boolean outputShut;

        Connection(TcpSocket socket) {
            this.socket = socket;
            this.in = socket.inputStream();
            this.out = socket.outputStream();
            InetSocketAddress remote = socket.remoteAddress();
            this.peer = remote == null ? "?" : remote.getAddress().getHostAddress() + ":" + remote.getPort();
        }

        @Override
        public InputStream in() {
            return in;
        }

        @Override
        public OutputStream out() {
            return out;
        }

        @Override
        public synchronized void shutdownOutput() throws IOException {
            if (!outputShut) {
                socket.shutdownOutput();
                outputShut = true;
            }
        }

        @Override
        public String peer() {
            return peer;
        }

        @Override
        public void close() {
            socket.close();
        }

        @Override
        public String toString() {
            return "jnet " + socket.localAddress() + " <-> " + peer + " " + socket.state();
        }
    }
}
