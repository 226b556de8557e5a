package io.jnet.app;

import java.io.IOException;
import java.net.InetSocketAddress;

/** Opens client connections, the {@code connect(2)} half. */
@FunctionalInterface
public interface StreamConnector {

    /**
     * Connects to {@code remote} and returns the established connection.
     *
     * @throws IOException if the connection is refused, times out or the network is unreachable
     */
    StreamConnection connect(InetSocketAddress remote) throws IOException;
}
