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
    /** The seed's flags on all but a message's last piece: MSG_MORE | MSG_SENDPAGE_NOTLAST. */
    private static final int MORE = MsgFlags.MSG_MORE | MsgFlags.MSG_SENDPAGE_NOTLAST;
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
    /**
     * The outgoing connection of the higher address is established but the peer has sent nothing on it yet:
     * the peer's rds_tcp_accept_one may still close it for its own connection (the lower address wins), and
     * whatever TCP acknowledged on it would be lost. It counts as UP once the first bytes (the peer's congestion
     * map, which every connection sends first) arrive. jnet's addition to Linux 4.4's arbitration.
     */
    private volatile boolean awaitingPeer;
    /** Bytes written on {@link #sock} (the RDS stream offset); holder of the transmit guard. */
    long written;
    private final byte[] hdr = new byte[RdsHeader.LENGTH];
    private final byte[] rbuf = new byte[READ_CHUNK];
    final RdsStreamParser parser = new RdsStreamParser();
    private final Consumer<RdsMessage> incoming;
    /**
     * The socket whose receive queue reached its hard cap by a message from this connection: reading stops
     * while it is there (TCP's window then stops the peer); worker only.
     */
    private RdsSocketImpl throttle;
    /** Resets an accepted socket on which the peer sent nothing (net.rds.tcp.jnet_accept_idle_timeout_ms). */
    private final io.jnet.stack.Timer idleTimer;
    /** The accepted socket {@link #idleTimer} watches, and the parser's byte count when it was installed. */
    private volatile TcpSocket idleWatched;
    private long idleBytesAtInstall;

    RdsTcpConnection(RdsConnection conn) {
        this.conn = conn;
        this.proto = conn.proto;
        this.incoming = m -> proto.recvIncoming(conn, conn.faddr, conn.laddr, m);
        this.idleTimer = proto.ns.timers().newTimer(() -> proto.worker.execute(this::idleCheck));
    }

    /** A message from this connection took {@code rs} to its hard cap: reading stops (on the worker). */
    void throttleFor(RdsSocketImpl rs) { throttle = rs; }

    /**
     * After an accept: the peer must send something (an RDS peer sends its congestion map first) within
     * net.rds.tcp.jnet_accept_idle_timeout_ms, else {@link #idleCheck} resets the connection. On the worker.
     */
    private void watchIdle(TcpSocket s) {
        long ms = proto.sysctl.rdsTcpJnetAcceptIdleTimeoutMs.intValue();
        if (ms == 0) return;
        idleWatched = s;
        idleBytesAtInstall = parser.bytes();
        idleTimer.scheduleMillis(ms);
    }

    /**
     * The idle timer fired, on the worker: an accepted socket still installed on which the peer sent nothing is
     * reset (jnet_s_tcp_accept_idle_reaped). Linux keeps such a connection; the bound on them is the number of
     * peer addresses either way (one connection per address pair), and this frees the TCP socket of each.
     */
    private void idleCheck() {
        TcpSocket s = idleWatched;
        idleWatched = null;
        // a throttled connection does not read: the peer may have sent what waits in TCP
        if (s == null || sock != s || throttle != null || parser.bytes() != idleBytesAtInstall) return;
        recv(s); // what may have come without a callback yet
        if (sock != s || parser.bytes() != idleBytesAtInstall) return;
        proto.stats.inc(RdsStatistics.Counter.jnet_s_tcp_accept_idle_reaped);
        dropFor(s, true);
    }

    TcpSocket socket() { return sock; }

    @Override
    public String toString() {
        TcpSocket s = sock;
        return s == null ? "no socket" : s.localAddress() + " > " + s.remoteAddress() + " " + s.state()
                + (connecting ? " connecting" : "") + (awaitingPeer ? " awaiting peer" : "") + " written " + written
                + " parser " + parser.bytes() + (parser.partial() ? " partial" : "");
    }

    InetSocketAddress localAddress() {
        TcpSocket s = sock;
        return s == null ? null : s.localAddress();
    }

    InetSocketAddress remoteAddress() {
        TcpSocket s = sock;
        return s == null ? null : s.remoteAddress();
    }

    /**
     * rds_tcp_tune: TCP_NODELAY; the send and receive buffers only when net.rds.tcp.rds_tcp_sndbuf / _rcvbuf are
     * set, to exactly those bytes (sk_sndbuf / sk_rcvbuf with the lock bits, not SO_SNDBUF's doubling), which
     * stops TCP's autotuning of that buffer.
     */
    void tune(TcpSocket s) throws IOException {
        s.setOption(SocketOption.TCP_NODELAY, true);
        TcpKernelSockets.setBufferSizes(s, proto.sysctl.rdsTcpSndbuf.intValue(), proto.sysctl.rdsTcpRcvbuf.intValue());
    }

    /**
     * rds_tcp_set_callbacks: this connection hears of {@code s}'s readiness, on every ACK that frees send-queue
     * space too: a callback after such an ACK counts as rds_tcp_write_space (s_tcp_write_space_calls), any other
     * as rds_tcp_data_ready (s_tcp_data_ready_calls; it stands for rds_tcp_state_change too).
     */
    private void attach(TcpSocket s) {
        TcpKernelSockets.setWriteSpaceOnEveryAck(s, true);
        listener = x -> {
            proto.stats.inc(TcpKernelSockets.takeWriteSpace(s) ? RdsStatistics.Counter.s_tcp_write_space_calls
                    : RdsStatistics.Counter.s_tcp_data_ready_calls);
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
            if (conn.isDestroyed()) { // the namespace closed meanwhile: destroy may have missed this socket
                conn.lockXmit();
                try {
                    closeSocket(false);
                } finally {
                    conn.unlockXmit();
                }
                return;
            }
            s.connect(new InetSocketAddress(Ipv4.toInet(conn.faddr), RdsHeader.TCP_PORT));
            connecting = false; // connected at once
            if (Integer.compareUnsigned(conn.laddr, conn.faddr) > 0) {
                awaitingPeer = true;
                conn.kick();
            } else {
                conn.connectComplete(RdsConnState.CONNECTING);
            }
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
            // the namespace closing (RdsConnection.destroy) may have run meanwhile: no socket after it
            if (conn.isDestroyed()) throw new IOException("RDS of the namespace is closed");
            replaced = closeSocket(true, true);
            awaitingPeer = false;
            written = 0;
            parser.reset();
            connecting = false;
            conn.pathReset();
            attach(s);
            watchIdle(s);
        } finally {
            conn.unlockXmit();
        }
        return replaced;
    }

    /** Closes t_sock (with RST when {@code reset}); true when there was one. Holder of the transmit guard. */
    boolean closeSocket(boolean reset) { return closeSocket(reset, false); }

    /**
     * Closes t_sock; with {@code drain} what it holds is read and passed on first, under the same hold of the
     * socket, so that no byte TCP acknowledged to the peer (which then freed its messages) is thrown away.
     */
    private boolean closeSocket(boolean reset, boolean drain) {
        TcpSocket s = sock;
        boolean wasConnecting = connecting;
        sock = null;
        connecting = false;
        awaitingPeer = false;
        throttle = null;
        idleWatched = null;
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
        if (drain && !wasConnecting && !parser.failed()) {
            TcpKernelSockets.drainAndClose(s, rbuf, (b, n) -> {
                if (parser.feed(b, 0, n, incoming) >= 0) return true;
                proto.stats.inc(RdsStatistics.Counter.jnet_s_recv_drop_bad_header);
                return false;
            });
        } else {
            s.close();
        }
        return true;
    }

    /**
     * rds_tcp_conn_path_shutdown. Holder of the transmit guard, on the worker. What TCP received but RDS had not
     * read yet is read first (unless the stream is broken): the peer's TCP acknowledged it and freed the
     * messages, so it would not be resent.
     */
    void shutdown(boolean reset) {
        closeSocket(reset, true);
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
                dropFor(s, false);
                return;
            }
            connecting = false;
            if (Integer.compareUnsigned(conn.laddr, conn.faddr) > 0) awaitingPeer = true;
            else conn.connectComplete(RdsConnState.CONNECTING);
        }
        if (awaitingPeer) {
            long before = parser.bytes();
            if (!recv(s)) return;
            if (parser.bytes() == before) return;
            awaitingPeer = false;
            conn.connectComplete(RdsConnState.CONNECTING);
            return;
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
            RdsSocketImpl t = throttle;
            if (t != null) {
                if (t.throttle(conn)) return true; // the socket kicks this connection once below its cap
                throttle = null;
            }
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
                            dropFor(s, true);
                            return false;
                        }
                        long d = parser.drops() - drops;
                        if (d > 0) proto.stats.add(RdsStatistics.Counter.jnet_s_recv_drop_bad_cong_map, d);
                    }
                }
            } catch (IOException e) {
                dropFor(s, false); // reset by the peer (rds_tcp_state_change)
                return false;
            }
            if (n == 0) return true;
            if (n < 0) { // the peer closed
                dropFor(s, false);
                return false;
            }
            if (sock != s) return false;
            RdsConnState st = conn.state();
            if (st != RdsConnState.UP && !(awaitingPeer && st == RdsConnState.CONNECTING)) return false;
            budget -= n;
        }
        conn.kick(); // more may wait: after the other connections' work
        return true;
    }

    /**
     * rds_tcp_cork (rds_tcp_xmit_path_prepare / _complete): TCP_CORK on t_sock for the length of a transmit pass;
     * uncorking sends what the pass left in a partial segment. A failure shows in the next write.
     */
    void cork(boolean on) {
        TcpSocket s = sock;
        if (s == null || connecting) return;
        try {
            s.setOption(SocketOption.TCP_CORK, on);
        } catch (IOException e) {
            // the socket failed or closed: xmit sees it and drops the connection
        }
    }

    /**
     * rds_tcp_xmit: writes what is left of {@code m} without blocking (MSG_DONTWAIT): the header (held by the
     * pass's TCP_CORK, as Linux's rds_tcp_sendmsg sends it without flags), then the payload in 4 KiB fragments
     * (Linux's pages, one sendpage call each). With net.rds.tcp.jnet_msg_more (default 1) every fragment but the
     * last of a message of several goes with MSG_MORE | MSG_SENDPAGE_NOTLAST, as the seed's patch 3 (Linux 4.4:
     * {@code more = op_nents > 1}): TCP then fills full-sized (GSO) segments from the pieces instead of sending
     * each piece's full-MSS part as it comes. With 0 none does: each piece is pushed as it comes (under the pass's
     * TCP_CORK, its full-MSS part), as Linux before. A message of one fragment is written the same either way. A
     * short write keeps the message's offset; the rest goes on write space.
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
                int flags = MsgFlags.MSG_DONTWAIT | MsgFlags.MSG_NOSIGNAL; // as rds_tcp_sendmsg: the pass's cork holds it
                int n = s.write(hdr, m.off, RdsHeader.LENGTH - m.off, flags);
                written += n;
                m.off += n;
                if (m.off < RdsHeader.LENGTH) return RdsTransport.XMIT_PARTIAL;
            }
            while (m.off < RdsHeader.LENGTH + len) {
                int p = m.off - RdsHeader.LENGTH;
                int end = Math.min(len, (p / FRAG_SIZE + 1) * FRAG_SIZE);
                int want = end - p;
                int flags = MsgFlags.MSG_DONTWAIT | MsgFlags.MSG_NOSIGNAL | (more && end < len ? MORE : 0);
                int n = s.write(msg.payload(), msg.payloadOffset() + p, want, flags);
                written += n;
                m.off += n;
                if (n < want) return RdsTransport.XMIT_PARTIAL;
            }
            return RdsTransport.XMIT_DONE;
        } catch (IOException e) {
            dropFor(s, false);
            return RdsTransport.XMIT_ERROR;
        }
    }

    /**
     * rds_conn_path_drop for a failure seen on {@code s}: ignored when {@code s} is no longer t_sock (an accept
     * replaced it meanwhile), so that the failure of an old socket does not drop its successor.
     */
    private void dropFor(TcpSocket s, boolean reset) {
        if (sock == s) conn.drop(reset);
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
