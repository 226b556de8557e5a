package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The size goal of write-queue segments (Linux tcp_xmit_size_goal with tcp_bound_to_half_wnd), on virtual time. */
class TcpSizeGoalTest {

    @Test
    void aSmallPeerWindowHoldsTwoSegmentsOfTheSizeGoal() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            // the client (the receiver) offers a small window: 32 KiB of receive buffer
            TcpConnection c = (TcpConnection) TcpSocket.open(net.a);
            c.setOption(SocketOption.SO_RCVBUF, 16384);
            VirtualNet.startConnect(c, net.server(VirtualNet.PORT));
            assertThat(c.finishConnect()).isTrue();
            TcpConnection s = (TcpConnection) srv.accept();
            s.setBlocking(false);
            s.setOption(SocketOption.TCP_NODELAY, true);
            long maxWnd = s.maxSndWnd;
            assertThat(maxWnd).isLessThan(65536).isGreaterThan(4L * s.mss);
            int goal = TcpOutput.sizeGoal(s);
            assertThat(goal).as("tcp_bound_to_half_wnd").isLessThanOrEqualTo((int) (maxWnd / 2))
                    .isGreaterThanOrEqualTo((int) (maxWnd / 2) - s.mss + 1);
            byte[] m = TcpCorkTest.bytes((int) maxWnd, 3);
            s.write(m, 0, m.length);
            List<TcpFrame> data = net.filter.frames(false).stream().filter(TcpFrame::isData).toList();
            assertThat(data.size()).as("the window holds more than one segment").isGreaterThanOrEqualTo(2);
            assertThat(data).allSatisfy(f -> assertThat(f.payloadLength()).isLessThanOrEqualTo(goal));
        }
    }
    @Test
    void aLongSlowPathGetsSegmentsOfAMillisecondAtThePacingRateAtLeastTwoMss() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection s = net.establish(srv)[1]; // the server's veth takes GSO segments
            int full = TcpOutput.sizeGoal(s);
            assertThat(full).as("a virtual link's RTT is far below 512 us: the whole GSO size").isGreaterThan(16 * s.mss);
            // a 40 ms path: min RTT 40 ms (no small-RTT bonus), 10 segments a round trip
            s.minRtt.update(net.a.clock().nanoTime() + 1, 0, 40_000); // a window of 0: the sample replaces the minimum
            s.pacingRate = 10L * s.mss * 1_000_000 / 40_000 * 2; // slow start's 200 %: 724 KB/s with MSS 1448
            assertThat(TcpOutput.sizeGoal(s)).as("tcp_tso_autosize: under 1 ms of data, so min_tso_segs").isEqualTo(2 * s.mss);
            // 100 MB/s over 40 ms: ~97 KB a millisecond, more than the GSO size
            s.pacingRate = 100_000_000;
            assertThat(TcpOutput.sizeGoal(s)).isEqualTo(full);
            // 20 MB/s over 1 ms: 19.5 KB a millisecond plus half the GSO size for the min RTT's 2^1 * 512 us
            s.minRtt.update(net.a.clock().nanoTime() + 2, 0, 1_000);
            s.pacingRate = 20_000_000;
            long expected = Math.min((20_000_000L >> 10) + (65536 >> 1), 65536) / s.mss * s.mss;
            assertThat((long) TcpOutput.sizeGoal(s)).isEqualTo(Math.min(expected, full));
        }
    }

    @Test
    void withNothingInFlightASegmentLargerThanTheWindowIsCutToIt() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection s = net.establish(srv)[1];
            s.setOption(io.jnet.socket.SocketOption.TCP_NODELAY, true);
            assertThat(TcpOutput.sizeGoal(s)).isGreaterThan(3 * s.mss);
            s.win.cwnd = 3L * s.mss; // as after a timeout and two round trips of slow start
            net.filter.hold(true, false); // the client's ACKs wait: only the first flight goes
            byte[] m = TcpCorkTest.bytes(TcpOutput.sizeGoal(s), 5);
            s.write(m, 0, m.length);
            List<TcpFrame> data = net.filter.frames(false).stream().filter(TcpFrame::isData).toList();
            assertThat(data).extracting(TcpFrame::payloadLength).as("tcp_mss_split_point: the window's worth, not the whole segment")
                    .containsExactly(3 * s.mss);
        }
    }
}
