package io.jnet.app;

import java.io.IOException;

/**
 * Serves one accepted connection from start to end, on the connection's own thread.
 * The caller ({@link ConnectionServer}) closes the connection after this returns or throws.
 */
@FunctionalInterface
public interface ConnectionHandler {

    /**
     * Runs the protocol on {@code connection}.
     *
     * @throws IOException when the transport fails (peer reset, connection closed by a shutdown);
     *                     counted by the server, not propagated further
     */
    void handle(StreamConnection connection) throws IOException;
}
