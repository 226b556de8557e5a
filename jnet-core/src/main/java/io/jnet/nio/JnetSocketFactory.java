package io.jnet.nio;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import javax.net.SocketFactory;

/**
 * {@link JnetNetwork#socketFactory()}: {@code java.net.Socket}s on {@link JnetSocketImpl}s in one network,
 * whatever the scope and with nothing installed JVM-wide. The methods behave as the {@code Socket}
 * constructors with the same arguments (resolution by the JDK's resolver, the socket closed when connecting
 * fails).
 */
final class JnetSocketFactory extends SocketFactory {
    private final JnetNetwork network;

    JnetSocketFactory(JnetNetwork network) {
        this.network = network;
    }

    /** A Socket over a new impl in {@code network} (Socket's constructor for custom impls is protected). */
    static Socket newSocket(JnetSocketImpl impl) throws SocketException {
        return new Socket(impl) { };
    }

    /** An unconnected socket, as {@code new Socket()}. */
    @Override
    public Socket createSocket() throws IOException {
        return newSocket(new JnetSocketImpl(network, false));
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connect(null, address(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connect(new InetSocketAddress(localHost, localPort), address(host, port));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connect(null, new InetSocketAddress(host, port));
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        return connect(new InetSocketAddress(localAddress, localPort), new InetSocketAddress(address, port));
    }

    /** As {@code Socket(String, int)}: a null host is the loopback address. */
    private static InetSocketAddress address(String host, int port) {
        return host == null ? new InetSocketAddress(InetAddress.getLoopbackAddress(), port) : new InetSocketAddress(host, port);
    }

    private Socket connect(InetSocketAddress local, InetSocketAddress remote) throws IOException {
        Socket s = createSocket();
        try {
            if (local != null) s.bind(local);
            s.connect(remote);
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
    public String toString() { return "JnetSocketFactory[" + network + "]"; }
}
