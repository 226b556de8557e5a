package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Blind-attack defences on virtual time: RFC 5961 challenge ACKs and RFC 7323 PAWS, with crafted frames. */
class TcpSecurityTest {

    /** The newest segment the server sent the client (for its ports, sequence and timestamp). */
    static TcpFrame lastFromServer(VirtualNet net) { return net.filter.frames(false).getLast(); }

    static TcpOptions ts(int val, int ecr) {
        TcpOptions o = new TcpOptions();
        o.hasTimestamp = true;
        o.tsVal = val;
        o.tsEcr = ecr;
        return o;
    }

    @Test
    void inWindowResetWithWrongSequenceDrawsAChallengeAck() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            p[1].write(new byte[] {5}, 0, 1);
            TcpFrame last = lastFromServer(net);
            int rcvNxt = c.rcvNxt;
            net.filter.clearRecording();
            net.filter.dropOutbound(f -> true); // the server must not see the challenge ACK
            net.filter.injectInbound(net.craftToClient(last.srcPort(), last.dstPort(), rcvNxt + 1000, 0, Tcp.RST, 0, null,
                    new byte[0]));
            assertThat(c.state()).as("RFC 5961 3.2: not exactly RCV.NXT, so no reset").isEqualTo("ESTAB");
            List<TcpFrame> out = net.filter.frames(true);
            assertThat(out).singleElement().matches(TcpFrame::isPureAck);
            assertThat(out.get(0).seq()).isEqualTo(c.sndNxt);
            assertThat(out.get(0).ack()).isEqualTo(rcvNxt);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPChallengeACK)).isEqualTo(1);
            assertThat(VirtualNet.drain(c, 10)).containsExactly(5);

            // outside the window: silently dropped
            net.filter.injectInbound(net.craftToClient(last.srcPort(), last.dstPort(), rcvNxt + 10_000_000, 0, Tcp.RST, 0, null,
                    new byte[0]));
            assertThat(net.filter.frames(true)).hasSize(1);
            assertThat(c.state()).isEqualTo("ESTAB");

            // exactly RCV.NXT: the connection is reset
            net.filter.injectInbound(net.craftToClient(last.srcPort(), last.dstPort(), rcvNxt, 0, Tcp.RST, 0, null, new byte[0]));
            assertThat(c.state()).isEqualTo("UNCONN");
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> c.read(new byte[1], 0, 1));
            assertThat(e.errno()).isEqualTo(Errno.ECONNRESET);
            assertThat(net.a.mib().get(MibCounter.TcpEstabResets)).isEqualTo(1);
        }
    }

    /**
     * Linux tcp_send_challenge_ack: one challenge ACK per connection per net.ipv4.tcp_invalid_ratelimit (500 ms),
     * those held back counted in TcpExtTCPACKSkippedChallenge; then net.ipv4.tcp_challenge_ack_limit per second for
     * the namespace, unlimited at its default INT_MAX.
     */
    @Test
    void challengeAcksAreRateLimitedPerConnectionAndByTheNamespaceLimit() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            assertThat(net.a.sysctl().tcpChallengeAckLimit.intValue()).isEqualTo(Integer.MAX_VALUE);
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            TcpFrame last = lastFromServer(net);
            net.filter.clearRecording();
            net.filter.dropOutbound(f -> true);
            Runnable badRst = () -> net.filter.injectInbound(net.craftToClient(last.srcPort(), last.dstPort(),
                    c.rcvNxt + 1000, 0, Tcp.RST, 0, null, new byte[0]));
            badRst.run();
            assertThat(net.filter.frames(true)).hasSize(1);
            net.advanceMillis(100);
            badRst.run();
            assertThat(net.filter.frames(true)).as("100 ms after the last one: none").hasSize(1);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPACKSkippedChallenge)).isEqualTo(1);
            net.advanceMillis(400);
            badRst.run();
            assertThat(net.filter.frames(true)).as("500 ms after the last one").hasSize(2);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPChallengeACK)).isEqualTo(2);

            // the namespace's limit: 1 a second (a budget drawn in [1, 1]), no per-connection limit
            net.a.sysctl().set("net.ipv4.tcp_invalid_ratelimit", "0");
            net.a.sysctl().set("net.ipv4.tcp_challenge_ack_limit", "1");
            net.advanceMillis(1000);
            badRst.run();
            badRst.run();
            assertThat(net.filter.frames(true)).as("one in this second").hasSize(3);
            net.advanceMillis(1000);
            badRst.run();
            assertThat(net.filter.frames(true)).as("the next second's").hasSize(4);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPChallengeACK)).isEqualTo(4);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPACKSkippedChallenge)).isEqualTo(1);
            assertThat(c.state()).isEqualTo("ESTAB");
        }
    }

    @Test
    void synOnAnEstablishedConnectionDrawsAChallengeAck() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            TcpFrame last = lastFromServer(net);
            net.filter.clearRecording();
            net.filter.dropOutbound(f -> true);
            net.filter.injectInbound(net.craftToClient(last.srcPort(), last.dstPort(), c.rcvNxt + 5, 0, Tcp.SYN, 1000,
                    ts(last.options().tsVal + 1, 0), new byte[0]));
            assertThat(c.state()).isEqualTo("ESTAB");
            assertThat(net.filter.frames(true)).singleElement().matches(TcpFrame::isPureAck);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSYNChallenge)).isEqualTo(1);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPChallengeACK)).isEqualTo(1);
        }
    }

    @Test
    void pawsDropsASegmentWithAnOldTimestampButNotOneTickBehind() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            net.advanceMillis(1000);
            p[1].write(new byte[] {1}, 0, 1);
            assertThat(VirtualNet.drain(c, 10)).containsExactly(1);
            TcpFrame last = lastFromServer(net);
            int tsVal = last.options().tsVal;
            assertThat(c.tsRecent).isEqualTo(tsVal);
            net.filter.clearRecording();
            net.filter.dropOutbound(f -> true);
            // in-window data, right sequence, but a timestamp older than TS.Recent: a wrapped old duplicate
            byte[] old = net.craftToClient(last.srcPort(), last.dstPort(), c.rcvNxt, c.sndNxt, Tcp.ACK | Tcp.PSH, last.window(),
                    ts(tsVal - 500, last.options().tsEcr), new byte[] {66, 66});
            net.filter.injectInbound(old);
            assertThat(c.available()).as("RFC 7323 5.3: dropped").isZero();
            assertThat(net.a.mib().get(MibCounter.TcpExtPAWSEstab)).isEqualTo(1);
            assertThat(net.filter.frames(true)).as("answered with a duplicate ACK").singleElement().matches(TcpFrame::isPureAck);
            assertThat(c.state()).isEqualTo("ESTAB");
            // Linux's TCP_PAWS_WINDOW: one tick older than TS.Recent is reordering, not an old duplicate
            byte[] reordered = net.craftToClient(last.srcPort(), last.dstPort(), c.rcvNxt, c.sndNxt, Tcp.ACK | Tcp.PSH,
                    last.window(), ts(tsVal - 1, last.options().tsEcr), new byte[] {66, 66});
            net.filter.injectInbound(reordered);
            assertThat(VirtualNet.drain(c, 10)).containsExactly(66, 66);
            assertThat(net.a.mib().get(MibCounter.TcpExtPAWSEstab)).as("not counted again").isEqualTo(1);
            // the same segment with a current timestamp is accepted
            byte[] fresh = net.craftToClient(last.srcPort(), last.dstPort(), c.rcvNxt, c.sndNxt, Tcp.ACK | Tcp.PSH, last.window(),
                    ts(tsVal + 1, last.options().tsEcr), new byte[] {66, 66});
            net.filter.injectInbound(fresh);
            assertThat(VirtualNet.drain(c, 10)).containsExactly(66, 66);
        }
    }

    @Test
    void pawsDoesNotApplyToResets() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            TcpFrame last = lastFromServer(net);
            net.filter.dropOutbound(f -> true);
            net.filter.injectInbound(net.craftToClient(last.srcPort(), last.dstPort(), c.rcvNxt, 0, Tcp.RST, 0,
                    ts(last.options().tsVal - 1000, 0), new byte[0]));
            assertThat(c.state()).isEqualTo("UNCONN");
            assertThat(net.a.mib().get(MibCounter.TcpExtPAWSEstab)).isZero();
        }
    }
}
