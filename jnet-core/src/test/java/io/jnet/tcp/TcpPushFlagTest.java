package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.MsgFlags;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.wire.Tcp;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where the PSH flag goes, as Linux's tcp_sendmsg_locked: on the last segment of each write (tcp_push's
 * tcp_mark_push) unless MSG_MORE promises more, and within a write on the segment where more than half the peer's
 * largest window has been written since the last mark (forced_push). A segment split for sending keeps it on its
 * last part (tcp_fragment).
 */
class TcpPushFlagTest {
    private static List<TcpFrame> data(VirtualNet net) {
        return net.filter.frames(true).stream().filter(TcpFrame::isData).toList();
    }

    @Test
    void eachWriteEndsWithPshAndMsgMoreLeavesItOff() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            c.setOption(SocketOption.TCP_NODELAY, true);
            net.filter.clearRecording();
            c.write(new byte[100], 0, 100, MsgFlags.MSG_MORE);
            c.write(new byte[100], 0, 100);
            c.write(new byte[300], 0, 300);
            net.advanceMillis(10);
            List<TcpFrame> d = data(net);
            assertThat(d).extracting(TcpFrame::payloadLength).containsExactly(200, 300);
            assertThat(d).allMatch(f -> f.has(Tcp.PSH));
        }
    }

    @Test
    void aLongWriteIsPushedEachTimeHalfThePeersLargestWindowWasWritten() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            srv.setOption(SocketOption.SO_RCVBUF, 4096); // a small window, inherited by the accepted socket
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            c.setOption(SocketOption.TCP_NODELAY, true);
            long half = c.maxSndWnd >> 1;
            assertThat(half).isPositive();
            net.filter.clearRecording();
            int start = c.sndNxt;
            int n = 40_000;
            c.setOption(SocketOption.SO_SNDBUF, 1 << 20);
            assertThat(c.write(new byte[n], 0, n)).as("one write call").isEqualTo(n);
            for (int i = 0; i < 200 && c.sndUna != start + n; i++) {
                VirtualNet.drain(p[1], 1 << 20);
                net.advanceMillis(10);
            }
            List<TcpFrame> d = data(net);
            assertThat(d.getLast().has(Tcp.PSH)).isTrue();
            List<Integer> pushedAt = d.stream().filter(f -> f.has(Tcp.PSH)).map(f -> f.seq() + f.payloadLength()).toList();
            assertThat(pushedAt.size()).isGreaterThan(1).isLessThan(d.size());
            int prev = start;
            for (int end : pushedAt.subList(0, pushedAt.size() - 1)) {
                assertThat((long) (end - prev)).as("a mark more than half the largest window after the last").isGreaterThan(half);
                prev = end;
            }
        }
    }
}
