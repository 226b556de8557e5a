package io.jnet.nio;

import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.nio.channels.Channel;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;
import java.util.Objects;

/**
 * The JDK's {@link SelectorProvider} on jnet: {@link SocketChannel}, {@link ServerSocketChannel} and
 * {@link java.nio.channels.Selector} are jnet sockets and a jnet poller, so everything built on NIO
 * ({@code HttpClient}, the JDK's {@code HttpServer}, Netty's NIO transport, ...) runs on a jnet namespace.
 *
 * <p>Two forms:
 * <ul>
 * <li>Installed JVM-wide with {@code -Djava.nio.channels.spi.SelectorProvider=io.jnet.nio.JnetSelectorProvider}
 * (the public constructor): each channel is opened in the namespace of {@link JnetNetwork#current()} at the
 * time it is opened, and fails with a {@link java.net.SocketException} naming the cause when there is none;
 * nothing falls back to the kernel.</li>
 * <li>Bound to one namespace: {@link JnetNetwork#selectorProvider()}, for code that takes a provider.</li>
 * </ul>
 * A selector from either form takes jnet channels of any namespace and any jnet provider, and refuses others
 * (the kernel's) with {@link java.nio.channels.IllegalSelectorException}. jnet has IPv4 only: {@code INET6} channels and IPv6 addresses
 * fail with a SocketException saying so.
 */
public final class JnetSelectorProvider extends SelectorProvider {
    private final JnetNetwork network;

    /** The JVM-wide form, for {@code -Djava.nio.channels.spi.SelectorProvider}: namespaces come from the scope. */
    public JnetSelectorProvider() {
        this.network = null;
    }

    /** The form bound to {@code network}. */
    JnetSelectorProvider(JnetNetwork network) {
        this.network = Objects.requireNonNull(network, "network");
    }

    /** The namespace a new channel opens in: the bound one, else the scope's (SocketException when none). */
    private NetNamespace namespace(String what) throws IOException {
        JnetNetwork n = network != null ? network : JnetNetwork.require(what);
        if (n.namespace().isClosed()) throw JnetNetwork.closedNamespace(n.namespace());
        return n.namespace();
    }

    @Override
    public SocketChannel openSocketChannel() throws IOException {
        NetNamespace ns = namespace("SocketChannel");
        return new JnetSocketChannel(this, new StreamEndpoint.Tcp(ns.openTcpSocket()), ns.clock());
    }

    /** INET: TCP; UNIX: a local stream socket of the namespace (names are entries of its own table, not files). */
    @Override
    public SocketChannel openSocketChannel(ProtocolFamily family) throws IOException {
        Objects.requireNonNull(family, "family");
        if (family == StandardProtocolFamily.INET) return openSocketChannel();
        if (family == StandardProtocolFamily.UNIX) {
            NetNamespace ns = namespace("SocketChannel");
            return new JnetSocketChannel(this, new StreamEndpoint.Local(ns.openLocalSocket()), ns.clock());
        }
        throw unsupported(family);
    }

    @Override
    public ServerSocketChannel openServerSocketChannel() throws IOException {
        NetNamespace ns = namespace("ServerSocketChannel");
        return new JnetServerSocketChannel(this, new ListenEndpoint.Tcp(ns.openTcpServerSocket()), ns.clock());
    }

    /** INET: a TCP listener; UNIX: a local stream listener of the namespace. */
    @Override
    public ServerSocketChannel openServerSocketChannel(ProtocolFamily family) throws IOException {
        Objects.requireNonNull(family, "family");
        if (family == StandardProtocolFamily.INET) return openServerSocketChannel();
        if (family == StandardProtocolFamily.UNIX) {
            NetNamespace ns = namespace("ServerSocketChannel");
            return new JnetServerSocketChannel(this, new ListenEndpoint.Local(ns.openLocalServerSocket()), ns.clock());
        }
        throw unsupported(family);
    }

    @Override
    public DatagramChannel openDatagramChannel() throws IOException {
        return new JnetDatagramChannel(this, namespace("DatagramChannel").openUdpSocket());
    }

    @Override
    public DatagramChannel openDatagramChannel(ProtocolFamily family) throws IOException {
        Objects.requireNonNull(family, "family");
        if (family == StandardProtocolFamily.INET) return openDatagramChannel();
        throw unsupported(family);
    }

    @Override
    public Pipe openPipe() throws IOException {
        return new JnetPipe(this, namespace("Pipe").openLocalSocketPair());
    }

    /**
     * A selector; its {@code select(timeout)} counts time on the clock of the provider's namespace, or of the
     * scope's when one is in force (virtual time on a virtual-time namespace), else real time.
     */
    @Override
    public AbstractSelector openSelector() throws IOException {
        JnetNetwork n = network != null ? network : JnetNetwork.current();
        return new JnetSelector(this, n == null ? null : n.namespace());
    }

    /** No channel is inherited from a parent process: a jnet namespace lives in this JVM only. */
    @Override
    public Channel inheritedChannel() {
        return null;
    }

    private static UnsupportedOperationException unsupported(ProtocolFamily family) {
        if (family == StandardProtocolFamily.INET6)
            return new UnsupportedOperationException("jnet has no IPv6 yet (protocol family INET6)");
        return new UnsupportedOperationException("Protocol family not supported by jnet: " + family);
    }

    @Override
    public String toString() {
        return "JnetSelectorProvider[" + (network == null ? "scoped" : network.namespace().name()) + "]";
    }
}
