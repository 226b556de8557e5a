package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.MibCounter;
import io.jnet.wire.TcpOptions;
import org.junit.jupiter.api.Test;

/**
 * The sender's scoreboard in a connection on virtual time: the client's data never reaches the server, and
 * crafted ACKs from the server carry SACK blocks, valid and hostile (Linux tcp_sacktag_write_queue).
 */
class SackSenderTest {

    /** A client with ten segments in flight that the server never sees. */
    static TcpConnection clientWithTenInFlight(VirtualNet net, TcpServerSocket srv) throws Exception {
        TcpConnection c = net.establish(srv)[0];
        c.setOption(SocketOption.TCP_NODELAY, true);
        net.filter.dropOutbound(f -> f.payloadLength() > 0);
        byte[] data = new byte[10 * c.mss];
        assertThat(c.write(data, 0, data.length)).isEqualTo(data.length);
        assertThat(c.sndMax - c.sndUna).isEqualTo(data.length);
        ack(net, c, c.sndUna, 0); // a window update (the SYN-ACK's window was not scaled): later ACKs are duplicates
        return c;
    }

    /** Injects an ACK of {@code ack} (offset from the client's SND.UNA at the start) with the given block edges. */
    static void ack(VirtualNet net, TcpConnection c, int base, int ack, int... edges) {
        TcpOptions o = new TcpOptions();
        o.hasTimestamp = edges.length < 8; // four blocks leave no room for the timestamps
        o.tsVal = c.tsRecent;
        o.tsEcr = c.tcp.tsClock() + c.tsOffset;
        o.sackBlocks = edges.length / 2;
        for (int i = 0; i < o.sackBlocks; i++) {
            o.sackLeft[i] = base + edges[2 * i];
            o.sackRight[i] = base + edges[2 * i + 1];
        }
        byte[] f = net.craftToClient(c.remotePort, c.localPort, c.rcvNxt, base + ack, io.jnet.wire.Tcp.ACK,
                (int) Math.min(65535, c.sndWnd >> c.sndWscale), o, new byte[0]);
        net.filter.injectInbound(f, PacketBuffer.DEFAULT_HEADROOM, 0);
    }

    @Test
    void sackBlocksMarkTheWriteQueueAndShowInTcpInfo() throws Exception {
        try (VirtualNet net = SackRecoveryTest.rfc6675(new VirtualNet()); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            assertThat(c.sack.size()).isEqualTo(10);
            ack(net, c, base, 0, 2 * m, 4 * m);
            assertThat(c.sack.sackedOut()).isEqualTo(2);
            assertThat(c.info().sacked()).isEqualTo(2);
            long fastRetrans = net.a.mib().get(MibCounter.TcpExtTCPFastRetrans);
            // the second duplicate ACK brings three segments SACKed: fast retransmit of the head without waiting for a
            // third duplicate ACK, which a Linux receiver may have compressed away (tcp_time_to_recover)
            ack(net, c, base, 0, 6 * m, 7 * m, 2 * m, 4 * m);
            assertThat(c.sack.sackedOut()).isEqualTo(3);
            assertThat(c.sack.firstHole().seq).isEqualTo(base);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPFastRetrans)).isEqualTo(fastRetrans + 1);
            assertThat(c.caState).isEqualTo(io.jnet.socket.TcpInfo.TCP_CA_Recovery);
            ack(net, c, base, 0, 8 * m, 9 * m, 6 * m, 7 * m, 2 * m, 4 * m);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPFastRetrans)).isEqualTo(fastRetrans + 1);
            assertThat(c.info().sacked()).isEqualTo(4);
            // the cumulative ACK takes SACKed segments with it
            ack(net, c, base, 3 * m, 6 * m, 7 * m, 8 * m, 9 * m);
            assertThat(c.sack.size()).isEqualTo(7);
            assertThat(c.sack.sackedOut()).isEqualTo(3);
            assertThat(c.info().sacked()).isEqualTo(3);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSACKDiscard)).isZero();
            c.sack.check();
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    @Test
    void hostileBlocksAreCountedAndChangeNothing() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            ack(net, c, base, 0, 5 * m, 11 * m, 3 * m, 3 * m, 4 * m, 2 * m, -100000, -99000);
            assertThat(c.sack.sackedOut()).isZero();
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSACKDiscard)).isEqualTo(4);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPDSACKRecv)).as("the first block lies below the ACK").isEqualTo(0);
            // a D-SACK first (below the ACK) with no recovery yet: no undo possible
            ack(net, c, base, 0, -m, 0, 2 * m, 3 * m);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPDSACKRecv)).isEqualTo(1);
            assertThat(c.sack.sackedOut()).isEqualTo(1);
            // a SACK option of a malformed length: ignored and counted
            TcpOptions o = new TcpOptions();
            o.hasTimestamp = true;
            o.tsVal = c.tsRecent;
            o.sackBlocks = 1;
            o.sackLeft[0] = base + 6 * m;
            o.sackRight[0] = base + 7 * m;
            byte[] f = net.craftToClient(c.remotePort, c.localPort, c.rcvNxt, base, io.jnet.wire.Tcp.ACK,
                    (int) Math.min(65535, c.sndWnd >> c.sndWscale), o, new byte[0]);
            int sackLen = VirtualNet.TCP_OFFSET + 20 + 12 + 3;
            assertThat(f[sackLen - 1]).isEqualTo((byte) TcpOptions.KIND_SACK);
            f[sackLen] = 9;
            VirtualNet.refillChecksum(f, false);
            net.filter.injectInbound(f, PacketBuffer.DEFAULT_HEADROOM, 0);
            assertThat(net.a.mib().get(MibCounter.TcpExtJnetSackOptionMalformed)).isEqualTo(1);
            assertThat(c.sack.sackedOut()).isEqualTo(1);
            c.sack.check();
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    @Test
    void aTimeoutWithTheHeadSackedRenegesAndClosingEmptiesTheScoreboard() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            ack(net, c, base, m, 2 * m, 3 * m);
            assertThat(c.sack.sackedOut()).isEqualTo(1);
            // the peer acknowledges up to the SACKed segment's start and then nothing: at the timeout the head is
            // not SACKed, so the mark stays and the segment is not taken for lost
            net.advanceMillis(1500);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPTimeouts)).isPositive();
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSACKReneging)).isZero();
            assertThat(c.info().lost()).isEqualTo(8);
            // an ACK up to the SACKed segment: it heads the queue, SACKed, and the next timeout finds it so
            ack(net, c, base, 2 * m);
            net.advanceMillis(5000);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPSACKReneging)).isPositive();
            c.sack.check();
            c.close();
            net.advanceMillis(200_000);
            assertThat(c.sack.size()).isZero();
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    @Test
    void randomHostileAcksAgainstALiveConnectionBreakNothing() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = clientWithTenInFlight(net, srv);
            int m = c.mss;
            int base = c.sndUna;
            java.util.Random r = new java.util.Random(0x5ac7);
            for (int i = 0; i < 20_000; i++) {
                int una = c.sndUna - base;
                int span = c.sndMax - c.sndUna;
                int ack = r.nextInt(8) == 0 ? una + r.nextInt(Math.max(1, Math.min(span, 2 * m)) + 1) : una;
                int blocks = 1 + r.nextInt(4);
                int[] edges = new int[2 * blocks];
                for (int b = 0; b < blocks; b++) {
                    int s = una + r.nextInt(-2 * m, span + 2 * m);
                    if (r.nextBoolean()) s = s / m * m;
                    int e = switch (r.nextInt(4)) {
                        case 0 -> s + 1 + r.nextInt(8);
                        case 1 -> s - r.nextInt(m);
                        default -> s + r.nextInt(4 * m);
                    };
                    edges[2 * b] = s;
                    edges[2 * b + 1] = e;
                }
                ack(net, c, base, ack, edges);
                if (c.state == TcpState.CLOSED) break;
                c.sack.check();
                assertThat(c.sack.size()).isLessThanOrEqualTo(c.writeQueue.size());
                if (i % 1000 == 0) net.advanceMillis(50); // timers run too: timeouts, reneging
            }
            assertThat(net.a.internalErrors()).as("%s", net.a.lastInternalError()).isZero();
            assertThat(c.state()).isEqualTo("ESTAB");
            // the peer answers again: the queue drains and the scoreboard with it
            net.filter.dropOutbound(f -> false);
            for (int k = 0; k < 40 && c.sndUna != c.sndMax; k++) net.advanceMillis(1000);
            assertThat(c.sndUna).isEqualTo(c.sndMax);
            assertThat(c.sack.size()).isZero();
            assertThat(c.sack.sackedOut()).isZero();
        }
    }
}
