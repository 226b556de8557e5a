package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import org.junit.jupiter.api.Test;

/**
 * Slow start on a connection, on virtual time: an ACK adds all it acknowledges to cwnd (Linux tcp_slow_start), but
 * only while the sender is cwnd-limited (Linux tcp_is_cwnd_limited, tcp_cwnd_validate): in slow start, while cwnd is
 * below twice the most segments in flight in the round. Each write is acknowledged by one stretch ACK (the server's
 * earlier ACKs are dropped), as conformance/tcp/slow_start/app-limited-no-growth.pkt.
 */
class TcpSlowStartTest {
    /** Writes {@code segments} full segments and lets only the server's ACK of all of them through. */
    private static void writeAckedAtOnce(VirtualNet net, TcpConnection c, int segments) throws Exception {
        int end = c.sndMax + segments * c.mss;
        net.filter.dropInbound(f -> f.isPureAck() && f.ack() != end);
        assertThat(c.write(new byte[segments * c.mss], 0, segments * c.mss)).isEqualTo(segments * c.mss);
        net.advanceMillis(50);
        assertThat(c.sndUna).isEqualTo(end);
    }

    @Test
    void anAckOfHalfTheWindowOrLessLeavesCwndAndOfMoreAddsAllItAcknowledges() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = TcpInfoTest.establishWithRtt(net, srv)[0];
            c.setOption(SocketOption.TCP_NODELAY, true);
            assertThat(c.info().sndCwnd()).isEqualTo(10);
            writeAckedAtOnce(net, c, 5);
            assertThat(c.info().sndCwnd()).as("cwnd 10 is not below twice 5 in flight").isEqualTo(10);
            writeAckedAtOnce(net, c, 6);
            assertThat(c.info().sndCwnd()).as("10 < 2 * 6: all 6 acknowledged are added").isEqualTo(16);
        }
    }

    @Test
    void anAckOfAFullWindowDoublesIt() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = TcpInfoTest.establishWithRtt(net, srv)[0];
            c.setOption(SocketOption.TCP_NODELAY, true);
            int firstWindowEnd = c.sndMax + 10 * c.mss;
            net.filter.dropInbound(f -> f.isPureAck() && f.ack() != firstWindowEnd);
            net.filter.hold(false, true);
            int n = 11 * c.mss; // one segment more than the initial window: it waits for the ACK
            assertThat(c.write(new byte[n], 0, n)).isEqualTo(n);
            assertThat(c.sndMax).isEqualTo(firstWindowEnd);
            assertThat(c.isCwndLimited).isTrue();
            net.advanceMillis(50);
            net.filter.hold(false, false);
            assertThat(net.filter.releaseHeld()).isEqualTo(1);
            assertThat(c.sndUna).isEqualTo(firstWindowEnd);
            assertThat(c.info().sndCwnd()).as("no L = 2 limit (RFC 3465): Linux adds all 10").isEqualTo(20);
        }
    }
}
