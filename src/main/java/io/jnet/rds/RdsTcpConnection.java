package io.jnet.rds;

import io.jnet.socket.ErrnoException;
import io.jnet.socket.Errno;
import io.jnet.socket.MsgFlags;
import io.jnet.socket.ReadinessListener;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpSocket;
import io.jnet.tcp.TcpKernelSockets;
import io.jnet.wire.Ipv4;
import io.jnet.wire.RdsHeader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The TCP side of one RDS connection (Linux's {@code struct rds_tcp_connection}, net/rds/tcp*.c): its one TCP
 * socket ({@code t_sock}, used both ways), the bytes written on it, and the stream parser of what it receives.
 *
 * <p>The socket's readiness listener (Linux's rds_tcp_data_ready, rds_tcp_write_space and rds_tcp_state_change,
 * called under TCP's locks) only schedules {@link #work} on the namespace's RDS worker; the worker reads, frees
 * acknowledged messages, transmits what waits and notices a connection that failed.
 */
final class RdsTcpConnection {
    /** RDS_FRAG_SIZE: Linux's message pages, each sent as one sendpage call. */
    static final int FRAG_SIZE = 4096;
    /** Bytes read per call while between messages (headers and small messages are cut out of them). */
    static final int READ_CHUNK = 16384;
    /** A payload at least this large left to read is read straight into the message's own array. */
    static final int DIRECT_READ_MIN = 4096;
    /** Bytes one work item reads before it yields the worker to other connections. */
    static final int READ_BUDGET = 4 << 20;

    final RdsConnection conn;
    private final RdsProtocol proto;
    /** t_sock: the TCP socket, connecting or connected; null when none. */
    private volatile TcpSocket sock;
    private ReadinessListener listener;
    /** An outgoing connect is in progress on {@link #sock}. */
    private volatile boolean connecting;
    /** Bytes written on {@link #sock} (the RDS stream offset); holder of the transmit guard. */
    long written;
    private final byte[] hdr = new byte[RdsHeader.LENGTH];
    private final byte[] rbuf = new byte[READ_CHUNK];
    final RdsStreamParser parser = new RdsStreamParser();
    private final Consumer<RdsMessage> incoming;

    RdsTcpConnection(RdsConnection conn) {
        this.conn = conn;
        this.proto = conn.proto;
        this.incoming = m -> proto.recvIncoming(conn, conn.faddr, conn.laddr, m);
    }

    TcpSocket socket() { return sock; }

    InetSocketAddress localAddress() {
        TcpSocket s = sock;
        return s == null ? null : s.localAddress();
    }

    InetSocketAddress remoteAddress() {
        TcpSocket s = sock;
        return s == null ? null : s.remoteAddress();
    }

    /** rds_tcp_tune: TCP_NODELAY; SO_SNDBUF / SO_RCVBUF only when net.rds.tcp.rds_tcp_sndbuf / _rcvbuf are set. */
    void tune(TcpSocket s) throws IOException {
        s.setOption(SocketOption.TCP_NODELAY, true);
        int snd = proto.sysctl.rdsTcpSndbuf.intValue(), rcv = proto.sysctl.rdsTcpRcvbuf.intValue();
        if (snd > 0) s.setOption(SocketOption.SO_SNDBUF, snd);
        if (rcv > 0) s.setOption(SocketOption.SO_RCVBUF, rcv);
    }

    /** rds_tcp_set_callbacks: this connection hears of {@code s}'s readiness, on every ACK too. */
    private void attach(TcpSocket s) {
        TcpKernelSockets.setWriteSpaceOnEveryAck(s, true);
        listener = x -> {
            proto.stats.inc(RdsStatistics.Counter.s_tcp_data_ready_calls);
            conn.kick();
        };
        s.addReadinessListener(listener);
        sock = s;
    }

    /** rds_tcp_conn_path_connect, on the worker: a non-blocking connect from laddr to faddr:16385. */
    void connect() throws IOException {
        TcpSocket s = proto.ns.openTcpSocket();
        try {
            tune(s);
            s.bind(new InetSocketAddress(Ipv4.toInet(conn.laddr), 0));
            s.setBlocking(false);
            written = 0;
            parser.reset();
            connecting = true;
            attach(s);
            s.connect(new InetSocketAddress(Ipv4.toInet(conn.faddr), RdsHeader.TCP_PORT));
            connecting = false; // connected at once
            conn.connectComplete(RdsConnState.CONNECTING);
        } catch (ErrnoException e) {
            if (e.errno() == Errno.EINPROGRESS) {
                conn.kick(); // it may have completed before the listener was there to tell
                return;
            }
            throw e;
        }
    }

    /**
     * rds_tcp_accept_one after the arbitration: {@code s} becomes t_sock; a previous socket is reset
     * (rds_tcp_reset_callbacks) and every unacknowledged message goes back to be resent on the new one. On the
     * worker.
     *
     * @return true when a previous socket was replaced
     */
    boolean install(TcpSocket s) throws IOException {
        tune(s);
        s.setBlocking(false);
        conn.lockXmit();
        boolean replaced;
        try {
            replaced = closeSocket(true);
            written = 0;
            parser.reset();
            connecting = false;
            conn.pathReset();
            attach(s);
        } finally {
            conn.unlockXmit();
        }
        return replaced;
    }

    /** Closes t_sock (with RST when {@code reset}); true when there was one. Holder of the transmit guard. */
    boolean closeSocket(boolean reset) {
        TcpSocket s = sock;
        sock = null;
        connecting = false;
        if (s == null) return false;
        if (listener != null) s.removeReadinessListener(listener);
        listener = null;
        if (reset) {
            try {
                s.setOption(SocketOption.SO_LINGER, Duration.ZERO);
                proto.stats.inc(RdsStatistics.Counter.jnet_s_tcp_reset_sent);
            } catch (IOException ignored) {
                // already closed
            }
        }
        s.close();
        return true;
    }

    /** rds_tcp_conn_path_shutdown. Holder of the transmit guard. */
    void shutdown(boolean reset) {
        closeSocket(reset);
        written = 0;
        parser.reset();
    }

    /** The worker's part: completes a connect, reads, frees what is acknowledged, transmits. */
    void work() {
        TcpSocket s = sock;
        if (s == null) return;
        if (connecting) {
            try {
                if (!s.finishConnect()) return;
            } catch (IOException e) {
                conn.drop(false);
                return;
            }
            connecting = false;
            conn.connectComplete(RdsConnState.CONNECTING);
        }
        RdsConnState st = conn.state();
        if (st != RdsConnState.UP) return;
        if (!recv(s)) return;
        conn.sendXmit();
    }

    /** rds_tcp_read_sock: reads what is there and passes every complete message on; false when dropped. */
    private boolean recv(TcpSocket s) {
        int budget = READ_BUDGET;
        while (budget > 0) {
            int n;
            try {
                int direct = parser.directRemaining();
                if (direct >= DIRECT_READ_MIN) {
                    n = s.read(parser.directArray(), parser.directOffset(), direct);
                    if (n > 0) parser.directFilled(n, incoming);
                } else {
                    n = s.read(rbuf, 0, rbuf.length);
                    if (n > 0) {
                        long drops = parser.drops();
                        int r = parser.feed(rbuf, 0, n, incoming);
                        if (r < 0) { // h_len beyond 1 MiB: the stream cannot go on
                            proto.stats.inc(RdsStatistics.Counter.jnet_s_recv_drop_bad_header);
                            conn.drop(true);
                            return false;
                        }
                        long d = parser.drops() - drops;
                        if (d > 0) proto.stats.add(RdsStatistics.Counter.jnet_s_recv_drop_bad_cong_map, d);
                    }
                }
            } catch (IOException e) {
                conn.drop(false); // reset by the peer (rds_tcp_state_change)
                return false;
            }
            if (n == 0) return true;
            if (n < 0) { // the peer closed
                conn.drop(false);
                return false;
            }
            if (sock != s || conn.state() != RdsConnState.UP) return false;
            budget -= n;
        }
        conn.kick(); // more may wait: after the other connections' work
        return true;
    }

    /**
     * rds_tcp_xmit: writes what is left of {@code m} without blocking: the header (with MSG_MORE when a payload
     * follows), then the payload. With net.rds.tcp.jnet_msg_more (default) the payload goes in one write, which
     * TCP pushes at its end just as Linux's 4 KiB sendpage calls with MSG_MORE on all but the last; with 0 each
     * 4 KiB fragment is its own write without MSG_MORE (Linux before 4.4).
     */
    int xmit(RdsOutMessage m) {
        TcpSocket s = sock;
        if (s == null || connecting) return RdsTransport.XMIT_PARTIAL;
        boolean more = proto.sysctl.rdsTcpJnetMsgMore.intValue() != 0;
        RdsMessage msg = m.msg;
        int len = msg.payloadLength();
        try {
            if (m.off < RdsHeader.LENGTH) {
                RdsStreamWriter.writeHeader(msg, hdr, 0);
                if (m.retransmitted) hdr[RdsHeader.OFF_FLAGS] |= RdsHeader.FLAG_RETRANSMITTED;
                int flags = MsgFlags.MSG_DONTWAIT | MsgFlags.MSG_NOSIGNAL | (more && len > 0 ? MsgFlags.MSG_MORE : 0);
                int n = s.write(hdr, m.off, RdsHeader.LENGTH - m.off, flags);
                written += n;
                m.off += n;
                if (m.off < RdsHeader.LENGTH) return RdsTransport.XMIT_PARTIAL;
            }
            while (m.off < RdsHeader.LENGTH + len) {
                int p = m.off - RdsHeader.LENGTH;
                int end = more ? len : Math.min(len, (p / FRAG_SIZE + 1) * FRAG_SIZE);
                int want = end - p;
                int n = s.write(msg.payload(), msg.payloadOffset() + p, want, MsgFlags.MSG_DONTWAIT | MsgFlags.MSG_NOSIGNAL);
                written += n;
                m.off += n;
                if (n < want) return RdsTransport.XMIT_PARTIAL;
            }
            return RdsTransport.XMIT_DONE;
        } catch (IOException e) {
            conn.drop(false);
            return RdsTransport.XMIT_ERROR;
        }
    }

    /** rds_tcp_is_acked: acknowledged stream bytes are those written minus SIOCOUTQ. */
    void dropAcked() {
        TcpSocket s = sock;
        if (s == null || connecting) return;
        long outq;
        try {
            outq = s.outq();
        } catch (IOException e) {
            return;
        }
        conn.freeAcked(written - outq);
    }
}
