package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpInfo;
import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.MibCounter;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Fast retransmit and fast recovery without SACK (the client has net.ipv4.tcp_sack off) on virtual time, ACK by ACK: the window through a recovery
 * (RFC 5681 3.2 steps 2-4), the partial ACK (RFC 6582 3.2 step 3) and the full ACK that ends it (option 1).
 * Ten segments are written at once with the initial window; the server's ACKs are held and released one at a time.
 */
class NewRenoRecoveryTest {
    /** Writes ten segments of which those at the given indexes (0-based) are lost once; the server's ACKs are held. */
    private static TcpConnection[] sendTenLosing(VirtualNet net, TcpServerSocket srv, Set<Integer> lost) throws Exception {
        net.a.sysctl().set("net.ipv4.tcp_sack", "0"); // NewReno is the recovery of peers without SACK
        TcpConnection[] p = TcpInfoTest.establishWithRtt(net, srv);
        assertThat(p[0].sackOk).isFalse();
        assertThat(p[0].recovery).isInstanceOf(NewRenoRecovery.class);
        TcpConnection c = p[0];
        int mss = c.mss;
        c.setOption(SocketOption.TCP_NODELAY, true);
        int first = c.sndNxt;
        boolean[] dropped = new boolean[10];
        net.filter.dropOutbound(f -> {
            if (!f.isData()) return false;
            int i = (f.seq() - first) / mss;
            return lost.contains(i) && !dropped[i] && (dropped[i] = true);
        });
        net.filter.hold(false, true);
        c.write(new byte[10 * mss], 0, 10 * mss);
        assertThat(c.sndMax - first).isEqualTo(10 * mss);
        return p;
    }

    /** Releases the server's ACKs until SND.UNA reaches {@code seq}, then asserts there is no duplicate yet. */
    private static void releaseUntilUna(VirtualNet net, TcpConnection c, int seq) {
        while (c.sndUna != seq) assertThat(net.filter.releaseNext(false)).isTrue();
        assertThat(c.recovery.dupAcks()).isZero();
        assertThat(c.recovery.inRecovery()).isFalse();
    }

    /**
     * After the ACK of exactly the recovery point: still in fast recovery (Linux tcp_try_undo_recovery holds it for
     * Reno until data above it is acknowledged); one more segment's ACK ends it.
     */
    private static void ackAboveTheRecoveryPointEndsIt(VirtualNet net, TcpConnection c) throws Exception {
        assertThat(c.recovery.inRecovery()).isTrue();
        assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Recovery);
        assertThat(c.write(new byte[c.mss], 0, c.mss)).isEqualTo(c.mss);
        assertThat(net.filter.releaseHeld()).isPositive();
        assertThat(c.sndUna).isEqualTo(c.sndMax);
        assertThat(c.recovery.inRecovery()).isFalse();
        assertThat(c.recovery.dupAcks()).isZero();
        assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Open);
    }

    @Test
    void theWindowInflatesPerDuplicateAndFallsAtTheFullAck() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = sendTenLosing(net, srv, Set.of(2));
            TcpConnection c = p[0];
            int mss = c.mss;
            int hole = c.sndMax - 8 * mss;
            releaseUntilUna(net, c, hole);
            long cwndBefore = c.win.cwnd;

            // two duplicates: Disorder, the window as it was
            for (int i = 1; i <= 2; i++) {
                assertThat(net.filter.releaseNext(false)).isTrue();
                assertThat(c.recovery.dupAcks()).isEqualTo(i);
                assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Disorder);
                assertThat(c.win.cwnd).isEqualTo(cwndBefore);
            }
            // the third: ssthresh = FlightSize / 2 = 4 segments, cwnd = ssthresh + 3 segments, the hole goes again
            assertThat(net.filter.releaseNext(false)).isTrue();
            assertThat(c.recovery.inRecovery()).isTrue();
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Recovery);
            assertThat(c.win.ssthresh).isEqualTo(4L * mss);
            assertThat(c.win.cwnd).isEqualTo(7L * mss);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPRenoRecovery)).isEqualTo(1);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPFastRetrans)).isEqualTo(1);
            // each further duplicate: one more segment
            for (int i = 4; i <= 7; i++) {
                assertThat(net.filter.releaseNext(false)).isTrue();
                assertThat(c.recovery.dupAcks()).isEqualTo(i);
                assertThat(c.win.cwnd).isEqualTo((long) (i + 4) * mss);
            }
            // the retransmission's ACK covers everything (recover = SND.MAX at the start): the window deflates to
            // min(ssthresh, max(FlightSize, SMSS) + SMSS), nothing being in flight
            assertThat(net.filter.releaseNext(false)).isTrue();
            assertThat(c.sndUna).isEqualTo(c.sndMax);
            assertThat(c.recovery.dupAcks()).isZero();
            assertThat(c.win.cwnd).isEqualTo(2L * mss);
            assertThat(c.win.ssthresh).isEqualTo(4L * mss);
            assertThat(net.filter.heldCount(false)).isZero();
            ackAboveTheRecoveryPointEndsIt(net, c);
            assertThat(c.win.cwnd).isEqualTo(2L * mss);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPFastRetrans)).isEqualTo(1);
        }
    }

    @Test
    void aPartialAckResendsTheNextHoleAndDeflates() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = sendTenLosing(net, srv, Set.of(2, 5));
            TcpConnection c = p[0];
            int mss = c.mss;
            int hole = c.sndMax - 8 * mss;
            releaseUntilUna(net, c, hole);

            // six duplicates (segments 4, 5, 7, 8, 9 and 10): recovery at the third, cwnd 7 + 3 segments after them
            for (int i = 1; i <= 6; i++) assertThat(net.filter.releaseNext(false)).isTrue();
            assertThat(c.recovery.dupAcks()).isEqualTo(6);
            assertThat(c.recovery.inRecovery()).isTrue();
            assertThat(c.win.ssthresh).isEqualTo(4L * mss);
            assertThat(c.win.cwnd).isEqualTo(10L * mss);

            // the first retransmission's ACK stops at the second hole: partial, three segments acknowledged
            assertThat(net.filter.releaseNext(false)).isTrue();
            assertThat(c.sndUna).isEqualTo(hole + 3 * mss);
            assertThat(c.recovery.inRecovery()).isTrue();
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Recovery);
            assertThat(c.win.cwnd).as("deflated by what was acknowledged, one segment added back").isEqualTo(8L * mss);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPFastRetrans)).as("the second hole went at once").isEqualTo(2);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPRenoRecovery)).isEqualTo(1);

            // its ACK reaches the recovery point
            assertThat(net.filter.releaseNext(false)).isTrue();
            assertThat(c.sndUna).isEqualTo(c.sndMax);
            assertThat(c.win.cwnd).isEqualTo(2L * mss);
            assertThat(net.filter.heldCount(false)).isZero();
            ackAboveTheRecoveryPointEndsIt(net, c);
            assertThat(c.win.cwnd).isEqualTo(2L * mss);
            assertThat(p[1].info().bytesReceived()).isEqualTo(11L * mss); // the ten and the segment above the recovery point
        }
    }

    @Test
    void eachOfTheFirstDuplicatesLetsOneNewSegmentOut() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = sendTenLosing(net, srv, Set.of(2));
            TcpConnection c = p[0];
            int mss = c.mss;
            releaseUntilUna(net, c, c.sndMax - 8 * mss);
            // fill the window, then queue two more segments that it holds back
            long room = c.win.cwnd - ((c.sndMax - c.sndUna) & 0xFFFFFFFFL);
            int more = (int) room + 2 * mss;
            assertThat(c.write(new byte[more], 0, more)).isEqualTo(more);
            int held = c.sndMax;
            assertThat(((c.writeSeq - held) & 0xFFFFFFFFL)).isEqualTo(2L * mss);
            long cwnd = c.win.cwnd;
            // limited transmit (RFC 3042; Linux counts each duplicate out of the segments in flight)
            for (int i = 1; i <= 2; i++) {
                assertThat(net.filter.releaseNext(false)).isTrue();
                assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Disorder);
                assertThat(c.sndMax).as("duplicate " + i).isEqualTo(held + i * mss);
                assertThat(c.win.cwnd).isEqualTo(cwnd);
            }
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPFastRetrans)).isZero();
            assertThat(net.filter.releaseNext(false)).isTrue();
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Recovery);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPFastRetrans)).isEqualTo(1);
        }
    }

    @Test
    void netIpv4TcpReorderingIsTheDuplicateThreshold() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.a.sysctl().set("net.ipv4.tcp_reordering", "5");
            TcpConnection[] p = sendTenLosing(net, srv, Set.of(2));
            TcpConnection c = p[0];
            assertThat(c.reordering).isEqualTo(5);
            releaseUntilUna(net, c, c.sndMax - 8 * c.mss);
            for (int i = 1; i <= 4; i++) {
                assertThat(net.filter.releaseNext(false)).isTrue();
                assertThat(c.caState).as("duplicate " + i).isEqualTo(TcpInfo.TCP_CA_Disorder);
            }
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPFastRetrans)).isZero();
            assertThat(net.filter.releaseNext(false)).isTrue();
            assertThat(c.caState).isEqualTo(TcpInfo.TCP_CA_Recovery);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPFastRetrans)).isEqualTo(1);
        }
    }
}
