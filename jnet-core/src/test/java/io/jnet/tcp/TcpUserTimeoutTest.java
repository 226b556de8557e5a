package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import java.util.List;
import org.junit.jupiter.api.Test;

/** TCP_USER_TIMEOUT on virtual time: retransmissions, zero-window probes, keepalive and connect. */
class TcpUserTimeoutTest {

    private static void assertTimedOut(TcpConnection c) {
        assertThat(c.state()).isEqualTo("UNCONN");
        ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> c.read(new byte[1], 0, 1));
        assertThat(e.errno()).isEqualTo(Errno.ETIMEDOUT);
    }

    @Test
    void theOptionReadsBackAndRefusesANegativeValue() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            assertThat(c.getOption(SocketOption.TCP_USER_TIMEOUT)).isZero();
            c.setOption(SocketOption.TCP_USER_TIMEOUT, 1234);
            assertThat(c.getOption(SocketOption.TCP_USER_TIMEOUT)).isEqualTo(1234);
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> c.setOption(SocketOption.TCP_USER_TIMEOUT, -1));
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            srv.setOption(SocketOption.TCP_USER_TIMEOUT, 700);
            assertThat(net.establish(srv)[1].getOption(SocketOption.TCP_USER_TIMEOUT)).as("inherited").isEqualTo(700);
        }
    }

    @Test
    void unacknowledgedDataFailsTheTimeoutAfterTheFirstRetransmissionWithTheRtoCutToTheTimeLeft() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.a.sysctl().set("net.ipv4.tcp_early_retrans", "0"); // no tail loss probe: the RTO retransmits
            TcpConnection c = net.establish(srv)[0];
            c.setOption(SocketOption.TCP_USER_TIMEOUT, 500);
            net.filter.dropOutbound(f -> true);
            c.write(new byte[100], 0, 100);
            List<TcpFrame> data = List.of();
            for (int i = 0; i < 5000 && data.size() < 2; i++) {
                net.advanceMillis(1);
                data = net.filter.frames(true).stream().filter(TcpFrame::isData).toList();
            }
            assertThat(data).hasSize(2);
            long first = data.get(1).atNanos(); // retrans_stamp: the first retransmission
            // RTO 200 ms: the next retransmission 400 ms later, then the 800 ms RTO is cut to the 100 ms left
            // (tcp_clamp_rto_to_user_timeout) and the connection fails 500 ms after the first retransmission
            net.clock.advanceNanos(first + 500_000_000L - 1 - net.clock.nanoTime());
            assertThat(c.state()).isEqualTo("ESTAB");
            net.clock.advanceNanos(1);
            assertTimedOut(c);
            assertThat(net.filter.frames(true).stream().filter(TcpFrame::isData).map(f -> (f.atNanos() - first) / 1_000_000L))
                    .containsExactly(-200L, 0L, 400L);
            assertThat(net.filter.frames(true).stream().filter(TcpFrame::isRst)).as("tcp_write_err: no RST").isEmpty();
        }
    }

    @Test
    void zeroWindowProbingEndsAfterTheTimeoutThoughEveryProbeIsAnswered() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            srv.setOption(SocketOption.SO_RCVBUF, 4096);
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            c.setOption(SocketOption.TCP_USER_TIMEOUT, 3000);
            byte[] chunk = new byte[65536];
            for (int i = 0; i < 40 && c.probesTstampNs == 0; i++) {
                c.write(chunk, 0, chunk.length);
                net.advanceMillis(100);
            }
            long firstProbe = c.probesTstampNs;
            assertThat(firstProbe).as("the server's window closed and probing began").isNotZero();
            net.advanceMillis(firstProbe + 2_999_000_000L - net.clock.nanoTime() > 0
                    ? (firstProbe + 2_999_000_000L - net.clock.nanoTime()) / 1_000_000L : 0);
            assertThat(c.state()).isEqualTo("ESTAB");
            assertThat(c.probesOut).as("the probes are answered").isZero();
            net.advanceMillis(2);
            // tcp_probe_timer: 3 s after the first probe, answered or not (tcp_clamp_probe0_to_user_timeout)
            assertTimedOut(c);
        }
    }

    @Test
    void underKeepaliveTheTimeoutNeedsAnUnansweredProbe() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            c.setOption(SocketOption.TCP_USER_TIMEOUT, 2500);
            c.setOption(SocketOption.TCP_KEEPIDLE, 1);
            c.setOption(SocketOption.TCP_KEEPINTVL, 1);
            long t0 = net.clock.nanoTime();
            c.setOption(SocketOption.SO_KEEPALIVE, true);
            net.filter.dropOutbound(f -> true);
            net.advanceMillis(4000);
            // tcp_keepalive_timer: probes at 1 and 2 s; at 3 s the peer has been silent 3 s > 2.5 s with a probe
            // out: RST, not after TCP_KEEPCNT (9) probes
            assertThat(net.filter.frames(true).stream().filter(f -> f.atNanos() > t0)
                    .map(f -> (f.isRst() ? "R@" : "P@") + (f.atNanos() - t0) / 1_000_000L)).containsExactly("P@1000", "P@2000", "R@3000");
            assertTimedOut(c);
        }
    }

    @Test
    void aConnectGivesUpAfterTheTimeout() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.filter.dropOutbound(TcpFrame::isSyn);
            TcpConnection c = (TcpConnection) TcpSocket.open(net.a);
            c.setOption(SocketOption.TCP_USER_TIMEOUT, 1500);
            long t0 = net.clock.nanoTime();
            VirtualNet.startConnect(c, VirtualNet.server(VirtualNet.PORT));
            net.advanceMillis(10_000);
            // SYNs at 0 and 1 s, the second RTO cut to 1.5 s after the first SYN (retransmits_timed_out)
            assertThat(net.filter.frames(true).stream().filter(TcpFrame::isSyn).map(f -> (f.atNanos() - t0) / 1_000_000L))
                    .containsExactly(0L, 1000L);
            assertThat(c.state()).isEqualTo("UNCONN");
            assertThat(c.getOption(SocketOption.SO_ERROR)).isEqualTo(Errno.ETIMEDOUT.number());
        }
    }
}
