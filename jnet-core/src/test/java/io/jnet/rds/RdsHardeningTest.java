package io.jnet.rds;

import static io.jnet.rds.RdsPair.A;
import static io.jnet.rds.RdsPair.B;
import static io.jnet.rds.RdsPair.addr;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.Poller;
import io.jnet.socket.RdsSocket;
import io.jnet.socket.SocketOption;
import io.jnet.tcp.TcpKernelSockets;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a hostile or slow peer may not do to a node's memory, the counters of the TCP callbacks, and the
 * readiness a congestion-map change gives to pollers (af_rds.c rds_poll).
 */
@Timeout(60)
class RdsHardeningTest {

    /**
     * A peer that ignores the congestion map and keeps sending to a socket whose application does not read: the
     * queue stops near its hard cap (TCP's window stops the peer), nothing is lost, and all comes once read.
     */
    @Test
    void receiveQueueOfAnApplicationThatDoesNotReadStopsAtItsHardCap() throws Exception {
        try (RdsPair p = new RdsPair(); RdsSocket b = RdsPair.open(p.b, B, 6000)) {
            // small TCP buffers both ends, so that TCP itself cannot hold what the test sends
            p.b.sysctl().set("net.rds.tcp.rds_tcp_rcvbuf", "65536");
            RdsRawPeer raw = new RdsRawPeer(p);
            TcpKernelSockets.setBufferSizes(raw.s, 65536, 0);
            b.setOption(SocketOption.SO_RCVBUF, 10_000);
            RdsSocketImpl rs = (RdsSocketImpl) b;
            int msg = 4096, count = 1024; // 4 MiB, four times the cap
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < count; i++) {
                        byte[] m = new byte[msg];
                        m[0] = (byte) i;
                        m[1] = (byte) (i >> 8);
                        raw.send(i + 1, 7000, 6000, 0, m);
                    }
                } catch (Throwable e) {
                    failed.set(e);
                }
            });
            RdsStatistics st = p.rdsB().statistics();
            assertThat(RdsPair.await(() -> st.get("jnet_s_recv_throttled") > 0)).as(p.dump()).isTrue();
            Thread.sleep(200); // the peer goes on writing into TCP's window meanwhile
            long cap = rs.hardCap();
            assertThat(cap).isEqualTo(RdsSocketImpl.RCV_HARD_MIN);
            assertThat(rs.receiveBytes()).as("queued bytes").isGreaterThanOrEqualTo(cap)
                    .isLessThanOrEqualTo(cap + RdsTcpConnection.READ_CHUNK + msg);
            assertThat(writer.isAlive()).as("the peer is held by TCP's window").isTrue();
            byte[] buf = new byte[msg];
            for (int i = 0; i < count; i++) {
                RdsSocket.Received r = b.receive(buf, 0, buf.length);
                assertThat(r.length()).isEqualTo(msg);
                assertThat((buf[0] & 0xFF) | (buf[1] & 0xFF) << 8).as("message %d", i).isEqualTo(i & 0xFFFF);
            }
            writer.join(10_000);
            assertThat(failed.get()).isNull();
            assertThat(rs.receiveBytes()).isZero();
            assertThat(st.get("s_recv_queued")).isEqualTo(count);
            raw.close();
            p.assertNoInternalErrors();
        }
    }

    /** An accepted connection on which the peer sends nothing is reset after jnet_accept_idle_timeout_ms. */
    @Test
    void acceptedConnectionThatNeverSendsIsReaped() throws Exception {
        try (RdsPair p = new RdsPair(); RdsSocket b = RdsPair.open(p.b, B, 6000)) {
            p.b.sysctl().set("net.rds.tcp.jnet_accept_idle_timeout_ms", "300");
            RdsStatistics st = p.rdsB().statistics();
            try (RdsRawPeer idle = new RdsRawPeer(p)) {
                assertThat(RdsPair.await(() -> st.get("jnet_s_tcp_accept_idle_reaped") == 1)).as(p.dump()).isTrue();
                IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> idle.readFully(1));
                if (e instanceof ErrnoException ee) assertThat(ee.errno()).isEqualTo(Errno.ECONNRESET);
                RdsConnection c = p.connB();
                assertThat(RdsPair.await(() -> c.state() == RdsConnState.DOWN)).isTrue();
            }
            // a peer that talks is kept past the timeout
            try (RdsRawPeer talks = new RdsRawPeer(p)) {
                talks.send(1, 7000, 6000, 0, "hi".getBytes());
                assertThat(b.receive(new byte[10], 0, 10).length()).isEqualTo(2);
                Thread.sleep(600);
                assertThat(st.get("jnet_s_tcp_accept_idle_reaped")).isEqualTo(1);
                assertThat(p.connB().state()).isEqualTo(RdsConnState.UP);
            }
            p.assertNoInternalErrors();
        }
    }

    /** rds_tcp_write_space and rds_tcp_data_ready are counted where Linux counts them. */
    @Test
    void tcpCallbacksAreCounted() throws Exception {
        try (RdsPair p = new RdsPair(); RdsSocket a = RdsPair.open(p.a, A, 5000); RdsSocket b = RdsPair.open(p.b, B, 6000)) {
            byte[] m = new byte[10_000];
            byte[] buf = new byte[m.length];
            for (int i = 0; i < 50; i++) {
                a.send(m, 0, m.length, b.localAddress());
                b.receive(buf, 0, buf.length);
            }
            RdsStatistics sa = p.rdsA().statistics(), sb = p.rdsB().statistics();
            assertThat(RdsPair.await(() -> sa.get("s_send_drop_acked") >= 50)).isTrue();
            assertThat(sa.get("s_tcp_write_space_calls")).as("ACKs of a's messages").isPositive();
            assertThat(sb.get("s_tcp_data_ready_calls")).as("b's arrivals").isPositive();
            p.assertNoInternalErrors();
        }
    }

    /** Sends until refused with ENOBUFS (non-blocking); the receiver's port is then congested. */
    static void congest(RdsSocket snd, InetSocketAddress to) throws Exception {
        assertThat(RdsCongestionTest.sendUntilNoBufs(snd, to)).isPositive();
    }

    /**
     * rds_poll for a socket without RDS_CONG_MONITOR: refused with ENOBUFS, its poller wakes with POLLIN when the
     * congestion map changes (the congested port cleared), once per change; with RDS_CONG_MONITOR, POLLIN
     * while the congestion update waits to be received.
     */
    @Test
    void pollerHearsOfACongestionMapChange() throws Exception {
        for (boolean monitor : new boolean[] {false, true}) {
            try (RdsPair p = new RdsPair(); RdsSocket rcv = RdsPair.open(p.b, B, 7000);
                 RdsSocket snd = RdsPair.open(p.a, A, 7001); Poller poller = Poller.open()) {
                rcv.setOption(SocketOption.SO_RCVBUF, 10_000);
                snd.setOption(SocketOption.RDS_CONG_MONITOR, monitor);
                congest(snd, rcv.localAddress());
                poller.register(snd, Events.POLLIN | Events.EPOLLET);
                List<Poller.Ready> ready = new ArrayList<>();
                poller.poll(ready, Duration.ofMillis(50)); // a change before the registration may show once
                ready.clear();
                assertThat(poller.poll(ready, Duration.ofMillis(100))).as("congested, nothing changes").isZero();
                byte[] buf = new byte[RdsCongestionTest.MSG];
                rcv.setBlocking(false);
                while (rcv.receive(buf, 0, buf.length) != null) { } // the reader catches up: the port clears
                assertThat(poller.poll(ready, Duration.ofSeconds(10))).as("monitor " + monitor).isEqualTo(1);
                assertThat(ready.getFirst().events() & Events.POLLIN).isNotZero();
                ready.clear();
                if (monitor) {
                    snd.setBlocking(false);
                    RdsSocket.Received u = snd.receive(buf, 0, buf.length);
                    assertThat(u.isCongestionUpdate()).isTrue();
                    assertThat(snd.readyEvents() & Events.POLLIN).isZero();
                } else {
                    assertThat(snd.readyEvents() & Events.POLLIN).as("once per change").isZero();
                }
                snd.send(buf, 0, 10, rcv.localAddress()); // not congested any more
                p.assertNoInternalErrors();
            }
        }
    }
}
