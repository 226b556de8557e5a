package io.jnet.rds;

import static io.jnet.rds.RdsPair.A;
import static io.jnet.rds.RdsPair.B;
import static io.jnet.rds.RdsPair.addr;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.RdsSocket;
import io.jnet.socket.SocketOption;
import io.jnet.wire.RdsHeader;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Pings and pongs (recv.c rds_recv_incoming, send.c rds_send_pong) from a raw TCP peer on port 16385. */
@Timeout(120)
class RdsPingTest {

    @Test
    void pingFloodFromAPeerThatDoesNotReadQueuesAtMostMaxPongs() throws Exception {
        try (RdsPair p = new RdsPair(); RdsSocket b = RdsPair.open(p.b, B, 6000)) {
            RdsRawPeer s = new RdsRawPeer(p);
            byte[] ping = RdsStreamWriter.encode(new RdsMessage(1, 7000, 0, 0, new byte[0]));
            int per = 1000, rounds = 100;
            byte[] many = new byte[ping.length * per];
            for (int i = 0; i < per; i++) System.arraycopy(ping, 0, many, i * ping.length, ping.length);
            for (int i = 0; i < rounds; i++) s.write(many);
            RdsConnection c = p.connB();
            RdsStatistics st = p.rdsB().statistics();
            assertThat(RdsPair.await(() -> st.get("s_recv_ping") >= per * rounds)).as(p.dump()).isTrue();
            assertThat(c.sendQueueSize() + c.retransmitQueueSize()).as(p.dump()).isLessThanOrEqualTo(RdsConnection.MAX_PONGS);
            assertThat(st.get("jnet_s_send_pong_dropped")).isPositive();
            assertThat(st.get("s_send_pong") + st.get("jnet_s_send_pong_dropped")).isEqualTo(per * rounds);
            s.close();
            p.assertNoInternalErrors();
        }
    }

    /** rds-ping: a message to port 0 is answered by an empty message from port 0 to the pinging socket. */
    @Test
    void sendToPortZeroIsAPingAnsweredWithAnEmptyMessageFromPortZero() throws Exception {
        try (RdsPair p = new RdsPair(); RdsSocket a = RdsPair.open(p.a, A, 5000); RdsSocket b = RdsPair.open(p.b, B, 6000)) {
            a.send(new byte[0], 0, 0, addr(B, 0));
            byte[] buf = new byte[10];
            RdsSocket.Received r = a.receive(buf, 0, buf.length);
            assertThat(r.fullLength()).isZero();
            assertThat(r.sender()).isEqualTo(addr(B, 0));
            assertThat(p.rdsB().statistics().get("s_recv_ping")).isEqualTo(1);
            assertThat(p.rdsB().statistics().get("s_send_pong")).isEqualTo(1);
            p.assertNoInternalErrors();
        }
    }

    /** Only a probe pong (sport 0, dport RDS_FLAG_PROBE_PORT) is consumed; other pongs go to their dport's socket. */
    @Test
    void pongsGoToTheSocketBoundAtTheirDestinationPortProbePongsAreConsumed() throws Exception {
        try (RdsPair p = new RdsPair(); RdsSocket b = RdsPair.open(p.b, B, 6000)) {
            RdsRawPeer s = new RdsRawPeer(p);
            s.write(new RdsMessage(1, 0, RdsHeader.PROBE_PORT, 0, new byte[0]));
            s.write(new RdsMessage(2, 0, 6000, 0, new byte[0]));
            byte[] buf = new byte[10];
            b.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(10));
            RdsSocket.Received r = b.receive(buf, 0, buf.length);
            assertThat(r.fullLength()).isZero();
            assertThat(r.sender()).isEqualTo(addr(A, 0));
            assertThat(p.rdsB().statistics().get("jnet_s_recv_pong")).isEqualTo(1);
            assertThat(p.rdsB().statistics().get("s_recv_drop_no_sock")).isZero();
            s.close();
            p.assertNoInternalErrors();
        }
    }
}
