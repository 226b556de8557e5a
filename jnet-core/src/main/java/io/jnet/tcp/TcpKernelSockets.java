package io.jnet.tcp;

import io.jnet.socket.TcpSocket;

/**
 * Hooks for protocols inside the stack that own TCP sockets, as Linux's in-kernel socket users set their own
 * socket callbacks (RDS over TCP's rds_tcp_set_callbacks replaces sk_write_space with rds_tcp_write_space).
 * Not for applications.
 */
public final class TcpKernelSockets {
    private TcpKernelSockets() {}

    /**
     * Makes {@code s} notify its readiness listeners after every ACK that acknowledges new data (Linux's
     * sk_write_space after tcp_check_space saw the send queue shrink), not only once a blocked writer may go
     * on. The listeners run on the receiving thread, after the socket's short lock is released; they must not
     * block.
     *
     * @throws IllegalArgumentException when {@code s} is not a socket of this TCP implementation
     */
    public static void setWriteSpaceOnEveryAck(TcpSocket s, boolean on) {
        if (!(s instanceof TcpConnection c)) throw new IllegalArgumentException("not a jnet TCP socket: " + s);
        c.writeSpaceEveryAck = on;
    }

    /**
     * True, once, when an ACK freed send-queue space since the last call (Linux's sk_write_space), for a socket
     * with {@link #setWriteSpaceOnEveryAck} on: a readiness listener tells write space from data or a state
     * change by it (a wake-up for both reads as write space).
     *
     * @throws IllegalArgumentException when {@code s} is not a socket of this TCP implementation
     */
    public static boolean takeWriteSpace(TcpSocket s) {
        if (!(s instanceof TcpConnection c)) throw new IllegalArgumentException("not a jnet TCP socket: " + s);
        if (!c.writeSpaceSignalled) return false;
        c.writeSpaceSignalled = false;
        return true;
    }

    /**
     * Sets {@code s}'s send and receive buffer sizes to exactly the bytes given, as an in-kernel user assigns
     * sk_sndbuf / sk_rcvbuf and sets SOCK_SNDBUF_LOCK / SOCK_RCVBUF_LOCK (Linux's rds_tcp_tune): not doubled as
     * SO_SNDBUF / SO_RCVBUF are, not capped by net.core.wmem_max / rmem_max, floored at SOCK_MIN_SNDBUF (4608)
     * and SOCK_MIN_RCVBUF (2304); autotuning stops for the buffer set. A size of 0 leaves that buffer alone.
     *
     * @throws IllegalArgumentException when {@code s} is not a socket of this TCP implementation, or for a
     *                                  negative size
     */
    public static void setBufferSizes(TcpSocket s, int sndbuf, int rcvbuf) {
        if (!(s instanceof TcpConnection c)) throw new IllegalArgumentException("not a jnet TCP socket: " + s);
        if (sndbuf < 0 || rcvbuf < 0) throw new IllegalArgumentException("negative buffer size: " + sndbuf + ", " + rcvbuf);
        if (sndbuf > 0) {
            c.sndbuf = Math.max(TcpSocketOptions.SOCK_MIN_SNDBUF, sndbuf);
            c.sndbufLocked = true;
            c.wakeUp();
        }
        if (rcvbuf > 0) {
            c.rcvbuf = Math.max(TcpSocketOptions.SOCK_MIN_RCVBUF, rcvbuf);
            c.rcvbufLocked = true;
        }
    }

    /** Takes bytes read by {@link #drainAndClose}; false stops the reading. */
    @FunctionalInterface
    public interface ChunkSink {
        boolean accept(byte[] b, int len);
    }

    /**
     * Reads everything {@code s} holds now into {@code buf}, chunk by chunk to {@code sink}, then closes it (as
     * {@link TcpSocket#close()}, with SO_LINGER as set), without letting go of the socket in between: no segment
     * is processed, and so acknowledged, after the last read. An owner that frees what the peer's TCP
     * acknowledged (RDS) loses nothing to a close this way. {@code sink} runs with the socket owned: it must not
     * use {@code s}. A RuntimeException from {@code sink} stops the reading, is counted in the namespace's
     * internal errors, and the socket is closed all the same.
     *
     * @throws IllegalArgumentException when {@code s} is not a socket of this TCP implementation
     */
    public static void drainAndClose(TcpSocket s, byte[] buf, ChunkSink sink) {
        if (!(s instanceof TcpConnection c)) throw new IllegalArgumentException("not a jnet TCP socket: " + s);
        c.drainAndClose(buf, sink);
    }
}
