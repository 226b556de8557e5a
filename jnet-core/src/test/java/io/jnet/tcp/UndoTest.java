package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpInfo;
import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.MibCounter;
import io.jnet.wire.TcpOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * F-RTO (RFC 5682) and the undo of spurious reductions (RFC 3522 timestamps, RFC 2883 D-SACK) on virtual time, with
 * the peer's ACKs crafted: the client's data never reaches the server, each ACK says what the test wants, with the
 * timestamp echo the test chooses. The RTT is 50 ms from the handshake.
 */
class UndoTest {
    /** Segments the client writes: ten go at once (the initial window), the rest wait. */
    private static final int SEGMENTS = 20;

    private static TcpConnection clientWithTenInFlight(VirtualNet net, TcpServerSocket srv) throws Exception {
        net.a.sysctl().set("net.ipv4.tcp_early_retrans", "0"); // no tail loss probe before the RTO
        TcpConnection c = TcpInfoTest.establishWithRtt(net, srv)[0];
        c.setOption(SocketOption.TCP_NODELAY, true);
        net.filter.dropOutbound(f -> f.payloadLength() > 0);
        byte[] data = new byte[SEGMENTS * c.mss];
        assertThat(c.write(data, 0, data.length)).isEqualTo(data.length);
        assertThat(c.sndMax - c.sndUna).isEqualTo(10 * c.mss);
        ack(net, c, c.sndUna, 0, now(c)); // a window update: later ACKs of SND.UNA are duplicates
        net.filter.clearRecording();
        return c;
    }

    /** The client's timestamp clock now, as its TSval carries it. */
    private static int now(TcpConnection c) {
        return c.tcp.tsClock() + c.tsOffset;
    }

    /** A crafted ACK of {@code base + ack} echoing {@code tsEcr} (no timestamp option when timestamps are off). */
    private static void ack(VirtualNet net, TcpConnection c, int base, int ack, int tsEcr, int... edges) {
        TcpOptions o = new TcpOptions();
        o.hasTimestamp = c.tsEnabled;
        o.tsVal = c.tsRecent;
        o.tsEcr = tsEcr;
        o.sackBlocks = edges.length / 2;
        for (int i = 0; i < o.sackBlocks; i++) {
            o.sackLeft[i] = base + edges[2 * i];
            o.sackRight[i] = base + edges[2 * i + 1];
        }
        byte[] f = net.craftToClient(c.remotePort, c.localPort, c.rcvNxt, base + ack, io.jnet.wire.Tcp.ACK,
                (int) Math.min(65535, c.sndWnd >> c.sndWscale), o, new byte[0]);
        net.filter.injectInbound(f, PacketBuffer.DEFAULT_HEADROOM, 0);
    }

    /** Segment numbers (from {@code base}, in MSS) of the data the client sent since the recording was cleared. */
    private static List<Integer> sent(VirtualNet net, int base, int mss) {
        return net.filter.frames(true).stream().filter(TcpFrame::isData).map(f -> (f.seq() - base) / mss).toList();
    }

    private static long mib(VirtualNet net, MibCounter m) {
        return net.a.mib().get(m);
    }

    /** Lets the retransmission timer expire once: the head goes again and cwnd falls to one segment. */
    private static void expireRto(VirtualNet net, TcpConnection c, int base) {
        net.advanceMillis(c.rtt.currentRtoUs() / 1000 + 1);
        assertThat(mib(net, MibCounter.TcpExtTCPTimeouts)).isEqualTo(1);
        assertThat(sent(net, base, c.mss)).containsExactly(0);
        assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Loss);
        assertThat(c.win.cwnd).isEqualTo(c.mss);
        net.filter.clearRecording();
    }

    /**
     * Delay, not loss: the ACKs of the original segments arrive after the RTO (timestamps off, so only F-RTO can
     * tell). The first ACK after the timeout sends new data (step 2b), not segment 1 again; the next one acknowledges
     * segment 1, never retransmitted: the timeout was spurious (step 3b) and is undone, cwnd and ssthresh back.
     */
    @Test
    void aSpuriousRtoIsDetectedByFrtoAndUndone() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.a.sysctl().set("net.ipv4.tcp_timestamps", "0");
            TcpConnection c = clientWithTenInFlight(net, srv);
            assertThat(c.tsEnabled).isFalse();
            int m = c.mss;
            int base = c.sndUna;
            long cwndBefore = c.win.cwnd;
            long ssthreshBefore = c.win.ssthresh;
            expireRto(net, c, base);

            ack(net, c, base, 1 * m, 0);
            assertThat(sent(net, base, m)).as("new data, not segment 1 again").containsExactly(10, 11);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Loss);
            net.filter.clearRecording();

            ack(net, c, base, 2 * m, 0);
            assertThat(mib(net, MibCounter.TcpExtTCPSpuriousRTOs)).isEqualTo(1);
            assertThat(mib(net, MibCounter.TcpExtTCPLossUndo)).isEqualTo(1);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Open);
            assertThat(c.win.cwnd).isGreaterThanOrEqualTo(cwndBefore);
            assertThat(c.win.ssthresh).isGreaterThanOrEqualTo(Math.min(ssthreshBefore, TcpInfo.TCP_INFINITE_SSTHRESH * m));
            assertThat(sent(net, base, m)).as("no segment of 2-9 sent again").allMatch(s -> s >= 10);
            assertThat(mib(net, MibCounter.TcpRetransSegs)).isEqualTo(1);
            assertThat(net.a.mib().toNstatString()).contains("TcpExtTCPSpuriousRTOs").contains("TcpExtTCPLossUndo");

            ack(net, c, base, 12 * m, 0);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Open);
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    /** The same ACKs with net.ipv4.tcp_frto = 0: the first ACK after the timeout resends segments 1-2 (go back N). */
    @Test
    void withFrtoOffTheTimeoutGoesBackN() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.a.sysctl().set("net.ipv4.tcp_timestamps", "0");
            net.a.sysctl().set("net.ipv4.tcp_frto", "0");
            TcpConnection c = clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            expireRto(net, c, base);
            ack(net, c, base, 1 * m, 0);
            assertThat(sent(net, base, m)).containsExactly(1, 2);
            ack(net, c, base, 2 * m, 0);
            assertThat(mib(net, MibCounter.TcpExtTCPSpuriousRTOs)).isZero();
            assertThat(mib(net, MibCounter.TcpExtTCPLossUndo)).isZero();
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Loss);
            assertThat(c.win.cwnd).isLessThan(10L * m);
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    /**
     * A real loss: after the timeout the first ACK acknowledges the retransmission (its timestamp echoed) and F-RTO
     * sends new data; the next ACK SACKs that new data but not segment 1: the loss was real (step 3a), segment 1
     * goes again and nothing is undone.
     */
    @Test
    void anRtoWithRealLossIsNotUndone() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = clientWithTenInFlight(net, srv);
            assertThat(c.tsEnabled).isTrue();
            int m = c.mss;
            int base = c.sndUna;
            expireRto(net, c, base);
            net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
            ack(net, c, base, 1 * m, now(c) - (int) TcpInfoTest.HANDSHAKE_RTT_MS);
            assertThat(sent(net, base, m)).containsExactly(10, 11);
            net.filter.clearRecording();
            ack(net, c, base, 1 * m, now(c), 10 * m, 11 * m);
            assertThat(sent(net, base, m)).contains(1);
            assertThat(mib(net, MibCounter.TcpExtTCPSpuriousRTOs)).isZero();
            assertThat(mib(net, MibCounter.TcpExtTCPLossUndo)).isZero();
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Loss);
            assertThat(c.win.cwnd).isLessThan(10L * m);
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    /**
     * A fast retransmit of segment 0, which was only reordered: its original arrives and everything is acknowledged
     * (recovery ends with cwnd = ssthresh), then the D-SACK of the retransmission shows it was not needed: cwnd and
     * ssthresh are restored. With RACK (the reordering timer marks segment 0) and with RFC 6675's DupThresh.
     */
    @Test
    void aFastRetransmitIsUndoneByDsack() throws Exception {
        for (String recovery : new String[] {"1", "0"}) {
            try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
                net.a.sysctl().set("net.ipv4.tcp_recovery", recovery);
                net.a.sysctl().set("net.ipv4.tcp_early_retrans", "0");
                TcpConnection c = clientWithTenInFlight(net, srv);
                int m = c.mss;
                int base = c.sndUna;
                long cwndBefore = c.win.cwnd;
                net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
                ack(net, c, base, 0, now(c), 1 * m, 5 * m);
                net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS / 2); // RACK's reordering window
                assertThat(sent(net, base, m)).as("tcp_recovery=%s", recovery).startsWith(0);
                assertThat(mib(net, MibCounter.TcpExtTCPSackRecovery)).isEqualTo(1);
                net.advanceMillis(5);
                ack(net, c, base, c.sndMax - base, now(c));
                assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Open);
                assertThat(c.win.cwnd).isLessThan(cwndBefore);
                assertThat(mib(net, MibCounter.TcpExtTCPFullUndo)).isZero();
                long una = c.sndUna - base;
                ack(net, c, base, (int) una, now(c), 0, m); // D-SACK: segment 0 arrived twice
                assertThat(mib(net, MibCounter.TcpExtTCPDSACKRecv)).isEqualTo(1);
                assertThat(mib(net, MibCounter.TcpExtTCPDSACKUndo)).as("tcp_recovery=%s", recovery).isEqualTo(1);
                assertThat(c.info().dsackDups()).isEqualTo(1);
                assertThat(c.win.cwnd).isGreaterThanOrEqualTo(cwndBefore);
                assertThat(net.a.mib().toNstatString()).contains("TcpExtTCPDSACKUndo");
                assertThat(net.a.internalErrors()).isZero();
            }
        }
    }

    /**
     * Eifel (RFC 3522): the ACK that ends the recovery echoes the TSval of segment 0's original transmission, sent
     * before the retransmission: the original arrived, and the reduction is undone in full at the end of recovery.
     */
    @Test
    void timestampsUndoAFastRetransmitInFull() throws Exception {
        try (VirtualNet net = SackRecoveryTest.rfc6675(new VirtualNet()); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = clientWithTenInFlight(net, srv);
            int original = now(c);
            int m = c.mss;
            int base = c.sndUna;
            long cwndBefore = c.win.cwnd;
            net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
            ack(net, c, base, 0, original, 1 * m, 5 * m);
            assertThat(sent(net, base, m)).startsWith(0);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Recovery);
            assertThat(c.win.cwnd).isLessThan(cwndBefore);
            net.advanceMillis(5);
            ack(net, c, base, c.sndMax - base, original);
            assertThat(mib(net, MibCounter.TcpExtTCPFullUndo)).isEqualTo(1);
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Open);
            assertThat(c.win.cwnd).isGreaterThanOrEqualTo(cwndBefore);
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    /** The same, ended by an ACK that echoes the retransmission's TSval: the retransmission was needed, no undo. */
    @Test
    void timestampsOfTheRetransmissionDoNotUndo() throws Exception {
        try (VirtualNet net = SackRecoveryTest.rfc6675(new VirtualNet()); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            long cwndBefore = c.win.cwnd;
            net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
            ack(net, c, base, 0, now(c), 1 * m, 5 * m);
            int retransmission = now(c);
            net.advanceMillis(5);
            ack(net, c, base, c.sndMax - base, retransmission);
            assertThat(mib(net, MibCounter.TcpExtTCPFullUndo)).isZero();
            assertThat(c.win.cwnd).isLessThan(cwndBefore);
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    /**
     * Without SACK (NewReno, go back N after a timeout) timestamps alone undo a spurious timeout: the first ACK
     * after it echoes the original's TSval; cwnd comes back and sending resumes with new data.
     */
    @Test
    void withoutSackTimestampsUndoASpuriousRto() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.a.sysctl().set("net.ipv4.tcp_sack", "0");
            TcpConnection c = clientWithTenInFlight(net, srv);
            assertThat(c.sackOk).isFalse();
            int original = now(c);
            int m = c.mss;
            int base = c.sndUna;
            long cwndBefore = c.win.cwnd;
            expireRto(net, c, base);
            ack(net, c, base, 1 * m, original);
            assertThat(mib(net, MibCounter.TcpExtTCPLossUndo)).isEqualTo(1);
            assertThat(mib(net, MibCounter.TcpExtTCPSpuriousRTOs)).isZero();
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Open);
            assertThat(c.win.cwnd).isGreaterThanOrEqualTo(cwndBefore);
            assertThat(sent(net, base, m)).as("new data only").isNotEmpty().allMatch(s -> s >= 10);
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    /**
     * Reordering raises tcpi_reordering from net.ipv4.tcp_reordering (3): segment 0 arrives after 1-2 (RACK sees
     * reordering and widens its window), then segment 3 after 4-9: a distance of 7 segments.
     */
    @Test
    void reorderingRaisesTcpiReordering() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            assertThat(c.info().reordering()).isEqualTo(3);
            net.advanceMillis(TcpInfoTest.HANDSHAKE_RTT_MS);
            ack(net, c, base, 0, now(c), 1 * m, 3 * m);
            ack(net, c, base, 3 * m, now(c));
            assertThat(mib(net, MibCounter.TcpExtTCPSACKReorder)).isEqualTo(1);
            assertThat(c.info().reordering()).isEqualTo(3);
            ack(net, c, base, 3 * m, now(c), 4 * m, 10 * m);
            ack(net, c, base, 10 * m, now(c));
            assertThat(mib(net, MibCounter.TcpRetransSegs)).isZero();
            assertThat(mib(net, MibCounter.TcpExtTCPSACKReorder)).isEqualTo(2);
            assertThat(c.info().reordering()).isEqualTo(7);
            assertThat(c.info().reordSeen()).isEqualTo(2);
            assertThat(net.a.internalErrors()).isZero();
        }
    }
}
