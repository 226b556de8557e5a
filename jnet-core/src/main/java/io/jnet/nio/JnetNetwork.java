package io.jnet.nio;

import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.net.SocketException;
import java.util.Objects;
import java.util.concurrent.Callable;

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
 * }</pre>
 */
public final class JnetNetwork {
    private static final InheritableThreadLocal<JnetNetwork> SCOPE = new InheritableThreadLocal<>();
    private static volatile JnetNetwork defaultNetwork;

    private final NetNamespace namespace;

    private JnetNetwork(NetNamespace namespace) {
        this.namespace = namespace;
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
}
