package io.jnet.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Objects;

/**
 * Adapters from the JDK's kernel sockets ({@link Socket}, {@link ServerSocket}) to
 * {@link StreamConnection}, {@link StreamAcceptor} and {@link StreamConnector}. They let the
 * application services run, and be tested, over the host's TCP stack.
 */
public final class JdkStreams {

    private JdkStreams() {}

    /**
     * Binds a new listening socket to {@code local} (port 0 picks an ephemeral port) with the given backlog.
     *
     * @throws IOException if the bind fails (EADDRINUSE, EACCES for ports below 1024 without privilege)
     */
    public static Acceptor listen(InetSocketAddress local, int backlog) throws IOException {
        ServerSocket server = new ServerSocket();
        try {
            server.setReuseAddress(true);
            server.bind(local, backlog);
        } catch (IOException e) {
            server.close();
            throw e;
        }
        return new Acceptor(server);
    }

    /** Wraps an already bound {@link ServerSocket}. */
    public static Acceptor acceptor(ServerSocket server) {
        return new Acceptor(Objects.requireNonNull(server, "server"));
    }

    /** Wraps a connected {@link Socket}. */
    public static StreamConnection wrap(Socket socket) {
        return new Connection(Objects.requireNonNull(socket, "socket"));
    }

    /**
     * A connector opening JDK sockets with TCP_NODELAY set.
     *
     * @param connectTimeoutMillis connect timeout in milliseconds, 0 for the kernel's default
     */
    public static StreamConnector connector(int connectTimeoutMillis) {
        if (connectTimeoutMillis < 0) {
            throw new IllegalArgumentException("connect timeout must be >= 0 ms: " + connectTimeoutMillis);
        }
        return remote -> {
            Socket socket = new Socket();
            try {
                socket.setTcpNoDelay(true);
                socket.connect(remote, connectTimeoutMillis);
            } catch (IOException e) {
                socket.close();
                throw e;
            }
            return new Connection(socket);
        };
    }

    /** A {@link StreamAcceptor} over a {@link ServerSocket}. */
    public static final class Acceptor implements StreamAcceptor {
        private final ServerSocket server;

        private Acceptor(ServerSocket server) {
            this.server = server;
        }

        /** The bound local address (with the chosen port if bound to port 0). */
        public InetSocketAddress localAddress() {
            return (InetSocketAddress) server.getLocalSocketAddress();
        }

        @Override
        public StreamConnection accept() throws IOException {
            Socket socket = server.accept();
            try {
                socket.setTcpNoDelay(true);
            } catch (IOException e) {
                socket.close();
                throw e;
            }
            return new Connection(socket);
        }

        @Override
        public void close() {
            try {
                server.close();
            } catch (IOException ignored) {
                // closing a listening socket has nothing left to report
            }
        }

        @Override
        public String toString() {
            return "jdk-listen " + server.getLocalSocketAddress();
        }
    }

    private static final class Connection implements StreamConnection {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        private final String peer;

        Connection(Socket socket) {
            this.socket = socket;
            try {
                this.in = socket.getInputStream();
                this.out = socket.getOutputStream();
            } catch (IOException e) {
                close();
                throw new IllegalStateException("socket is not connected: " + socket, e);
            }
            InetSocketAddress remote = (InetSocketAddress) socket.getRemoteSocketAddress();
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
        public void shutdownOutput() throws IOException {
            if (!socket.isOutputShutdown()) {
                socket.shutdownOutput();
            }
        }

        @Override
        public String peer() {
            return peer;
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // a failed close leaves nothing for the caller to do
            }
        }

        @Override
        public String toString() {
            return "jdk " + socket.getLocalSocketAddress() + " <-> " + peer;
        }
    }
}
