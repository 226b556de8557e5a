package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.SocketOption;
import io.jnet.socket.SocketOptionValues;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import org.junit.jupiter.api.Test;

/**
 * TCP_DEFER_ACCEPT on virtual time, as Linux's: seconds stored as SYN-ACK timeouts (secs_to_retrans), a bare final ACK
 * dropped while the deferral lasts (tcp_check_req), data completing the connection, and the request timer's
 * syn_ack_recalc: no SYN-ACK but at the deferral's last timeout, a drop once deferral and retries are spent.
 */
class TcpDeferAcceptTest {

    private static long synAcks(VirtualNet net) {
        return net.filter.frames(false).stream().filter(TcpFrame::isSynAck).count();
    }

    @Test
    void secondsAreStoredAsSynAckTimeoutsAndReadBackRounded() {
        // secs_to_retrans / retrans_to_secs with TCP_TIMEOUT_INIT 1 s and TCP_RTO_MAX 120 s
        assertThat(SocketOptionValues.deferAcceptRetrans(0)).isZero();
        assertThat(SocketOptionValues.deferAcceptRetrans(-3)).isZero();
        assertThat(SocketOptionValues.deferAcceptRetrans(1)).isEqualTo(1);
        assertThat(SocketOptionValues.deferAcceptRetrans(2)).isEqualTo(2);
        assertThat(SocketOptionValues.deferAcceptRetrans(5)).isEqualTo(3);
        assertThat(SocketOptionValues.deferAcceptRetrans(7)).isEqualTo(3);
        assertThat(SocketOptionValues.deferAcceptRetrans(8)).isEqualTo(4);
        assertThat(SocketOptionValues.deferAcceptRetrans(Integer.MAX_VALUE)).isEqualTo(255);
        assertThat(SocketOptionValues.deferAcceptSeconds(0)).isZero();
        assertThat(SocketOptionValues.deferAcceptSeconds(1)).isEqualTo(1);
        assertThat(SocketOptionValues.deferAcceptSeconds(3)).isEqualTo(7);
        assertThat(SocketOptionValues.deferAcceptSeconds(4)).isEqualTo(15);
        // 1 + 2 + ... + 64, then 120 s each
        assertThat(SocketOptionValues.deferAcceptSeconds(255)).isEqualTo(127 + 248 * 120);
        assertThat(SocketOptionValues.deferAcceptRetrans(127 + 248 * 120)).isEqualTo(255);
    }

    @Test
    void theOptionReadsBackTheRoundedSecondsOnListenersAndSockets() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            assertThat(srv.getOption(SocketOption.TCP_DEFER_ACCEPT)).isZero();
            srv.setOption(SocketOption.TCP_DEFER_ACCEPT, 5);
            assertThat(srv.getOption(SocketOption.TCP_DEFER_ACCEPT)).isEqualTo(7);
            srv.setOption(SocketOption.TCP_DEFER_ACCEPT, -1);
            assertThat(srv.getOption(SocketOption.TCP_DEFER_ACCEPT)).isZero();
            TcpSocket s = TcpSocket.open(net.a);
            s.setOption(SocketOption.TCP_DEFER_ACCEPT, 10);
            assertThat(s.getOption(SocketOption.TCP_DEFER_ACCEPT)).isEqualTo(15);
            s.close();
        }
    }

    @Test
    void aBareFinalAckDoesNotCompleteTheConnectionDataDoes() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            srv.setOption(SocketOption.TCP_DEFER_ACCEPT, 5);
            TcpConnection c = (TcpConnection) TcpSocket.open(net.a);
            c.setBlocking(false);
            long drops = net.b.mib().get(MibCounter.TcpExtTCPDeferAcceptDrop);
            VirtualNet.startConnect(c, VirtualNet.server(VirtualNet.PORT));
            assertThat(c.finishConnect()).as("the client is connected").isTrue();
            assertThat(srv.accept()).as("the bare ACK is dropped").isNull();
            assertThat(net.b.mib().get(MibCounter.TcpExtTCPDeferAcceptDrop)).isEqualTo(drops + 1);
            net.advanceMillis(2000);
            assertThat(synAcks(net)).as("no SYN-ACK at the first timeouts").isEqualTo(1);

            c.write("hello".getBytes(), 0, 5);
            TcpConnection s = (TcpConnection) srv.accept();
            assertThat(s).as("data completes it").isNotNull();
            assertThat(s.state).isEqualTo(TcpState.ESTABLISHED);
            assertThat(new String(VirtualNet.drain(s, 100))).isEqualTo("hello");
            assertThat(s.segsIn).as("the SYN and the data; dropped ACKs are not counted").isEqualTo(2);
            assertThat(s.getOption(SocketOption.TCP_DEFER_ACCEPT)).as("not inherited").isZero();
            assertThat(net.b.mib().get(MibCounter.TcpExtTCPDeferAcceptDrop)).isEqualTo(drops + 1);
        }
    }

    @Test
    void theDeferralsLastSynAckLetsABareAckComplete() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            srv.setOption(SocketOption.TCP_DEFER_ACCEPT, 5); // 3 timeouts: 1, 2, 4 s
            TcpConnection c = (TcpConnection) TcpSocket.open(net.a);
            VirtualNet.startConnect(c, VirtualNet.server(VirtualNet.PORT));
            long start = net.clock.nanoTime();
            net.advanceMillis(6999);
            assertThat(synAcks(net)).isEqualTo(1);
            assertThat(srv.accept()).isNull();
            net.advanceMillis(1);
            assertThat(synAcks(net)).as("resent at the deferral's last timeout").isEqualTo(2);
            assertThat(net.filter.frames(false).getLast().atNanos() - start).isEqualTo(7_000_000_000L);
            TcpSocket s = srv.accept();
            assertThat(s).as("the client's ACK to it completes the connection").isNotNull();
        }
    }

    @Test
    void anAckedRequestIsDroppedOnceDeferralAndRetriesAreSpent() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.b.sysctl().set("net.ipv4.tcp_synack_retries", "1");
            srv.setOption(SocketOption.TCP_DEFER_ACCEPT, 5);
            TcpConnection c = (TcpConnection) TcpSocket.open(net.a);
            VirtualNet.startConnect(c, VirtualNet.server(VirtualNet.PORT));
            assertThat(c.finishConnect()).isTrue();
            net.filter.dropInbound(TcpFrame::isSynAck); // the client never answers the resent SYN-ACK
            net.advanceMillis(7000);
            assertThat(synAcks(net)).as("one SYN-ACK resent, at 7 s, past tcp_synack_retries").isEqualTo(2);
            net.advanceMillis(7999);
            long sent = net.filter.frames(false).size();
            assertThat(net.b.mib().get(MibCounter.TcpExtTCPDeferAcceptDrop)).isEqualTo(1);
            net.advanceMillis(1); // 15 s: gone, silently
            assertThat(net.filter.frames(false)).hasSize((int) sent);
            c.write(new byte[10], 0, 10);
            assertThat(net.filter.frames(false).getLast().isRst()).as("data finds no connection").isTrue();
            assertThat(srv.accept()).isNull();
        }
    }

    @Test
    void aConnectingSocketDelaysTheFinalAck() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = (TcpConnection) TcpSocket.open(net.a);
            c.setOption(SocketOption.TCP_DEFER_ACCEPT, 1);
            VirtualNet.startConnect(c, VirtualNet.server(VirtualNet.PORT));
            assertThat(c.finishConnect()).isTrue();
            assertThat(net.filter.frames(true)).as("SYN only").hasSize(1);
            net.advanceMillis(200);
            assertThat(net.filter.frames(true)).hasSize(2);
            assertThat(net.filter.frames(true).getLast().isPureAck()).isTrue();
            assertThat(srv.accept()).isNotNull();
        }
    }
}
