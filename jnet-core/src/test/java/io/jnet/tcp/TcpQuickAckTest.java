package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * TCP_QUICKACK on virtual time, as Linux's __tcp_sock_set_quickack and getsockopt: off is pingpong mode (data ACKed by
 * the delayed-ACK timer), which the timer leaves when it fires (tcp_delack_timer_handler); on sends a pending ACK.
 */
class TcpQuickAckTest {

    private static long acksFromServer(VirtualNet net) { return TcpAckAndWindowTest.acksFromServer(net); }

    @Test
    void readsTrueUntilPingpongModeIsAskedFor() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            assertThat(p[1].getOption(SocketOption.TCP_QUICKACK)).as("!inet_csk_in_pingpong_mode").isTrue();
            p[1].setOption(SocketOption.TCP_QUICKACK, false);
            assertThat(p[1].getOption(SocketOption.TCP_QUICKACK)).isFalse();
            assertThat(p[1].pingpong).isEqualTo(1);
            p[1].setOption(SocketOption.TCP_QUICKACK, true);
            assertThat(p[1].getOption(SocketOption.TCP_QUICKACK)).isTrue();
            assertThat(srv.getOption(SocketOption.TCP_QUICKACK)).isTrue();
        }
    }

    @Test
    void pingpongModeDelaysTheAckUntilTheTimerWhichLeavesPingpongMode() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            net.advanceMillis(10);
            p[1].setOption(SocketOption.TCP_QUICKACK, false);
            long acks = acksFromServer(net);
            long delayed = net.b.mib().get(MibCounter.TcpExtDelayedACKs);
            long sent = net.clock.nanoTime();
            p[0].write(new byte[100], 0, 100);
            assertThat(acksFromServer(net)).as("the first data, quick ACKs granted, waits in pingpong mode").isEqualTo(acks);
            net.advanceMillis(39);
            assertThat(acksFromServer(net)).isEqualTo(acks);
            net.advanceMillis(1);
            assertThat(acksFromServer(net)).as("ACKed by the delayed-ACK timer, TCP_DELACK_MIN").isEqualTo(acks + 1);
            assertThat(net.filter.frames(false).getLast().atNanos() - sent).isEqualTo(40_000_000L);
            assertThat(net.b.mib().get(MibCounter.TcpExtDelayedACKs)).isEqualTo(delayed + 1);
            assertThat(p[1].getOption(SocketOption.TCP_QUICKACK)).as("the timer left pingpong mode").isTrue();

            net.advanceMillis(100);
            p[0].write(new byte[100], 0, 100);
            assertThat(acksFromServer(net)).as("quick ACKs again").isEqualTo(acks + 2);
        }
    }

    @Test
    void settingItSendsAPendingAckOnceTheDataIsRead() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            net.advanceMillis(10);
            p[1].setOption(SocketOption.TCP_QUICKACK, false);
            long acks = acksFromServer(net);
            p[0].write(new byte[10], 0, 10);
            net.advanceMillis(5);
            p[1].setOption(SocketOption.TCP_QUICKACK, true);
            assertThat(acksFromServer(net)).as("data still queued: tcp_cleanup_rbuf does not ACK").isEqualTo(acks);
            p[1].setOption(SocketOption.TCP_QUICKACK, false);
            assertThat(VirtualNet.drain(p[1], 100)).hasSize(10);
            assertThat(acksFromServer(net)).as("a read in pingpong mode does not ACK a pushed segment").isEqualTo(acks);
            p[1].setOption(SocketOption.TCP_QUICKACK, true);
            assertThat(acksFromServer(net)).as("ICSK_ACK_PUSHED with the queue empty: ACK now").isEqualTo(acks + 1);
            assertThat(net.filter.frames(false).getLast().ack()).isEqualTo(p[0].sndNxt);
        }
    }

    @Test
    void pingpongModeBeforeConnectDelaysTheFinalAckOfTheHandshake() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = (TcpConnection) TcpSocket.open(net.a);
            c.setOption(SocketOption.TCP_QUICKACK, false);
            VirtualNet.startConnect(c, VirtualNet.server(VirtualNet.PORT));
            assertThat(c.finishConnect()).isTrue();
            List<TcpFrame> out = net.filter.frames(true);
            assertThat(out).as("the SYN only: the final ACK waits (tcp_rcv_synsent_state_process)").hasSize(1);
            assertThat(c.getOption(SocketOption.TCP_QUICKACK)).as("quick-ACK mode entered").isTrue();
            assertThat(srv.accept()).as("no final ACK yet").isNull();
            net.advanceMillis(199);
            assertThat(net.filter.frames(true)).hasSize(1);
            net.advanceMillis(1);
            assertThat(net.filter.frames(true)).hasSize(2);
            assertThat(net.filter.frames(true).getLast().isPureAck()).as("TCP_DELACK_MAX").isTrue();
            assertThat(srv.accept()).isNotNull();

            // data written within the 200 ms carries the ACK
            TcpConnection d = (TcpConnection) TcpSocket.open(net.a);
            d.setOption(SocketOption.TCP_QUICKACK, false);
            VirtualNet.startConnect(d, VirtualNet.server(VirtualNet.PORT));
            assertThat(d.finishConnect()).isTrue();
            int before = net.filter.frames(true).size();
            net.advanceMillis(50);
            d.write(new byte[5], 0, 5);
            List<TcpFrame> now = net.filter.frames(true);
            assertThat(now).hasSize(before + 1);
            assertThat(now.getLast().isData()).isTrue();
            net.advanceMillis(200);
            assertThat(net.filter.frames(true)).as("no ACK left to send").hasSize(before + 1);
        }
    }

    @Test
    void aListenerPassesPingpongModeSetAfterListenToItsConnections() throws Exception {
        try (VirtualNet net = new VirtualNet()) {
            TcpServerSocket before = TcpServerSocket.open(net.b);
            before.setOption(SocketOption.TCP_QUICKACK, false);
            assertThat(before.getOption(SocketOption.TCP_QUICKACK)).isFalse();
            before.bind(VirtualNet.server(VirtualNet.PORT));
            before.listen(4);
            assertThat(before.getOption(SocketOption.TCP_QUICKACK)).as("listen() clears it (inet_csk_delack_init)").isTrue();
            before.close();

            try (TcpServerSocket srv = net.listen(VirtualNet.PORT + 1)) {
                srv.setOption(SocketOption.TCP_QUICKACK, false);
                TcpConnection[] p = net.establish(srv);
                assertThat(p[1].getOption(SocketOption.TCP_QUICKACK)).as("sk_clone_lock copies icsk_ack").isFalse();
                assertThat(p[0].getOption(SocketOption.TCP_QUICKACK)).isTrue();
            }
        }
    }
}
