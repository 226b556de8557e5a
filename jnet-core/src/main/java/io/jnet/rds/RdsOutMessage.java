package io.jnet.rds;

import io.jnet.wire.RdsHeader;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A message on a connection's send or retransmit queue (Linux's rds_message with its m_flags): the message, the
 * socket whose send buffer it is charged to (null for pongs and congestion updates), how much of it the transport
 * has written, and where it ends on the TCP stream.
 */
final class RdsOutMessage {
    final RdsMessage msg;
    final RdsSocketImpl rs;
    /** Header and payload bytes written so far on the current TCP socket (hdr_off + data offset of rds_tcp_xmit). */
    int off;
    /** Stream offset on the current TCP socket just past this message: freed once TCP acknowledged that far. */
    long end;
    /** RDS_MSG_RETRANSMITTED: resent after a reconnect, sent with RDS_FLAG_RETRANSMITTED. */
    boolean retransmitted;

    /** For a pong: its connection's count of pongs outstanding, decremented when it is freed; else null. */
    private final AtomicInteger pongs;

    RdsOutMessage(RdsMessage msg, RdsSocketImpl rs) { this(msg, rs, null); }

    private RdsOutMessage(RdsMessage msg, RdsSocketImpl rs, AtomicInteger pongs) {
        this.msg = msg;
        this.rs = rs;
        this.pongs = pongs;
    }

    /** A pong, counted in {@code pongs} until freed. */
    static RdsOutMessage pong(RdsMessage msg, AtomicInteger pongs) { return new RdsOutMessage(msg, null, pongs); }

    /** Bytes on the stream: header plus payload. */
    int total() { return RdsHeader.LENGTH + msg.payloadLength(); }

    /** Gives the payload bytes back to the sending socket's send buffer (rds_send_remove_from_sock). */
    void free() {
        if (rs != null) rs.sendFreed(msg.payloadLength());
        else if (pongs != null) pongs.decrementAndGet();
    }
}
