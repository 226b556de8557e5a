package io.jnet.socket;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A Reliable Datagram Socket (Linux's {@code socket(AF_RDS, SOCK_SEQPACKET, 0)}, net/rds): reliable, ordered
 * datagrams of up to {@link #MAX_MESSAGE_SIZE} bytes to any RDS socket of another node, carried by one TCP
 * connection per pair of addresses (net/rds/tcp*.c, TCP port 16385) that every RDS socket of the namespace
 * shares. Messages between two sockets arrive once each, in the order sent, or not at all when the peer never
 * comes up; they survive a reset of the TCP connection underneath (they are resent, and duplicates dropped by
 * sequence number).
 *
 * <p>Flow control is by congestion map, as Linux: when a socket's receive queue holds more than half its
 * SO_RCVBUF its port is marked congested, every peer is told, and their sends to that port wait (blocking) or
 * fail with ENOBUFS (non-blocking) until the reader catches up. With {@link SocketOption#RDS_CONG_MONITOR} set,
 * a socket refused with ENOBUFS is told by a {@link Received#isCongestionUpdate() congestion update} from
 * {@link #receive} when the port it was refused on may take messages again.
 *
 * <p>Messages to a port that no socket is bound to are dropped and counted (Linux's s_recv_drop_no_sock),
 * without an error to the sender, as Linux.
 *
 * <p>Errors follow Linux's af_rds, with these differences on purpose: a blocking send waiting for a congested
 * port gives up when SO_SNDTIMEO expires (ETIMEDOUT; Linux's rds_cong_wait waits without a timeout), and a
 * destination no route leads to is refused with EHOSTUNREACH (Linux queues the message and keeps
 * reconnecting). A connection made by the peer also reconnects after a failure while messages wait to be
 * sent or acknowledged, as Linux since 4.11 (Linux 4.4 reconnected only from the side that made it).
 */
public interface RdsSocket extends PollableSocket {
    /** Largest message, in bytes (Linux's RDS_MAX_MSG_SIZE, 1 MiB). */
    int MAX_MESSAGE_SIZE = 1 << 20;

    static RdsSocket open(SocketProvider ns) {
        return ns.openRdsSocket();
    }

    /**
     * bind(2): to one local address and port; port 0 picks a free port. Linux's rds_bind has no wildcard.
     *
     * @throws IOException {@link ErrnoException} EINVAL for the wildcard address or a socket already bound,
     *                     EADDRNOTAVAIL when the address is not one of the namespace's, EADDRINUSE when another
     *                     RDS socket holds the address and port
     */
    void bind(InetSocketAddress local) throws IOException;

    /**
     * connect(2): the default destination of {@link #send} with a null address. Received messages are not
     * filtered (as Linux's rds_connect).
     *
     * @throws IOException EDESTADDRREQ for the wildcard address, EINVAL for a multicast or broadcast address
     *                     (port 0 is allowed: sends then ping)
     */
    void connect(InetSocketAddress remote) throws IOException;

    /**
     * sendmsg(2): queues one message of {@code len} bytes for {@code to} (the connected destination when null),
     * copying it. Blocking, it waits for send-queue space (SO_SNDBUF) and for the destination port to be
     * uncongested, up to SO_SNDTIMEO. A message to port 0 is a ping, as Linux's rds-ping sends: the destination
     * node's RDS answers it with a pong, an empty message from port 0 that this socket receives.
     *
     * @throws IOException {@link ErrnoException} ENOTCONN when the socket is unbound or there is no destination,
     *                     EMSGSIZE above {@link #MAX_MESSAGE_SIZE} or half of SO_SNDBUF, EAGAIN when the send
     *                     queue is full and the socket is non-blocking, ETIMEDOUT when SO_SNDTIMEO expired
     *                     waiting for send-queue space or for a congested port, ENOBUFS when the destination
     *                     port is congested and the socket is non-blocking, EINVAL for the wildcard, a
     *                     multicast or the broadcast address,
     *                     EHOSTUNREACH when no route leads to the destination, EBADF once closed
     */
    void send(byte[] b, int off, int len, InetSocketAddress to) throws IOException;

    /** As {@link #send(byte[], int, int, InetSocketAddress)} with {@code src}'s remaining bytes; the position advances. */
    void send(ByteBuffer src, InetSocketAddress to) throws IOException;

    /**
     * recvmsg(2): takes the next message, copying up to {@code len} bytes of it; the rest of a longer message is
     * discarded (MSG_TRUNC). A pending congestion update (only with {@link SocketOption#RDS_CONG_MONITOR}) comes
     * first, as a result with no message.
     *
     * @return the message's lengths and sender, or a congestion update; null when non-blocking and nothing is
     *         queued
     * @throws IOException ETIMEDOUT when SO_RCVTIMEO expires, EBADF once closed
     */
    Received receive(byte[] b, int off, int len) throws IOException;

    /** As {@link #receive(byte[], int, int)} into {@code dst}'s remaining space; the position advances. */
    Received receive(ByteBuffer dst) throws IOException;

    <T> void setOption(SocketOption<T> option, T value) throws IOException;

    <T> T getOption(SocketOption<T> option) throws IOException;

    /** The bound address, or null while unbound. */
    InetSocketAddress localAddress();

    /**
     * The result of a receive.
     *
     * @param length bytes copied
     * @param fullLength the message's length in bytes
     * @param sender the sending socket's address; null for a congestion update
     * @param congestionMask for a congestion update, Linux's RDS_CMSG_CONG_UPDATE value: bit {@code port % 64}
     *                       set for each port this socket was refused on (ENOBUFS) that is uncongested now;
     *                       0 for a message
     */
    record Received(int length, int fullLength, InetSocketAddress sender, long congestionMask) {
        public boolean truncated() { return fullLength > length; }

        public boolean isCongestionUpdate() { return sender == null; }
    }
}
