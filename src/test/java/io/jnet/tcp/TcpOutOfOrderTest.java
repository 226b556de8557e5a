package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import java.io.ByteArrayOutputStream;
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
