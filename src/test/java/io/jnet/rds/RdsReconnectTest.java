package io.jnet.rds;

import static io.jnet.rds.RdsPair.A;
import static io.jnet.rds.RdsPair.B;
import static io.jnet.rds.RdsPair.addr;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.ErrnoException;
import io.jnet.socket.RdsSocket;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpSocket;
import io.jnet.wire.RdsHeader;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Reconnects of the accepting side (connection.c rds_conn_shutdown, rds_queue_reconnect). */
@Timeout(120)
class RdsReconnectTest {

    /**
     * B's connection to A is made by an accept (c_outgoing 0) from a peer that reads nothing, so B's messages stay
     * unacknowledged; when that TCP connection is reset, B reconnects because messages wait, and A's RDS gets
     * every one of them.
     */
    @Test
    void acceptedSideWithQueuedMessagesReconnectsAndResends() throws Exception {
        try (RdsPair p = new RdsPair(); RdsSocket a = RdsPair.open(p.a, A, 6000);
             RdsSocket b = RdsPair.open(p.b, B, 7000)) {
            TcpSocket s = p.a.openTcpSocket();
            s.setOption(SocketOption.SO_RCVBUF, 4096); // reads nothing: B's messages stay unacknowledged
            s.connect(addr(B, RdsHeader.TCP_PORT));
            assertThat(RdsPair.await(() -> {
                try {
                    RdsConnection c = p.connB();
                    return c != null && c.state() == RdsConnState.UP;
                } catch (Exception e) {
                    return false;
                }
            })).isTrue();
            RdsConnection cb = p.connB();
            assertThat(cb.isOutgoing()).isFalse();
            b.setBlocking(false);
            int sent = 0;
            try {
                for (int i = 0; i < 1000; i++) {
                    byte[] m = RdsPair.message(7000, 6000, i, 1000);
                    b.send(m, 0, m.length, addr(A, 6000));
                    sent++;
                }
            } catch (ErrnoException e) {
                // the send buffer is full
            }
            assertThat(sent).isPositive();
            int queued = sent;
            assertThat(RdsPair.await(() -> cb.retransmitQueueSize() + cb.sendQueueSize() == queued)).isTrue();
            s.setOption(SocketOption.SO_LINGER, Duration.ZERO);
            s.close(); // RST

            RdsPair.Checker check = new RdsPair.Checker();
            byte[] buf = new byte[2000];
            a.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(10));
            try {
                for (int i = 0; i < sent; i++) {
                    RdsSocket.Received r = a.receive(buf, 0, buf.length);
                    check.check(buf, r.length(), r.sender(), 6000);
                }
            } catch (ErrnoException e) {
                throw new AssertionError("received " + check.received + " of " + sent + "\n" + p.dump(), e);
            }
            assertThat(check.errors).isEmpty();
            assertThat(RdsPair.await(() -> cb.state() == RdsConnState.UP && cb.retransmitQueueSize() == 0)).isTrue();
            p.assertNoInternalErrors();
        }
    }
}
