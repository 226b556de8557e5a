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
}
