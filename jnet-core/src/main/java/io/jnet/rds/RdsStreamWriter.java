package io.jnet.rds;

import io.jnet.wire.RdsHeader;

/**
 * Lays an {@link RdsMessage} out for a TCP stream as rds_tcp_xmit (net/rds/tcp_send.c) sends it: the 48-byte
 * header ({@link #writeHeader}), then the payload bytes, which are the message's own slice and need no copy.
 * Linux sends the header with MSG_MORE when a payload follows (and the payload with MSG_MORE while more
 * messages are queued); a caller does the same with {@code TcpSocket.write(b, off, len, MsgFlags.MSG_MORE)}.
 * {@link #encode} gives both pieces in one array, for tests and simple callers.
 *
 * <p>The header is written as rds_message_populate_header fills a zeroed message: h_len is the payload
 * length, h_padding and h_csum are zero (the TCP transport never computes the checksum).
 */
public final class RdsStreamWriter {
    private RdsStreamWriter() {}

    /**
     * Writes the 48 header bytes of {@code m} at {@code off} of {@code dst}; allocates nothing.
     *
     * @return {@link RdsHeader#LENGTH}, the bytes written
     * @throws IndexOutOfBoundsException when fewer than 48 bytes fit at {@code off}
     */
    public static int writeHeader(RdsMessage m, byte[] dst, int off) {
        java.util.Objects.checkFromIndexSize(off, RdsHeader.LENGTH, dst.length);
        RdsHeader.write(dst, off, m.sequence(), m.ack(), m.payloadLength(), m.sourcePort(), m.destinationPort(),
                m.flags(), m.credit());
        m.copyExtensions(dst, off + RdsHeader.OFF_EXTHDR);
        return RdsHeader.LENGTH;
    }

    /** The header followed by the payload, {@code 48 + payloadLength} bytes in a new array. */
    public static byte[] encode(RdsMessage m) {
        byte[] b = new byte[RdsHeader.LENGTH + m.payloadLength()];
        writeHeader(m, b, 0);
        System.arraycopy(m.payload(), m.payloadOffset(), b, RdsHeader.LENGTH, m.payloadLength());
        return b;
    }
}
