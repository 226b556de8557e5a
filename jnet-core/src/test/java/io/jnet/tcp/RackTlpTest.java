package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpInfo;
import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.MibCounter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * RACK-TLP (RFC 8985) on virtual time, with the peer's ACKs crafted: the client's data never reaches the server, and
 * each ACK arrives when the test says. The connection's RTT is 50 ms from the handshake.
 */
class RackTlpTest {

    /** A client with an RTT sample of {@link TcpInfoTest#HANDSHAKE_RTT_MS}, ten segments sent at once (dropped). */
    private static TcpConnection clientWithTenInFlight(VirtualNet net, TcpServerSocket srv) throws Exception {
        TcpConnection c = TcpInfoTest.establishWithRtt(net, srv)[0];
        c.setOption(SocketOption.TCP_NODELAY, true);
        net.filter.dropOutbound(f -> f.payloadLength() > 0);
        byte[] data = new byte[10 * c.mss];
        assertThat(c.write(data, 0, data.length)).isEqualTo(data.length);
        assertThat(c.sndMax - c.sndUna).isEqualTo(data.length);
        SackSenderTest.ack(net, c, c.sndUna, 0); // a window update: later ACKs of SND.UNA are duplicates
        net.filter.clearRecording();
        return c;
    }

    /** Segment numbers (from {@code base}, in MSS) of the data the client sent since the recording was cleared. */
    private static List<Integer> sent(VirtualNet net, int base, int mss) {
        return net.filter.frames(true).stream().filter(TcpFrame::isData).map(f -> (f.seq() - base) / mss).toList();
    }

    /**
     * Segment 0 arrives after 1-2 (a reordering RACK notes), then segment 3 arrives after 4-7, within the reordering
     * window: RACK does not retransmit it although four segments are SACKed above it, where RFC 6675 would. Segment 8
     * is lost: with one segment SACKed above it RFC 6675 would wait for the RTO; RACK's reordering timer marks it lost
     * one reordering window after the SACK and it goes again.
     */
    @Test
    void aReorderedSegmentIsNotResentWithinTheReorderingWindowAndALostOneIsAfterIt() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
            SackSenderTest.ack(net, c, base, 0, 1 * m, 3 * m);
            SackSenderTest.ack(net, c, base, 3 * m);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSACKReorder)).isEqualTo(1);
            assertThat(c.rack.reorderingSeen()).isEqualTo(1);
            long reoWndNs = c.rack.reoWndNs(c);
            assertThat(reoWndNs).as("min RTT / 4").isEqualTo(c.minRtt.get() * 1000 / 4).isPositive();

            // 5-7 SACKed too: four segments above segment 3, which is not overdue yet
            SackSenderTest.ack(net, c, base, 3 * m, 4 * m, 8 * m);
            assertThat(sent(net, base, m)).isEmpty();
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Disorder);
            net.advanceMillis(reoWndNs / 2_000_000);
            assertThat(sent(net, base, m)).isEmpty();
            // segment 3 arrives, reordered: acknowledged with 4-7
            SackSenderTest.ack(net, c, base, 8 * m);
            assertThat(sent(net, base, m)).isEmpty();
            assertThat(net.a.mib().get(MibCounter.TcpRetransSegs)).isZero();
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Open);

            // segment 9 SACKed, 8 lost: not overdue at once, lost a reordering window later
            SackSenderTest.ack(net, c, base, 8 * m, 9 * m, 10 * m);
            assertThat(sent(net, base, m)).isEmpty();
            long reo = c.rack.reoWndNs(c);
            assertThat(c.lossTimer.isPending()).isTrue();
            net.advanceMillis(reo / 1_000_000 / 2);
            assertThat(sent(net, base, m)).isEmpty();
            // the timer waits TCP_TIMEOUT_MIN past the window (tcp_rack_mark_lost)
            net.advanceMillis(reo / 1_000_000 / 2 + 1);
            assertThat(sent(net, base, m)).isEmpty();
            net.advanceMillis(RackLossDetection.TIMEOUT_MIN_NS / 1_000_000);
            assertThat(sent(net, base, m)).containsExactly(8);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Recovery);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSackRecovery)).isEqualTo(1);
            SackSenderTest.ack(net, c, base, 10 * m);
            assertThat(c.sndUna).isEqualTo(c.sndMax);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Open);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isZero();
            assertThat(net.a.mib().get(MibCounter.TcpRetransSegs)).isEqualTo(1);
            c.sack.check();
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    /**
     * The same ACKs with net.ipv4.tcp_recovery = 0: RFC 6675 as before RACK. Four SACKed segments above segment 3
     * make it lost at once (a spurious retransmission and a recovery), in which segment 8 goes by NextSeg rule 3.
     */
    @Test
    void withTcpRecoveryZeroTheDupThreshRulesStay() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.a.sysctl().set("net.ipv4.tcp_recovery", "0");
            TcpConnection c = clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
            SackSenderTest.ack(net, c, base, 0, 1 * m, 3 * m);
            SackSenderTest.ack(net, c, base, 3 * m);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSACKReorder)).isEqualTo(1);
            SackSenderTest.ack(net, c, base, 3 * m, 4 * m, 8 * m);
            assertThat(sent(net, base, m)).containsExactly(3);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Recovery);
            SackSenderTest.ack(net, c, base, 8 * m);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Recovery); // until segment 9, the recovery point
            net.filter.clearRecording();
            // still in recovery: segment 8, below the SACKed 9, goes at once by NextSeg rule 3
            SackSenderTest.ack(net, c, base, 8 * m, 9 * m, 10 * m);
            assertThat(sent(net, base, m)).containsExactly(8);
            assertThat(c.lossTimer.isPending()).isFalse();
            assertThat(c.rack.reorderingSeen()).isEqualTo(1); // counted, not used
            SackSenderTest.ack(net, c, base, 10 * m);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Open);
            assertThat(net.a.mib().get(MibCounter.TcpRetransSegs)).isEqualTo(2);
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    /**
     * Segments 8 and 9 are outstanding and unanswered: the probe timer (2 SRTT + 2 ms) fires long before the RTO and
     * resends segment 9; its SACK shows segment 8 lost, which RACK marks at once and recovery resends.
     */
    @Test
    void aTailLossIsFoundByTheProbeBeforeTheRto() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
            SackSenderTest.ack(net, c, base, 8 * m);
            long ptoMs = (2 * c.rtt.srttUs + RackLossDetection.TIMEOUT_MIN_NS / 1000) / 1000;
            long rtoMs = c.rtt.currentRtoUs() / 1000;
            assertThat(ptoMs).isLessThan(rtoMs / 2);
            assertThat(c.lossTimer.isPending()).isTrue();
            net.advanceMillis(ptoMs - 1);
            assertThat(sent(net, base, m)).isEmpty();
            net.advanceMillis(2);
            assertThat(sent(net, base, m)).containsExactly(9);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPLossProbes)).isEqualTo(1);
            assertThat(c.rack.probeOutstanding()).isTrue();
            // the probe's SACK: segment 8 is lost
            net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
            SackSenderTest.ack(net, c, base, 8 * m, 9 * m, 10 * m);
            assertThat(sent(net, base, m)).containsExactly(9, 8);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Recovery);
            SackSenderTest.ack(net, c, base, 10 * m);
            assertThat(c.sndUna).isEqualTo(c.sndMax);
            net.advanceMillis(5000);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isZero();
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPLossProbes)).isEqualTo(1);
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    /** The same tail loss while closing (FIN-WAIT-1: the FIN follows segment 9): the probe still comes before the RTO. */
    @Test
    void aTailLossWhileClosingIsProbedToo() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            net.filter.dropOutbound(f -> f.isData() || f.isFin()); // the FIN is lost too: a true tail loss
            c.shutdownOutput();
            assertThat(c.state).isEqualTo(TcpState.FIN_WAIT_1);
            net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
            SackSenderTest.ack(net, c, base, 8 * m);
            long ptoMs = (2 * c.rtt.srttUs + RackLossDetection.TIMEOUT_MIN_NS / 1000) / 1000;
            assertThat(ptoMs).isLessThan(c.rtt.currentRtoUs() / 2000);
            net.advanceMillis(ptoMs + 1);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPLossProbes)).as("Linux probes whatever the state").isEqualTo(1);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isZero();
            assertThat(c.state).isEqualTo(TcpState.FIN_WAIT_1);
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    /**
     * Segment 9 is lost and the ACK of segment 8 too: the probe resends segment 9 and repairs the loss alone. The ACK
     * beyond the probe shows it (no D-SACK): the congestion window is reduced once, TcpExtTCPLossProbeRecovery.
     */
    @Test
    void aProbeRepairingTheLossReducesTheWindowOnce() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
            SackSenderTest.ack(net, c, base, 8 * m);
            net.advanceMillis(c.rtt.currentRtoUs() / 2000);
            assertThat(sent(net, base, m)).containsExactly(9);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isZero();
            net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
            SackSenderTest.ack(net, c, base, 10 * m); // everything: the probe filled the hole
            assertThat(c.sndUna).isEqualTo(c.sndMax);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPLossProbeRecovery)).isZero();
            long cwnd = c.win.cwnd;
            byte[] more = new byte[m];
            assertThat(c.write(more, 0, m)).isEqualTo(m);
            SackSenderTest.ack(net, c, base, 11 * m);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPLossProbeRecovery)).isEqualTo(1);
            assertThat(c.win.cwnd).isLessThan(cwnd).isEqualTo(c.win.ssthresh);
            assertThat(c.rack.probeOutstanding()).isFalse();
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isZero();
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    /** The probe's segment is D-SACKed: the original arrived too, there was no loss and cwnd stays. */
    @Test
    void aDsackOfTheProbeMeansNoLoss() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
            SackSenderTest.ack(net, c, base, 8 * m);
            net.advanceMillis(c.rtt.currentRtoUs() / 2000);
            assertThat(sent(net, base, m)).containsExactly(9);
            net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
            SackSenderTest.ack(net, c, base, 10 * m, 9 * m, 10 * m); // a D-SACK of the probe
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPDSACKRecv)).isEqualTo(1);
            assertThat(c.rack.probeOutstanding()).isFalse();
            long cwnd = c.win.cwnd;
            byte[] more = new byte[m];
            assertThat(c.write(more, 0, m)).isEqualTo(m);
            SackSenderTest.ack(net, c, base, 11 * m);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPLossProbeRecovery)).isZero();
            assertThat(c.win.cwnd).isGreaterThanOrEqualTo(cwnd);
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    /**
     * A D-SACK of a retransmission RACK made (the original was only late) widens the reordering window one step,
     * min RTT / 4 * 2, as RFC 8985 6.2 step 4 and Linux tcp_rack_update_reo_wnd; bit 0x2 of net.ipv4.tcp_recovery
     * keeps it static.
     */
    @Test
    void aDsackOfARetransmissionWidensTheReorderingWindow() throws Exception {
        for (boolean staticWindow : new boolean[] {false, true}) {
            try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
                if (staticWindow) net.a.sysctl().set("net.ipv4.tcp_recovery", "3");
                TcpConnection c = clientWithTenInFlight(net, srv);
                int m = c.mss;
                int base = c.sndUna;
                net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
                SackSenderTest.ack(net, c, base, 0, 1 * m, 2 * m);
                long reo = c.rack.reoWndNs(c);
                net.advanceMillis((reo + RackLossDetection.TIMEOUT_MIN_NS) / 1_000_000 + 1);
                assertThat(sent(net, base, m)).containsExactly(0);
                assertThat(c.rack.reoWndMult()).isEqualTo(1);
                net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
                SackSenderTest.ack(net, c, base, 10 * m);
                assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Open);
                byte[] more = new byte[m];
                assertThat(c.write(more, 0, m)).isEqualTo(m);
                net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
                SackSenderTest.ack(net, c, base, 11 * m, 0, 1 * m); // the late original of segment 0, D-SACKed
                assertThat(net.a.mib().get(MibCounter.TcpExtTCPDSACKRecv)).isEqualTo(1);
                assertThat(c.rack.reoWndMult()).isEqualTo(staticWindow ? 1 : 2);
                if (!staticWindow) {
                    assertThat(c.rack.reoWndNs(c)).isEqualTo(Math.min(c.minRtt.get() * 2 / 4, c.rtt.srttUs) * 1000);
                }
                assertThat(net.a.internalErrors()).isZero();
            }
        }
    }
}
