package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.TcpInfo;
import io.jnet.socket.TcpServerSocket;
import org.junit.jupiter.api.Test;

/**
 * A passive open measures the RTT from its SYN-ACK to the ACK that completes the handshake (Linux
 * tcp_synack_rtt_meas), so the first data's RTO follows the path (RFC 6298 2.2) rather than staying at 1 s.
 */
class TcpPassiveOpenRttTest {

    @Test
    void theHandshakeAckGivesTheFirstRttSample() throws Exception {
        try (VirtualNet net = new VirtualNet()) {
            TcpServerSocket srv = net.listen(VirtualNet.PORT);
            net.establish(srv); // neighbours resolved both ways: from here on only TCP crosses the filter
            net.filter.hold(true, false); // the client's segments wait
            TcpConnection c = net.connect(VirtualNet.PORT);
            assertThat(net.filter.releaseNext(true)).as("SYN").isTrue(); // the SYN-ACK comes back at once
            assertThat(c.finishConnect()).isTrue();
            net.advanceMillis(100);
            assertThat(net.filter.releaseNext(true)).as("the ACK of the SYN-ACK, 100 ms late").isTrue();
            TcpConnection s = (TcpConnection) srv.accept();
            TcpInfo info = s.info();
            assertThat(info.rtt()).as("SRTT in us").isBetween(99_000L, 101_000L);
            assertThat(info.rto()).as("RTO in us: SRTT + max(4 RTTVAR, 200 ms)").isBetween(299_000L, 301_000L);
            net.filter.hold(false, false);
        }
    }

    @Test
    void aRetransmittedSynAckGivesNoSampleWithoutTimestamps() throws Exception {
        try (VirtualNet net = new VirtualNet()) {
            // with timestamps the echoed TS val would give one (tcp_ack_update_rtt), as on Linux
            net.a.sysctl().set("net.ipv4.tcp_timestamps", "0");
            net.b.sysctl().set("net.ipv4.tcp_timestamps", "0");
            TcpServerSocket srv = net.listen(VirtualNet.PORT);
            net.establish(srv);
            net.filter.hold(true, true); // both ways held
            TcpConnection c = net.connect(VirtualNet.PORT);
            assertThat(net.filter.releaseNext(true)).as("SYN").isTrue();
            net.advanceMillis(1100); // the server's SYN-ACK timer fires: a second SYN-ACK
            assertThat(net.filter.releaseNext(false)).as("first SYN-ACK").isTrue();
            assertThat(c.finishConnect()).isTrue();
            net.filter.hold(false, false);
            assertThat(net.filter.releaseNext(true)).as("the client's ACK").isTrue();
            while (net.filter.releaseNext(false) || net.filter.releaseNext(true)) { }
            TcpConnection s = (TcpConnection) srv.accept();
            assertThat(s).isNotNull();
            assertThat(s.info().rtt()).as("no sample from a retransmitted SYN-ACK (Karn): SRTT unset").isZero();
        }
    }
}
