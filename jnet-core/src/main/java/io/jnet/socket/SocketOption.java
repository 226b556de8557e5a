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
     * TCP urgent data stays in the stream (SO_OOBINLINE, Linux SOCK_URGINLINE): a read still stops at the urgent
     * mark, then returns the urgent byte with what follows it; recv with {@link MsgFlags#MSG_OOB} fails with EINVAL.
     * Off by default: the urgent byte is taken out of the stream for MSG_OOB. Inherited by accepted connections
     * from their listener.
     */
    public static final SocketOption<Boolean> SO_OOBINLINE = new SocketOption<>("SO_OOBINLINE", Boolean.class);
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
     * The pending error, read-only (SO_ERROR): the errno number of an error not yet reported (a failed
     * non-blocking connect, a reset, a timeout), 0 when none; reading it clears it, as Linux's sock_error does.
     * Setting it fails with ENOPROTOOPT.
     */
    public static final SocketOption<Integer> SO_ERROR = new SocketOption<>("SO_ERROR", Integer.class);
    /**
     * Idle time in seconds before the first keepalive probe (TCP_KEEPIDLE, 1..32767; Linux keepalive_time_when),
     * net.ipv4.tcp_keepalive_time until set. Out of range: EINVAL.
     */
    public static final SocketOption<Integer> TCP_KEEPIDLE = new SocketOption<>("TCP_KEEPIDLE", Integer.class);
    /**
     * Seconds between keepalive probes (TCP_KEEPINTVL, 1..32767; Linux keepalive_intvl_when),
     * net.ipv4.tcp_keepalive_intvl until set. Out of range: EINVAL.
     */
    public static final SocketOption<Integer> TCP_KEEPINTVL = new SocketOption<>("TCP_KEEPINTVL", Integer.class);
    /**
     * Unanswered keepalive probes before the connection is reset and fails with ETIMEDOUT (TCP_KEEPCNT, 1..127;
     * Linux keepalive_probes), net.ipv4.tcp_keepalive_probes until set. Out of range: EINVAL.
     */
    public static final SocketOption<Integer> TCP_KEEPCNT = new SocketOption<>("TCP_KEEPCNT", Integer.class);
    /**
     * TCP_USER_TIMEOUT in ms (RFC 5482; Linux icsk_user_timeout), 0 (the default) off, negative: EINVAL. When set,
     * the connection fails with ETIMEDOUT once data went unacknowledged that long after its first retransmission
     * (instead of after net.ipv4.tcp_retries2 retransmissions; the RTO is cut to the time left), once zero-window
     * probes went on that long, answered or not, and under keepalive once the peer was silent that long with a
     * probe out (instead of after TCP_KEEPCNT probes). A connect's SYNs give up after it too. Inherited by
     * accepted connections.
     */
    public static final SocketOption<Integer> TCP_USER_TIMEOUT = new SocketOption<>("TCP_USER_TIMEOUT", Integer.class);
    /**
     * TCP_MAXSEG in bytes: set (0, none, or 88..32767, else EINVAL) before connect or listen, it caps the MSS
     * advertised in the SYN or SYN-ACK and the peer's MSS taken (Linux rx_opt.user_mss); it has no effect on an
     * established connection. Read: the MSS in use, payload bytes per segment after TCP options (Linux
     * mss_cache); before a connection, the value set, else 536.
     */
    public static final SocketOption<Integer> TCP_MAXSEG = new SocketOption<>("TCP_MAXSEG", Integer.class);
    /**
     * TCP sockets and listeners: quick-ACK mode (TCP_QUICKACK, Linux option number 12; tcp.c __tcp_sock_set_quickack).
     * False puts the connection in pingpong (interactive) mode (inet_csk_enter_pingpong_mode): received data is not
     * ACKed at once but by the delayed-ACK timer, so the ACK may ride on a reply. True leaves pingpong mode and, when
     * an ACK is pending on an ESTABLISHED or CLOSE_WAIT connection, sends it now if the read side allows
     * (tcp_cleanup_rbuf). Neither is permanent, as in Linux: pingpong mode ends when the delayed-ACK timer has to
     * send an ACK on its own (tcp_delack_timer_handler) or on a duplicate or out-of-window segment, and a
     * connection enters it again when it replies within the delayed-ACK timeout of the data it received
     * (tcp_event_data_sent). Reading gives true unless in pingpong mode (!inet_csk_in_pingpong_mode). Set before
     * connect, pingpong mode delays the handshake's final ACK by up to 200 ms (TCP_DELACK_MAX) so that it may ride
     * on the first data (tcp_rcv_synsent_state_process). A listener's setting, made after listen() (which clears
     * it, inet_csk_listen_start), is inherited by its connections. jdk.net.ExtendedSocketOptions.TCP_QUICKACK
     * maps here.
     */
    public static final SocketOption<Boolean> TCP_QUICKACK = new SocketOption<>("TCP_QUICKACK", Boolean.class);
    /**
     * TCP_DEFER_ACCEPT in seconds (Linux option number 9), 0 (the default) off. On a listener, a connection whose
     * handshake ends with a bare ACK is not completed nor accepted: the request stays in SYN-RECEIVED until data
     * arrives, which completes it (tcp_check_req counts each bare ACK dropped as TcpExtTCPDeferAcceptDrop). Linux
     * stores the seconds as a number of SYN-ACK timeouts, doubling from 1 s up to 120 s (secs_to_retrans: 5 s
     * are 3 timeouts, 1 + 2 + 4 s), and reads them back as the seconds those take (retrans_to_secs: 7). While it
     * waits, no SYN-ACK is retransmitted until the last of those timeouts, whose SYN-ACK gives the peer one more
     * chance: its bare ACK then completes the connection. A request that never sees data nor that ACK is dropped,
     * without a RST, once both the deferral and net.ipv4.tcp_synack_retries timeouts have passed (Linux
     * reqsk_timer_handler, syn_ack_recalc). On a connecting socket, as in Linux, the handshake's final ACK waits
     * up to 200 ms for data to carry it (tcp_rcv_synsent_state_process). Negative: 0.
     */
    public static final SocketOption<Integer> TCP_DEFER_ACCEPT = new SocketOption<>("TCP_DEFER_ACCEPT", Integer.class);
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
