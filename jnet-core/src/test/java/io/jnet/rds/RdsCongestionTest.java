package io.jnet.rds;

import static io.jnet.rds.RdsPair.A;
import static io.jnet.rds.RdsPair.B;
import static io.jnet.rds.RdsPair.addr;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.RdsSocket;
import io.jnet.socket.SocketOption;
import io.jnet.stack.NetNamespace;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Congestion maps (net/rds/cong.c): a slow reader's port is congested, senders wait or get ENOBUFS, monitors hear. */
@org.junit.jupiter.api.Timeout(60)
class RdsCongestionTest {
    static final int MSG = 3000;

    /** Sends until refused with ENOBUFS (non-blocking); returns the messages that went. */
    static int sendUntilNoBufs(RdsSocket s, InetSocketAddress to) throws Exception {
        s.setBlocking(false);
        byte[] m = new byte[MSG];
        int sent = 0;
        for (int i = 0; i < 10_000; i++) {
            try {
                s.send(m, 0, m.length, to);
                sent++;
            } catch (ErrnoException e) {
                if (e.errno() == Errno.ENOBUFS) return sent;
                if (e.errno() == Errno.EAGAIN) { // the send buffer: wait for TCP's acknowledgements
                    Thread.sleep(1);
                    continue;
                }
                throw e;
            }
        }
        throw new AssertionError("never congested");
    }

    void congestedPortRefusesAndMonitorIsToldWhenItClears(NetNamespace sns, String saddr, NetNamespace rns, String raddr)
            throws Exception {
        try (RdsSocket rcv = rns.openRdsSocket(); RdsSocket snd = sns.openRdsSocket()) {
            rcv.setOption(SocketOption.SO_RCVBUF, 10_000); // rds_sk_rcvbuf: 10 000 bytes (doubled, halved)
            rcv.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(10));
            rcv.bind(addr(raddr, 7000 + 64 + 5)); // bit 5 of the monitor mask
            snd.bind(addr(saddr, 7001));
            snd.setOption(SocketOption.RDS_CONG_MONITOR, true);
            int sent = sendUntilNoBufs(snd, rcv.localAddress());
            // congested once more than 10 000 bytes wait: the 4th message; the sender learns it by the map update
            assertThat(sent).isGreaterThanOrEqualTo(4);
            assertThat(RdsProtocol.of(sns).statistics().get("s_cong_send_error")).isEqualTo(1);
            assertThat(snd.readyEvents() & Events.POLLIN).isZero();
            byte[] buf = new byte[MSG];
            for (int i = 0; i < sent; i++) {
                try {
                    assertThat(rcv.receive(buf, 0, buf.length).length()).isEqualTo(MSG);
                } catch (ErrnoException e) {
                    throw new AssertionError("message " + i + " of " + sent + "\n" + RdsProtocol.of(sns).statistics()
                            + RdsProtocol.of(sns).connections() + RdsProtocol.of(rns).statistics(), e);
                }
            }
            // uncongested: the monitor's receive returns the update first
            snd.setBlocking(true);
            snd.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(10));
            RdsSocket.Received u = snd.receive(buf, 0, buf.length);
            assertThat(u.isCongestionUpdate()).isTrue();
            assertThat(u.congestionMask()).isEqualTo(1L << ((7000 + 64 + 5) % 64));
            snd.send(buf, 0, 10, rcv.localAddress());
            assertThat(rcv.receive(buf, 0, buf.length).length()).isEqualTo(10);
        }
    }

    @Test
    void loopback() throws Exception {
        try (NetNamespace ns = NetNamespace.create("rds-cong")) {
            congestedPortRefusesAndMonitorIsToldWhenItClears(ns, "127.0.0.1", ns, "127.0.0.1");
            assertThat(ns.internalErrors()).isZero();
        }
    }

    @Test
    void overTcp() throws Exception {
        try (RdsPair p = new RdsPair()) {
            congestedPortRefusesAndMonitorIsToldWhenItClears(p.a, A, p.b, B);
            assertThat(p.rdsA().statistics().get("s_cong_update_received")).isGreaterThanOrEqualTo(3); // initial, on, off
            assertThat(p.rdsB().statistics().get("s_cong_update_queued")).isGreaterThanOrEqualTo(3);
            p.assertNoInternalErrors();
        }
    }

    @Test
    void blockingSenderWaitsForTheSlowReader() throws Exception {
        try (RdsPair p = new RdsPair(); RdsSocket rcv = p.b.openRdsSocket(); RdsSocket snd = p.a.openRdsSocket()) {
            rcv.setOption(SocketOption.SO_RCVBUF, 10_000);
            rcv.bind(addr(B, 7000));
            snd.bind(addr(A, 7001));
            int total = 400;
            AtomicInteger sent = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(1);
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    byte[] m = new byte[MSG];
                    for (int i = 0; i < total; i++) {
                        snd.send(m, 0, m.length, rcv.localAddress());
                        sent.incrementAndGet();
                    }
                    done.countDown();
                } catch (Exception e) {
                    // done stays closed
                }
            });
            // nobody reads: the sender stops once the port is congested, well before all went
            assertThat(RdsPair.await(() -> p.rdsA().statistics().get("s_cong_send_blocked") > 0)).isTrue();
            assertThat(done.await(50, TimeUnit.MILLISECONDS)).isFalse();
            assertThat(sent.get()).isLessThan(total);
            byte[] buf = new byte[MSG];
            for (int i = 0; i < total; i++) rcv.receive(buf, 0, buf.length);
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            t.join();
            p.assertNoInternalErrors();
        }
    }

    @Test
    void sendBufferFullIsEagainAndNoPollOut() throws Exception {
        try (RdsPair p = new RdsPair(); RdsSocket snd = RdsPair.open(p.a, A, 7001)) {
            snd.setOption(SocketOption.SO_SNDBUF, 5000); // rds_sk_sndbuf 5000
            snd.setBlocking(false);
            InetSocketAddress nobody = addr("10.0.0.3", 7000); // on the link, never answers: never UP
            snd.send(new byte[MSG], 0, MSG, nobody);
            snd.send(new byte[MSG], 0, MSG, nobody); // 3000 < 5000: admitted, now 6000
            ErrnoException e = org.junit.jupiter.api.Assertions.assertThrows(ErrnoException.class,
                    () -> snd.send(new byte[MSG], 0, MSG, nobody));
            assertThat(e.errno()).isEqualTo(Errno.EAGAIN);
            assertThat(p.rdsA().statistics().get("s_send_queue_full")).isEqualTo(1);
            assertThat(snd.readyEvents() & Events.POLLOUT).isZero();
            snd.setBlocking(true);
            snd.setOption(SocketOption.SO_SNDTIMEO, Duration.ofMillis(30));
            e = org.junit.jupiter.api.Assertions.assertThrows(ErrnoException.class,
                    () -> snd.send(new byte[MSG], 0, MSG, nobody));
            assertThat(e.errno()).as("SO_SNDTIMEO").isEqualTo(Errno.ETIMEDOUT);
            RdsConnection c = p.rdsA().connection(java.net.InetAddress.getByName(A), java.net.InetAddress.getByName("10.0.0.3"));
            assertThat(c.sendQueueSize()).isEqualTo(2);
            assertThat(c.state()).isNotEqualTo(RdsConnState.UP);
            snd.close();
            assertThat(c.sendQueueSize()).as("rds_send_drop_to on close").isZero();
            p.assertNoInternalErrors();
        }
    }
}
