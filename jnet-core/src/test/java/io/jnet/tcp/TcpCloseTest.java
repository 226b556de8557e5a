package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.TcpInfo;
import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Connection teardown on virtual time: simultaneous close, TIME-WAIT duration. */
class TcpCloseTest {

    static TcpProtocol tcp(io.jnet.stack.NetNamespace ns) { return ns.extension(TcpProtocol.class); }

    @Test
    void simultaneousCloseGoesThroughClosingToTimeWaitOnBothSides() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            net.filter.hold(true, true);
            p[0].shutdownOutput();
            p[1].shutdownOutput();
            assertThat(p[0].state()).isEqualTo("FIN-WAIT-1");
            assertThat(p[1].state()).isEqualTo("FIN-WAIT-1");
            net.filter.releaseHeld(); // the FINs cross
            assertThat(p[0].state()).isEqualTo("CLOSING");
            assertThat(p[1].state()).isEqualTo("CLOSING");
            net.filter.hold(false, false);
            net.filter.releaseHeld(); // the ACKs of the FINs
            assertThat(tcp(net.a).timeWaitCount()).isEqualTo(1);
            assertThat(tcp(net.b).timeWaitCount()).isEqualTo(1);
            assertThat(p[0].read(new byte[1], 0, 1)).isEqualTo(-1);
            assertThat(p[1].read(new byte[1], 0, 1)).isEqualTo(-1);
            List<TcpFrame> fins = net.filter.frames().stream().filter(TcpFrame::isFin).toList();
            assertThat(fins).hasSize(2);
            assertThat(net.a.mib().get(MibCounter.TcpCurrEstab)).isZero();
            assertThat(net.b.mib().get(MibCounter.TcpCurrEstab)).isZero();
            p[0].close();
            p[1].close();
            net.advanceMillis(60_000);
            assertThat(tcp(net.a).timeWaitCount()).isZero();
            assertThat(tcp(net.b).timeWaitCount()).isZero();
        }
    }

    @Test
    void timeWaitLastsSixtySecondsAndHoldsTheTuple() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            p[0].close(); // active close: the client ends in TIME-WAIT
            net.advanceMillis(40); // the peer's ACK of our FIN is delayed (it entered pingpong mode: tcp_fin)
            assertThat(p[0].state()).isEqualTo("FIN-WAIT-2");
            assertThat(p[1].read(new byte[1], 0, 1)).isEqualTo(-1);
            p[1].close();
            assertThat(p[0].state()).as("the socket is released; a TIME-WAIT remnant keeps the tuple").isEqualTo("UNCONN");
            long entered = net.clock.nanoTime();
            TcpProtocol t = tcp(net.a);
            assertThat(t.timeWaitCount()).isEqualTo(1);
            assertThat(t.describeConnections()).singleElement().asString().startsWith("TIME-WAIT");
            assertThat(tcp(net.b).connectionCount()).as("the passive closer is gone after LAST-ACK").isZero();

            // a retransmitted FIN is answered from TIME-WAIT (and restarts the 2MSL timer)
            net.advanceMillis(30_000);
            TcpFrame fin = net.filter.frames(false).stream().filter(TcpFrame::isFin).findFirst().orElseThrow();
            net.filter.clearRecording();
            // keep the re-ACK from the server: its RST would end TIME-WAIT (tcp_rfc1337=0, RFC 1337 hazard)
            net.filter.dropOutbound(f -> true);
            net.filter.injectInbound(net.craftToClient(fin.srcPort(), fin.dstPort(), fin.seq(), fin.ack(), Tcp.FIN | Tcp.ACK,
                    fin.window(), fin.options(), new byte[0]));
            List<TcpFrame> reply = net.filter.frames(true);
            assertThat(reply).singleElement().matches(TcpFrame::isPureAck);
            assertThat(reply.get(0).ack()).isEqualTo(fin.seq() + 1);
            long restarted = net.clock.nanoTime();

            net.advanceMillis(59_999);
            assertThat(t.timeWaitCount()).isEqualTo(1);
            net.advanceMillis(1);
            assertThat(t.timeWaitCount()).isZero();
            assertThat(net.clock.nanoTime() - restarted).isEqualTo(60_000_000_000L);
            assertThat(restarted - entered).isEqualTo(30_000_000_000L);
            assertThat(t.connectionCount()).isZero();
        }
    }

    @Test
    void orphanedFinWait2EndsAfterTcpFinTimeout() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.a.sysctl().set("net.ipv4.tcp_fin_timeout", "5");
            TcpConnection[] p = net.establish(srv);
            p[0].close(); // the server never closes: the client waits in FIN-WAIT-2
            // the peer delays the ACK of our FIN (tcp_fin: pingpong) by its ato, 0 before any data: it goes at
            // the next tick, at time 0, and the FIN-WAIT-2 timer runs from then
            net.advanceMillis(1);
            assertThat(p[0].state()).isEqualTo("FIN-WAIT-2");
            net.advanceMillis(4_998);
            assertThat(p[0].state()).isEqualTo("FIN-WAIT-2");
            net.advanceMillis(1);
            assertThat(p[0].state()).isEqualTo("UNCONN");
            assertThat(tcp(net.a).connectionCount()).isZero();
        }
    }

    /** tcp_fin enters pingpong mode on the move to CLOSE_WAIT: the FIN's ACK waits for the delayed-ACK timer. */
    @Test
    void peerFinIsAckedByTheDelayedAckTimer() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            net.filter.clearRecording();
            p[1].shutdownOutput();
            assertThat(p[0].state()).isEqualTo("CLOSE-WAIT");
            assertThat(net.filter.frames(true)).as("no ACK at once").isEmpty();
            net.advanceMillis(39);
            assertThat(net.filter.frames(true)).isEmpty();
            net.advanceMillis(1);
            assertThat(net.filter.frames(true)).singleElement().matches(TcpFrame::isPureAck);
            assertThat(net.a.mib().get(MibCounter.TcpExtDelayedACKs)).isEqualTo(1);

            // a FIN sent before the timer carries the ACK: no ACK of its own
            TcpConnection[] q = net.establish(srv);
            net.filter.clearRecording();
            q[1].shutdownOutput();
            net.advanceMillis(10);
            q[0].shutdownOutput();
            net.advanceMillis(100);
            List<TcpFrame> out = net.filter.frames(true);
            assertThat(out).singleElement().matches(TcpFrame::isFin);
            assertThat(out.get(0).atMillis()).isEqualTo(net.clock.nanoTime() / 1_000_000L - 100);

            // a passive opener that received no data has no ato yet (0): the ACK goes at the next tick
            TcpConnection[] r = net.establish(srv);
            net.filter.clearRecording();
            r[0].shutdownOutput();
            assertThat(net.filter.frames(false)).as("no ACK at once").isEmpty();
            net.advanceMillis(1);
            assertThat(net.filter.frames(false)).singleElement().matches(TcpFrame::isPureAck);
        }
    }

    /** New data after close() resets as for a closed connection: RST seq = SEG.ACK, no ACK (tcp_v4_send_reset). */
    @Test
    void dataAfterCloseIsAnsweredWithARstAtTheSegmentsAck() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            p[0].close();
            net.advanceMillis(1);
            assertThat(p[0].state()).isEqualTo("FIN-WAIT-2");
            TcpFrame ack = net.filter.frames(false).getLast();
            net.filter.clearRecording();
            net.filter.dropInbound(f -> false);
            net.filter.dropOutbound(f -> true); // keep the server out of it
            net.filter.injectInbound(net.craftToClient(VirtualNet.PORT, ack.dstPort(), ack.seq(), ack.ack(),
                    Tcp.PSH | Tcp.ACK, ack.window(), null, new byte[100]));
            List<TcpFrame> out = net.filter.droppedFrames();
            assertThat(out).singleElement().matches(TcpFrame::isRst);
            assertThat(out.get(0).has(Tcp.ACK)).isFalse();
            assertThat(out.get(0).seq()).isEqualTo(ack.ack());
            assertThat(out.get(0).window()).isZero();
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPAbortOnData)).isEqualTo(1);
            assertThat(tcp(net.a).connectionCount()).isZero();
            assertThat(tcp(net.a).timeWaitCount()).isZero();
        }
    }

    /**
     * shutdown(SHUT_RD) on a listener stops it as Linux's inet_shutdown does (tcp_disconnect, inet_csk_listen_stop):
     * the connection nobody accepted is reset, accept() fails with EINVAL, the state is TCP_CLOSE and poll reports
     * POLLHUP; a second shutdown finds nothing listening (ENOTCONN); the socket keeps its port and listens again.
     */
    @Test
    void shutdownReadOnAListenerStopsIt() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            srv.shutdownOutput(); // SHUT_WR: nothing happens to a listener
            assertThat(srv.info().state()).isEqualTo(TcpInfo.TCP_LISTEN);
            TcpConnection c = net.connect(VirtualNet.PORT);
            assertThat(c.finishConnect()).isTrue();
            srv.shutdownInput();
            assertThat(c.state()).as("reset").isEqualTo("UNCONN");
            assertThat(catchThrowableOfType(ErrnoException.class, srv::accept).errno()).isEqualTo(Errno.EINVAL);
            assertThat(srv.info().state()).isEqualTo(TcpInfo.TCP_CLOSE);
            assertThat(srv.readyEvents() & Events.POLLHUP).isNotZero();
            assertThat(catchThrowableOfType(ErrnoException.class, srv::shutdownInput).errno()).isEqualTo(Errno.ENOTCONN);
            assertThat(catchThrowableOfType(ErrnoException.class, srv::shutdownOutput).errno()).isEqualTo(Errno.ENOTCONN);
            assertThat(srv.localAddress().getPort()).isEqualTo(VirtualNet.PORT);
            // listening again on the same port
            srv.listen(16);
            assertThat(srv.info().state()).isEqualTo(TcpInfo.TCP_LISTEN);
            assertThat(srv.readyEvents() & Events.POLLHUP).isZero();
            TcpConnection[] p = net.establish(srv);
            assertThat(p[1].state()).isEqualTo("ESTAB");
        }
    }
}
