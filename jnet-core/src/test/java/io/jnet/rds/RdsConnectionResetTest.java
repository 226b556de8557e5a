package io.jnet.rds;

import static io.jnet.rds.RdsFaultNet.counter;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.RdsSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RDS over TCP keeps its promise across resets of the TCP connection underneath: while three sockets on each
 * of two namespaces (joined by a veth pair) stream numbered messages to the three of the other, the connection
 * is reset again and again by forged RSTs ({@link TcpResetInjector}: to one side, the other, or both, in turn).
 * Every message must arrive exactly once and in order per (sender, receiver) pair, and the counters must show
 * that the resets happened (s_conn_reset) and that resent messages the receiver already had were dropped
 * (s_recv_drop_old_seq, Linux's rds_recv_incoming).
 */
class RdsConnectionResetTest {
    static final String A = "10.0.0.1";
    static final String B = "10.0.0.2";

    @Test
    @Timeout(60)
    void everyMessageOnceAndInOrderAcrossResets() throws Exception {
        run(20, 300, Duration.ofSeconds(30));
    }

    @Test
    @Tag("long")
    @Timeout(600)
    void everyMessageOnceAndInOrderAcrossManyResets() throws Exception {
        run(300, 1000, Duration.ofSeconds(300));
    }

    /**
     * The higher address loses its end of an idle connection (a RST to it alone; so would a restart) while the
     * lower address keeps its end, everything on it acknowledged. When the higher address then sends, its connects
     * must get through: the lower address may not keep closing them as raced for a connection that is gone.
     */
    @Test
    @Timeout(30)
    void aStaleIdleConnectionGivesWayWhenTheHigherAddressConnects() throws Exception {
        try (NetNamespace a = NetNamespace.create("a"); NetNamespace b = NetNamespace.create("b")) {
            Topology.link(a, b, "eth0", A + "/24", B + "/24");
            TcpResetInjector injector = TcpResetInjector.interpose(a, "eth0", RdsFaultNet.RDS_TCP_PORT);
            List<RdsSocket> as = RdsFaultNet.sockets(a, A, 4000, 1, 1 << 16);
            List<RdsSocket> bs = RdsFaultNet.sockets(b, B, 4000, 1, 1 << 16);
            try (RdsTraffic t = new RdsTraffic(12, RdsTraffic.fixed(100))) {
                t.startReceiver(as.getFirst(), false);
                t.startReceiver(bs.getFirst(), false);
                byte[] buf = new byte[RdsSocket.MAX_MESSAGE_SIZE];
                t.sendNext(as.getFirst(), RdsFaultNet.addresses(bs), 5, buf); // a's send makes the connection
                assertThat(RdsFaultNet.await(t::allArrivedNow, 5_000)).isTrue();
                // b's end came from the accept: with nothing to send it does not reconnect by itself after the reset
                assertThat(RdsProtocol.of(b).connections().getFirst().isOutgoing()).isFalse();
                t.sendNext(bs.getFirst(), RdsFaultNet.addresses(as), 5, buf);
                assertThat(RdsFaultNet.await(t::allArrivedNow, 5_000)).isTrue();
                assertThat(RdsFaultNet.await(() -> RdsProtocol.of(a).connections().getFirst().retransmitQueueSize() == 0
                        && RdsProtocol.of(b).connections().getFirst().retransmitQueueSize() == 0, 5_000)).as("idle").isTrue();

                boolean gone = false;
                for (int attempt = 0; attempt < 20 && !gone; attempt++) {
                    injector.resetFar();
                    gone = RdsFaultNet.await(() -> counter(b, "s_conn_reset") > 0, 200);
                }
                assertThat(gone).as("b's end reset").isTrue();
                assertThat(RdsFaultNet.rdsConnections(a)).as("a still holds its end").hasSize(1);

                t.sendNext(bs.getFirst(), RdsFaultNet.addresses(as), 5, buf);
                boolean arrived = RdsFaultNet.await(t::allArrivedNow, 10_000);
                System.out.println("stale idle connection: arrived " + arrived + "\n" + RdsFaultNet.describe(a) + "\n"
                        + RdsFaultNet.describe(b));
                assertThat(arrived).as("b's messages after its end was lost:%n%s%n%s%n%s", t.report(),
                        RdsFaultNet.describe(a), RdsFaultNet.describe(b)).isTrue();
                assertThat(t.accounts()).allSatisfy(acc -> assertThat(acc.clean()).as(acc.toString()).isTrue());
                assertThat(counter(a, "s_conn_reset")).as("a's stale end went").isPositive();
                assertThat(RdsDuellingConnectTest.oneSharedConnection(a, b)).isTrue();
            } finally {
                RdsFaultNet.close(as);
                RdsFaultNet.close(bs);
            }
        }
    }

    /**
     * @param resets connection resets to cause while the messages flow
     * @param between messages to arrive (over all pairs) before each reset, and after the last
     */
    private static void run(int resets, int between, Duration limit) throws Exception {
        long start = System.nanoTime();
        try (NetNamespace a = NetNamespace.create("a"); NetNamespace b = NetNamespace.create("b")) {
            Topology.link(a, b, "eth0", A + "/24", B + "/24");
            TcpResetInjector injector = TcpResetInjector.interpose(a, "eth0", RdsFaultNet.RDS_TCP_PORT);
            List<RdsSocket> as = RdsFaultNet.sockets(a, A, 4000, 3, 1 << 20);
            List<RdsSocket> bs = RdsFaultNet.sockets(b, B, 4000, 3, 1 << 20);
            try (RdsTraffic t = new RdsTraffic(11, RdsTraffic.mixed(64 << 10))) {
                for (RdsSocket s : as) t.startReceiver(s, false);
                for (RdsSocket s : bs) t.startReceiver(s, false);
                for (RdsSocket s : as) t.startSender(s, RdsFaultNet.addresses(bs), Long.MAX_VALUE);
                for (RdsSocket s : bs) t.startSender(s, RdsFaultNet.addresses(as), Long.MAX_VALUE);

                List<String> done = new ArrayList<>();
                for (int i = 0; i <= resets && t.failures().isEmpty(); i++) {
                    // let some messages through since the last reset, so each reset hits a flowing connection
                    long progress = t.accepted() + between;
                    if (!RdsFaultNet.await(() -> t.accepted() >= progress, 10_000)) break;
                    if (i == resets) break;
                    long before = counter(a, "s_conn_reset") + counter(b, "s_conn_reset");
                    boolean hit = false;
                    for (int attempt = 0; attempt < 20 && !hit; attempt++) {
                        // a connection to reset: the last one may still be going (shutdown, reconnect)
                        RdsFaultNet.await(() -> !injector.liveConnections().isEmpty(), 2_000);
                        int n = switch (i % 3) {
                            case 0 -> injector.resetNear();
                            case 1 -> injector.resetFar();
                            default -> injector.resetBoth();
                        };
                        hit = n > 0 && RdsFaultNet.await(() -> counter(a, "s_conn_reset") + counter(b, "s_conn_reset") > before, 200);
                    }
                    if (hit) done.add(i % 3 == 0 ? "a" : i % 3 == 1 ? "b" : "both");
                    else System.out.println("reset " + i + " missed: " + injector.describe() + "\n" + RdsFaultNet.allConnections(a)
                            + "\n" + RdsFaultNet.allConnections(b) + "\n" + RdsFaultNet.describe(a) + "\n" + RdsFaultNet.describe(b));
                }
                t.stopSending();
                boolean delivered = t.awaitDelivered(limit);
                System.out.printf("RDS across %d resets (%s): %d messages, %d bytes, %.1f s%n", done.size(), done,
                        t.accepted(), t.bytesReceived(), (System.nanoTime() - start) / 1e9);
                System.out.print(t.report());
                System.out.println("a: s_conn_reset " + counter(a, "s_conn_reset") + " s_recv_drop_old_seq "
                        + counter(a, "s_recv_drop_old_seq") + "; b: s_conn_reset " + counter(b, "s_conn_reset")
                        + " s_recv_drop_old_seq " + counter(b, "s_recv_drop_old_seq") + "; RSTs forged " + injector.injected());

                assertThat(t.failures()).isEmpty();
                assertThat(delivered).as("everything delivered within %s:%n%s", limit, t.report()).isTrue();
                assertThat(t.accepted()).isEqualTo(t.sent()).isGreaterThanOrEqualTo((resets + 1L) * between);
                assertThat(t.accounts()).hasSize(18).allSatisfy(acc -> {
                    assertThat(acc.clean()).as(acc.toString()).isTrue();
                    assertThat(acc.accepted()).as(acc.toString()).isEqualTo(acc.sent()).isPositive();
                });
                assertThat(done).as("resets that took effect").hasSize(resets);
                assertThat(counter(a, "s_conn_reset") + counter(b, "s_conn_reset")).isGreaterThanOrEqualTo(resets);
                assertThat(counter(a, "s_recv_drop_old_seq") + counter(b, "s_recv_drop_old_seq"))
                        .as("resent messages the receiver already had were dropped").isPositive();
                assertThat(a.internalErrors()).isZero();
                assertThat(b.internalErrors()).isZero();
            } finally {
                RdsFaultNet.close(as);
                RdsFaultNet.close(bs);
            }
        }
    }
}
