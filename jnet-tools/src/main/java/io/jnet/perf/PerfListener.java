package io.jnet.perf;

import java.io.IOException;
import java.net.SocketAddress;

/** A listening TCP socket of a {@link PerfPath}: the server side of every test. */
public interface PerfListener extends AutoCloseable {

    /**
     * Blocks for the next connection and applies the server's {@link SocketSettings} to it
     * (SO_SNDBUF and TCP_NODELAY; SO_RCVBUF is set on the listener so the handshake already advertises it).
     *
     * @throws IOException on an accept error, or when the listener was closed
     */
    PerfConnection accept() throws IOException;

    /**
     * The address clients connect to: an {@link java.net.InetSocketAddress} (address and bound ephemeral
     * port) on IP paths, a {@link java.net.UnixDomainSocketAddress} on the AF_UNIX path.
     */
    SocketAddress address();

    /** Closes the listener; never throws; idempotent. */
    @Override
    void close();
}
