package io.jnet.tcp;

import io.jnet.buffer.PayloadRegion;
import java.nio.ByteBuffer;

/**
 * How a connection's application bytes travel once it is synchronized: the socket calls (read, write,
 * sendfile, readiness, SIOCINQ, close with unread data) reach the data only through this interface, while the
 * state machine (handshake, FIN, RST, timers) is the same whatever the path.
 *
 * <ul>
 * <li>{@link BaseDataPath}: plain TCP. Writes go to the write queue and out as segments through IP and the
 * device ({@link TcpOutput}); reads come from the receive queue {@link TcpInput} fills.</li>
 * <li>{@code FriendsDataPath}: TCP friends ({@code net.ipv4.tcp_friends}). Both ends are sockets of one
 * namespace, paired at the handshake; writes go straight into the friend's receive pipe, and the sequence
 * variables advance on both sides as if segments had flowed.</li>
 * </ul>
 *
 * <p>Every method runs with the connection owned by the caller ({@link io.jnet.stack.SockLock#lock()}) or its
 * short lock held, except {@link #hasUnread} and {@link #isWriteable}, which readiness polls call without it.
 */
interface TcpDataPath {

    /** In-order bytes received and not yet read (SIOCINQ), in bytes. */
    long unread(TcpConnection c);

    /** True when a read would return data at once; callable without the lock (readiness). */
    boolean hasUnread(TcpConnection c);

    /**
     * {@link #hasUnread} for the reader itself, with the lock: may use state only the reader touches, so that a
     * reader that checks before every read need not look at what the writer writes each time.
     */
    default boolean readable(TcpConnection c) { return hasUnread(c); }

    /**
     * Copies up to {@code len} unread bytes to {@code b} at {@code off}, or into {@code bb} at its position when
     * {@code bb} is not null, and does what reading entails (window updates, autotuning). Returns the count, 0
     * when all there was is an urgent byte that left the stream (see {@link TcpInput#copyToUser}); the caller has
     * checked {@link #hasUnread}.
     */
    int read(TcpConnection c, byte[] b, int off, int len, ByteBuffer bb);

    /**
     * recv(MSG_PEEK): copies up to {@code len} of the unread bytes that follow the first {@code skip} of them, as
     * {@link #read} does, but leaves them unread (Linux tcp_recvmsg_locked on a copy of copied_seq). Returns the
     * count, 0 when no byte follows the first {@code skip}.
     */
    int peek(TcpConnection c, int skip, byte[] b, int off, int len, ByteBuffer bb);

    /**
     * Linux tcp_epollin_ready for poll's POLLIN and the data-ready wake-up under SO_RCVLOWAT: some bytes are
     * unread and there are at least {@code target} of them, or the receive memory is nearly full, or at most a
     * segment of window is left, so that no more may come. Callable without the lock.
     */
    boolean epollinReady(TcpConnection c, int target);

    /**
     * Queues up to {@code len} bytes for the peer: from {@code region} at {@code off} when it is not null (by
     * reference when {@code byReference} and the path can), else from {@code bb} at its position, else from
     * {@code b} at {@code off}. Returns how many fit (0 when the buffer is full).
     */
    int append(TcpConnection c, byte[] b, long off, int len, ByteBuffer bb, PayloadRegion region, boolean byReference);

    /**
     * Sends what {@link #append} queued (Linux tcp_push), with {@code nonagle} as Linux's argument: 0 applies Nagle,
     * {@link TcpOutput#TCP_NAGLE_OFF} does not, {@link TcpOutput#TCP_NAGLE_CORK} holds a partial last segment
     * (TCP_CORK, MSG_MORE), {@link TcpOutput#TCP_NAGLE_PUSH} sends it whatever the rest says.
     */
    void push(TcpConnection c, int nonagle);

    /** Bytes a write could queue now (may be negative). */
    long sendSpace(TcpConnection c);

    /** POLLOUT: enough room for a writer to be worth waking (Linux sk_stream_is_writeable); callable without the lock. */
    boolean isWriteable(TcpConnection c);

    /** A writer is about to sleep for room: the path must wake it when room appears. The caller re-checks {@link #sendSpace}. */
    void writerWaits(TcpConnection c);

    /** A reader is about to sleep for data: the path must wake it when data comes. The caller re-checks {@link #hasUnread}. */
    void readerWaits(TcpConnection c);

    /**
     * Brings the receive sequence state up to date before the state machine looks at it (a segment arrives, one
     * is sent, TCP_INFO is read). Plain TCP is always up to date.
     */
    void sync(TcpConnection c);

    /**
     * shutdown(SHUT_RD). Bytes keep arriving and stay readable, as Linux's (inet_shutdown only sets RCV_SHUTDOWN);
     * but once the socket has sent its FIN too, new bytes reset the connection, as {@link TcpInput} does for
     * data reaching FIN-WAIT-1 or FIN-WAIT-2 with RCV_SHUTDOWN (tcp_rcv_state_process, TCPAbortOnData).
     */
    void shutdownInput(TcpConnection c);

    /**
     * When application bytes last moved over this connection without segments, in either direction, on the
     * namespace clock (ns); 0 when never or not tracked. Keepalive counts it as traffic received, as plain TCP
     * counts the data and ACK segments that carry the same bytes.
     */
    long lastDataNs(TcpConnection c);

    /** TCP_INFO's last data sent (ns, namespace clock): the last data segment, or bytes moved without one. */
    default long lastDataSentNs(TcpConnection c) { return c.lastSendNs; }

    /** TCP_INFO's last ACK received (ns, namespace clock). */
    default long lastAckRecvNs(TcpConnection c) { return c.lastAckRecvNs; }

    /** TCP_INFO's last data received (ns, namespace clock). */
    default long lastDataRecvNs(TcpConnection c) { return c.lrcvtimeNs; }

    /** The application closed the socket (close(2)): it reads no more. Called before the close is processed. */
    void userClosing(TcpConnection c);

    /** Drops unread data (close, tcp_done of a closed socket). */
    void purgeReceived(TcpConnection c);

    /** The connection is closed and its user is gone: frees what the path holds. Called once or more; idempotent. */
    void release(TcpConnection c);
}
