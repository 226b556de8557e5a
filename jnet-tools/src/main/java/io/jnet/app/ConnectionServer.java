package io.jnet.app;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The accept loop shared by the services: one thread accepts from a {@link StreamAcceptor} and each
 * accepted connection is served by a {@link ConnectionHandler} on its own virtual thread, so any number
 * of connections are served concurrently.
 *
 * <p>A handler's {@link IOException} (peer reset, abort) and any {@link RuntimeException} are caught,
 * counted in {@link #connectionErrors()} and end only that connection; the connection is always closed
 * when its handler returns. Transient accept errors (such as EMFILE) are counted in
 * {@link #acceptErrors()} and retried with a back-off from 10 ms doubling up to 1 s.
 *
 * <p>{@link #close()} stops the service: it closes the acceptor, closes every live connection and waits
 * (up to 5 s) for the threads to finish.
 */
public final class ConnectionServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ConnectionServer.class.getName());
    private static final long MAX_BACKOFF_MILLIS = 1000;
    private static final long CLOSE_WAIT_MILLIS = 5000;

    private final String name;
    private final StreamAcceptor acceptor;
    private final ConnectionHandler handler;
    private final ExecutorService workers;
    private final Set<StreamConnection> live = ConcurrentHashMap.newKeySet();
    private final LongAdder accepted = new LongAdder();
    private final LongAdder acceptErrors = new LongAdder();
    private final LongAdder connectionErrors = new LongAdder();
    private final Thread acceptThread;
    private volatile boolean closed;

    private ConnectionServer(String name, StreamAcceptor acceptor, ConnectionHandler handler) {
        this.name = name;
        this.acceptor = acceptor;
        this.handler = handler;
        this.workers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(name + "-conn-", 0).factory());
        this.acceptThread = Thread.ofPlatform().daemon().name(name + "-accept").unstarted(this::acceptLoop);
    }

    /**
     * Starts serving: returns once the accept thread runs.
     *
     * @param name     a short service name for thread names and logs, e.g. {@code "echo"}
     * @param acceptor where connections come from; owned by the server from now on (closed by {@link #close()})
     * @param handler  serves each connection
     */
    public static ConnectionServer start(String name, StreamAcceptor acceptor, ConnectionHandler handler) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(acceptor, "acceptor");
        Objects.requireNonNull(handler, "handler");
        ConnectionServer server = new ConnectionServer(name, acceptor, handler);
        server.acceptThread.start();
        return server;
    }

    private void acceptLoop() {
        long backoff = 10;
        while (!closed) {
            StreamConnection connection;
            try {
                connection = acceptor.accept();
            } catch (IOException | RuntimeException e) {
                if (closed) {
                    break;
                }
                acceptErrors.increment();
                long wait = backoff;
                LOG.log(Level.WARNING, () -> name + ": accept failed, retrying in " + wait + " ms: " + e);
                if (!sleep(backoff)) {
                    break;
                }
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
                continue;
            }
            backoff = 10;
            if (connection == null) {
                continue;
            }
            accepted.increment();
            live.add(connection);
            if (closed) {
                // close() may have swept the live set before this connection joined it
                live.remove(connection);
                connection.close();
                break;
            }
            try {
                workers.execute(() -> serve(connection));
            } catch (RuntimeException rejected) {
                live.remove(connection);
                connection.close();
            }
        }
    }

    private void serve(StreamConnection connection) {
        try {
            handler.handle(connection);
        } catch (IOException e) {
            connectionErrors.increment();
            LOG.log(Level.DEBUG, () -> name + " " + connection.peer() + ": " + e);
        } catch (RuntimeException e) {
            connectionErrors.increment();
            LOG.log(Level.WARNING, name + " " + connection.peer() + ": handler failed", e);
        } finally {
            live.remove(connection);
            connection.close();
        }
    }

    private static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Connections accepted since start. */
    public long acceptedConnections() {
        return accepted.sum();
    }

    /** Connections being served right now. */
    public int activeConnections() {
        return live.size();
    }

    /** Failed {@code accept} calls (retried) since start. */
    public long acceptErrors() {
        return acceptErrors.sum();
    }

    /** Connections that ended with an I/O error or a handler failure since start. */
    public long connectionErrors() {
        return connectionErrors.sum();
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    /** Stops accepting, closes all live connections and waits up to 5 s for their threads; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        acceptor.close();
        acceptThread.interrupt();
        for (StreamConnection connection : live) {
            connection.close();
        }
        workers.shutdown();
        try {
            acceptThread.join(CLOSE_WAIT_MILLIS);
            if (!workers.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                LOG.log(Level.WARNING, () -> name + ": connection threads still running after close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return name + " on " + acceptor;
    }
}
