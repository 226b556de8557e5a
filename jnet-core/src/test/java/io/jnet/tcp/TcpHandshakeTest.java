package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Connection establishment on virtual time: options on the wire, simultaneous open, SYN loss, refusal. */
class TcpHandshakeTest {

    @Test
    void synCarriesMssTimestampAndWindowScaleInLinuxOrder() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            List<TcpFrame> f = net.filter.frames();
            assertThat(f).hasSizeGreaterThanOrEqualTo(3);
            TcpFrame syn = f.get(0);
            TcpFrame synAck = f.get(1);
            TcpFrame ack = f.get(2);
            assertThat(syn.isSyn()).isTrue();
            assertThat(syn.outbound()).isTrue();
            // tcp_options_write: MSS, SACK_PERM packed with TS (in place of NOP NOP), NOP WS
            assertThat(syn.optionKinds()).containsExactly(TcpOptions.KIND_MSS, TcpOptions.KIND_SACK_PERM,
                    TcpOptions.KIND_TIMESTAMP, TcpOptions.KIND_NOP, TcpOptions.KIND_WSCALE);
            assertThat(syn.options().sackPermitted).isTrue();
            assertThat(syn.options().mss).isEqualTo(1460);
            assertThat(syn.options().windowScale).isEqualTo(7);
            assertThat(syn.options().tsEcr).isZero();
            assertThat(syn.window()).as("initial window: 44 segments, as Linux").isEqualTo(64240);
            assertThat(syn.payloadLength()).isZero();

            assertThat(synAck.isSynAck()).isTrue();
            assertThat(synAck.outbound()).isFalse();
            assertThat(synAck.ack()).isEqualTo(syn.seq() + 1);
            assertThat(synAck.optionKinds()).containsExactly(TcpOptions.KIND_MSS, TcpOptions.KIND_SACK_PERM,
                    TcpOptions.KIND_TIMESTAMP, TcpOptions.KIND_NOP, TcpOptions.KIND_WSCALE);
            assertThat(synAck.options().tsEcr).isEqualTo(syn.options().tsVal);

            assertThat(ack.isPureAck()).isTrue();
            assertThat(ack.seq()).isEqualTo(syn.seq() + 1);
            assertThat(ack.ack()).isEqualTo(synAck.seq() + 1);
            assertThat(ack.optionKinds()).containsExactly(TcpOptions.KIND_NOP, TcpOptions.KIND_NOP, TcpOptions.KIND_TIMESTAMP);
            assertThat(ack.options().tsEcr).isEqualTo(synAck.options().tsVal);

            assertThat(p[0].state()).isEqualTo("ESTAB");
            assertThat(p[1].state()).isEqualTo("ESTAB");
            assertThat(p[0].mss).as("1460 minus 12 bytes of timestamp option").isEqualTo(1448);
            assertThat(p[0].sndWscale).isEqualTo(7);
            assertThat(p[0].sackOk).isTrue();
            assertThat(p[1].sackOk).isTrue();
            assertThat(p[0].info().options() & io.jnet.socket.TcpInfo.TCPI_OPT_SACK).isNotZero();
            assertThat(net.a.mib().get(MibCounter.TcpActiveOpens)).isEqualTo(1);
            assertThat(net.b.mib().get(MibCounter.TcpPassiveOpens)).isEqualTo(1);
        }
    }

    @Test
    void withoutTimestampsAndWindowScalingTheSynCarriesOnlyMss() throws Exception {
        try (VirtualNet net = new VirtualNet()) {
            net.a.sysctl().set("net.ipv4.tcp_timestamps", "0");
            net.a.sysctl().set("net.ipv4.tcp_window_scaling", "0");
            net.a.sysctl().set("net.ipv4.tcp_sack", "0");
            try (TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
                TcpConnection[] p = net.establish(srv);
                TcpFrame syn = net.filter.frames().get(0);
                assertThat(syn.optionKinds()).containsExactly(TcpOptions.KIND_MSS);
                TcpFrame synAck = net.filter.frames().get(1);
                assertThat(synAck.optionKinds()).as("the server answers only what was offered").containsExactly(TcpOptions.KIND_MSS);
                assertThat(p[1].tsEnabled).isFalse();
                assertThat(p[1].wscaleEnabled).isFalse();
                assertThat(p[0].mss).isEqualTo(1460);
            }
        }
    }

    @Test
    void withoutTimestampsSackPermittedGoesAsNopNopSackPerm() throws Exception {
        try (VirtualNet net = new VirtualNet()) {
            net.a.sysctl().set("net.ipv4.tcp_timestamps", "0");
            try (TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
                TcpConnection[] p = net.establish(srv);
                TcpFrame syn = net.filter.frames().get(0);
                assertThat(syn.optionKinds()).containsExactly(TcpOptions.KIND_MSS, TcpOptions.KIND_NOP, TcpOptions.KIND_NOP,
                        TcpOptions.KIND_SACK_PERM, TcpOptions.KIND_NOP, TcpOptions.KIND_WSCALE);
                TcpFrame synAck = net.filter.frames().get(1);
                assertThat(synAck.optionKinds()).containsExactly(TcpOptions.KIND_MSS, TcpOptions.KIND_NOP, TcpOptions.KIND_NOP,
                        TcpOptions.KIND_SACK_PERM, TcpOptions.KIND_NOP, TcpOptions.KIND_WSCALE);
                assertThat(p[0].sackOk).isTrue();
                assertThat(p[1].sackOk).isTrue();
                assertThat(p[1].tsEnabled).isFalse();
            }
        }
    }

    @Test
    void sackIsUsedOnlyWhenBothEndsHaveTcpSackOn() throws Exception {
        for (String off : new String[] {"a", "b"}) {
            try (VirtualNet net = new VirtualNet()) {
                (off.equals("a") ? net.a : net.b).sysctl().set("net.ipv4.tcp_sack", "0");
                try (TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
                    TcpConnection[] p = net.establish(srv);
                    TcpFrame syn = net.filter.frames().get(0);
                    TcpFrame synAck = net.filter.frames().get(1);
                    assertThat(syn.options().sackPermitted).as("SYN, tcp_sack off on %s", off).isEqualTo(off.equals("b"));
                    assertThat(synAck.options().sackPermitted).as("SYN-ACK, tcp_sack off on %s", off).isFalse();
                    assertThat(synAck.optionKinds()).as("SYN-ACK, tcp_sack off on %s", off).containsExactly(
                            TcpOptions.KIND_MSS, TcpOptions.KIND_NOP, TcpOptions.KIND_NOP, TcpOptions.KIND_TIMESTAMP,
                            TcpOptions.KIND_NOP, TcpOptions.KIND_WSCALE);
                    assertThat(p[0].sackOk).isFalse();
                    assertThat(p[1].sackOk).isFalse();
                    assertThat(p[0].info().options() & io.jnet.socket.TcpInfo.TCPI_OPT_SACK).isZero();
                }
            }
        }
    }

    @Test
    void simultaneousOpenEstablishesBothSides() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpSocket x = TcpSocket.open(net.a); TcpSocket y = TcpSocket.open(net.b)) {
            x.bind(VirtualNet.client(7000));
            y.bind(VirtualNet.server(7001));
            net.filter.hold(true, true); // both SYNs cross in flight
            VirtualNet.startConnect(x, VirtualNet.server(7001));
            VirtualNet.startConnect(y, VirtualNet.client(7000));
            assertThat(x.state()).isEqualTo("SYN-SENT");
            assertThat(y.state()).isEqualTo("SYN-SENT");
            int rounds = 0;
            while (net.filter.releaseHeld() > 0 && rounds < 10) rounds++;
            net.filter.hold(false, false);
            assertThat(x.state()).isEqualTo("ESTAB");
            assertThat(y.state()).isEqualTo("ESTAB");
            assertThat(x.finishConnect()).isTrue();
            assertThat(y.finishConnect()).isTrue();
            List<TcpFrame> f = net.filter.frames();
            assertThat(f.stream().filter(TcpFrame::isSyn).count()).as("one SYN each way").isEqualTo(2);
            assertThat(f.stream().filter(TcpFrame::isSynAck).count()).as("each side answers with SYN-ACK (RFC 9293 figure 8)")
                    .isEqualTo(2);
            x.write(new byte[] {1, 2, 3}, 0, 3);
            y.write(new byte[] {4, 5}, 0, 2);
            assertThat(VirtualNet.drain(y, 10)).containsExactly(1, 2, 3);
            assertThat(VirtualNet.drain(x, 10)).containsExactly(4, 5);
            assertThat(net.a.mib().get(MibCounter.TcpRetransSegs)).isZero();
        }
    }

    @Test
    void lostSynIsRetransmittedWithExponentialBackoffThenConnectTimesOut() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.a.sysctl().set("net.ipv4.tcp_syn_retries", "2");
            net.a.sysctl().set("net.ipv4.tcp_syn_linear_timeouts", "0"); // doubling from the first retry
            net.filter.dropOutbound(TcpFrame::isSyn);
            long t0 = net.clock.nanoTime();
            TcpConnection c = net.connect(VirtualNet.PORT);
            for (int i = 0; i < 10; i++) {
                net.advanceMillis(1000);
                if (!c.state().equals("SYN-SENT")) break;
            }
            List<TcpFrame> syns = net.filter.frames(true).stream().filter(TcpFrame::isSyn).toList();
            assertThat(syns).hasSize(3);
            // RFC 6298 2.1 initial RTO 1 s, doubled per retry (5.5): SYNs at 0, 1, 3 s; give up at 7 s
            assertThat(syns.stream().map(s -> (s.atNanos() - t0) / 1_000_000L)).containsExactly(0L, 1000L, 3000L);
            assertThat(syns.stream().map(TcpFrame::seq).distinct()).as("same ISN each time").hasSize(1);
            assertThat(c.state()).isEqualTo("UNCONN");
            ErrnoException e = catchThrowableOfType(ErrnoException.class, c::finishConnect);
            assertThat(e.errno()).isEqualTo(Errno.ETIMEDOUT);
            assertThat(net.clock.nanoTime() - t0).isGreaterThanOrEqualTo(7_000_000_000L);
            assertThat(net.a.mib().get(MibCounter.TcpAttemptFails)).isEqualTo(1);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPAbortOnTimeout)).isEqualTo(1);
        }
    }

    @Test
    void synLinearTimeoutsKeepTheFirstRetriesOneSecondApartAndTheTimeLimitStillHolds() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.a.sysctl().set("net.ipv4.tcp_syn_retries", "2"); // tcp_syn_linear_timeouts is 4 by default, as Linux 6.x
            net.filter.dropOutbound(TcpFrame::isSyn);
            long t0 = net.clock.nanoTime();
            TcpConnection c = net.connect(VirtualNet.PORT);
            for (int i = 0; i < 10 && c.state().equals("SYN-SENT"); i++) net.advanceMillis(1000);
            List<TcpFrame> syns = net.filter.frames(true).stream().filter(TcpFrame::isSyn).toList();
            // 4 linear retries 1 s apart, then doubling; given up after 2 doublings' worth (1+2+4 = 7 s): tcp_write_timeout
            assertThat(syns.stream().map(s -> (s.atNanos() - t0) / 1_000_000L)).containsExactly(0L, 1000L, 2000L, 3000L, 4000L, 5000L);
            assertThat(c.state()).isEqualTo("UNCONN");
            assertThat(net.clock.nanoTime() - t0).isEqualTo(7_000_000_000L);
            assertThat(c.getOption(SocketOption.SO_ERROR)).isEqualTo(Errno.ETIMEDOUT.number());
        }
    }

    @Test
    void synLinearTimeoutsCountOnTopOfSynRetries() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.a.sysctl().set("net.ipv4.tcp_syn_retries", "1");
            net.a.sysctl().set("net.ipv4.tcp_syn_linear_timeouts", "1");
            net.filter.dropOutbound(TcpFrame::isSyn);
            long t0 = net.clock.nanoTime();
            TcpConnection c = net.connect(VirtualNet.PORT);
            for (int i = 0; i < 10 && c.state().equals("SYN-SENT"); i++) net.advanceMillis(1000);
            List<TcpFrame> syns = net.filter.frames(true).stream().filter(TcpFrame::isSyn).toList();
            // one linear retry at 1 s, the next at 2 s (the 3 s time limit not yet reached) doubles the RTO; at 4 s
            // the 1 + 1 retransmissions allowed are spent (verified on Linux 6.18)
            assertThat(syns.stream().map(s -> (s.atNanos() - t0) / 1_000_000L)).containsExactly(0L, 1000L, 2000L);
            assertThat(net.clock.nanoTime() - t0).isEqualTo(4_000_000_000L);
            assertThat(c.state()).isEqualTo("UNCONN");
        }
    }

    @Test
    void tcpMaxsegOnAListenerCapsTheSynAckMssAndBothDirections() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.a.sysctl().set("net.ipv4.tcp_timestamps", "0");
            srv.setOption(SocketOption.TCP_MAXSEG, 400);
            assertThat(srv.getOption(SocketOption.TCP_MAXSEG)).isEqualTo(400);
            TcpConnection[] p = net.establish(srv);
            TcpFrame synAck = net.filter.frames(false).stream().filter(TcpFrame::isSynAck).findFirst().orElseThrow();
            // tcp_make_synack: tcp_mss_clamp(user_mss, advmss); tcp_parse_options: user_mss clamps the peer's 1460
            assertThat(synAck.options().mss).isEqualTo(400);
            assertThat(p[1].getOption(SocketOption.TCP_MAXSEG)).isEqualTo(400);
            assertThat(p[0].getOption(SocketOption.TCP_MAXSEG)).isEqualTo(400);
        }
    }

    @Test
    void tcpMaxsegBeforeConnectIsAdvertisedAndReadBackUntilTheHandshakeSetsTheMss() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = (TcpConnection) TcpSocket.open(net.a);
            assertThat(c.getOption(SocketOption.TCP_MAXSEG)).as("TCP_MSS_DEFAULT").isEqualTo(536);
            for (int bad : new int[] {-1, 87, 32768}) {
                ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> c.setOption(SocketOption.TCP_MAXSEG, bad));
                assertThat(e.errno()).as("%d", bad).isEqualTo(Errno.EINVAL);
            }
            c.setOption(SocketOption.TCP_MAXSEG, 300);
            assertThat(c.getOption(SocketOption.TCP_MAXSEG)).isEqualTo(300);
            VirtualNet.startConnect(c, VirtualNet.server(VirtualNet.PORT));
            assertThat(net.filter.frames(true).get(0).options().mss).isEqualTo(300);
            assertThat(c.finishConnect()).isTrue();
            // established: the MSS in use, the 300 less the timestamp option's 12 bytes (tcp_getsockopt: mss_cache)
            assertThat(c.getOption(SocketOption.TCP_MAXSEG)).isEqualTo(288);
        }
    }

    @Test
    void oneLostSynStillConnectsAfterOneSecond() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            int[] dropped = {0};
            net.filter.dropOutbound(f -> f.isSyn() && dropped[0]++ == 0);
            TcpConnection c = net.connect(VirtualNet.PORT);
            net.advanceMillis(999);
            assertThat(c.finishConnect()).isFalse();
            net.advanceMillis(1);
            assertThat(c.finishConnect()).isTrue();
            assertThat(srv.accept()).isNotNull();
            assertThat(net.a.mib().get(MibCounter.TcpRetransSegs)).isEqualTo(1);
        }
    }

    @Test
    void resetInSynSentRefusesTheConnection() throws Exception {
        try (VirtualNet net = new VirtualNet()) {
            TcpConnection c = net.connect(9); // nothing listens: the server answers RST+ACK
            TcpFrame rst = net.filter.frames(false).get(0);
            assertThat(rst.isRst()).isTrue();
            assertThat(rst.has(Tcp.ACK)).isTrue();
            assertThat(rst.ack()).isEqualTo(net.filter.frames(true).get(0).seq() + 1);
            ErrnoException e = catchThrowableOfType(ErrnoException.class, c::finishConnect);
            assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED);
            assertThat(net.b.mib().get(MibCounter.TcpOutRsts)).isEqualTo(1);
        }
    }

    @Test
    void soErrorReportsARefusedConnectOnceAndClearsIt() throws Exception {
        try (VirtualNet net = new VirtualNet()) {
            TcpConnection c = net.connect(9); // nothing listens: RST+ACK
            // Linux sock_error: SO_ERROR reads the pending error and clears it
            assertThat(c.getOption(SocketOption.SO_ERROR)).isEqualTo(Errno.ECONNREFUSED.number());
            assertThat(c.getOption(SocketOption.SO_ERROR)).isZero();
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> c.setOption(SocketOption.SO_ERROR, 1));
            assertThat(e.errno()).isEqualTo(Errno.ENOPROTOOPT);
        }
    }

    @Test
    void connectAgainIsEalreadyWhileInProgressThenZeroOnceThenEisconn() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.filter.dropOutbound(TcpFrame::isSyn);
            TcpConnection c = net.connect(VirtualNet.PORT);
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> c.connect(VirtualNet.server(VirtualNet.PORT)));
            assertThat(e.errno()).isEqualTo(Errno.EALREADY);
            net.filter.dropOutbound(f -> false);
            net.advanceMillis(1000); // the retransmitted SYN completes the handshake
            assertThat(c.state()).isEqualTo("ESTAB");
            // __inet_stream_connect: SS_CONNECTING becomes SS_CONNECTED, with 0; then EISCONN
            c.connect(VirtualNet.server(VirtualNet.PORT));
            e = catchThrowableOfType(ErrnoException.class, () -> c.connect(VirtualNet.server(VirtualNet.PORT)));
            assertThat(e.errno()).isEqualTo(Errno.EISCONN);
        }
    }

    @Test
    void resetInSynSentWithAnUnacceptableAckIsIgnored() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.filter.dropOutbound(TcpFrame::isSyn);
            TcpConnection c = net.connect(VirtualNet.PORT);
            TcpFrame syn = net.filter.frames(true).get(0);
            int lport = syn.srcPort();
            // RFC 9293 3.10.7.3: in SYN-SENT a RST is acceptable only if it acknowledges the SYN
            net.filter.injectInbound(net.craftToClient(VirtualNet.PORT, lport, 0, syn.seq() + 100, Tcp.RST | Tcp.ACK, 0, null,
                    new byte[0]));
            assertThat(c.state()).isEqualTo("SYN-SENT");
            net.filter.injectInbound(net.craftToClient(VirtualNet.PORT, lport, 0, 0, Tcp.RST, 0, null, new byte[0]));
            assertThat(c.state()).as("a RST without ACK is dropped in SYN-SENT").isEqualTo("SYN-SENT");
            net.filter.injectInbound(net.craftToClient(VirtualNet.PORT, lport, 0, syn.seq() + 1, Tcp.RST | Tcp.ACK, 0, null,
                    new byte[0]));
            ErrnoException e = catchThrowableOfType(ErrnoException.class, c::finishConnect);
            assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED);
        }
    }

    /** A bad ACK in SYN-SENT re-arms the SYN timer to TCP_TIMEOUT_MIN (tcp_rcv_synsent_state_process). */
    @Test
    void aBadAckInSynSentSendsTheSynAgainAtOnce() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            // exponential SYN backoff from the first retransmission, so the timer left alone is told by its 2 s
            net.a.sysctl().set("net.ipv4.tcp_syn_linear_timeouts", "0");
            net.filter.dropOutbound(TcpFrame::isSyn);
            long t0 = net.clock.nanoTime();
            TcpConnection c = net.connect(VirtualNet.PORT);
            TcpFrame syn = net.filter.frames(true).get(0);
            net.advanceMillis(50);
            net.filter.injectInbound(net.craftToClient(VirtualNet.PORT, syn.srcPort(), 0, syn.seq() + 1000,
                    Tcp.SYN | Tcp.ACK, 65535, null, new byte[0]));
            TcpFrame rst = net.filter.frames(true).getLast();
            assertThat(rst.isRst()).isTrue();
            assertThat(rst.has(Tcp.ACK)).isFalse();
            assertThat(rst.seq()).isEqualTo(syn.seq() + 1000);
            net.advanceMillis(2);
            net.filter.dropOutbound(f -> false);
            List<TcpFrame> syns = net.filter.frames(true).stream().filter(TcpFrame::isSyn).toList();
            assertThat(syns.stream().map(f -> (f.atNanos() - t0) / 1_000_000L)).containsExactly(0L, 52L);
            assertThat(c.state()).isEqualTo("SYN-SENT");

            // once the SYN was retransmitted, a RST|ACK with a bad ACK leaves the backed-off timer alone
            net.filter.injectInbound(net.craftToClient(VirtualNet.PORT, syn.srcPort(), 0, syn.seq() + 1000,
                    Tcp.RST | Tcp.ACK, 0, null, new byte[0]));
            net.advanceMillis(1_999);
            assertThat(net.filter.frames(true).stream().filter(TcpFrame::isSyn)).hasSize(2);
            net.advanceMillis(1);
            assertThat(c.finishConnect()).as("the SYN at 2.052 s connects").isTrue();
        }
    }
}
