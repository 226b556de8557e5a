package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.MibCounter;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Loss recovery on virtual time: RTO with exponential backoff, ETIMEDOUT, fast retransmit. */
class TcpRetransmitTest {

    @Test
    void lostDataIsRetransmittedOnRtoWithBackoffThenTheConnectionTimesOut() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.a.sysctl().set("net.ipv4.tcp_retries2", "3");
            // no tail loss probe: every expiry is an RTO (with it, the first comes as a probe: the next test)
            net.a.sysctl().set("net.ipv4.tcp_early_retrans", "0");
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            net.filter.dropOutbound(TcpFrame::isData);
            long t0 = net.clock.nanoTime();
            c.write(new byte[1000], 0, 1000);
            for (int i = 0; i < 100 && !c.state().equals("UNCONN"); i++) net.advanceMillis(100);
            List<TcpFrame> data = net.filter.frames(true).stream().filter(TcpFrame::isData).toList();
            assertThat(data).hasSize(4); // the original and tcp_retries2 = 3 retransmissions
            assertThat(data.stream().map(TcpFrame::seq).distinct()).hasSize(1);
            List<Long> gaps = new ArrayList<>();
            for (int i = 1; i < data.size(); i++) gaps.add(data.get(i).atNanos() - data.get(i - 1).atNanos());
            // RTO >= tcp_rto_min (200 ms) and doubles after each expiry (RFC 6298 5.5)
            assertThat(gaps.get(0)).isBetween(200_000_000L, 1_000_000_000L);
            assertThat(gaps.get(1)).isEqualTo(2 * gaps.get(0));
            assertThat(gaps.get(2)).isEqualTo(4 * gaps.get(0));
            assertThat(data.get(0).atNanos()).isEqualTo(t0);
            assertThat(c.state()).isEqualTo("UNCONN");
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> c.read(new byte[10], 0, 10));
            assertThat(e.errno()).isEqualTo(Errno.ETIMEDOUT);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isEqualTo(3);
            assertThat(net.a.mib().get(MibCounter.TcpRetransSegs)).isEqualTo(3);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPAbortOnTimeout)).isEqualTo(1);
            assertThat(net.a.mib().get(MibCounter.TcpCurrEstab)).isZero();
        }
    }

    /**
     * A lone segment's probe timeout, 2 SRTT + 200 ms (RFC 8985 7.2's WCDelAckT), lies past the RTO, so it is capped
     * at the RTO; Linux keeps one timer for both, so that expiry sends a tail loss probe (the state stays Open) and
     * the RTO restarts from it, unbacked-off; the next expiry is the RTO (tcp_schedule_loss_probe).
     */
    @Test
    void aLoneSegmentsFirstExpiryIsATailLossProbeAtTheRto() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            net.filter.dropOutbound(TcpFrame::isData);
            long rto = c.rtt.currentRtoUs() * 1000;
            long t0 = net.clock.nanoTime();
            c.write(new byte[1000], 0, 1000);
            net.clock.advanceNanos(rto);
            List<TcpFrame> data = net.filter.frames(true).stream().filter(TcpFrame::isData).toList();
            assertThat(data).hasSize(2);
            assertThat(data.get(1).atNanos() - t0).isEqualTo(rto);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPLossProbes)).isEqualTo(1);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isZero();
            assertThat(c.caState).isEqualTo(io.jnet.socket.TcpInfo.TCP_CA_Open);
            assertThat(c.rtt.backoff).isZero();
            net.clock.advanceNanos(rto);
            data = net.filter.frames(true).stream().filter(TcpFrame::isData).toList();
            assertThat(data).hasSize(3);
            assertThat(data.get(2).atNanos() - data.get(1).atNanos()).isEqualTo(rto);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isEqualTo(1);
            assertThat(c.caState).isEqualTo(io.jnet.socket.TcpInfo.TCP_CA_Loss);
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    /**
     * Karn's algorithm (RFC 6298 5.7; Linux tcp_ack_update_rtt clears icsk_backoff only with a valid measurement):
     * without timestamps the ACK of a retransmission gives no RTT sample, so the backed-off RTO stays for the next
     * data; the ACK of data sent once clears it.
     */
    @Test
    void theAckOfARetransmissionWithoutAnRttSampleKeepsTheBackoff() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.a.sysctl().set("net.ipv4.tcp_timestamps", "0");
            net.a.sysctl().set("net.ipv4.tcp_early_retrans", "0"); // RTOs only
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            int[] n = {0};
            net.filter.dropOutbound(f -> f.isData() && n[0]++ < 2); // the original and the first retransmission
            c.write(new byte[100], 0, 100);
            for (int i = 0; i < 30 && c.sndUna != c.sndMax; i++) net.advanceMillis(100);
            assertThat(c.sndUna).isEqualTo(c.sndMax);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isEqualTo(2);
            assertThat(c.rtt.backoff).as("no RTT sample from the ACK of a retransmission").isEqualTo(2);
            long rtoBefore = c.rtt.currentRtoUs();
            c.write(new byte[100], 0, 100);
            net.advanceMillis(50);
            assertThat(c.sndUna).isEqualTo(c.sndMax);
            assertThat(c.rtt.backoff).as("the ACK of data sent once").isZero();
            assertThat(c.rtt.currentRtoUs()).isLessThan(rtoBefore);
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    @Test
    void oneLostSegmentIsRecoveredByTheRetransmissionTimer() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            int[] n = {0};
            net.filter.dropOutbound(f -> f.isData() && n[0]++ == 0);
            p[0].write(new byte[] {1, 2, 3}, 0, 3);
            assertThat(p[1].available()).isZero();
            net.advanceMillis(1000);
            assertThat(VirtualNet.drain(p[1], 10)).containsExactly(1, 2, 3);
            assertThat(net.a.mib().get(MibCounter.TcpRetransSegs)).isEqualTo(1);
            assertThat(p[0].rtt.backoff).as("backoff cleared by the new ACK").isZero();
        }
    }

    @Test
    void threeDuplicateAcksTriggerFastRetransmitWithoutTimeout() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            int mss = c.mss;
            int segments = 10; // the initial congestion window (RFC 6928)
            byte[] data = new byte[segments * mss];
            new Random(3).nextBytes(data);
            int lostSeq = c.sndNxt + 2 * mss; // the third segment
            boolean[] once = {false};
            net.filter.dropOutbound(f -> {
                if (f.isData() && f.seq() == lostSeq && !once[0]) {
                    once[0] = true;
                    return true;
                }
                return false;
            });
            net.filter.clearRecording();
            c.setOption(io.jnet.socket.SocketOption.TCP_NODELAY, true);
            assertThat(c.write(data, 0, data.length)).isEqualTo(data.length);
            // no time passes: the segments after the hole draw duplicate ACKs, the third triggers recovery
            List<TcpFrame> in = net.filter.frames(false);
            long dupAcks = in.stream().filter(f -> f.isPureAck() && f.ack() == lostSeq).count();
            assertThat(dupAcks).isGreaterThanOrEqualTo(4); // the ACK of segment 2, then duplicates
            List<TcpFrame> lost = net.filter.frames(true).stream().filter(f -> f.isData() && f.seq() == lostSeq).toList();
            assertThat(lost).hasSize(2);
            assertThat(lost.get(1).atNanos()).as("retransmitted at once, not after an RTO").isEqualTo(lost.get(0).atNanos());
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPFastRetrans)).isEqualTo(1);
            // SACK is negotiated: RFC 6675 recovery, not NewReno
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSackRecovery)).isEqualTo(1);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPRenoRecovery)).isZero();
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isZero();
            assertThat(net.b.mib().get(MibCounter.TcpExtTCPOFOQueue)).isGreaterThan(0);
            byte[] got = VirtualNet.drain(p[1], data.length + 10);
            assertThat(got).isEqualTo(data);
            assertThat(c.sndUna).isEqualTo(c.sndMax);
            net.advanceMillis(5000);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isZero();
        }
    }
}
