package io.jnet.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.atomic.LongAdder;

/**
 * The TCP Echo Protocol (RFC 862): every byte received on a connection is sent back on it, until the
 * client half-closes; then the server half-closes too (after the last echoed byte) and the connection
 * ends. Connections are served concurrently by a {@link ConnectionServer}.
 */
public final class EchoService implements AutoCloseable {

    /** The well-known port, 7 (RFC 862). */
    public static final int PORT = 7;

    /** Read buffer per connection: 64 KiB. */
    static final int BUFFER_BYTES = 64 * 1024;

    private final LongAdder bytesEchoed = new LongAdder();
    private final ConnectionServer server;

    private EchoService(StreamAcceptor acceptor) {
        this.server = ConnectionServer.start("echo", acceptor, this::echo);
    }

    /** Starts serving connections from {@code acceptor}, which the service owns from now on. */
    public static EchoService start(StreamAcceptor acceptor) {
        return new EchoService(acceptor);
    }

    private void echo(StreamConnection connection) throws IOException {
        InputStream in = connection.in();
        OutputStream out = connection.out();
        byte[] buffer = new byte[BUFFER_BYTES];
        int n;
        while ((n = in.read(buffer)) > 0) {
            out.write(buffer, 0, n);
            out.flush();
            bytesEchoed.add(n);
        }
        connection.shutdownOutput();
    }

    /** Bytes received and sent back, over all connections, since start. */
    public long bytesEchoed() {
        return bytesEchoed.sum();
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
