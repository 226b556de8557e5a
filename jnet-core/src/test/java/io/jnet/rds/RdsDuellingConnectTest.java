package io.jnet.rds;

import static io.jnet.rds.RdsFaultNet.counter;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.RdsSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Duelling connects (the seed's patch 1, rds_tcp_accept_one): both nodes connect to each other at the same
 * moment, round after round every 100 ms. Each round tears down the TCP connection on both sides (forged RSTs,
 * {@link TcpResetInjector}) and has both nodes send at once, so that both reconnect (both connections were
 * created by a send: c_outgoing on both sides) and their SYNs cross. After each round exactly one ESTABLISHED
 * TCP connection to or from port 16385 must be left on each node, the same one (the local/remote ports of one
 * are the remote/local ports of the other), and the round's messages must all have arrived, once and in order
 * per pair. The counters must show that the SYNs did cross: s_tcp_connect_raced on the node with the smaller
 * address (10.0.0.1 keeps its own connection and closes the accepted one).
 */
class RdsDuellingConnectTest {
    static final String A = "10.0.0.1";
    static final String B = "10.0.0.2";

    @Test
    @Timeout(60)
    void duellingConnectsLeaveOneConnection() throws Exception {
        run(Duration.ofSeconds(4));
    }

    @Test
    @Tag("long")
    @Timeout(300)
    void duellingConnectsForAMinute() throws Exception {
        run(Duration.ofMinutes(1));
    }

    private static void run(Duration length) throws Exception {
        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (NetNamespace a = NetNamespace.create("a"); NetNamespace b = NetNamespace.create("b")) {
            Topology.link(a, b, "eth0", A + "/24", B + "/24");
            TcpResetInjector injector = TcpResetInjector.interpose(a, "eth0", RdsFaultNet.RDS_TCP_PORT);
            List<RdsSocket> as = RdsFaultNet.sockets(a, A, 4000, 2, 1 << 20);
            List<RdsSocket> bs = RdsFaultNet.sockets(b, B, 4000, 2, 1 << 20);
            List<InetSocketAddress> aAddrs = RdsFaultNet.addresses(as);
            List<InetSocketAddress> bAddrs = RdsFaultNet.addresses(bs);
            try (RdsTraffic t = new RdsTraffic(21, RdsTraffic.mixed(8 << 10))) {
                for (RdsSocket s : as) t.startReceiver(s, false);
                for (RdsSocket s : bs) t.startReceiver(s, false);
                CyclicBarrier together = new CyclicBarrier(2);
                byte[] bufA = new byte[RdsSocket.MAX_MESSAGE_SIZE];
                byte[] bufB = new byte[RdsSocket.MAX_MESSAGE_SIZE];
                int rounds = 0;
                int resetRounds = 0;
                int aWon = 0;
                long end = System.nanoTime() + length.toNanos();
                while (System.nanoTime() < end) {
                    long roundStart = System.nanoTime();
                    if (rounds > 0 && tearDown(a, injector)) resetRounds++;
                    Future<?> fa = pool.submit(() -> {
                        together.await();
                        for (RdsSocket s : as) t.sendNext(s, bAddrs, 3, bufA);
                        return null;
                    });
                    Future<?> fb = pool.submit(() -> {
                        together.await();
                        for (RdsSocket s : bs) t.sendNext(s, aAddrs, 3, bufB);
                        return null;
                    });
                    fa.get(10, TimeUnit.SECONDS);
                    fb.get(10, TimeUnit.SECONDS);
                    int round = rounds;
                    boolean settled = RdsFaultNet.await(() -> t.allArrivedNow() && oneSharedConnection(a, b), 5_000);
                    if (settled) { // and it stays so: no late loser left behind
                        Thread.sleep(10);
                        settled = oneSharedConnection(a, b);
                    }
                    if (settled && RdsFaultNet.rdsConnections(a).getFirst().endsWith(":" + RdsFaultNet.RDS_TCP_PORT)) aWon++;
                    assertThat(t.failures()).isEmpty();
                    assertThat(settled).as("round %d: all delivered (%s) and one shared connection:%n a %s%n b %s%n%s%n%s%n%s",
                            round, t.allArrivedNow(), RdsFaultNet.allConnections(a), RdsFaultNet.allConnections(b),
                            RdsFaultNet.describe(a), RdsFaultNet.describe(b), t.report()).isTrue();
                    rounds++;
                    long sleep = TimeUnit.MILLISECONDS.toNanos(100) - (System.nanoTime() - roundStart);
                    if (sleep > 0) TimeUnit.NANOSECONDS.sleep(sleep);
                }
                long raced = counter(a, "s_tcp_connect_raced") + counter(b, "s_tcp_connect_raced");
                System.out.printf("RDS duelling connects: %d rounds (%d with resets, %d left a's connection) in %.1f s, %d messages;"
                                + " a: s_tcp_connect_raced %d s_conn_reset %d; b: s_tcp_connect_raced %d s_conn_reset %d;"
                                + " RSTs forged %d%n", rounds, resetRounds, aWon, (System.nanoTime() - start) / 1e9, t.accepted(),
                        counter(a, "s_tcp_connect_raced"), counter(a, "s_conn_reset"),
                        counter(b, "s_tcp_connect_raced"), counter(b, "s_conn_reset"), injector.injected());
                long perPair = 3L * rounds;
                assertThat(t.accounts()).hasSize(8).allSatisfy(acc -> {
                    assertThat(acc.clean()).as(acc.toString()).isTrue();
                    assertThat(acc.accepted()).as(acc.toString()).isEqualTo(acc.sent()).isEqualTo(perPair);
                });
                assertThat(resetRounds).as("rounds whose connection was torn down").isEqualTo(rounds - 1);
                assertThat(counter(a, "s_conn_reset")).isGreaterThanOrEqualTo(resetRounds);
                // b's end was reset too, or replaced by a's new connection before the RST got to it
                assertThat(counter(b, "s_conn_reset") + counter(b, "s_tcp_listen_closed_stale")).isPositive();
                assertThat(raced).as("SYNs crossed (s_tcp_connect_raced)").isPositive();
                assertThat(a.internalErrors()).isZero();
                assertThat(b.internalErrors()).isZero();
            } finally {
                RdsFaultNet.close(as);
                RdsFaultNet.close(bs);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Forges RSTs to both ends of the connection until a's end took one (s_conn_reset on a; a RST that data crossed
     * draws a challenge ACK instead); false when 20 tries did not.
     */
    static boolean tearDown(NetNamespace a, TcpResetInjector injector) throws InterruptedException {
        long before = counter(a, "s_conn_reset");
        for (int attempt = 0; attempt < 20; attempt++) {
            RdsFaultNet.await(() -> !injector.liveConnections().isEmpty(), 2_000);
            if (injector.resetBoth() > 0 && RdsFaultNet.await(() -> counter(a, "s_conn_reset") > before, 200)) return true;
        }
        return false;
    }

    /** Exactly one RDS TCP connection on each node, the same one seen from both ends. */
    static boolean oneSharedConnection(NetNamespace a, NetNamespace b) {
        List<String> ca = RdsFaultNet.rdsConnections(a);
        List<String> cb = RdsFaultNet.rdsConnections(b);
        return ca.size() == 1 && cb.size() == 1 && RdsFaultNet.reverse(ca.getFirst()).equals(cb.getFirst());
    }
}
