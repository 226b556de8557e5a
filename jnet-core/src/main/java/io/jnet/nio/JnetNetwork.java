package io.jnet.nio;

import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.net.SocketException;
import java.nio.channels.spi.SelectorProvider;
import java.util.Objects;
import java.util.concurrent.Callable;
import javax.net.ServerSocketFactory;
import javax.net.SocketFactory;

/**
 * One jnet namespace as the JDK's network APIs see it: the scope that tells the JVM-wide hooks
 * ({@link JnetSelectorProvider}, the {@code java.net.Socket} factory, the name resolver) which namespace a
 * program's sockets belong to, and the entry points for code that names the namespace itself.
 *
 * <p>The JDK's hooks are set once per JVM, while one JVM may hold many namespaces. A hook that opens a socket
 * asks {@link #current()}: the network of the innermost {@link #run}/{@link #call} on this thread, else the one
 * in force where this thread was started (threads, virtual or not, inherit the scope of the thread that
 * started them, as an {@link InheritableThreadLocal}), else the JVM's {@linkplain #setDefault default}. A
 * socket keeps the namespace it was opened in for its whole life; a thread pool's threads take the scope in
 * force where each thread was started, not where a task was submitted.
 *
 * <pre>{@code
 * NetNamespace ns = NetNamespace.create("a");
 * JnetNetwork net = JnetNetwork.of(ns);
 * net.run(() -> {                       // with the provider installed (-Djava.nio.channels.spi.SelectorProvider)
 *     HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 8080), 0);
 *     ...
 * });
 * SocketChannel ch = net.selectorProvider().openSocketChannel();   // without installing anything
 * }</pre>
 */
public final class JnetNetwork {
    private static final InheritableThreadLocal<JnetNetwork> SCOPE = new InheritableThreadLocal<>();
    private static volatile JnetNetwork defaultNetwork;

    private final NetNamespace namespace;
    private final JnetSelectorProvider provider;

    private JnetNetwork(NetNamespace namespace) {
        this.namespace = namespace;
        this.provider = new JnetSelectorProvider(this);
    }

    /** The network of {@code namespace}: one object per namespace, made at the first call. */
    public static JnetNetwork of(NetNamespace namespace) {
        Objects.requireNonNull(namespace, "namespace");
        synchronized (namespace) {
            try {
                return namespace.extension(JnetNetwork.class);
            } catch (IllegalStateException absent) {
                JnetNetwork n = new JnetNetwork(namespace);
                namespace.putExtension(JnetNetwork.class, n);
                return n;
            }
        }
    }

    /** The namespace whose sockets this network opens. */
    public NetNamespace namespace() { return namespace; }

    /**
     * A provider bound to this namespace whatever the scope: its channels and selectors are jnet's (a selector
     * takes the channels of every jnet namespace, never the kernel's). For code that
     * names its provider, e.g. Netty's {@code NioIoHandler.newFactory(provider)} with channels made by
     * {@code new NioSocketChannel(provider)}.
     */
    public SelectorProvider selectorProvider() { return provider; }

    /** Runs {@code task} with this network as {@link #current()} on this thread and on threads it starts. */
    public void run(Runnable task) {
        JnetNetwork outer = SCOPE.get();
        SCOPE.set(this);
        try {
            task.run();
        } finally {
            restore(outer);
        }
    }

    /** {@link #run} for a task with a result; the task's exception passes through unchanged. */
    public <T> T call(Callable<T> task) throws Exception {
        JnetNetwork outer = SCOPE.get();
        SCOPE.set(this);
        try {
            return task.call();
        } finally {
            restore(outer);
        }
    }

    private static void restore(JnetNetwork outer) {
        if (outer == null) SCOPE.remove();
        else SCOPE.set(outer);
    }

    /** The network in scope on this thread, else the default; null when there is neither. */
    public static JnetNetwork current() {
        JnetNetwork n = SCOPE.get();
        return n != null ? n : defaultNetwork;
    }

    /**
     * {@link #current()}, or a {@link SocketException} naming the cause when there is none: a socket opened
     * outside any scope with no default never falls back to the kernel.
     *
     * @param what what was being opened, for the message (e.g. "SocketChannel")
     */
    public static JnetNetwork require(String what) throws SocketException {
        JnetNetwork n = current();
        if (n == null) {
            throw new SocketException("jnet: no network for this " + what + ": the thread runs outside "
                    + "JnetNetwork.run/call and no default network is configured (JnetNetwork.setDefault, or "
                    + "the jnet.config system property); the kernel's network is never used instead");
        }
        if (n.namespace.isClosed()) {
            throw new SocketException("jnet: the network's namespace " + n.namespace.name() + " is closed");
        }
        return n;
    }

    /** Makes {@code network} the JVM's default (used where no scope is in force); null removes it. */
    public static void setDefault(JnetNetwork network) { defaultNetwork = network; }

    /** The JVM's default network, or null. */
    public static JnetNetwork defaultNetwork() { return defaultNetwork; }

    static IOException closedNamespace(NetNamespace ns) {
        return new SocketException("jnet: namespace " + ns.name() + " is closed");
    }

    @Override
    public String toString() { return "JnetNetwork[" + namespace.name() + "]"; }

    /**
     * A {@link SocketFactory} whose {@code java.net.Socket}s are jnet TCP sockets in this network, whatever the
     * scope of the thread that uses them, with nothing installed JVM-wide ({@link JnetSockets#install()} is
     * not needed). The sockets behave as {@link JnetSocketImpl} describes; {@code createSocket()} gives an
     * unconnected one.
     */
    public SocketFactory socketFactory() { return new JnetSocketFactory(this); }

    /**
     * A {@link ServerSocketFactory} whose {@code java.net.ServerSocket}s listen in this network, whatever the
     * scope, with nothing installed JVM-wide; the {@code Socket}s they accept are in this network too.
     * {@code createServerSocket()} gives an unbound one; a backlog below 1 means 50, as the JDK's.
     */
    public ServerSocketFactory serverSocketFactory() { return new JnetServerSocketFactory(this); }
}
