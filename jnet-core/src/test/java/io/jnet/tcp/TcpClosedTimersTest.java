package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import org.junit.jupiter.api.Test;

/**
 * A closed connection's timers leave the timer wheel at once (Linux's inet_csk_clear_xmit_timers and
 * del_timer), so that nothing queued keeps the connection reachable: before, a cancelled timer stayed
 * queued until its old deadline, and an orphan's 60 s FIN-WAIT-2 timer kept every connection that went
 * through TIME-WAIT alive for a minute (about 2 KB each; at 15,000 connections a second the garbage
 * collector copied hundreds of megabytes, pausing TCP_CRR for 80-130 ms).
 */
class TcpClosedTimersTest {

    @Test
    void aConnectionInTimeWaitLeavesOnlyTheTimeWaitTimerQueued() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            int aBase = 0;
            int bBase = 0;
            for (int i = 0; i < 5; i++) {
                TcpConnection c = (TcpConnection) TcpSocket.open(net.a);
                VirtualNet.startConnect(c, VirtualNet.server(VirtualNet.PORT));
                assertThat(c.finishConnect()).isTrue();
                TcpSocket peer = srv.accept();
                c.write(new byte[] {1}, 0, 1);
                net.advanceMillis(1);
                assertThat(peer.read(new byte[1], 0, 1)).isEqualTo(1);
                c.close(); // an orphan in FIN-WAIT-2 arms its tcp_fin_timeout timer (60 s)
                net.advanceMillis(40); // once the peer's delayed ACK of the FIN arrives (tcp_fin: pingpong)
                assertThat(c.finWait2Timer.isPending()).as("FIN-WAIT-2 timer armed").isTrue();
                peer.close();
                net.advanceMillis(1);
                assertThat(c.state).isEqualTo(TcpState.CLOSED);
                if (i == 0) { // the namespaces' own timers (neighbour entries) are armed by the first connection
                    aBase = net.a.timers().queued() - 1;
                    bBase = net.b.timers().queued();
                }
            }
            assertThat(TcpTransitionTest.tcp(net.a).timeWaitCount()).isEqualTo(5);
            assertThat(net.a.timers().queued()).as("client side: one TIME-WAIT timer per remnant, nothing else")
                    .isEqualTo(aBase + 5);
            assertThat(net.b.timers().queued()).as("server side: every connection closed").isEqualTo(bBase);
        }
    }
}
