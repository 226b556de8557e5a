package io.jnet.nio;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import javax.net.ServerSocketFactory;

/**
 * {@link JnetNetwork#serverSocketFactory()}: {@code java.net.ServerSocket}s on {@link JnetSocketImpl}s in one
 * network, whatever the scope and with nothing installed JVM-wide. The methods behave as the
 * {@code ServerSocket} constructors with the same arguments (backlog below 1: 50).
 */
final class JnetServerSocketFactory extends ServerSocketFactory {
    private final JnetNetwork network;

    JnetServerSocketFactory(JnetNetwork network) {
        this.network = network;
    }

    /** An unbound server socket, as {@code new ServerSocket()}. */
    @Override
    public ServerSocket createServerSocket() throws IOException {
        return new BoundServerSocket(network);
    }

    @Override
    public ServerSocket createServerSocket(int port) throws IOException {
        return createServerSocket(port, 50, null);
    }

    @Override
    public ServerSocket createServerSocket(int port, int backlog) throws IOException {
        return createServerSocket(port, backlog, null);
    }

    @Override
    public ServerSocket createServerSocket(int port, int backlog, InetAddress bindAddr) throws IOException {
        if (port < 0 || port > 0xFFFF) throw new IllegalArgumentException("Port value out of range: " + port);
        ServerSocket s = createServerSocket();
        try {
            s.bind(bindAddr == null ? new InetSocketAddress(port) : new InetSocketAddress(bindAddr, port), backlog);
            return s;
        } catch (IOException | RuntimeException e) {
            try {
                s.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    @Override
    public String toString() { return "JnetServerSocketFactory[" + network + "]"; }

    /**
     * A ServerSocket whose accepted Sockets are jnet's too: ServerSocket's own {@code accept} would ask the
     * JVM-wide Socket factory for the accepted socket's impl, and there may be none.
     */
    private static final class BoundServerSocket extends ServerSocket {
        private final JnetNetwork network;

        BoundServerSocket(JnetNetwork network) throws IOException {
            super(new JnetSocketImpl(network, true));
            this.network = network;
        }

        /**
         * As {@link ServerSocket#accept()}: waits up to SO_TIMEOUT for a connection and returns it as a
         * {@code Socket} in this server's network.
         */
        @Override
        public Socket accept() throws IOException {
            if (isClosed()) throw new SocketException("Socket is closed");
            if (!isBound()) throw new SocketException("Socket is not bound yet");
            Socket s = JnetSocketFactory.newSocket(new JnetSocketImpl(network, false));
            implAccept(s);
            return s;
        }
    }
}
