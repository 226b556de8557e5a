package io.jnet.rds;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The RDS counters of one namespace, named exactly as Linux's {@code struct rds_statistics} (net/rds/rds.h) and
 * {@code struct rds_tcp_statistics} (net/rds/tcp.h), which {@code rds-info -c} prints; counters Linux does not
 * have are prefixed {@code jnet_}. Counts are events (messages, calls) unless the name says bytes.
 */
public final class RdsStatistics {
    /** The counters, in {@code rds-info -c} order (rds_stat_names, then rds_tcp_stat_names, then jnet's). */
    public enum Counter {
        /** Connections that went through shutdown (rds_conn_shutdown after a drop or an error). */
        s_conn_reset,
        /** Resent messages whose sequence number was already received (rds_recv_incoming). */
        s_recv_drop_old_seq,
        /** Messages to a port no socket is bound to. */
        s_recv_drop_no_sock,
        /** Messages to a socket that was closing. */
        s_recv_drop_dead_sock,
        /** Messages handed to an application by a receive. */
        s_recv_delivered,
        /** Messages queued on a socket's receive queue. */
        s_recv_queued,
        /** Pings answered (a message with sport != 0 and dport 0). */
        s_recv_ping,
        /** Sends refused or made to wait because the socket's send queue was full. */
        s_send_queue_full,
        /** Transmit attempts that found another thread transmitting on the connection (rds_send_xmit's acquire_in_xmit). */
        s_send_lock_contention,
        /**
         * Transmits that found, after releasing the connection, that another thread had taken it over meanwhile
         * and left the queue to it (rds_send_xmit's send_gen check).
         */
        s_send_lock_queue_raced,
        /** Messages queued for sending. */
        s_send_queued,
        /** Pongs queued in answer to pings. */
        s_send_pong,
        /** Messages freed because TCP acknowledged them (rds_send_drop_acked). */
        s_send_drop_acked,
        /** Congestion-map updates queued on a connection (rds_cong_queue_updates). */
        s_cong_update_queued,
        /** Congestion-map updates received. */
        s_cong_update_received,
        /** Non-blocking sends refused with ENOBUFS for a congested port. */
        s_cong_send_error,
        /** Blocking sends that waited for a congested port. */
        s_cong_send_blocked,
        /** Payload bytes added to receive queues (rds_recv_rcvbuf_delta). */
        s_recv_bytes_added_to_socket,
        /** Payload bytes removed from receive queues. */
        s_recv_bytes_removed_from_socket,
        /**
         * Readiness callbacks of RDS TCP sockets not after an ACK that freed space: data arrived or the state
         * changed (Linux counts rds_tcp_data_ready calls; jnet's one callback also stands for rds_tcp_state_change).
         */
        s_tcp_data_ready_calls,
        /** Readiness callbacks after an ACK freed send-queue space (rds_tcp_write_space calls). */
        s_tcp_write_space_calls,
        /** Transmissions stopped by a full TCP send buffer (a short write). */
        s_tcp_sndbuf_full,
        /** Accepted TCP connections closed because the outgoing one of the lower address wins (rds_tcp_accept_one). */
        s_tcp_connect_raced,
        /** Accepted connections that replaced an UP one (a restarted peer). */
        s_tcp_listen_closed_stale,
        /** jnet: headers refused (h_len above 1 MiB); the TCP connection is reset. */
        jnet_s_recv_drop_bad_header,
        /** jnet: congestion updates whose h_len is not 8192, skipped. */
        jnet_s_recv_drop_bad_cong_map,
        /** jnet: TCP connections reset by RDS (SO_LINGER 0 close) after bad input or a replaced socket. */
        jnet_s_tcp_reset_sent,
        /** jnet: connection attempts started (rds_connect_worker with the connection DOWN). */
        jnet_s_conn_connect,
        /** jnet: messages resent after a reconnect (moved from the retransmit to the send queue). */
        jnet_s_send_retransmitted,
        /** jnet: probe pongs (sport 0, dport RDS_FLAG_PROBE_PORT) received and consumed. */
        jnet_s_recv_pong,
        /**
         * jnet: probe pings sent on an UP connection when the peer's new TCP connection lost the arbitration
         * (rds_tcp_accept_one), to find a connection the peer no longer has (it restarted).
         */
        jnet_s_send_probe_ping,
        /** jnet: pings not answered because a connection already had its maximum of pongs outstanding (256). */
        jnet_s_send_pong_dropped,
        /**
         * jnet: times a TCP connection stopped reading because a socket it delivered to held its hard cap of
         * queued bytes (a peer that ignores the congestion map); it reads on once the application catches up.
         */
        jnet_s_recv_throttled,
        /**
         * jnet: accepted TCP connections reset because the peer sent nothing within
         * net.rds.tcp.jnet_accept_idle_timeout_ms (an RDS peer sends its congestion map at once).
         */
        jnet_s_tcp_accept_idle_reaped,
    }

    private final LongAdder[] counters = new LongAdder[Counter.values().length];

    RdsStatistics() {
        for (int i = 0; i < counters.length; i++) counters[i] = new LongAdder();
    }

    void inc(Counter c) { counters[c.ordinal()].increment(); }

    void add(Counter c, long n) { counters[c.ordinal()].add(n); }

    /** The current value of {@code c}. */
    public long get(Counter c) { return counters[c.ordinal()].sum(); }

    /**
     * The current value of the counter named {@code name} (Linux's spelling, e.g. {@code s_recv_drop_no_sock}).
     *
     * @throws IllegalArgumentException for an unknown name
     */
    public long get(String name) { return get(Counter.valueOf(name)); }

    /** Every counter by name, in {@code rds-info -c} order. */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Counter c : Counter.values()) m.put(c.name(), get(c));
        return m;
    }

    /** As {@code rds-info -c} prints them: one "counter value" line each. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Counter c : Counter.values()) sb.append(String.format("%32s %16d%n", c.name(), get(c)));
        return sb.toString();
    }
}
