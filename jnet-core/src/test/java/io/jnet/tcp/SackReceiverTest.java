package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.MibCounter;
import io.jnet.wire.TcpOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The receiver's SACK and D-SACK blocks (RFC 2018 4, RFC 2883; Linux tcp_sack_new_ofo_skb, tcp_sack_remove,
 * tcp_dsack_set, tcp_dsack_extend) on virtual time, with crafted segments from the peer and the ACKs read from
 * the wire.
 */
class SackReceiverTest {
    private static final int M = 1000;

    /** The client's last ACK: its SACK blocks as stream offsets "left-right ...", the D-SACK (if any) first. */
    private static String lastSack(VirtualNet net, CraftedSender peer) {
        List<TcpFrame> out = net.filter.frames(true);
        TcpOptions o = out.getLast().options();
        int[] edges = new int[2 * o.sackBlocks];
        for (int i = 0; i < o.sackBlocks; i++) {
            edges[2 * i] = o.sackLeft[i] - peer.base;
            edges[2 * i + 1] = o.sackRight[i] - peer.base;
        }
        return blocks(edges);
    }

    private static String blocks(int... edges) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < edges.length; i += 2) sb.append(i == 0 ? "" : " ").append(edges[i]).append('-').append(edges[i + 1]);
        return sb.toString();
    }

    private static int lastAck(VirtualNet net, CraftedSender peer) {
        return net.filter.frames(true).getLast().ack() - peer.base;
    }

    @Test
    void blocksDescribeTheOutOfOrderQueueMostRecentFirstThreeWithTimestamps() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = TcpOutOfOrderTest.connect(net, srv, 0);
            assertThat(c.sackOk).isTrue();
            CraftedSender peer = new CraftedSender(net, c);
            peer.send(0, M);
            peer.send(2 * M, 3 * M);
            assertThat(lastAck(net, peer)).isEqualTo(M);
            assertThat(lastSack(net, peer)).isEqualTo(blocks(2 * M, 3 * M));
            peer.send(4 * M, 5 * M);
            assertThat(lastSack(net, peer)).isEqualTo(blocks(4 * M, 5 * M, 2 * M, 3 * M));
            peer.send(6 * M, 7 * M);
            assertThat(lastSack(net, peer)).isEqualTo(blocks(6 * M, 7 * M, 4 * M, 5 * M, 2 * M, 3 * M));
            peer.send(8 * M, 9 * M);
            // four blocks held, three fit beside the timestamps: the oldest is left out of this ACK
            assertThat(c.rcvSacks.count()).isEqualTo(4);
            assertThat(lastSack(net, peer)).isEqualTo(blocks(8 * M, 9 * M, 6 * M, 7 * M, 4 * M, 5 * M));
            // a segment that extends an older block brings it to the front
            peer.send(3 * M, 4 * M);
            assertThat(lastSack(net, peer)).isEqualTo(blocks(2 * M, 5 * M, 8 * M, 9 * M, 6 * M, 7 * M));
            assertThat(c.rcvSacks.count()).as("[2,3) and [4,5) merged").isEqualTo(3);
            // a fifth hole: the oldest block falls off
            peer.send(10 * M, 11 * M);
            peer.send(12 * M, 13 * M);
            assertThat(c.rcvSacks.count()).isEqualTo(4);
            assertThat(lastSack(net, peer)).isEqualTo(blocks(12 * M, 13 * M, 10 * M, 11 * M, 2 * M, 5 * M));
            // RCV.NXT passes blocks: they go
            peer.send(M, 2 * M);
            assertThat(lastAck(net, peer)).isEqualTo(5 * M);
            assertThat(lastSack(net, peer)).isEqualTo(blocks(12 * M, 13 * M, 10 * M, 11 * M, 8 * M, 9 * M));
            for (int k = 5; k < 13; k += 2) peer.send(k * M, (k + 1) * M);
            assertThat(lastAck(net, peer)).isEqualTo(13 * M);
            assertThat(lastSack(net, peer)).isEmpty();
            assertThat(c.rcvSacks.count()).isZero();
            assertThat(TcpOutOfOrderTest.readAll(c)).isEqualTo(CraftedSender.data(0, 13 * M));
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    @Test
    void withoutTimestampsFourBlocksGo() throws Exception {
        try (VirtualNet net = new VirtualNet()) {
            net.a.sysctl().set("net.ipv4.tcp_timestamps", "0");
            try (TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
                TcpConnection c = TcpOutOfOrderTest.connect(net, srv, 0);
                CraftedSender peer = new CraftedSender(net, c);
                for (int k = 1; k <= 9; k += 2) peer.send(k * M, (k + 1) * M);
                assertThat(lastSack(net, peer)).isEqualTo(blocks(9 * M, 10 * M, 7 * M, 8 * M, 5 * M, 6 * M, 3 * M, 4 * M));
                assertThat(net.filter.frames(true).getLast().optionKinds()).startsWith(TcpOptions.KIND_NOP,
                        TcpOptions.KIND_NOP, TcpOptions.KIND_SACK);
            }
        }
    }

    @Test
    void aDuplicateBelowRcvNxtIsReportedInADsackBlockOnce() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = TcpOutOfOrderTest.connect(net, srv, 0);
            CraftedSender peer = new CraftedSender(net, c);
            peer.send(0, 2 * M);
            long old = net.a.mib().get(MibCounter.TcpExtTCPDSACKOldSent);
            peer.send(0, M); // all old
            assertThat(lastAck(net, peer)).isEqualTo(2 * M);
            assertThat(lastSack(net, peer)).as("RFC 2883 4.1.1").isEqualTo(blocks(0, M));
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPDSACKOldSent)).isEqualTo(old + 1);
            // the D-SACK goes in one ACK only
            peer.send(2 * M, 3 * M);
            peer.acked();
            assertThat(lastSack(net, peer)).isEmpty();
            // partly old: the old part is reported, with the out-of-order blocks behind it (RFC 2883 4.2.1)
            peer.send(5 * M, 6 * M);
            peer.send(2 * M + 500, 4 * M);
            assertThat(lastAck(net, peer)).isEqualTo(4 * M);
            assertThat(lastSack(net, peer)).isEqualTo(blocks(2 * M + 500, 3 * M, 5 * M, 6 * M));
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPDSACKOldSent)).isEqualTo(old + 2);
        }
    }

    @Test
    void aDuplicateOfOutOfOrderDataIsReportedFirstThenItsBlock() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = TcpOutOfOrderTest.connect(net, srv, 0);
            CraftedSender peer = new CraftedSender(net, c);
            peer.send(0, M);
            peer.send(2 * M, 3 * M);
            peer.send(4 * M, 5 * M);
            long ofo = net.a.mib().get(MibCounter.TcpExtTCPDSACKOfoSent);
            peer.send(2 * M, 3 * M); // a duplicate of queued data (RFC 2883 4.1.2)
            assertThat(lastSack(net, peer)).isEqualTo(blocks(2 * M, 3 * M, 2 * M, 3 * M, 4 * M, 5 * M));
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPDSACKOfoSent)).isEqualTo(ofo + 1);
            // a segment that covers queued data reports the covered part
            peer.send(4 * M - 200, 5 * M + 200);
            assertThat(lastSack(net, peer)).isEqualTo(blocks(4 * M, 5 * M, 4 * M - 200, 5 * M + 200, 2 * M, 3 * M));
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPDSACKOfoSent)).isEqualTo(ofo + 2);
        }
    }

    @Test
    void tcpDsackOffSendsSackBlocksButNoDsack() throws Exception {
        try (VirtualNet net = new VirtualNet()) {
            net.a.sysctl().set("net.ipv4.tcp_dsack", "0");
            try (TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
                TcpConnection c = TcpOutOfOrderTest.connect(net, srv, 0);
                CraftedSender peer = new CraftedSender(net, c);
                peer.send(0, 2 * M);
                peer.send(0, M);
                assertThat(lastSack(net, peer)).isEmpty();
                peer.send(3 * M, 4 * M);
                peer.send(3 * M, 4 * M);
                assertThat(lastSack(net, peer)).isEqualTo(blocks(3 * M, 4 * M));
                assertThat(net.a.mib().get(MibCounter.TcpExtTCPDSACKOldSent)).isZero();
                assertThat(net.a.mib().get(MibCounter.TcpExtTCPDSACKOfoSent)).isZero();
            }
        }
    }

    @Test
    void withoutSackNoBlocksAreSent() throws Exception {
        try (VirtualNet net = new VirtualNet()) {
            net.b.sysctl().set("net.ipv4.tcp_sack", "0");
            try (TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
                TcpConnection c = TcpOutOfOrderTest.connect(net, srv, 0);
                assertThat(c.sackOk).isFalse();
                CraftedSender peer = new CraftedSender(net, c);
                peer.send(2 * M, 3 * M);
                peer.send(0, M);
                peer.send(0, M);
                for (TcpFrame f : net.filter.frames(true)) assertThat(f.options().sackBlocks).isZero();
                assertThat(c.rcvSacks.count()).isZero();
            }
        }
    }

    @Test
    void dataSegmentsCarryTheBlocksWhenTheyFitBesideThePayload() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = TcpOutOfOrderTest.connect(net, srv, 0);
            c.setOption(io.jnet.socket.SocketOption.TCP_NODELAY, true);
            CraftedSender peer = new CraftedSender(net, c);
            peer.send(2 * M, 3 * M);
            peer.send(4 * M, 5 * M);
            byte[] small = new byte[100];
            c.write(small, 0, small.length);
            TcpFrame data = net.filter.frames(true).getLast();
            assertThat(data.payloadLength()).isEqualTo(100);
            assertThat(data.options().sackBlocks).as("Linux tcp_established_options: every segment").isEqualTo(2);
            // a full-sized segment has no room left: it goes without blocks, within the MTU
            byte[] full = new byte[c.mss];
            c.write(full, 0, full.length);
            TcpFrame big = net.filter.frames(true).getLast();
            assertThat(big.payloadLength()).isEqualTo(c.mss);
            assertThat(big.options().sackBlocks).isZero();
            // room for one block only: 12 bytes left beside the payload
            byte[] almost = new byte[c.mss - 12];
            c.write(almost, 0, almost.length);
            TcpFrame one = net.filter.frames(true).getLast();
            assertThat(one.payloadLength()).isEqualTo(c.mss - 12);
            assertThat(one.options().sackBlocks).isEqualTo(1);
            assertThat(one.options().sackLeft[0] - peer.base).as("the most recent block").isEqualTo(4 * M);
        }
    }
}
