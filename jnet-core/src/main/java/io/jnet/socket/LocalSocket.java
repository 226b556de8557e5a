package io.jnet.socket;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A local stream socket in a jnet namespace: the analogue of Linux's AF_UNIX SOCK_STREAM socket (man 7 unix),
 * shaped after the BSD calls like {@link TcpSocket}. Sockets meet by name: a {@link LocalServerSocket} binds a
 * path string in the namespace's own name table ({@link LocalNames}; there is no file system) and listens,
 * {@link #connect} names it; or {@link #pair} makes two connected sockets at once (socketpair(2)).
 *
 * <p>A connection is two byte streams, each a {@link io.jnet.buffer.StreamPipe} that the writer copies into and
 * the reader copies out of; no packets, no checksums, no TCP state. As on Linux, {@link #connect} completes at
 * once (the server's socket waits in the listener's queue until {@link LocalServerSocket#accept}), and data
 * written before the accept is kept for it.
 *
 * <p>Flow control: a writer may have at most its SO_SNDBUF bytes written and not yet read by the peer (Linux
 * charges the writer's sk_sndbuf with the truesize of the buffers queued at the peer, which counts some hundred
 * bytes of overhead per write; jnet counts payload bytes only). A blocked writer sleeps until the reader has
 * brought that down to a quarter of SO_SNDBUF (Linux's {@code unix_writable}), and {@link Events#POLLOUT} means
 * the same. SO_RCVBUF is kept and reported but limits nothing, as on Linux.
 *
 * <p>Blocking by default. In non-blocking mode {@code read} and {@code write} return 0 where they would block
 * (where Linux returns EAGAIN), as {@link TcpSocket} does. Errors are {@link ErrnoException}s with Linux's
 * errno, as {@code net/unix/af_unix.c} reports them; each method lists its own. A call made after
 * {@link #close()} throws EBADF; a call that was blocked when another thread closed the socket returns as after
 * a shutdown of both directions (a read with end of stream, a write with the count written or EPIPE), a blocked
 * connect with EBADF.
 *
 * <p>Closing: the peer reads what is left, then end of stream. When a socket closes with bytes it never read
 * (or closes unaccepted, with its listener), the peer's next read after its remaining data throws ECONNRESET
 * once, then gives end of stream (Linux {@code unix_release_sock} sets the peer's sk_err). Writing to a peer
 * that closed or shut its input down throws EPIPE.
 */
public interface LocalSocket extends ByteStreamSocket {

    /** Opens an unconnected, unnamed local stream socket in {@code ns} (socket(AF_UNIX, SOCK_STREAM, 0)). */
    static LocalSocket open(SocketProvider ns) {
        return ns.openLocalSocket();
    }

    /**
     * Two unnamed local stream sockets connected to each other (socketpair(AF_UNIX, SOCK_STREAM, 0)): what one
     * writes, the other reads.
     */
    static Pair pair(SocketProvider ns) {
        return ns.openLocalSocketPair();
    }

    /** The two ends made by {@link #pair}. */
    record Pair(LocalSocket first, LocalSocket second) {}

    /**
     * bind(2): gives the socket the name {@code path}, a string of 1 to 108 bytes in UTF-8 without NUL
     * characters, compared byte for byte (no directories are resolved: {@code a} and {@code ./a} are two
     * names). A peer accepted by a listener then sees it as {@link #remoteAddress()}. The name stays taken
     * after the socket closes, until {@link LocalNames#unlink}.
     *
     * @throws ErrnoException EADDRINUSE when the name exists (bound now or earlier and not unlinked); EINVAL for
     *                        a malformed name (empty: Linux's autobind to an abstract name, which jnet does not
     *                        have) or when the socket already has a name; EBADF after close
     */
    void bind(String path) throws IOException;

    /**
     * connect(2) to the listener bound to {@code path}. Completes at once when the listener's queue has room:
     * the connection waits there for {@link LocalServerSocket#accept}, and both directions are usable
     * meanwhile. A socket without a name stays unnamed (Linux binds one automatically only with SO_PASSCRED).
     *
     * <p>When the queue is full (more than the backlog waiting, as Linux's {@code unix_recvq_full}), a blocking
     * socket waits until an accept makes room, the listener closes, or SO_SNDTIMEO expires; a non-blocking one
     * throws EAGAIN at once (not EINPROGRESS as TCP).
     *
     * @throws ErrnoException ENOENT when no such name exists; ECONNREFUSED when the name's socket is not
     *                        listening (never did, closed, or the name belongs to a {@code LocalSocket});
     *                        EAGAIN when the queue is full and the socket is non-blocking or SO_SNDTIMEO
     *                        expired; EISCONN when already connected; EINVAL for a malformed name; EBADF after
     *                        close
     */
    void connect(String path) throws IOException;

    /**
     * Reads up to {@code len} bytes: what is there, at least one byte. Returns the count, -1 at end of stream
     * (the peer closed or shut its output down, or this socket's input was shut down, and everything written
     * before was read), 0 in non-blocking mode when nothing is there. A blocked read first spins for
     * SO_BUSY_POLL microseconds, then sleeps.
     *
     * @throws ErrnoException ECONNRESET once, after the remaining data, when the peer closed with bytes it never
     *                        read; EAGAIN when SO_RCVTIMEO expires; EINVAL when not connected (Linux reads an
     *                        unconnected stream socket so); EBADF after close
     */
    int read(byte[] b, int off, int len) throws IOException;

    /** Reads into the buffer's remaining space (heap or direct); same results as {@link #read(byte[], int, int)}. */
    int read(ByteBuffer dst) throws IOException;

    /**
     * Writes bytes. Blocking: returns once all {@code len} bytes are in the stream (waiting for the peer to read
     * when SO_SNDBUF bytes are unread), or with fewer when SO_SNDTIMEO expires or an error comes after some were
     * written. Non-blocking: returns the count that fitted (maybe 0).
     *
     * @throws ErrnoException EPIPE after {@link #shutdownOutput()}, or when the peer closed or shut its input
     *                        down; ENOTCONN when not connected; EAGAIN when SO_SNDTIMEO expires before any byte
     *                        was written; EBADF after close
     */
    int write(byte[] b, int off, int len) throws IOException;

    /** Writes the buffer's remaining bytes (heap or direct); same results as {@link #write(byte[], int, int)}. */
    int write(ByteBuffer src) throws IOException;

    /**
     * sendfile(2) into the stream: writes up to {@code count} bytes of {@code src} from file offset
     * {@code position}, copied from a read-only mapping of the file (kept for the next call, up to 64 MiB of the
     * file) into the stream without passing through a user buffer, as Linux copies page-cache pages into the
     * AF_UNIX socket's buffers. The file's own position is neither used nor changed; bytes past the end of the
     * file are not sent (a short count). Blocking and non-blocking as {@link #write(byte[], int, int)}.
     *
     * @return the number of bytes written; 0 when {@code count} is 0 or {@code position} is at or past the end
     * @throws ErrnoException EINVAL for a negative {@code position} or {@code count}; EBADF when {@code src} is
     *                        closed or not open for reading, or after close; EAGAIN when non-blocking and nothing
     *                        fitted, or SO_SNDTIMEO expired first; EPIPE, ENOTCONN as for write; EIO when the
     *                        file cannot be mapped
     */
    long transferFrom(FileChannel src, long position, long count) throws IOException;

    /**
     * shutdown(SHUT_WR): this socket writes no more (EPIPE); the peer reads what was written, then end of
     * stream. Allowed on an unconnected socket, as Linux (it only marks this one).
     *
     * @throws ErrnoException EBADF after close
     */
    void shutdownOutput() throws IOException;

    /**
     * shutdown(SHUT_RD): the peer's writes fail with EPIPE from now on; data already written stays readable
     * (Linux does not drop it), then reads give end of stream.
     *
     * @throws ErrnoException EBADF after close
     */
    void shutdownInput() throws IOException;

    /**
     * setsockopt(2) at SOL_SOCKET: SO_SNDBUF (doubled as Linux, capped by net.core.wmem_max, at least 4608;
     * the flow-control limit), SO_RCVBUF (doubled, capped by net.core.rmem_max, at least 2304; no effect),
     * SO_RCVTIMEO, SO_SNDTIMEO (also bounds a connect waiting for queue room), SO_BUSY_POLL (microseconds, not
     * negative), and SO_LINGER, SO_REUSEADDR, SO_KEEPALIVE, which Linux accepts on AF_UNIX sockets and which
     * change nothing (a local close never waits, no port is reused, no probe is sent).
     *
     * @throws ErrnoException EOPNOTSUPP for TCP_NODELAY and TCP_CORK (not SOL_SOCKET options; Linux's unix_setsockopt);
     *                        EINVAL for a null or negative value
     */
    <T> void setOption(SocketOption<T> option, T value) throws IOException;

    /** getsockopt(2) of the options {@link #setOption} takes; EOPNOTSUPP for TCP_NODELAY and TCP_CORK. */
    <T> T getOption(SocketOption<T> option) throws IOException;

    /** getsockname(2): the bound name; an accepted socket has its listener's; null when unnamed. */
    String localAddress();

    /** getpeername(2): the peer's name, or null when the peer is unnamed or this socket is not connected. */
    String remoteAddress();

    /** True from connect (or accept, or {@link #pair}) until close. */
    boolean isConnected();

    /** State as {@code ss -x} prints it: {@code ESTAB} once connected, {@code UNCONN} before and after close. */
    String state();

    /** Bytes readable now (FIONREAD), 0 when not connected; never throws. */
    int available();

    /**
     * ioctl(SIOCINQ): bytes written by the peer and not yet read, as Linux's {@code unix_inq_len}; 0 when not
     * connected.
     *
     * @throws ErrnoException EBADF after close
     */
    int inq() throws IOException;

    /**
     * ioctl(SIOCOUTQ): bytes this socket wrote that the peer has not read yet (Linux's {@code unix_outq_len}
     * counts their buffers' truesize; jnet the payload); 0 once the peer closed, as Linux frees its queue.
     *
     * @throws ErrnoException EBADF after close
     */
    int outq() throws IOException;

    /** An InputStream view (read -1 at end of stream; blocking reads whatever the socket's mode). */
    InputStream inputStream();

    /** An OutputStream view (blocking writes whatever the socket's mode). */
    OutputStream outputStream();
}
