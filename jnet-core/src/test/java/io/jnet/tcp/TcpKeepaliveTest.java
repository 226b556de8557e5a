package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.MibCounter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Keepalive on virtual time: per-socket TCP_KEEPIDLE, TCP_KEEPINTVL and TCP_KEEPCNT, and the RST on giving up. */
class TcpKeepaliveTest {

    /** Outbound frames sent since {@code t0}, in ms, that are bare ACKs (keepalive probes) or RSTs. */
    private static List<String> probesAndResets(VirtualNet net, long t0) {
        return net.filter.frames(true).stream().filter(f -> f.isRst() || f.isPureAck() && f.atNanos() > t0)
                .map(f -> (f.isRst() ? "R@" : "P@") + (f.atNanos() - t0) / 1_000_000L).toList();
    }

    @Test
    void perSocketOptionsTimeTheProbesAndTheResetThatEndsThem() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            c.setOption(SocketOption.TCP_KEEPIDLE, 2);
            c.setOption(SocketOption.TCP_KEEPINTVL, 1);
            c.setOption(SocketOption.TCP_KEEPCNT, 2);
            long t0 = net.clock.nanoTime();
            c.setOption(SocketOption.SO_KEEPALIVE, true);
            net.filter.dropOutbound(f -> true); // the peer hears nothing, so answers nothing
            net.advanceMillis(5000);
            // tcp_keepalive_timer: probes after 2 s idle, 1 s apart; after 2 unanswered, a RST (tcp_send_active_reset)
            assertThat(probesAndResets(net, t0)).containsExactly("P@2000", "P@3000", "R@4000");
            assertThat(c.state()).isEqualTo("UNCONN");
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> c.read(new byte[1], 0, 1));
            assertThat(e.errno()).isEqualTo(Errno.ETIMEDOUT);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPKeepAlive)).isEqualTo(2);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPAbortOnTimeout)).isEqualTo(1);
        }
    }

    @Test
    void theOptionsReportTheSysctlsUntilSetAndRefuseOutOfRangeValues() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            assertThat(c.getOption(SocketOption.TCP_KEEPIDLE)).isEqualTo(7200);
            assertThat(c.getOption(SocketOption.TCP_KEEPINTVL)).isEqualTo(75);
            assertThat(c.getOption(SocketOption.TCP_KEEPCNT)).isEqualTo(9);
            c.setOption(SocketOption.TCP_KEEPIDLE, 32767);
            assertThat(c.getOption(SocketOption.TCP_KEEPIDLE)).isEqualTo(32767);
            for (var o : List.of(SocketOption.TCP_KEEPIDLE, SocketOption.TCP_KEEPINTVL, SocketOption.TCP_KEEPCNT)) {
                int tooBig = o == SocketOption.TCP_KEEPCNT ? 128 : 32768;
                for (int bad : new int[] {0, -1, tooBig}) {
                    ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> c.setOption(o, bad));
                    assertThat(e.errno()).as("%s %d", o, bad).isEqualTo(Errno.EINVAL);
                }
            }
            assertThat(c.getOption(SocketOption.TCP_KEEPIDLE)).isEqualTo(32767);
        }
    }

    @Test
    void aListenerPassesTheOptionsToAcceptedConnections() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            srv.setOption(SocketOption.TCP_KEEPIDLE, 5);
            srv.setOption(SocketOption.TCP_KEEPINTVL, 6);
            srv.setOption(SocketOption.TCP_KEEPCNT, 7);
            TcpConnection s = net.establish(srv)[1];
            assertThat(s.getOption(SocketOption.TCP_KEEPIDLE)).isEqualTo(5);
            assertThat(s.getOption(SocketOption.TCP_KEEPINTVL)).isEqualTo(6);
            assertThat(s.getOption(SocketOption.TCP_KEEPCNT)).isEqualTo(7);
        }
    }

    @Test
    void loweringKeepidleBelowTheIdleTimeProbesAtOnce() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            c.setOption(SocketOption.TCP_KEEPIDLE, 60);
            c.setOption(SocketOption.SO_KEEPALIVE, true);
            long t0 = net.clock.nanoTime();
            net.advanceMillis(1500);
            assertThat(probesAndResets(net, t0)).isEmpty();
            // tcp_sock_set_keepidle_locked: idle 1.5 s already, more than the new 1 s: the timer fires now
            c.setOption(SocketOption.TCP_KEEPIDLE, 1);
            net.advanceMillis(0);
            assertThat(probesAndResets(net, t0)).containsExactly("P@1500");
        }
    }

    @Test
    void noProbesWhileDataIsOutstanding() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            c.setOption(SocketOption.TCP_KEEPIDLE, 1);
            c.setOption(SocketOption.SO_KEEPALIVE, true);
            net.filter.dropOutbound(f -> true);
            c.write(new byte[10], 0, 10); // retransmitted, never acknowledged
            net.advanceMillis(3000);
            // tcp_keepalive_timer: packets out, the connection is alive without keepalive
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPKeepAlive)).isZero();
        }
    }
}
