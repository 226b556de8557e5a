package io.jnet.rds;

import static io.jnet.rds.RdsPair.A;
import static io.jnet.rds.RdsPair.B;
import static io.jnet.rds.RdsPair.addr;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.RdsSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RDS over TCP between two namespaces joined by veth (net/rds/tcp*.c). */
class RdsTcpTest {

    @Test
    void manyMessagesBothWaysFromSeveralSocketsArriveOnceEachInOrder() throws Exception {
        try (RdsPair p = new RdsPair()) {
            List<RdsSocket> as = new ArrayList<>(), bs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                as.add(RdsPair.open(p.a, A, 5000 + i));
                bs.add(RdsPair.open(p.b, B, 6000 + i));
            }
            List<String> errors = RdsPair.exchange(as, bs, 400, 20000);
            assertThat(errors).isEmpty();
            RdsConnection ca = p.connA(), cb = p.connB();
            assertThat(ca.state()).isEqualTo(RdsConnState.UP);
            assertThat(cb.state()).isEqualTo(RdsConnState.UP);
            assertThat(ca.tcpLocalAddress()).as("one TCP connection").isEqualTo(cb.tcpRemoteAddress());
            assertThat(ca.tcpRemoteAddress()).isEqualTo(cb.tcpLocalAddress());
            // freeing on TCP ack: everything acknowledged leaves the retransmit queue and the send buffers
            assertThat(RdsPair.await(() -> ca.retransmitQueueSize() == 0 && cb.retransmitQueueSize() == 0)).isTrue();
            for (RdsSocket s : as) assertThat(((RdsSocketImpl) s).sendBytes()).isZero();
            for (RdsSocket s : bs) assertThat(((RdsSocketImpl) s).sendBytes()).isZero();
            long sent = 2L * 3 * 3 * 400;
            RdsStatistics sa = p.rdsA().statistics(), sb = p.rdsB().statistics();
            // plus the probe pings a crossed connect draws (rds_tcp_accept_one) and their pongs
            long probes = sa.get("jnet_s_send_probe_ping") + sb.get("jnet_s_send_probe_ping")
                    + sa.get("s_send_pong") + sb.get("s_send_pong");
            assertThat(sa.get("s_send_drop_acked") + sb.get("s_send_drop_acked")).isEqualTo(sent + probes);
            assertThat(sa.get("s_recv_delivered") + sb.get("s_recv_delivered")).isEqualTo(sent);
            assertThat(sa.get("s_recv_drop_old_seq") + sb.get("s_recv_drop_old_seq")).isZero();
            p.assertNoInternalErrors();
            for (RdsSocket s : as) s.close();
            for (RdsSocket s : bs) s.close();
        }
    }

    @Test
    void largeMessagesUpToTheSendBufferGoWhole() throws Exception {
        try (RdsPair p = new RdsPair()) {
            p.a.sysctl().wmemMax.set(8 << 20);
            p.b.sysctl().wmemMax.set(8 << 20);
            RdsSocket a = RdsPair.open(p.a, A, 5000), b = RdsPair.open(p.b, B, 6000);
            a.setOption(io.jnet.socket.SocketOption.SO_SNDBUF, 4 << 20);
            b.setOption(io.jnet.socket.SocketOption.SO_SNDBUF, 4 << 20);
            List<String> errors = RdsPair.exchange(List.of(a), List.of(b), 20, 1 << 20);
            assertThat(errors).isEmpty();
            p.assertNoInternalErrors();
        }
    }

    @Test
    void onlyTheSendingSideIsOutgoing() throws Exception {
        try (RdsPair p = new RdsPair()) {
            RdsSocket a = RdsPair.open(p.a, A, 5000), b = RdsPair.open(p.b, B, 6000);
            a.send(new byte[100], 0, 100, addr(B, 6000));
            assertThat(b.receive(new byte[200], 0, 200).length()).isEqualTo(100);
            assertThat(p.connA().isOutgoing()).isTrue();
            assertThat(p.connB().isOutgoing()).isFalse();
            assertThat(RdsPair.await(() -> {
                try {
                    return p.connB().state() == RdsConnState.UP;
                } catch (Exception e) {
                    return false;
                }
            })).isTrue();
            b.send(new byte[7], 0, 7, addr(A, 5000));
            assertThat(a.receive(new byte[200], 0, 200).sender()).isEqualTo(addr(B, 6000));
            p.assertNoInternalErrors();
        }
    }

    @Test
    void pollerSeesMessagesArriveOverTcp() throws Exception {
        try (RdsPair p = new RdsPair(); io.jnet.socket.Poller poller = io.jnet.socket.Poller.open()) {
            RdsSocket a = RdsPair.open(p.a, A, 5000), b = RdsPair.open(p.b, B, 6000);
            b.setBlocking(false);
            poller.register(b, io.jnet.socket.Events.POLLIN);
            List<io.jnet.socket.Poller.Ready> ready = new ArrayList<>();
            assertThat(poller.poll(ready, java.time.Duration.ZERO)).isZero();
            a.send(new byte[33], 0, 33, addr(B, 6000));
            assertThat(poller.poll(ready, java.time.Duration.ofSeconds(10))).isEqualTo(1);
            assertThat(ready.getFirst().socket()).isSameAs(b);
            assertThat(b.receive(new byte[100], 0, 100).length()).isEqualTo(33);
            assertThat(b.receive(new byte[100], 0, 100)).isNull();
            p.assertNoInternalErrors();
        }
    }
}
