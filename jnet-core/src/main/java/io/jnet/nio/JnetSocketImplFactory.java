package io.jnet.nio;

import java.net.SocketImpl;
import java.net.SocketImplFactory;

/**
 * Makes {@link JnetSocketImpl}s for {@link java.net.Socket#setSocketImplFactory} ({@link #forSockets()}) and
 * {@link java.net.ServerSocket#setSocketFactory} ({@link #forServerSockets()}); {@link JnetSockets#install()}
 * installs both. Each impl opens its jnet socket in the namespace in scope when the JDK creates it
 * ({@link JnetNetwork#require}), or in the network given here.
 *
 * <p>Only {@code Socket}s made without a proxy, or with {@link java.net.Proxy#NO_PROXY}, use the factory: the JDK
 * gives a {@code Socket} made with a SOCKS or HTTP {@link java.net.Proxy} its own kernel implementation.
 * {@code DatagramSocket}s are not covered.
 */
public final class JnetSocketImplFactory implements SocketImplFactory {
    private static final JnetSocketImplFactory SOCKETS = new JnetSocketImplFactory(null, false);
    private static final JnetSocketImplFactory SERVER_SOCKETS = new JnetSocketImplFactory(null, true);

    private final JnetNetwork network;
    private final boolean server;

    private JnetSocketImplFactory(JnetNetwork network, boolean server) {
        this.network = network;
        this.server = server;
    }

    /** The factory for {@code java.net.Socket}s, whose sockets take the scope's network. */
    public static JnetSocketImplFactory forSockets() { return SOCKETS; }

    /** The factory for {@code java.net.ServerSocket}s, whose sockets take the scope's network. */
    public static JnetSocketImplFactory forServerSockets() { return SERVER_SOCKETS; }

    /** A new, not yet created impl: {@link JnetSocketImpl#JnetSocketImpl(JnetNetwork, boolean)}. */
    @Override
    public SocketImpl createSocketImpl() {
        return new JnetSocketImpl(network, server);
    }

    @Override
    public String toString() {
        return "JnetSocketImplFactory[" + (server ? "ServerSocket" : "Socket")
                + (network == null ? ", network in scope" : ", " + network) + "]";
    }
}
