package io.jnet.rds;

import static io.jnet.rds.RdsPair.A;
import static io.jnet.rds.RdsPair.B;
import static io.jnet.rds.RdsPair.addr;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.ErrnoException;
import io.jnet.socket.RdsSocket;
import io.jnet.wire.RdsHeader;
import java.io.IOException;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Crafted bytes from a raw TCP socket to port 16385 (what a broken or hostile peer sends): counted drops,
 * a reset where the stream cannot go on, no exception out of the stack (internal errors stay 0).
 */
@Timeout(60)
class RdsBadInputTest {

    static RdsConnection connB(RdsPair p) throws Exception {
        return p.rdsB().connection(InetAddress.getByName(B), InetAddress.getByName(A));
    }

    @Test
    void goodUnboundPingProbeAndShortCongMapKeepTheStreamGoing() throws Exception {
        try (RdsPair p = new RdsPair(); RdsSocket b = RdsPair.open(p.b, B, 6000); RdsRawPeer raw = new RdsRawPeer(p)) {
            RdsStatistics st = p.rdsB().statistics();
            raw.send(1, 7000, 6000, 0, "hello".getBytes());
            byte[] buf = new byte[100];
            RdsSocket.Received r = b.receive(buf, 0, 100);
            assertThat(new String(buf, 0, r.length())).isEqualTo("hello");
            assertThat(r.sender()).isEqualTo(addr(A, 7000));

            raw.send(2, 7000, 6001, 0, new byte[10]); // nobody on 6001
            // a ping (dport 0) is answered by a pong to its sport
            raw.send(3, 7000, 0, 0, new byte[0]);
            byte[] pong = raw.readFully(RdsHeader.LENGTH);
            assertThat(RdsHeader.sourcePort(pong, 0)).isZero();
            assertThat(RdsHeader.destinationPort(pong, 0)).isEqualTo(7000);
            assertThat(RdsHeader.length(pong, 0)).isZero();
            // a probe ping: the pong says one path and the generation number
            raw.send(4, RdsHeader.PROBE_PORT, 0, 0, new byte[0]);
            RdsHeader h = new RdsHeader();
            assertThat(h.decode(raw.readFully(RdsHeader.LENGTH), 0, RdsHeader.LENGTH, RdsHeader.MAX_MSG_SIZE)).isEqualTo(RdsHeader.OK);
            assertThat(h.sourcePort).isZero();
            assertThat(h.destinationPort).isEqualTo(RdsHeader.PROBE_PORT);
            assertThat(h.extensionValue(RdsHeader.EXTHDR_NPATHS, -1)).isEqualTo(1);
            assertThat(h.extensionValue(RdsHeader.EXTHDR_GEN_NUM, 0)).isNotZero();
            // a congestion update of the wrong length is skipped, and the stream goes on
            raw.send(0, 0, 0, RdsHeader.FLAG_CONG_BITMAP, new byte[100]);
            raw.send(5, 7000, 6000, 0, "after".getBytes());
            r = b.receive(buf, 0, 100);
            assertThat(new String(buf, 0, r.length())).isEqualTo("after");

            assertThat(st.get("s_recv_drop_no_sock")).isEqualTo(1);
            assertThat(st.get("s_recv_ping")).isEqualTo(2);
            assertThat(st.get("s_send_pong")).isEqualTo(2);
            // counted once the read that carried it is parsed, which may be after "after" was delivered
            assertThat(RdsPair.await(() -> st.get("jnet_s_recv_drop_bad_cong_map") == 1)).isTrue();
            assertThat(st.get("s_conn_reset")).isZero();
            assertThat(connB(p).state()).isEqualTo(RdsConnState.UP);
            assertThat(connB(p).isOutgoing()).isFalse();
            p.assertNoInternalErrors();
        }
    }

    @Test
    void oversizedLengthResetsTheConnection() throws Exception {
        try (RdsPair p = new RdsPair(); RdsSocket b = RdsPair.open(p.b, B, 6000); RdsRawPeer raw = new RdsRawPeer(p)) {
            byte[] h = new byte[RdsHeader.LENGTH];
            RdsHeader.write(h, 0, 1, 0, RdsHeader.MAX_MSG_SIZE + 1L, 7000, 6000, 0, 0);
            raw.s.write(h, 0, h.length);
            IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> raw.readFully(1));
            if (e instanceof ErrnoException ee) assertThat(ee.errno().name()).isEqualTo("ECONNRESET");
            RdsStatistics st = p.rdsB().statistics();
            assertThat(st.get("jnet_s_recv_drop_bad_header")).isEqualTo(1);
            assertThat(st.get("jnet_s_tcp_reset_sent")).isEqualTo(1);
            assertThat(RdsPair.await(() -> st.get("s_conn_reset") == 1)).isTrue();
            RdsConnection c = connB(p);
            assertThat(RdsPair.await(() -> c.state() == RdsConnState.DOWN)).isTrue();
            assertThat(st.get("jnet_s_conn_connect")).as("passive: no reconnect").isZero();
            b.setBlocking(false);
            assertThat(b.receive(new byte[10], 0, 10)).isNull();
            p.assertNoInternalErrors();
        }
    }

    @Test
    void truncatedHeaderDeliversNothing() throws Exception {
        try (RdsPair p = new RdsPair(); RdsSocket b = RdsPair.open(p.b, B, 6000); RdsRawPeer raw = new RdsRawPeer(p)) {
            byte[] m = RdsStreamWriter.encode(new RdsMessage(1, 7000, 6000, 0, new byte[10]));
            raw.s.write(m, 0, 20); // 20 of the 48 header bytes, then the end of the stream
            raw.s.shutdownOutput();
            RdsStatistics st = p.rdsB().statistics();
            assertThat(RdsPair.await(() -> st.get("s_conn_reset") == 1)).isTrue();
            assertThat(st.get("s_recv_queued")).isZero();
            b.setBlocking(false);
            assertThat(b.receive(new byte[10], 0, 10)).isNull();
            // a new connection from the same peer starts from a clean stream (its sequence numbers restart: a
            // restarted peer)
            try (RdsRawPeer again = new RdsRawPeer(p)) {
                again.send(1, 7000, 6000, 0, "fresh".getBytes());
                b.setBlocking(true);
                byte[] buf = new byte[10];
                RdsSocket.Received r = b.receive(buf, 0, 10);
                assertThat(new String(buf, 0, r.length())).isEqualTo("fresh");
            }
            p.assertNoInternalErrors();
        }
    }
}
