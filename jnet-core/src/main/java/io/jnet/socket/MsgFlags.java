package io.jnet.socket;

/**
 * Flags of a send or receive call ({@code send(2)}'s and {@code recv(2)}'s {@code flags}), with Linux's values, for
 * {@link TcpSocket#write(byte[], int, int, int)}, {@link TcpSocket#write(java.nio.ByteBuffer, int)},
 * {@link TcpSocket#read(byte[], int, int, int)} and {@link TcpSocket#read(java.nio.ByteBuffer, int)}.
 */
public final class MsgFlags {
    /**
     * MSG_OOB (0x1), TCP urgent data. Sending: the last byte of this call is the urgent byte; the segments carrying
     * data before it have URG set and the urgent pointer one past it (BSD's convention, RFC 6093), until the peer
     * acknowledges it (Linux tcp_mark_urg, tcp_transmit_skb); the call's segments are of one MSS, and neither
     * Nagle nor TCP_CORK holds them. Receiving: the urgent byte the peer marked, taken out of the stream (unless
     * SO_OOBINLINE), once; the call never blocks (Linux tcp_recv_urg).
     */
    public static final int MSG_OOB = 0x1;
    /**
     * MSG_PEEK (0x2), receive only: copy the data without taking it from the receive queue; the next read returns
     * the same bytes, and SIOCINQ does not change (Linux tcp_recvmsg_locked reads from a private copy of
     * copied_seq).
     */
    public static final int MSG_PEEK = 0x2;
    /**
     * MSG_DONTWAIT (0x40): this call does not block, as if the socket were non-blocking: a send queues what the
     * send buffer takes and returns the count, maybe 0; a receive returns what is queued, maybe 0.
     */
    public static final int MSG_DONTWAIT = 0x40;
    /**
     * MSG_WAITALL (0x100), receive only: a blocking read waits for all the bytes asked for, not for
     * {@link SocketOption#SO_RCVLOWAT} of them (Linux sock_rcvlowat); it still returns fewer at end of stream, on
     * an error, when SO_RCVTIMEO expires, or after shutdown(SHUT_RD). No effect on a non-blocking read.
     */
    public static final int MSG_WAITALL = 0x100;
    /**
     * MSG_NOSIGNAL (0x4000): accepted and has no effect; jnet raises no signal, a write after shutdown or a reset
     * throws EPIPE with or without it.
     */
    public static final int MSG_NOSIGNAL = 0x4000;
    /**
     * MSG_MORE (0x8000): more data follows, as TCP_CORK for this call (Linux tcp_push with TCP_NAGLE_CORK): full
     * segments go, the last partial segment is held until a later write without MSG_MORE sends it, it fills to
     * the MSS, TCP_CORK is cleared, or the probe timer sends it (max(RTO, 200 ms) after nothing was in flight).
     */
    public static final int MSG_MORE = 0x8000;
    /**
     * MSG_SENDPAGE_NOTLAST (0x20000): more of the same message follows at once (Linux's in-kernel flag that
     * do_tcp_sendpages honoured from 3.4 to 6.4, "tcp: allow splice() to build full TSO packets"): the call queues
     * its bytes without pushing, filling segments up to the size goal (a full GSO segment), and only segments that
     * reached it go; the rest waits for the next call without this flag (or for the probe timer, as a held MSG_MORE
     * segment). Meant for a writer that sends one message in several calls, as RDS over TCP does.
     */
    public static final int MSG_SENDPAGE_NOTLAST = 0x20000;
    /** Every flag a TCP send accepts; any other bit gives EINVAL. */
    public static final int TCP_SEND_FLAGS = MSG_OOB | MSG_DONTWAIT | MSG_NOSIGNAL | MSG_MORE | MSG_SENDPAGE_NOTLAST;
    /** Every flag a TCP receive accepts; any other bit gives EINVAL. */
    public static final int TCP_RECV_FLAGS = MSG_OOB | MSG_PEEK | MSG_DONTWAIT | MSG_WAITALL;

    private MsgFlags() {}
}
