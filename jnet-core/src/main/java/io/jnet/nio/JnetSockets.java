package io.jnet.nio;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;

/**
 * Puts {@code java.net.Socket} and {@code java.net.ServerSocket} on jnet for the whole JVM: after
 * {@link #install()}, {@code new Socket(host, port)}, {@code new ServerSocket(port)} and what is built on them
 * ({@code java.net.HttpURLConnection}, ...) open jnet TCP sockets in the namespace of {@link JnetNetwork#current()}
 * (the scope, else the JVM's default). A socket made where there is neither fails with the
 * {@link SocketException} of {@link JnetNetwork#require}: nothing falls back to the kernel.
 *
 * <p>Not covered: {@code java.net.DatagramSocket} and {@code MulticastSocket} (the JDK has no factory for them
 * any more), {@code Socket}s made with a SOCKS or HTTP {@link java.net.Proxy} (the JDK gives those its own
 * kernel implementation), and NIO channels (the
 * SelectorProvider's job). To use jnet without JVM-wide hooks, take the factories of
 * {@link JnetNetwork#socketFactory()} and {@link JnetNetwork#serverSocketFactory()}.
 */
public final class JnetSockets {
    private static boolean socketsInstalled;
    private static boolean serverSocketsInstalled;

    private JnetSockets() {}

    /**
     * Installs {@link JnetSocketImplFactory#forSockets()} with {@link Socket#setSocketImplFactory} and
     * {@link JnetSocketImplFactory#forServerSockets()} with {@link ServerSocket#setSocketFactory}. Idempotent:
     * a second call does nothing. The JDK lets each factory be set once per JVM and never unset.
     *
     * @throws SocketException when another factory is set already (naming which one; if jnet's Socket factory
     *                         got in before the ServerSocket one was refused, it stays installed, and the
     *                         message says so)
     */
    @SuppressWarnings("deprecation") // the JDK's only JVM-wide hooks for java.net.Socket and ServerSocket
    public static synchronized void install() throws SocketException {
        if (!socketsInstalled) {
            try {
                Socket.setSocketImplFactory(JnetSocketImplFactory.forSockets());
            } catch (IOException e) {
                throw failure("java.net.Socket already has a SocketImplFactory that is not jnet's; jnet's "
                        + "factories are not installed", e);
            }
            socketsInstalled = true;
        }
        if (!serverSocketsInstalled) {
            try {
                ServerSocket.setSocketFactory(JnetSocketImplFactory.forServerSockets());
            } catch (IOException e) {
                throw failure("java.net.ServerSocket already has a SocketImplFactory that is not jnet's; "
                        + "java.net.Socket's is jnet's now (the JDK cannot unset it), ServerSocket's is not", e);
            }
            serverSocketsInstalled = true;
        }
    }

    /** True once {@link #install()} has installed both factories. */
    public static synchronized boolean isInstalled() { return socketsInstalled && serverSocketsInstalled; }

    private static SocketException failure(String message, IOException cause) {
        SocketException e = new SocketException("jnet: " + message + " (" + cause.getMessage() + ")");
        e.initCause(cause);
        return e;
    }
}
