package io.jnet.perf;

import java.io.IOException;
import java.nio.ByteBuffer;

/** Datagrams from any of several UDP sockets, as a server with one socket per flow reads them (epoll). */
public interface PerfDatagramSet extends AutoCloseable {

    /**
     * Blocks for the next datagram on any of the sockets and copies it into {@code dst}'s remaining space (the
     * rest of a longer datagram is discarded); the position advances by the bytes copied.
     *
     * @return the number of bytes copied
     * @throws IOException when a socket fails or is closed
     */
    int read(ByteBuffer dst) throws IOException;

    /** The index, in the list the set was made of, of the socket the last {@link #read} came from. */
    int lastIndex();

    /** Releases the set (not the sockets); never throws. */
    @Override
    void close();
}
