package io.jnet.socket;

/**
 * A snapshot of one TCP connection, as Linux's {@code getsockopt(fd, IPPROTO_TCP, TCP_INFO)} fills
 * {@code struct tcp_info} ({@code include/uapi/linux/tcp.h}, {@code tcp_get_info()} in
 * {@code net/ipv4/tcp.c}): the same fields, meanings and units. Taken under the socket lock, so all
 * fields describe one instant; see {@link TcpSocket#info()} and {@link TcpServerSocket#info()}.
 *
 * <p>Names: Linux's field name without {@code tcpi_}, in camel case ({@code tcpi_snd_cwnd} is
 * {@link #sndCwnd}, {@code tcpi_notsent_bytes} is {@link #notsentBytes}, {@code tcpi_advmss} is
 * {@link #advmss}). Types: Linux's {@code __u8} fields are {@code int}; {@code __u32} and {@code __u64}
 * fields are {@code long}, so every {@code __u32} value is shown unsigned (e.g. {@link #minRtt} is
 * 4294967295, Linux's {@code ~0U}, before the first RTT sample). A {@code __u64} that Linux sets to
 * {@code ~0ULL} is -1 here. Counters Linux keeps in 32 bits wrap as Linux's do.
 *
 * <p>Units, as Linux: {@link #rto}, {@link #ato}, {@link #rtt}, {@link #rttvar}, {@link #rcvRtt},
 * {@link #minRtt}, {@link #busyTime}, {@link #rwndLimited}, {@link #sndbufLimited} in microseconds;
 * {@link #lastDataSent}, {@link #lastDataRecv}, {@link #lastAckRecv} in milliseconds;
 * {@link #sndMss}, {@link #rcvMss}, {@link #advmss}, {@link #pmtu}, {@link #rcvSsthresh},
 * {@link #rcvSpace}, {@link #sndWnd}, {@link #rcvWnd}, {@link #notsentBytes} and the {@code bytes*}
 * counters in bytes; {@link #sndCwnd}, {@link #sndSsthresh}, {@link #unacked}, {@link #sacked},
 * {@link #lost}, {@link #retrans}, {@link #reordering} in segments; {@link #pacingRate} and
 * {@link #deliveryRate} in bytes per second.
 *
 * <p>A listener ({@link TcpServerSocket#info()}) reports only what Linux reports for one:
 * {@link #state} {@link #TCP_LISTEN}, {@link #unacked} = connections waiting in the accept queue,
 * {@link #sacked} = the accept queue's limit (the backlog), {@link #sndCwnd}, {@link #reordering} and
 * {@link #pacingRate}; every other field is 0.
 *
 * @param state TCP state as Linux numbers it ({@link #TCP_ESTABLISHED} .. {@link #TCP_CLOSING}); a socket
 *     whose connection moved to TIME-WAIT reports {@link #TCP_CLOSE}, as on Linux (the TIME-WAIT remnant is
 *     no socket)
 * @param caState congestion-avoidance state ({@code icsk_ca_state}): {@link #TCP_CA_Open} normally;
 *     {@link #TCP_CA_Disorder} after one or two duplicate ACKs; {@link #TCP_CA_Recovery} from the fast
 *     retransmit (third duplicate ACK) until SND.UNA reaches the recovery point (RFC 6582); {@link #TCP_CA_Loss}
 *     from a retransmission timeout until everything sent before it is acknowledged. jnet never enters
 *     {@link #TCP_CA_CWR}: it has no ECN and no local congestion signal
 * @param retransmits consecutive retransmission timeouts of the current segment ({@code icsk_retransmits}),
 *     SYN retransmissions included; 0 once new data is acknowledged
 * @param probes unanswered zero-window or keepalive probes ({@code icsk_probes_out})
 * @param backoff exponential backoff shift of the retransmission timer, or of the zero-window probe timer
 *     while probing ({@code icsk_backoff}, which Linux shares between the two)
 * @param options negotiated options: {@link #TCPI_OPT_TIMESTAMPS}, {@link #TCPI_OPT_WSCALE}, {@link #TCPI_OPT_SACK}.
 *     jnet has no ECN yet, so {@link #TCPI_OPT_ECN} is never set
 * @param sndWscale the peer's window scale shift (RFC 7323), 0 without window scaling
 * @param rcvWscale our window scale shift, 0 without window scaling
 * @param deliveryRateAppLimited true when the {@link #deliveryRate} sample was taken while the application
 *     did not keep the connection busy ({@code tcpi_delivery_rate_app_limited}, Linux tcp_rate.c)
 * @param rto retransmission timeout in µs, backoff applied (RFC 6298 with Linux's 200 ms floor)
 * @param ato delayed-ACK timeout in µs ({@code icsk_ack.ato}, at most net.ipv4.tcp_delack_max_ms)
 * @param sndMss bytes of payload per segment we send ({@code mss_cache}: the peer's MSS and the path MTU,
 *     less the timestamp option when negotiated)
 * @param rcvMss bytes: the peer's segment size as measured on received data ({@code icsk_ack.rcv_mss})
 * @param unacked segments sent and not yet acknowledged ({@code packets_out}); a write-queue buffer larger
 *     than {@link #sndMss} (large sends on loopback) counts as ceil(length / sndMss) segments, as Linux's
 *     {@code tcp_skb_pcount}; the SYN counts while the handshake is open
 * @param sacked with SACK, the segments the peer SACKed and that are not yet acknowledged ({@code sacked_out});
 *     without SACK, Linux counts duplicate ACKs here ({@code sacked_out} of its Reno path), limited to
 *     {@code unacked} minus the holes; jnet does the same
 * @param lost segments marked lost and not yet acknowledged ({@code lost_out}): everything outstanding at a
 *     retransmission timeout, the segment at SND.UNA at a fast retransmit
 * @param retrans retransmitted segments not yet acknowledged ({@code retrans_out}); a timeout clears the
 *     marks of earlier retransmissions, as Linux's {@code tcp_enter_loss}
 * @param lastDataSent ms since data was last sent, retransmissions included (or since the connection was
 *     established when none was); 0 before establishment
 * @param lastDataRecv ms since data was last received (or since establishment); 0 before establishment
 * @param lastAckRecv ms since an acceptable ACK was last received (or since establishment); 0 before
 * @param pmtu bytes: the path MTU the MSS was computed for ({@code icsk_pmtu_cookie}): the route's device MTU,
 *     lowered by ICMP "fragmentation needed"
 * @param rcvSsthresh bytes: the largest window we may advertise now. Linux grows this clamp with the
 *     traffic ({@code tcp_grow_window}); jnet has no such ramp, its window is bounded by half the receive
 *     buffer (tcp_adv_win_scale 1) and by what the window scale can express, and that bound is reported
 * @param rtt smoothed round-trip time (SRTT, RFC 6298) in µs; 0 before the first sample
 * @param rttvar RTT variation (RTTVAR, RFC 6298; Linux's {@code mdev_us}) in µs
 * @param sndSsthresh slow-start threshold in segments; 2147483647 ({@code TCP_INFINITE_SSTHRESH}) until the
 *     first loss
 * @param sndCwnd congestion window in segments (jnet keeps it in bytes: bytes / {@link #sndMss})
 * @param advmss bytes: the MSS we announced, less the timestamp option when negotiated (Linux's
 *     {@code advmss} after the handshake)
 * @param reordering the reordering degree in segments (Linux tp->reordering): net.ipv4.tcp_reordering (3) at
 *     first, raised to the distance of reordered data when reordering is detected, at most
 *     net.ipv4.tcp_max_reordering
 * @param rcvRtt the receiver's RTT estimate in µs ({@code rcv_rtt_est}, Linux tcp_rcv_rtt_update): from
 *     the timestamp echo of full-sized segments, else once per window of received data; 0 before a sample.
 *     Informational: jnet's receive-buffer autotuning paces itself by SRTT
 * @param rcvSpace bytes the reader consumed per RTT at the last receive-buffer autotuning step
 *     ({@code rcvq_space.space})
 * @param totalRetrans segments retransmitted over the connection's life, SYN and SYN-ACK included
 * @param pacingRate bytes/s Linux would pace at ({@code tcp_update_pacing_rate}): cwnd × MSS / SRTT times
 *     net.ipv4.tcp_pacing_ss_ratio (slow start) or tcp_pacing_ca_ratio percent, updated per ACK; -1
 *     (Linux's ~0) before the first RTT sample. jnet computes the figure but does not pace
 * @param bytesAcked bytes acknowledged by the peer (RFC 4898 tcpEStatsAppHCThruOctetsAcked); as Linux the
 *     SYN and FIN count one each
 * @param bytesReceived bytes received in order (RFC 4898 tcpEStatsAppHCThruOctetsReceived); the FIN counts one
 * @param segsOut segments sent, pure ACKs, SYN, RST and retransmissions included (tcpEStatsPerfSegsOut)
 * @param segsIn segments received and processed by this connection, the SYN of a passive open included
 *     (tcpEStatsPerfSegsIn); a large loopback segment counts once
 * @param notsentBytes bytes queued and never sent ({@code write_seq - snd_nxt}); see {@link TcpSocket#outqNotSent()}
 * @param minRtt the smallest RTT sample of the last net.ipv4.tcp_min_rtt_wlen seconds in µs (Linux's
 *     windowed min filter, lib/win_minmax.c); 4294967295 before the first sample
 * @param dataSegsIn segments received with payload (tcpEStatsDataSegsIn)
 * @param dataSegsOut segments sent with payload, retransmissions included (tcpEStatsDataSegsOut)
 * @param deliveryRate bytes/s of the latest delivery-rate sample (Linux tcp_rate.c: the data acknowledged
 *     between a segment's send and its ACK, over the longer of the send and ACK intervals, samples shorter
 *     than min RTT discarded, app-limited samples kept only when they are higher): delivered segments ×
 *     {@link #sndMss}, as Linux. 0 before the first sample
 * @param busyTime µs during which the write queue held data (sent or not), including the time limited by
 *     the receive window or the send buffer (Linux's busy chronograph)
 * @param rwndLimited µs during which sending stopped at the peer's receive window
 * @param sndbufLimited µs during which the application's writes found the send buffer full
 * @param bytesSent bytes of payload sent, retransmissions included (tcpEStatsPerfHCDataOctetsOut)
 * @param bytesRetrans bytes of payload retransmitted (tcpEStatsPerfOctetsRetrans)
 * @param dsackDups segments reported by D-SACK blocks received (Linux dsack_dups)
 * @param reordSeen reordering events detected (Linux reord_seen)
 * @param rcvOoopack segments received out of order and queued (Linux counts them where it counts
 *     TcpExtTCPOFOQueue)
 * @param sndWnd bytes: the peer's advertised window, scaled (SND.WND)
 * @param rcvWnd bytes: the window we advertised last, scaled (RCV.WND)
 */
public record TcpInfo(
        int state, int caState, int retransmits, int probes, int backoff, int options, int sndWscale, int rcvWscale,
        boolean deliveryRateAppLimited,
        long rto, long ato, long sndMss, long rcvMss,
        long unacked, long sacked, long lost, long retrans,
        long lastDataSent, long lastDataRecv, long lastAckRecv,
        long pmtu, long rcvSsthresh, long rtt, long rttvar, long sndSsthresh, long sndCwnd, long advmss, long reordering,
        long rcvRtt, long rcvSpace, long totalRetrans,
        long pacingRate, long bytesAcked, long bytesReceived, long segsOut, long segsIn,
        long notsentBytes, long minRtt, long dataSegsIn, long dataSegsOut,
        long deliveryRate, long busyTime, long rwndLimited, long sndbufLimited,
        long bytesSent, long bytesRetrans, long dsackDups, long reordSeen, long rcvOoopack,
        long sndWnd, long rcvWnd) {

    // TCP states as Linux numbers them (include/net/tcp_states.h)
    public static final int TCP_ESTABLISHED = 1;
    public static final int TCP_SYN_SENT = 2;
    public static final int TCP_SYN_RECV = 3;
    public static final int TCP_FIN_WAIT1 = 4;
    public static final int TCP_FIN_WAIT2 = 5;
    public static final int TCP_TIME_WAIT = 6;
    public static final int TCP_CLOSE = 7;
    public static final int TCP_CLOSE_WAIT = 8;
    public static final int TCP_LAST_ACK = 9;
    public static final int TCP_LISTEN = 10;
    public static final int TCP_CLOSING = 11;

    // enum tcp_ca_state (include/uapi/linux/tcp.h)
    /** Nothing bad observed recently: no duplicate ACKs, no loss. */
    public static final int TCP_CA_Open = 0;
    /** Duplicate ACKs (or SACKs) seen, not yet taken for loss. */
    public static final int TCP_CA_Disorder = 1;
    /** Congestion window reduction after ECN or local congestion (never in jnet). */
    public static final int TCP_CA_CWR = 2;
    /** Fast recovery after a fast retransmit. */
    public static final int TCP_CA_Recovery = 3;
    /** Loss recovery after a retransmission timeout. */
    public static final int TCP_CA_Loss = 4;

    // tcpi_options bits
    public static final int TCPI_OPT_TIMESTAMPS = 1;
    public static final int TCPI_OPT_SACK = 2;
    public static final int TCPI_OPT_WSCALE = 4;
    public static final int TCPI_OPT_ECN = 8;

    /** Linux's TCP_INFINITE_SSTHRESH: {@link #sndSsthresh} before the first loss. */
    public static final long TCP_INFINITE_SSTHRESH = 0x7fffffffL;

    /** {@link #minRtt} before the first sample (Linux's ~0U). */
    public static final long NO_MIN_RTT = 0xffffffffL;

    /** The name Linux's {@code ss} prints for {@link #state} (ESTAB, SYN-SENT, ..., UNCONN for TCP_CLOSE). */
    public static String stateName(int state) {
        return switch (state) {
            case TCP_ESTABLISHED -> "ESTAB";
            case TCP_SYN_SENT -> "SYN-SENT";
            case TCP_SYN_RECV -> "SYN-RECV";
            case TCP_FIN_WAIT1 -> "FIN-WAIT-1";
            case TCP_FIN_WAIT2 -> "FIN-WAIT-2";
            case TCP_TIME_WAIT -> "TIME-WAIT";
            case TCP_CLOSE -> "UNCONN";
            case TCP_CLOSE_WAIT -> "CLOSE-WAIT";
            case TCP_LAST_ACK -> "LAST-ACK";
            case TCP_LISTEN -> "LISTEN";
            case TCP_CLOSING -> "CLOSING";
            default -> "UNKNOWN(" + state + ")";
        };
    }

    /** The enum name for {@link #caState}: "Open", "Disorder", "CWR", "Recovery", "Loss". */
    public static String caStateName(int caState) {
        return switch (caState) {
            case TCP_CA_Open -> "Open";
            case TCP_CA_Disorder -> "Disorder";
            case TCP_CA_CWR -> "CWR";
            case TCP_CA_Recovery -> "Recovery";
            case TCP_CA_Loss -> "Loss";
            default -> "UNKNOWN(" + caState + ")";
        };
    }
}
