package io.jnet.socket;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A TCP stream socket in a jnet namespace, shaped after the BSD calls ({@code socket}, {@code bind},
 * {@code connect}, {@code read}, {@code write}, {@code shutdown}, {@code close}).
 *
 * <p>Blocking by default. In non-blocking mode {@code connect} throws EINPROGRESS and completes in the
 * background (poll for {@link Events#POLLOUT}), {@code read}/{@code write} return 0 where they would block.
 *
 * <p>Errors are {@link ErrnoException}s naming Linux's errno: ECONNREFUSED, ECONNRESET, EPIPE, ETIMEDOUT,
 * EADDRINUSE, EAGAIN (a timeout set with SO_RCVTIMEO/SO_SNDTIMEO expired), ENOTCONN, EISCONN, ...
 */
public interface TcpSocket extends ByteStreamSocket {

    /** Opens an unconnected TCP socket in {@code ns} (socket(AF_INET, SOCK_STREAM, 0)). */
    static TcpSocket open(SocketProvider ns) {
        return ns.openTcpSocket();
    }

    /** Binds to a local address; port 0 picks an ephemeral port (RFC 6056). Throws EADDRINUSE, EADDRNOTAVAIL, EINVAL. */
    void bind(InetSocketAddress local) throws IOException;

    /**
     * Connects (three-way handshake). Blocking: returns when ESTABLISHED, or throws ECONNREFUSED,
     * ETIMEDOUT (after tcp_syn_retries), ENETUNREACH. Non-blocking: throws EINPROGRESS.
     */
    void connect(InetSocketAddress remote) throws IOException;

    /** Completes a non-blocking connect: true when established; throws the connect error if it failed. */
    boolean finishConnect() throws IOException;

    /**
     * Reads up to {@code len} bytes. Returns the count, -1 at end of stream (peer's FIN, or shutdown(SHUT_RD) once
     * the queued bytes are read), 0 in non-blocking mode when nothing is ready. A blocking read waits for
     * {@link SocketOption#SO_RCVLOWAT} bytes (default 1; {@code len} if fewer). Throws ECONNRESET, ETIMEDOUT,
     * EAGAIN (SO_RCVTIMEO).
     */
    int read(byte[] b, int off, int len) throws IOException;

    /** Reads into the buffer's remaining space; same results as {@link #read(byte[], int, int)}. */
    int read(ByteBuffer dst) throws IOException;

    /**
     * recv(2) with flags, as Linux's tcp_recvmsg: as {@link #read(byte[], int, int)}, with
     * {@link MsgFlags#MSG_PEEK} (copy the bytes but leave them queued: the next read returns them again and
     * {@link #inq()} does not change), {@link MsgFlags#MSG_DONTWAIT} (do not block in this call),
     * {@link MsgFlags#MSG_WAITALL} (a blocking call waits for all {@code len} bytes) or {@link MsgFlags#MSG_OOB}. Without
     * MSG_WAITALL a blocking call waits for {@link SocketOption#SO_RCVLOWAT} bytes (default 1), or {@code len} if
     * fewer. A blocking call that has some bytes but not the count it waits for returns them at end of stream, on an
     * error, after shutdown(SHUT_RD), when SO_RCVTIMEO expires, or at the urgent mark.
     *
     * <p>Urgent data (RFC 9293 3.8.5, RFC 6093), as Linux: the byte the peer's urgent pointer marks is taken out of
     * the stream unless {@link SocketOption#SO_OOBINLINE} is set. A read stops before it (the mark; see
     * {@link #atMark()}); the next read starts there and skips it, so a read that finds only the urgent byte
     * waits on (or returns 0 when non-blocking). A newer urgent pointer replaces the older one, whose byte is then
     * read in the stream like any other (also when it was read out of band), unless the reader stands at it: then
     * the reader moves past it.
     * With MSG_OOB the call returns that one byte, once, and never blocks (Linux tcp_recv_urg): 1, 0 when
     * {@code len} is 0 (the byte is taken all the same), or -1 when the urgent byte announced will not come (the
     * peer's FIN, shutdown(SHUT_RD), the connection's end; Linux returns 0).
     *
     * @param flags a combination of {@link MsgFlags#TCP_RECV_FLAGS}
     * @return the number of bytes copied; -1 at end of stream or after shutdown(SHUT_RD) once the queued bytes
     *         are read; 0 when {@code len} is 0, or when non-blocking (or MSG_DONTWAIT) and nothing is queued
     * @throws ErrnoException EINVAL for a flag outside {@link MsgFlags#TCP_RECV_FLAGS}; with MSG_OOB: EINVAL when
     *                        SO_OOBINLINE is set, no urgent data was announced or it was read already, EAGAIN while
     *                        the urgent byte announced has not arrived, ENOTCONN after a reset; otherwise as
     *                        {@link #read(byte[], int, int)}
     */
    int read(byte[] b, int off, int len, int flags) throws IOException;

    /** recv(2) with flags into the buffer's remaining space; as {@link #read(byte[], int, int, int)}. */
    int read(ByteBuffer dst, int flags) throws IOException;

    /**
     * Writes bytes. Blocking: returns after all {@code len} bytes are queued in the send buffer.
     * Non-blocking: returns the count queued (maybe 0). Throws EPIPE after shutdown/close or a reset,
     * ECONNRESET, EAGAIN (SO_SNDTIMEO).
     */
    int write(byte[] b, int off, int len) throws IOException;

    /** Writes the buffer's remaining bytes; same results as {@link #write(byte[], int, int)}. */
    int write(ByteBuffer src) throws IOException;

    /**
     * send(2) with flags: as {@link #write(byte[], int, int)}, with {@link MsgFlags#MSG_MORE} (hold the last
     * partial segment of this call for more data, Linux tcp_push with TCP_NAGLE_CORK),
     * {@link MsgFlags#MSG_DONTWAIT} (do not block in this call), {@link MsgFlags#MSG_NOSIGNAL} (no effect) and
     * {@link MsgFlags#MSG_OOB} (the last byte queued is urgent data, Linux tcp_mark_urg: segments before it carry
     * URG and an urgent pointer one past it until the peer acknowledges it).
     *
     * @param flags a combination of {@link MsgFlags#TCP_SEND_FLAGS}
     * @return the number of bytes queued
     * @throws ErrnoException EINVAL for a flag outside {@link MsgFlags#TCP_SEND_FLAGS} (Linux ignores flag bits
     *                        TCP does not use; jnet refuses them, so that a flag it lacks is not taken for done);
     *                        EOPNOTSUPP for MSG_OOB on a TCP friends connection (net.ipv4.tcp_friends: no
     *                        segments, so no urgent pointer); otherwise as {@link #write(byte[], int, int)}
     */
    int write(byte[] b, int off, int len, int flags) throws IOException;

    /** send(2) with flags from the buffer's remaining bytes; as {@link #write(byte[], int, int, int)}. */
    int write(ByteBuffer src, int flags) throws IOException;

    /**
     * sendfile(2): queues up to {@code count} bytes of {@code src}, starting at file offset {@code position},
     * for sending, from a read-only mapping of the file; they never pass through a user buffer. A call of at
     * least 16 KiB queues them without copying (as Linux puts page-cache pages into its segments): the send
     * queue's segments, and on loopback and veth the frames the peer receives, refer to the mapping, and the
     * peer's read is the one copy. Smaller calls copy the bytes into the send queue. The socket keeps the
     * mapping (up to 64 MiB of the file) for the next call, so that sending a file in many calls maps each
     * part once and allocates nothing per call; {@link #close()} lets it go, and it is unmapped once no
     * segment refers to it any more. The file's own position is neither used nor changed (as sendfile with an
     * offset pointer, or {@link FileChannel#transferTo}); bytes past the end of the file are not sent (a short
     * count). The file's size is read when a call reaches beyond the part the socket has mapped (reading it
     * costs about a third of a 64 KiB call); a file that shrank since that part was mapped, like one that
     * shrinks while its bytes are still referred to, gives zeros for the bytes it lost, counted in
     * TcpExtJnetSendfileFaults. Linux gives a short count for the former and sends what its page cache holds
     * then for the latter. No thread fails either way.
     *
     * <p>Blocking: returns once all the bytes are queued, or with fewer when SO_SNDTIMEO expires or an error
     * occurs after some were queued. Non-blocking: queues what the send buffer takes.
     *
     * @param src      the file, open for reading
     * @param position the file offset of the first byte to send, in bytes
     * @param count    the most bytes to send
     * @return the number of bytes queued; 0 when {@code count} is 0 or {@code position} is at or past the end
     *         of the file
     * @throws ErrnoException EINVAL for a negative {@code position} or {@code count}; EBADF when {@code src}
     *                        is closed or not open for reading; EAGAIN when non-blocking and the send buffer
     *                        takes nothing, or when SO_SNDTIMEO expires before any byte was queued; EPIPE after
     *                        shutdown, close or a reset; ECONNRESET; ENOTCONN; EIO when the file cannot be
     *                        mapped
     */
    long transferFrom(FileChannel src, long position, long count) throws IOException;

    /** shutdown(SHUT_WR): sends FIN once queued data is sent. */
    void shutdownOutput() throws IOException;

    /**
     * shutdown(SHUT_RD), as Linux's (inet_shutdown sets RCV_SHUTDOWN; tcp_shutdown sends nothing for it): nothing
     * is sent, poll reports POLLIN and POLLRDHUP from now on, and reads return the bytes queued and those that
     * still arrive, then -1 when none are queued. Once the socket has also sent its FIN (shutdown(SHUT_WR)), data
     * that arrives resets the connection (Linux tcp_rcv_state_process in FIN-WAIT-1/2, TCPAbortOnData).
     */
    void shutdownInput() throws IOException;

    <T> void setOption(SocketOption<T> option, T value) throws IOException;

    <T> T getOption(SocketOption<T> option) throws IOException;

    InetSocketAddress localAddress();

    /** The peer address, or null if not connected. */
    InetSocketAddress remoteAddress();

    /** Current TCP state name as Linux's {@code ss} prints it (ESTAB, SYN-SENT, TIME-WAIT, ...). */
    String state();

    /** Bytes readable right now without blocking (FIONREAD / SIOCINQ, up to the urgent mark); as {@link #inq()} but never throws. */
    int available();

    /**
     * A consistent snapshot of the connection's TCP state and counters, taken under the socket lock:
     * what {@code getsockopt(fd, IPPROTO_TCP, TCP_INFO)} returns on Linux, with Linux's field meanings
     * and units (see {@link TcpInfo}). Works in every state, also after the connection ended.
     */
    TcpInfo info();

    /**
     * ioctl(SIOCINQ) (also FIONREAD): bytes of in-order data readable now, as Linux's {@code tcp_inq}:
     * RCV.NXT minus the first unread byte, not counting a received FIN; 0 while the handshake is open
     * (SYN-SENT, SYN-RECEIVED). While urgent data is pending out of band (SO_OOBINLINE off), only the bytes
     * before the urgent mark, even once the urgent byte was read with MSG_OOB.
     *
     * @throws ErrnoException EINVAL on a listening socket (see {@link TcpServerSocket#inq()})
     */
    int inq() throws IOException;

    /**
     * ioctl(SIOCATMARK) (sockatmark(3)): true when the next byte to read is the urgent mark, i.e. urgent data was
     * announced and the reader stands at its byte, as Linux's {@code tcp_ioctl} ({@code urg_data && urg_seq ==
     * copied_seq}); it stays true after the byte was read with MSG_OOB, until a read passes the mark.
     */
    boolean atMark();

    /**
     * ioctl(SIOCOUTQ) (also TIOCOUTQ): bytes in the send queue not yet acknowledged by the peer, sent or
     * not, as Linux: {@code write_seq - snd_una} (a queued FIN counts one byte until it is acknowledged);
     * 0 while the handshake is open.
     *
     * @throws ErrnoException EINVAL on a listening socket
     */
    int outq() throws IOException;

    /**
     * ioctl(SIOCOUTQNSD): bytes in the send queue never sent, as Linux's {@code write_seq - snd_nxt}
     * (Linux never moves {@code snd_nxt} back; jnet's go-back-N after a timeout does, so jnet counts
     * from the highest sequence number sent). 0 while the handshake is open.
     *
     * @throws ErrnoException EINVAL on a listening socket
     */
    int outqNotSent() throws IOException;

    /** An InputStream view (read -1 at EOF). */
    InputStream inputStream();

    /** An OutputStream view (blocking writes). */
    OutputStream outputStream();
}
