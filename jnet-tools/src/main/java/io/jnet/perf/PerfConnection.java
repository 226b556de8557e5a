package io.jnet.perf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A connected, blocking TCP stream socket as the perf tests use it, whichever stack is underneath.
 * Implementations wrap a jnet {@code TcpSocket} or a JDK {@code SocketChannel}.
 */
public interface PerfConnection extends AutoCloseable {

    /**
     * Reads into {@code dst}'s remaining space, blocking until at least one byte is there.
     *
     * @return the number of bytes read, or -1 at end of stream (the peer's FIN)
     * @throws IOException on a reset or any other socket error
     */
    int read(ByteBuffer dst) throws IOException;

    /**
     * Writes {@code src}'s remaining bytes, blocking until the stack has taken them (maybe only part on
     * some stacks: callers loop until the buffer is empty).
     *
     * @return the number of bytes taken
     * @throws IOException on a reset, EPIPE after shutdown, or any other socket error
     */
    int write(ByteBuffer src) throws IOException;

    /**
     * sendfile(2): sends up to {@code count} bytes of {@code file} from offset {@code position}, blocking, the
     * bytes going from the file to the stack without passing through a user buffer of the caller (jnet:
     * {@code TcpSocket.transferFrom}, whose segments refer to a mapping of the file from 16 KiB a call; the
     * kernel: {@link FileChannel#transferTo}, which is sendfile(2) itself). The file's position is not changed.
     *
     * @return the number of bytes sent (maybe fewer than {@code count}: callers loop), 0 at end of file
     * @throws IOException                   on a reset, EPIPE after shutdown, or any other socket or file error
     * @throws UnsupportedOperationException if the stack has no file-to-socket path (the default)
     */
    default long transferFrom(FileChannel file, long position, long count) throws IOException {
        throw new UnsupportedOperationException("no sendfile on this stack");
    }

    /** shutdown(SHUT_WR): sends FIN after the queued data. */
    void shutdownOutput() throws IOException;

    /** The effective SO_SNDBUF in bytes, as getsockopt reports it (Linux reports twice the value set). */
    int sendBufferSize() throws IOException;

    /** The effective SO_RCVBUF in bytes, as getsockopt reports it. */
    int receiveBufferSize() throws IOException;

    /** Closes the socket; never throws; idempotent. Unblocks a thread blocked in read or write. */
    @Override
    void close();
}
