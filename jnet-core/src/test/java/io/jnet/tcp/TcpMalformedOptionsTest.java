package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A malformed option (length below 2, or running past the header) ends option parsing and the segment is
 * taken with the options before it, as Linux's tcp_parse_options does; it is not dropped. On virtual time,
 * with crafted segments.
 */
class TcpMalformedOptionsTest {

    private static final int OPTIONS = VirtualNet.TCP_OFFSET + Tcp.MIN_HEADER_LENGTH;

    @Test
    void aSynWhoseLastOptionIsMalformedIsAnsweredWithTheOptionsBeforeIt() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            for (int badLength : new int[] {0, 1, 9}) {
                net.filter.clearRecording();
                net.filter.dropInbound(f -> true); // the client has no socket for this port: keep its RST out
                TcpOptions o = new TcpOptions();
                o.mss = 1000;
                o.windowScale = 7; // written after the MSS: NOP, kind 3, length 3, shift
                byte[] syn = net.craftToServer(40000 + badLength, VirtualNet.PORT, 12345, 0, Tcp.SYN, 64240, o, new byte[0]);
                assertThat(syn[OPTIONS + 5]).as("window scale kind").isEqualTo((byte) TcpOptions.KIND_WSCALE);
                syn[OPTIONS + 6] = (byte) badLength; // below 2, or past the 8-byte option area
                VirtualNet.refillChecksum(syn, true);
                long errors = net.b.mib().get(MibCounter.TcpInErrs);
                net.filter.injectOutbound(syn);

                List<TcpFrame> reply = net.filter.frames(false);
                assertThat(reply).as("option length %d", badLength).singleElement().matches(TcpFrame::isSynAck);
                assertThat(reply.get(0).ack()).isEqualTo(12346);
                assertThat(reply.get(0).options().windowScale).as("the peer's window scale was not parsed: none offered")
                        .isEqualTo(-1);
                assertThat(net.b.mib().get(MibCounter.TcpInErrs)).isEqualTo(errors);
            }
        }
    }

    @Test
    void dataWhoseOptionAreaEndsInAMalformedOptionIsDelivered() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = TcpOutOfOrderTest.connect(net, srv, 0);
            assertThat(c.tsEnabled).isTrue();
            CraftedSender peer = new CraftedSender(net, c);
            peer.extraOptions = o -> { // NOP NOP TS(10) | NOP NOP SACK(10): the SACK option's length becomes 0
                o.sackBlocks = 1;
                o.sackLeft[0] = 1;
                o.sackRight[0] = 2;
            };
            peer.patch = f -> {
                assertThat(f[OPTIONS + 14]).as("SACK kind").isEqualTo((byte) TcpOptions.KIND_SACK);
                f[OPTIONS + 15] = 0;
            };
            long errors = net.a.mib().get(MibCounter.TcpInErrs);
            peer.send(0, 100);
            peer.send(100, 300);
            assertThat(TcpOutOfOrderTest.readAll(c)).isEqualTo(CraftedSender.data(0, 300));
            assertThat(peer.acked()).isEqualTo(300);
            assertThat(net.a.mib().get(MibCounter.TcpInErrs)).isEqualTo(errors);
        }
    }
}
