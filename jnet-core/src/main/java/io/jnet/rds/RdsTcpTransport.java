package io.jnet.rds;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpSocket;
import io.jnet.wire.Ipv4;
import java.io.IOException;
import java.time.Duration;

/**
 * RDS over TCP (Linux's rds_tcp_transport, net/rds/tcp*.c): one TCP connection per RDS connection, to port
 * 16385, used both ways; messages framed as {@link RdsStreamWriter} lays them out and freed when TCP has them
 * acknowledged.
 */
final class RdsTcpTransport implements RdsTransport {
    private final RdsProtocol proto;

    RdsTcpTransport(RdsProtocol proto) { this.proto = proto; }

    @Override
    public void connect(RdsConnection c) throws IOException { c.tc.connect(); }

    @Override
    public int xmit(RdsConnection c, RdsOutMessage m) { return c.tc.xmit(m); }

    @Override public void xmitPrepare(RdsConnection c) { c.tc.cork(true); }

    @Override public void xmitComplete(RdsConnection c) { c.tc.cork(false); }

    @Override public boolean keepsRetransmitQueue() { return true; }

    @Override public void dropAcked(RdsConnection c) { c.tc.dropAcked(); }

    @Override public void shutdown(RdsConnection c, boolean reset) { c.tc.shutdown(reset); }

    /**
     * rds_tcp_accept_one (with the single-socket arbitration of Linux 4.4): the connection for (local address of
     * {@code s}, its peer) is found or made (c_outgoing = 0 when made here). When it already has a TCP socket
     * (connecting or up) and the local address is below the peer's (unsigned), the new socket is closed and the
     * existing one kept (s_tcp_connect_raced): the lower address's outgoing connection wins; when the existing
     * one is UP a probe ping goes on it, so that a connection the peer lost (it restarted) is reset and the
     * peer's next connect gets in. Otherwise the new
     * socket replaces any existing one, whose unacknowledged messages are resent on it, and the connection is UP.
     * On the worker. {@code s} is closed unless it became the connection's socket, also when this throws.
     */
    void acceptOne(TcpSocket s) {
        boolean kept = false;
        try {
            kept = accept(s);
        } finally {
            RdsConnection c = installing;
            installing = null;
            if (!kept && (c == null || c.tc.socket() != s)) s.close();
        }
    }

    /** The connection {@link #accept} is installing a socket on; the worker only. */
    private RdsConnection installing;

    /** The body of {@link #acceptOne}: true when {@code s} became the connection's socket. */
    private boolean accept(TcpSocket s) {
        int laddr, faddr;
        try {
            laddr = Ipv4.fromInet(s.localAddress().getAddress());
            faddr = Ipv4.fromInet(s.remoteAddress().getAddress());
        } catch (RuntimeException e) { // reset before we got to it
            s.close();
            return false;
        }
        RdsConnection c = proto.connFor(laddr, faddr, false);
        if (c.tc == null) { // a TCP connection from one of our own addresses: RDS uses loopback for those
            s.close();
            return false;
        }
        if (c.tc.socket() != null && Integer.compareUnsigned(laddr, faddr) < 0) {
            proto.stats.inc(RdsStatistics.Counter.s_tcp_connect_raced);
            try {
                s.setOption(SocketOption.SO_LINGER, Duration.ZERO);
            } catch (IOException ignored) {
                // already closed
            }
            s.close();
            // The peer connects although it has our connection: it may have restarted and lost it, and an idle
            // connection would never find out (nothing written, nothing to reset), locking the peer out. A
            // probe ping makes a dead connection draw an RST (Linux has the peer's generation number in the
            // probe pong for this; jnet asks the TCP connection itself).
            if (c.state() == RdsConnState.UP) c.sendProbePing();
            return false;
        }
        RdsConnState before = c.state();
        installing = c;
        boolean replaced;
        try {
            replaced = c.tc.install(s);
        } catch (IOException e) {
            s.close();
            return false;
        }
        if (replaced) {
            if (before == RdsConnState.UP) proto.stats.inc(RdsStatistics.Counter.s_tcp_listen_closed_stale);
            c.moveTo(RdsConnState.RESETTING);
            c.connectComplete(RdsConnState.RESETTING);
        } else {
            c.transition(RdsConnState.DOWN, RdsConnState.CONNECTING);
            c.connectComplete(RdsConnState.CONNECTING);
        }
        c.kick(); // data may have arrived before the listener was attached
        return true;
    }
}
