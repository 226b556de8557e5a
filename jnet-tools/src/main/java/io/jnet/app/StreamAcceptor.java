package io.jnet.app;

import java.io.IOException;

/**
 * A listening endpoint that hands out established {@link StreamConnection}s, the {@code accept(2)}
 * half of a server. {@link #close()} stops listening; a thread blocked in {@link #accept()} then
 * receives an {@link IOException}, and every later {@code accept} throws one too.
 */
public interface StreamAcceptor extends AutoCloseable {

    /**
     * Blocks until the next connection is established and returns it (never null).
     *
     * @throws IOException if the acceptor is closed, or on a transport error (such as EMFILE) after which
     *                     accepting may be retried
     */
    StreamConnection accept() throws IOException;

    /** Stops listening; idempotent, never throws. Connections already accepted stay open. */
    @Override
    void close();
}
