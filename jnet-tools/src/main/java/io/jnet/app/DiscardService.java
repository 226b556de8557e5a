package io.jnet.app;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.LongAdder;

/**
 * The TCP Discard Protocol (RFC 863): bytes received are thrown away and nothing is ever sent; when
 * the client half-closes the server closes the connection. Connections are served concurrently by a
 * {@link ConnectionServer}. Useful as a sink for bulk-transfer throughput tests.
 */
public final class DiscardService implements AutoCloseable {

    /** The well-known port, 9 (RFC 863). */
    public static final int PORT = 9;

    private final LongAdder bytesDiscarded = new LongAdder();
    private final ConnectionServer server;

    private DiscardService(StreamAcceptor acceptor) {
        this.server = ConnectionServer.start("discard", acceptor, this::discard);
    }

    /** Starts serving connections from {@code acceptor}, which the service owns from now on. */
    public static DiscardService start(StreamAcceptor acceptor) {
        return new DiscardService(acceptor);
    }

    private void discard(StreamConnection connection) throws IOException {
        InputStream in = connection.in();
        byte[] buffer = new byte[EchoService.BUFFER_BYTES];
        int n;
        while ((n = in.read(buffer)) > 0) {
            bytesDiscarded.add(n);
        }
    }

    /** Bytes received and thrown away, over all connections, since start. */
    public long bytesDiscarded() {
        return bytesDiscarded.sum();
    }

    /** The accept loop, for connection counters. */
    public ConnectionServer server() {
        return server;
    }

    /** Stops accepting and closes live connections (see {@link ConnectionServer#close()}). */
    @Override
    public void close() {
        server.close();
    }
}
