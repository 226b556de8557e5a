package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpInfo;
import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.MibCounter;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * RFC 6675 loss recovery with SACK on virtual time: several holes of one window repaired in one recovery without a
 * timeout, and a timeout's retransmissions skipping what the peer SACKed (Linux tcp_xmit_retransmit_queue).
 * These are RFC 6675's DupThresh rules: RACK and the tail loss probe are off (net.ipv4.tcp_recovery = 0,
 * net.ipv4.tcp_early_retrans = 0); {@link RackTlpTest} tests them.
 */
class SackRecoveryTest {

    /** {@code net} with RACK and TLP off on both ends: RFC 6675 loss detection as without net.ipv4.tcp_recovery. */
    static VirtualNet rfc6675(VirtualNet net) {
        for (io.jnet.stack.NetNamespace ns : new io.jnet.stack.NetNamespace[] {net.a, net.b}) {
            ns.sysctl().set("net.ipv4.tcp_recovery", "0");
            ns.sysctl().set("net.ipv4.tcp_early_retrans", "0");
        }
        return net;
    }

    @Test
    void severalHolesInOneWindowAreRepairedInOneRecoveryWithoutTimeout() throws Exception {
        try (VirtualNet net = rfc6675(new VirtualNet()); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = TcpInfoTest.establishWithRtt(net, srv);
            TcpConnection c = p[0];
            assertThat(c.sackOk).isTrue();
            assertThat(c.recovery).isInstanceOf(SackRecovery.class);
            int mss = c.mss;
            c.setOption(SocketOption.TCP_NODELAY, true);
            int first = c.sndNxt;
            Set<Integer> lost = Set.of(1, 3, 5);
            boolean[] dropped = new boolean[10];
            net.filter.dropOutbound(f -> {
                if (!f.isData()) return false;
                int i = (f.seq() - first) / mss;
                return i < 10 && lost.contains(i) && !dropped[i] && (dropped[i] = true);
            });
            net.filter.hold(false, true);
            byte[] data = new byte[10 * mss];
            new java.util.Random(5).nextBytes(data);
            assertThat(c.write(data, 0, data.length)).isEqualTo(data.length);
            net.filter.clearRecording();
            // the server's ACKs one at a time, no time passing: recovery must finish on ACKs alone
            int guard = 0;
            while (net.filter.heldCount(false) > 0 && guard++ < 100) {
                assertThat(net.filter.releaseNext(false)).isTrue();
                if (c.recovery.inRecovery()) assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Recovery);
            }
            assertThat(c.sndUna).isEqualTo(c.sndMax);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSackRecovery)).isEqualTo(1);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPRenoRecovery)).isZero();
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isZero();
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSackRecoveryFail)).isZero();
            // each hole went again exactly once, nothing else was retransmitted
            List<Integer> resent = net.filter.frames(true).stream().filter(TcpFrame::isData)
                    .map(f -> (f.seq() - first) / mss).toList();
            assertThat(resent).containsExactlyInAnyOrder(1, 3, 5);
            assertThat(net.a.mib().get(MibCounter.TcpRetransSegs)).isEqualTo(3);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPFastRetrans)).isEqualTo(3);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPLostRetransmit)).isZero();
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSACKReorder)).isZero();
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Open);
            assertThat(c.recovery.inRecovery()).isFalse();
            // ssthresh = FlightSize / 2 with segment 0 acknowledged, nine segments out; cwnd ends at it
            assertThat(c.win.cwnd).isEqualTo(c.win.ssthresh).isEqualTo(9L * mss / 2);
            assertThat(VirtualNet.drain(p[1], data.length + 10)).isEqualTo(data);
            net.advanceMillis(5000);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isZero();
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    @Test
    void aTimeoutResendsTheHolesAndSkipsSackedSegments() throws Exception {
        try (VirtualNet net = rfc6675(new VirtualNet()); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = SackSenderTest.clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            // segments 1-3 and 5-6 SACKed: two SACKed above segment 4 is not enough to call it lost, and the
            // head's retransmission is lost too, so the connection times out
            SackSenderTest.ack(net, c, base, 0, 5 * m, 7 * m, 1 * m, 4 * m);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Recovery);
            net.filter.clearRecording();
            long timeouts = net.a.mib().get(MibCounter.TcpExtTCPTimeouts);
            net.advanceMillis(c.rtt.currentRtoUs() / 1000 + 10);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isEqualTo(timeouts + 1);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSackRecoveryFail)).isEqualTo(1);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Loss);
            assertThat(c.win.cwnd).isEqualTo(m);
            // the loss window: the head alone
            assertThat(seqs(net, base, m)).containsExactly(0);
            // the head arrives, with the SACKed 1-3: it delivers one segment (1-3 were delivered when SACKed, Linux
            // tcp_clean_rtx_queue), so slow start makes cwnd 2 and two go, the lost 4 and 7, over the SACKed 5 and 6
            net.filter.clearRecording();
            SackSenderTest.ack(net, c, base, 4 * m, 5 * m, 7 * m);
            assertThat(c.sndUna).isEqualTo(base + 4 * m);
            assertThat(c.win.cwnd).isEqualTo(2L * m);
            assertThat(seqs(net, base, m)).containsExactly(4, 7);
            // 4 arrives, delivering one segment (5 and 6 were SACKed): cwnd 3 with 7 in flight, the lost 8 and 9 go
            net.filter.clearRecording();
            SackSenderTest.ack(net, c, base, 7 * m);
            assertThat(c.win.cwnd).isEqualTo(3L * m);
            assertThat(seqs(net, base, m)).containsExactly(8, 9);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Loss);
            SackSenderTest.ack(net, c, base, 10 * m);
            assertThat(c.sndUna).isEqualTo(c.sndMax);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Open);
            // the SACKed segments never went again
            assertThat(net.a.mib().get(MibCounter.TcpRetransSegs)).isEqualTo(6);
            c.sack.check();
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    @Test
    void inOrderSegmentsAcknowledgedWithTheFirstSackOfALossAreNotReordering() throws Exception {
        try (VirtualNet net = rfc6675(new VirtualNet()); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = SackSenderTest.clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            // 0 and 1 arrived in order (their ACK delayed), 2 was lost: the ACK of 0-1 carries the first SACK, of 3.
            // Nothing was SACKed before this ACK (Linux prior_fack = SND.UNA), so 0-1 did not arrive late
            SackSenderTest.ack(net, c, base, 2 * m, 3 * m, 4 * m);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSACKReorder)).isZero();
            assertThat(c.reordering).isEqualTo(3);
            SackSenderTest.ack(net, c, base, 2 * m, 3 * m, 5 * m);
            SackSenderTest.ack(net, c, base, 2 * m, 3 * m, 6 * m);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSACKReorder)).isZero();
            assertThat(c.rack.reorderingSeen()).isZero();
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    @Test
    void aSegmentArrivingAfterLaterOnesCountsAsReorderingNotLoss() throws Exception {
        try (VirtualNet net = rfc6675(new VirtualNet()); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = SackSenderTest.clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            // segments 3 and 4 arrive before 0-2: SACKed, too few above the hole to call it lost
            SackSenderTest.ack(net, c, base, 0, 3 * m, 5 * m);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Disorder);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSACKReorder)).isZero();
            // then 0-2 arrive: the cumulative ACK covers segments never retransmitted below SACKed ones
            SackSenderTest.ack(net, c, base, 5 * m);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSACKReorder)).isEqualTo(1);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSackRecovery)).isZero();
            assertThat(net.a.mib().get(MibCounter.TcpRetransSegs)).isZero();
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Open);
            // an ACK of the rest with nothing SACKed above: no reordering
            SackSenderTest.ack(net, c, base, 10 * m);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSACKReorder)).isEqualTo(1);
            assertThat(net.a.mib().toNstatString()).contains("TcpExtTCPSACKReorder");
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    @Test
    void aRetransmissionLostAgainIsFoundBySacksOfDataSentAfterIt() throws Exception {
        try (VirtualNet net = rfc6675(new VirtualNet()); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = SackSenderTest.clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            // 1-3 SACKed: recovery, segment 0 goes again (and is lost again: the link drops all data)
            SackSenderTest.ack(net, c, base, 0, 1 * m, 4 * m);
            assertThat(c.recovery.inRecovery()).isTrue();
            net.advanceMillis(20);
            byte[] more = new byte[2 * m];
            assertThat(c.write(more, 0, more.length)).isEqualTo(more.length);
            // PRR let two segments go on that ACK (cwnd = pipe + sndcnt, Linux tcp_cwnd_reduction) and only the
            // retransmission went: the write sends one new segment in the room left, as Linux's tcp_cwnd_test
            assertThat(c.sndMax - base).isEqualTo(11 * m);
            // 4-7 SACKed: the pipe is below ssthresh, PRR lets the second new segment go
            SackSenderTest.ack(net, c, base, 0, 1 * m, 8 * m);
            assertThat(c.sndMax - base).isEqualTo(12 * m);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPLostRetransmit)).isZero();
            net.advanceMillis(20);
            net.filter.clearRecording();
            // the new segments, sent 20 ms after the retransmission, are SACKed and it is not: lost again
            SackSenderTest.ack(net, c, base, 0, 10 * m, 12 * m, 1 * m, 8 * m);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPLostRetransmit)).isEqualTo(1);
            assertThat(seqs(net, base, m)).startsWith(0);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isZero();
            c.sack.check();
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    /** The data segments the client sent since the last clearRecording, as segment indexes from {@code base}. */
    private static List<Integer> seqs(VirtualNet net, int base, int mss) {
        return net.filter.frames(true).stream().filter(TcpFrame::isData).map(f -> (f.seq() - base) / mss).toList();
    }
}
