package io.jnet.socket;

/**
 * Flags of a send call ({@code send(2)}'s {@code flags}), with Linux's values, for
 * {@link TcpSocket#write(byte[], int, int, int)} and {@link TcpSocket#write(java.nio.ByteBuffer, int)}.
 */
public final class MsgFlags {
    /**
     * MSG_DONTWAIT (0x40): this call does not block, as if the socket were non-blocking: it queues what the send
     * buffer takes and returns the count, maybe 0.
     */
    public static final int MSG_DONTWAIT = 0x40;
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
    public static final int TCP_SEND_FLAGS = MSG_DONTWAIT | MSG_NOSIGNAL | MSG_MORE | MSG_SENDPAGE_NOTLAST;

    private MsgFlags() {}
}
