package io.jnet.lossy;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.link.VethPair;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.VirtualClock;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Karn's algorithm (RFC 6298 section 3; Linux's FLAG_RETRANS_DATA_ACKED in tcp_clean_rtx_queue): an ACK
 * that covers a retransmitted segment gives no RTT sample from the transmission times of the segments
 * it covers, not even from the never-retransmitted ones after the retransmitted one: they waited in the
 * peer's out-of-order queue for the retransmission, so their "RTT" is the retransmission timeout.
 *
 * <p>Each round the client sends two segments on a link with no delay; the first one's first
 * transmission is lost and one duplicate ACK is too few for fast retransmit, so the retransmission
 * timer recovers it. The round trip stays near zero, so every retransmission must come after Linux's
 * minimum RTO of 200 ms: if the covered segments fed the estimator, SRTT and RTTVAR would grow by the
 * RTO each round and the timeout with them.
 */
class KarnRttSampleTest {
    static final int SEGMENT = 1448;
    static final int ROUNDS = 8;
    /** TCP_RTO_MIN plus the estimator's share of a near-zero round trip; 4 x RTTVAR stays below the floor. */
    static final long MAX_RTO_MS = 250;

    @Test
    void retransmittedSegmentsDoNotInflateTheRetransmissionTimeout() throws Exception {
        VirtualClock clock = new VirtualClock();
        try (NetNamespace a = NetNamespace.create("a", clock); NetNamespace b = NetNamespace.create("b", clock)) {
            VethPair p = VethPair.create("veth0", "veth1");
            a.attach(p.a());
            b.attach(p.b());
            a.addAddress("veth0", "10.0.0.1/24");
            b.addAddress("veth1", "10.0.0.2/24");
            // the retransmission timer is to recover each loss: RACK's reordering timer and the tail loss probe
            // would repair it within a round trip
            a.sysctl().set("net.ipv4.tcp_recovery", "0");
            a.sysctl().set("net.ipv4.tcp_early_retrans", "0");
            AtomicLong firstSeq = new AtomicLong(Long.MIN_VALUE);
            SegmentDropper dropper = (SegmentDropper) a.interpose("veth0", d -> new SegmentDropper(d, clock, seq -> {
                firstSeq.compareAndSet(Long.MIN_VALUE, seq);
                return ((seq - (int) firstSeq.get()) % (2 * SEGMENT)) == 0;
            }));
            try (TcpServerSocket srv = TcpServerSocket.open(b); TcpSocket c = TcpSocket.open(a)) {
                srv.bind(new InetSocketAddress("10.0.0.2", 5001));
                srv.listen(1);
                srv.setBlocking(false);
                c.setOption(SocketOption.TCP_NODELAY, true);
                c.setBlocking(false);
                try {
                    c.connect(new InetSocketAddress("10.0.0.2", 5001));
                } catch (ErrnoException expected) {
                    // EINPROGRESS
                }
                TcpSocket s = null;
                while (s == null) {
                    s = srv.accept();
                    if (s == null) clock.advanceMillis(1);
                }
                s.setBlocking(false);
                assertThat(c.finishConnect()).isTrue();
                byte[] data = new byte[2 * SEGMENT];
                byte[] buf = new byte[65536];
                long received = 0;
                List<Long> rtoMs = new ArrayList<>();
                for (int round = 0; round < ROUNDS; round++) {
                    assertThat(c.write(data, 0, data.length)).isEqualTo(data.length);
                    long deadline = clock.millis() + 60_000;
                    while (received < (long) (round + 1) * data.length) {
                        int n = s.read(buf, 0, buf.length);
                        if (n > 0) received += n;
                        else clock.advanceMillis(1);
                        assertThat(clock.millis()).as("round %d delivered", round).isLessThan(deadline);
                    }
                    int seq = (int) firstSeq.get() + round * 2 * SEGMENT;
                    List<Long> times = dropper.transmissions(seq);
                    assertThat(times).as("round %d: first transmission dropped, then retransmitted", round).hasSizeGreaterThanOrEqualTo(2);
                    rtoMs.add((times.get(1) - times.get(0)) / 1_000_000);
                }
                System.out.println("retransmission timeouts per round on a zero-delay link (ms): " + rtoMs);
                assertThat(rtoMs).allSatisfy(ms -> assertThat(ms).isBetween(200L, MAX_RTO_MS));
                s.close();
            }
        }
    }
}
