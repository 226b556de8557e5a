package io.jnet.socket;

import java.time.Duration;

/**
 * Socket options with Linux names and units.
 *
 * @param <T> value type
 */
public final class SocketOption<T> {
    /** Send buffer size in bytes (SO_SNDBUF; like Linux the effective value is doubled and autotuning stops). */
    public static final SocketOption<Integer> SO_SNDBUF = new SocketOption<>("SO_SNDBUF", Integer.class);
    /** Receive buffer size in bytes (SO_RCVBUF; doubled like Linux, autotuning stops). */
    public static final SocketOption<Integer> SO_RCVBUF = new SocketOption<>("SO_RCVBUF", Integer.class);
    /** Receive timeout; {@link Duration#ZERO} waits forever (SO_RCVTIMEO). Expiry throws EAGAIN. */
    public static final SocketOption<Duration> SO_RCVTIMEO = new SocketOption<>("SO_RCVTIMEO", Duration.class);
    /** Send timeout; {@link Duration#ZERO} waits forever (SO_SNDTIMEO). Expiry throws EAGAIN. */
    public static final SocketOption<Duration> SO_SNDTIMEO = new SocketOption<>("SO_SNDTIMEO", Duration.class);
    /** Allow binding a port held by TIME_WAIT sockets or non-listening sockets (SO_REUSEADDR). */
    public static final SocketOption<Boolean> SO_REUSEADDR = new SocketOption<>("SO_REUSEADDR", Boolean.class);
    /**
     * Linger on close: null or negative = off (close returns at once, data sent in background);
     * zero = abortive close with RST; positive = close waits up to that long for unsent data (SO_LINGER).
     */
    public static final SocketOption<Duration> SO_LINGER = new SocketOption<>("SO_LINGER", Duration.class);
    /** Disable Nagle's algorithm (TCP_NODELAY). */
    public static final SocketOption<Boolean> TCP_NODELAY = new SocketOption<>("TCP_NODELAY", Boolean.class);
    /**
     * Cork the output (TCP_CORK, Linux option number 3): partial segments (less than the MSS) are held, full ones
     * still go, also with TCP_NODELAY set. Clearing it sends what is queued (as Nagle allows; with TCP_NODELAY
     * set, at once). A held segment goes at the latest when the probe timer fires, max(RTO, 200 ms) after the
     * connection had nothing in flight (Linux: tcp_check_probe_timer; tcp(7)'s 200 ms ceiling). Inherited by
     * accepted connections from their listener. No effect on a TCP friends connection, which has no segments.
     */
    public static final SocketOption<Boolean> TCP_CORK = new SocketOption<>("TCP_CORK", Boolean.class);
    /**
     * Busy polling (SO_BUSY_POLL): how long, in microseconds, a blocked read spins for data before it sleeps;
     * 0 sleeps at once. Starts at {@code net.core.busy_read}. Spinning takes a core from other threads.
     */
    public static final SocketOption<Integer> SO_BUSY_POLL = new SocketOption<>("SO_BUSY_POLL", Integer.class);
    /**
     * TCP sockets and listeners: the receive low-water mark (SO_RCVLOWAT), in bytes, default 1. A blocking read
     * waits until it has this many bytes (or as many as it asked for, if fewer), and poll reports POLLIN only
     * once this many are queued, or the receive buffer is nearly full, or the window left is at most a segment
     * (Linux tcp_poll with tcp_epollin_ready); end of stream and errors end the wait as always. Setting it as
     * Linux's sock_setsockopt and tcp_set_rcvlowat do: a negative value means {@link Integer#MAX_VALUE}, 0
     * means 1, the value is capped at half of net.ipv4.tcp_rmem[2] (half of SO_RCVBUF once that is set), and a
     * receive buffer SO_RCVBUF did not fix grows to twice the mark. Accepted connections inherit it from the
     * listener.
     */
    public static final SocketOption<Integer> SO_RCVLOWAT = new SocketOption<>("SO_RCVLOWAT", Integer.class);
    /** Keepalive probes on an idle connection (SO_KEEPALIVE). */
    public static final SocketOption<Boolean> SO_KEEPALIVE = new SocketOption<>("SO_KEEPALIVE", Boolean.class);
    /**
     * RDS sockets only (SOL_RDS RDS_CONG_MONITOR): report, as a congestion update from
     * {@link RdsSocket#receive}, when a destination port this socket got ENOBUFS from is uncongested again.
     */
    public static final SocketOption<Boolean> RDS_CONG_MONITOR = new SocketOption<>("RDS_CONG_MONITOR", Boolean.class);

    private final String name;
    private final Class<T> type;

    private SocketOption(String name, Class<T> type) {
        this.name = name;
        this.type = type;
    }

    public String name() { return name; }
    public Class<T> type() { return type; }

    @Override
    public String toString() { return name; }
}
