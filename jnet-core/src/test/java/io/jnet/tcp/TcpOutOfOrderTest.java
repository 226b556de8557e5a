package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The out-of-order queue under a peer that sends many tiny segments out of order (Linux tcp_data_queue_ofo,
 * tcp_prune_queue, tcp_collapse_ofo_queue, tcp_prune_ofo_queue), on virtual time with crafted segments.
 */
class TcpOutOfOrderTest {

    /** A connected client whose receive buffer is fixed to {@code soRcvbuf} (SO_RCVBUF; 0 leaves it to autotuning). */
    static TcpConnection connect(VirtualNet net, TcpServerSocket srv, int soRcvbuf) throws Exception {
        TcpConnection c = (TcpConnection) TcpSocket.open(net.a);
        if (soRcvbuf > 0) c.setOption(SocketOption.SO_RCVBUF, soRcvbuf);
        VirtualNet.startConnect(c, VirtualNet.server(VirtualNet.PORT));
        assertThat(c.finishConnect()).isTrue();
        assertThat(srv.accept()).isNotNull();
        return c;
    }

    /** Reads everything queued now. */
    static byte[] readAll(TcpConnection c) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] b = new byte[65536];
        int n;
        while ((n = c.read(b, 0, b.length)) > 0) out.write(b, 0, n);
        return out.toByteArray();
    }

    /**
     * {@code count} one-byte segments at every other offset, descending, with a hole at offset 0 (offsets
     * 2*count down to 2), then the segments that fill the holes (0, 1, 3, ..., 2*count-1): every byte
     * arrives in order and the client's memory stays within its receive buffer throughout. With the
     * buffer left to the stack, it grows (Linux tcp_clamp_window) and nothing is dropped; with SO_RCVBUF
     * set, the queue is pruned from the highest sequence and a retransmitting peer completes the stream.
     */
    @ParameterizedTest(name = "{0} segments, SO_RCVBUF {1}")
    @CsvSource({"1000, 0", "10000, 0", "1000, 32768", "10000, 32768"})
    void oneByteSegmentsInDescendingOrderThenTheFillDeliverEveryByte(int count, int soRcvbuf) throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = connect(net, srv, soRcvbuf);
            int rcvbuf0 = c.rcvbuf;
            CraftedSender peer = new CraftedSender(net, c);
            long[] maxRmem = {0};
            peer.checkAfterEachSegment = () -> {
                maxRmem[0] = Math.max(maxRmem[0], c.rmemAlloc());
                assertThat(c.rmemAlloc()).as("memory charged after segment %d", peer.segments)
                        .isLessThanOrEqualTo((long) c.rcvbuf + peer.maxTruesize);
            };
            int end = 2 * count + 1;
            for (int i = 2 * count; i >= 2; i -= 2) peer.sendByte(i);
            assertThat(peer.acked()).as("nothing in order yet").isZero();
            peer.sendByte(0);
            for (int i = 1; i < end; i += 2) peer.sendByte(i);
            int rounds = peer.retransmitUntilAcked(end, 1000);

            assertThat(readAll(c)).as("the stream, in order").isEqualTo(CraftedSender.data(0, end));
            assertThat(c.oooQueue.isEmpty()).isTrue();
            assertThat(c.rmemAlloc()).isZero();
            System.out.printf("%d one-byte segments out of order, SO_RCVBUF %d: rcvbuf %d -> %d, peak memory %d,"
                            + " retransmission rounds %d%n%s%n", count, soRcvbuf, rcvbuf0, c.rcvbuf, maxRmem[0], rounds,
                    counters(net));
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPOFOQueue)).isGreaterThanOrEqualTo(count);
            assertThat(net.a.mib().get(MibCounter.TcpExtPruneCalled)).isPositive();
            if (soRcvbuf == 0) {
                assertThat(rounds).as("nothing was dropped, nothing resent").isZero();
                assertThat(c.rcvbuf).as("grown, as Linux tcp_clamp_window").isGreaterThan(rcvbuf0)
                        .isLessThanOrEqualTo(net.a.sysctl().tcpRmem.intValue(2));
            } else {
                assertThat(c.rcvbuf).as("SO_RCVBUF stays").isEqualTo(rcvbuf0);
            }
        }
    }

    /** The out-of-order queue's spans as stream offsets "from-to" (with "+FIN"), in order. */
    static List<String> spans(TcpConnection c, CraftedSender peer) {
        List<String> out = new ArrayList<>();
        for (var b = c.oooQueue.first(); b != null; b = OfoQueue.next(b)) {
            out.add((b.seq - peer.base) + "-" + (b.endSeq - peer.base) + ((b.flags & io.jnet.wire.Tcp.FIN) != 0 ? "+FIN" : ""));
        }
        return out;
    }

    /** Stream offsets of the out-of-order queue's one-byte buffers, in order. */
    static List<Integer> offsets(TcpConnection c, CraftedSender peer) {
        List<Integer> out = new ArrayList<>();
        for (var b = c.oooQueue.first(); b != null; b = OfoQueue.next(b)) out.add(b.seq - peer.base);
        return out;
    }

    static long mib(VirtualNet net, MibCounter m) { return net.a.mib().get(m); }

    @Test
    void underPressureTheQueueIsPrunedFromTheHighestSequenceAndANewHighestSegmentIsDropped() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = connect(net, srv, 8192);
            assertThat(c.rcvbuf).isEqualTo(16384);
            CraftedSender peer = new CraftedSender(net, c);
            // one-byte segments at every other offset, descending from 400, until the queue is over the buffer
            int i = 400;
            while (c.rmemAlloc() <= c.rcvbuf) {
                peer.sendByte(i);
                i -= 2;
            }
            int lowest = i + 2;
            int queued = c.oooQueue.size();
            assertThat(mib(net, MibCounter.TcpExtPruneCalled)).isZero();

            // above everything queued, the newest segment would land last: it is the one dropped
            peer.sendByte(402);
            assertThat(mib(net, MibCounter.TcpExtPruneCalled)).isEqualTo(1);
            assertThat(mib(net, MibCounter.TcpExtTCPOFODrop)).isEqualTo(1);
            assertThat(mib(net, MibCounter.TcpExtRcvPruned)).isEqualTo(1);
            assertThat(mib(net, MibCounter.TcpExtOfoPruned)).isZero();
            assertThat(offsets(c, peer)).hasSize(queued).endsWith(400);

            // below everything queued: room is made by dropping the highest, an eighth of the buffer's worth
            peer.sendByte(lowest - 2);
            assertThat(mib(net, MibCounter.TcpExtPruneCalled)).isEqualTo(2);
            assertThat(mib(net, MibCounter.TcpExtOfoPruned)).isEqualTo(1);
            assertThat(mib(net, MibCounter.TcpExtTCPOFODrop)).isEqualTo(1);
            List<Integer> kept = offsets(c, peer);
            int top = kept.getLast();
            assertThat(kept).as("the lowest offsets survive, every other one")
                    .isEqualTo(IntStream.iterate(lowest - 2, o -> o <= top, o -> o + 2).boxed().toList());
            int prunedBytes = (400 - top) / 2 * peer.maxTruesize;
            assertThat(prunedBytes).isBetween(c.rcvbuf >> 3, (c.rcvbuf >> 3) + peer.maxTruesize);
            assertThat(c.rmemAlloc()).isLessThanOrEqualTo(c.rcvbuf);

            // the peer fills in and retransmits what was dropped: the whole stream arrives
            for (int j = 0; j < lowest - 2; j++) peer.sendByte(j);
            assertThat(peer.retransmitUntilAcked(403, 100)).isPositive();
            assertThat(readAll(c)).isEqualTo(CraftedSender.data(0, 403));
        }
    }

    @Test
    void inOrderDataIsTakenWhenOutOfOrderDataFillsTheBuffer() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = connect(net, srv, 8192);
            CraftedSender peer = new CraftedSender(net, c);
            int i = 2;
            while (c.rmemAlloc() <= c.rcvbuf) {
                peer.sendByte(i);
                i += 2;
            }
            assertThat(peer.acked()).isZero();
            peer.sendByte(0);
            assertThat(peer.acked()).as("byte 0 is in").isEqualTo(1);
            assertThat(mib(net, MibCounter.TcpExtOfoPruned)).isEqualTo(1);
            assertThat(mib(net, MibCounter.TcpExtTCPRcvQDrop)).isZero();
            assertThat(c.rmemAlloc()).isLessThanOrEqualTo((long) c.rcvbuf + peer.maxTruesize);
            peer.sendByte(1);
            assertThat(peer.acked()).as("byte 1 joins the queued byte 2").isEqualTo(3);
            assertThat(readAll(c)).isEqualTo(CraftedSender.data(0, 3));
        }
    }

    @Test
    void overlappingAndDuplicateSegmentsAreMergedOnce() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = connect(net, srv, 0);
            CraftedSender peer = new CraftedSender(net, c);
            peer.send(10, 20);
            peer.send(10, 20); // a duplicate
            assertThat(mib(net, MibCounter.TcpExtTCPOFOMerge)).isEqualTo(1);
            peer.send(12, 15); // inside
            assertThat(mib(net, MibCounter.TcpExtTCPOFOMerge)).isEqualTo(2);
            assertThat(spans(c, peer)).containsExactly("10-20");
            peer.send(10, 30); // same start, longer: replaces
            assertThat(mib(net, MibCounter.TcpExtTCPOFOMerge)).isEqualTo(3);
            assertThat(spans(c, peer)).containsExactly("10-30");
            peer.send(5, 40); // covers it from before
            assertThat(mib(net, MibCounter.TcpExtTCPOFOMerge)).isEqualTo(4);
            assertThat(spans(c, peer)).containsExactly("5-40");
            peer.send(38, 50); // overlaps the end: only what is new is kept
            assertThat(spans(c, peer)).containsExactly("5-40", "40-50");
            peer.send(60, 70);
            peer.send(80, 90);
            peer.send(55, 85); // trimmed at both ends by what it meets, covering 60-70
            assertThat(mib(net, MibCounter.TcpExtTCPOFOMerge)).isEqualTo(5);
            assertThat(spans(c, peer)).containsExactly("5-40", "40-50", "55-80", "80-90");
            peer.send(90, 90, io.jnet.wire.Tcp.FIN); // the FIN right behind the last text
            assertThat(spans(c, peer)).last().isEqualTo("80-90+FIN");
            peer.send(95, 99); // text after the FIN is dropped
            assertThat(spans(c, peer)).last().isEqualTo("80-90+FIN");
            assertThat(mib(net, MibCounter.TcpExtTCPOFOQueue)).isEqualTo(11);
            assertThat(mib(net, MibCounter.TcpExtTCPOFODrop)).isZero();

            peer.send(0, 5);
            peer.send(50, 55);
            assertThat(c.oooQueue.isEmpty()).isTrue();
            assertThat(readAll(c)).isEqualTo(CraftedSender.data(0, 90));
            assertThat(c.state()).isEqualTo("CLOSE-WAIT");
            assertThat(c.read(new byte[1], 0, 1)).isEqualTo(-1);
        }
    }

    @Test
    void segmentsThatContinueTheirPredecessorAreCopiedIntoItsTailroom() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = connect(net, srv, 0);
            CraftedSender peer = new CraftedSender(net, c);
            peer.tailroom = 256;
            for (int i = 10; i < 20; i++) peer.sendByte(i);
            assertThat(spans(c, peer)).containsExactly("10-20");
            assertThat(c.oooQueue.bytes()).as("one buffer charged").isEqualTo(peer.maxTruesize);
            assertThat(mib(net, MibCounter.TcpExtTCPRcvCoalesce)).isEqualTo(9);
            peer.send(20, 20, io.jnet.wire.Tcp.FIN);
            assertThat(spans(c, peer)).containsExactly("10-20+FIN");
            assertThat(mib(net, MibCounter.TcpExtTCPRcvCoalesce)).isEqualTo(10);

            // in order, one byte at a time: each joins the receive queue's last buffer, then so does 10-20
            for (int i = 0; i < 10; i++) peer.sendByte(i);
            assertThat(c.receiveQueue.size()).isEqualTo(1);
            assertThat(c.rmemAlloc()).isEqualTo(peer.maxTruesize);
            assertThat(mib(net, MibCounter.TcpExtTCPRcvCoalesce)).isEqualTo(20);
            assertThat(readAll(c)).isEqualTo(CraftedSender.data(0, 20));
            assertThat(c.state()).isEqualTo("CLOSE-WAIT");
        }
    }

    @Test
    void runsOfAdjacentTinySegmentsAreCollapsedInsteadOfPruned() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = connect(net, srv, 8192);
            CraftedSender peer = new CraftedSender(net, c);
            peer.checkAfterEachSegment = () -> assertThat(c.rmemAlloc()).isLessThanOrEqualTo((long) c.rcvbuf + peer.maxTruesize);
            for (int i = 10; i < 4000; i++) peer.sendByte(i);
            assertThat(mib(net, MibCounter.TcpExtTCPRcvCollapsed)).isPositive();
            assertThat(mib(net, MibCounter.TcpExtOfoPruned)).isZero();
            assertThat(mib(net, MibCounter.TcpExtTCPOFODrop)).isZero();
            assertThat(c.oooQueue.size()).as("compact buffers").isLessThan(10);
            assertThat(spans(c, peer)).first().asString().startsWith("10-");
            assertThat(spans(c, peer)).last().asString().endsWith("-4000");
            for (int i = 0; i < 10; i++) peer.sendByte(i);
            assertThat(readAll(c)).isEqualTo(CraftedSender.data(0, 4000));
        }
    }

    @Test
    void theReceiveQueueOfAReaderThatDoesNotReadIsCollapsed() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = connect(net, srv, 8192);
            CraftedSender peer = new CraftedSender(net, c);
            peer.checkAfterEachSegment = () -> assertThat(c.rmemAlloc()).isLessThanOrEqualTo((long) c.rcvbuf + peer.maxTruesize);
            for (int i = 0; i < 4000; i++) peer.sendByte(i);
            assertThat(peer.acked()).isEqualTo(4000);
            assertThat(mib(net, MibCounter.TcpExtTCPRcvCollapsed)).isPositive();
            assertThat(mib(net, MibCounter.TcpExtTCPRcvQDrop)).isZero();
            assertThat(c.receiveQueue.size()).isLessThan(10);
            assertThat(readAll(c)).isEqualTo(CraftedSender.data(0, 4000));
        }
    }

    static String counters(VirtualNet net) {
        StringBuilder b = new StringBuilder();
        for (MibCounter m : MibCounter.values()) {
            String n = m.name();
            if ((n.contains("OFO") || n.contains("Prune") || n.contains("Collapse") || n.contains("Coalesce")
                    || n.contains("RcvQDrop")) && net.a.mib().get(m) != 0) {
                b.append(n).append(' ').append(net.a.mib().get(m)).append("  ");
            }
        }
        return b.toString();
    }
}
