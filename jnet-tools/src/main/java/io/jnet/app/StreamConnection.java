package io.jnet.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * One established, bidirectional byte-stream connection (a TCP connection) as the application
 * services see it: a blocking {@link InputStream} (read returns -1 after the peer's FIN), a blocking
 * {@link OutputStream}, a half-close, and a close.
 *
 * <p>Implementations adapt a transport: {@link JdkStreams} adapts {@link java.net.Socket}; an adapter
 * for jnet's {@link io.jnet.socket.TcpSocket} maps the same calls one to one
 * ({@code inputStream()}, {@code outputStream()}, {@code shutdownOutput()}, {@code close()}).
 *
 * <p>{@link #close()} may be called from another thread to abort blocked reads and writes
 * (they then fail with an {@link IOException}); it is idempotent and never throws.
 */
public interface StreamConnection extends AutoCloseable {

    /** The receive side; {@code read} blocks, returns -1 at end of stream, throws IOException on reset or after close. */
    InputStream in();

    /** The send side; {@code write} blocks until the bytes are queued, throws IOException (EPIPE, ECONNRESET) on failure. */
    OutputStream out();

    /** Half-close: shutdown(SHUT_WR), the peer reads end of stream once queued data is delivered (a FIN in TCP). */
    void shutdownOutput() throws IOException;

    /** The peer's address for logs, e.g. {@code 10.0.0.2:40312}. */
    String peer();

    /** Releases the connection; idempotent, never throws, unblocks threads blocked in {@link #in()} or {@link #out()}. */
    @Override
    void close();
}
