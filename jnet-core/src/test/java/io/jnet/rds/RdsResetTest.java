package io.jnet.rds;

import static io.jnet.rds.RdsPair.A;
import static io.jnet.rds.RdsPair.B;
import static io.jnet.rds.RdsPair.addr;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.RdsSocket;
import io.jnet.socket.SocketOption;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Resets, reconnects and duelling connects (connection.c, tcp_listen.c rds_tcp_accept_one, send.c resend). */
@Timeout(120)
class RdsResetTest {

    static boolean up(RdsPair p) {
        try {
            RdsConnection a = p.connA(), b = p.connB();
            return a != null && b != null && a.state() == RdsConnState.UP && b.state() == RdsConnState.UP
                    && a.tcpLocalAddress() != null && a.tcpLocalAddress().equals(b.tcpRemoteAddress())
                    && a.tcpRemoteAddress().equals(b.tcpLocalAddress());
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void resetsInTheMiddleLoseNothingAndDuplicatesAreDropped() throws Exception {
        try (RdsPair p = new RdsPair()) {
            List<RdsSocket> as = new ArrayList<>(), bs = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                as.add(RdsPair.open(p.a, A, 5000 + i));
                bs.add(RdsPair.open(p.b, B, 6000 + i));
            }
            AtomicBoolean stop = new AtomicBoolean();
            Thread resetter = Thread.ofPlatform().start(() -> {
                try {
                    int k = 0;
                    while (!stop.get()) {
                        Thread.sleep(15);
                        RdsConnection c = (k++ & 1) == 0 ? p.connA() : p.connB();
                        if (c != null && c.state() == RdsConnState.UP) c.drop();
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            List<String> errors;
            try {
                errors = RdsPair.exchange(as, bs, 1500, 8000);
            } catch (AssertionError e) {
                throw new AssertionError(p.dump(), e);
            } finally {
                stop.set(true);
                resetter.join();
            }
            assertThat(errors).isEmpty();
            RdsStatistics sa = p.rdsA().statistics(), sb = p.rdsB().statistics();
            assertThat(sa.get("s_conn_reset") + sb.get("s_conn_reset")).as("resets happened").isPositive();
            assertThat(sa.get("jnet_s_send_retransmitted") + sb.get("jnet_s_send_retransmitted")).isPositive();
            assertThat(RdsPair.await(() -> up(p))).as("one TCP connection again, the same on both sides").isTrue();
            p.assertNoInternalErrors();
        }
    }

    @Test
    void duellingConnectsLeaveOneConnectionMadeByTheLowerAddress() throws Exception {
        int raced = 0;
        for (int round = 0; round < 15; round++) {
            try (RdsPair p = new RdsPair()) {
                RdsSocket a = RdsPair.open(p.a, A, 5000), b = RdsPair.open(p.b, B, 6000);
                CountDownLatch go = new CountDownLatch(1);
                Thread ta = Thread.ofPlatform().start(() -> sendAfter(go, a, addr(B, 6000)));
                Thread tb = Thread.ofPlatform().start(() -> sendAfter(go, b, addr(A, 5000)));
                go.countDown();
                ta.join();
                tb.join();
                byte[] buf = new byte[100];
                try {
                    for (int i = 0; i < 20; i++) {
                        assertThat(a.receive(buf, 0, 100).sender()).isEqualTo(addr(B, 6000));
                        assertThat(b.receive(buf, 0, 100).sender()).isEqualTo(addr(A, 5000));
                    }
                } catch (java.io.IOException e) {
                    throw new AssertionError("round " + round + "\n" + p.dump(), e);
                }
                assertThat(RdsPair.await(() -> up(p))).as("round %d: both UP on one TCP connection", round).isTrue();
                RdsConnection ca = p.connA(), cb = p.connB();
                // c_outgoing: each side's, unless the other's connection was accepted before its own send
                assertThat(ca.isOutgoing() || cb.isOutgoing()).isTrue();
                // when the two connects crossed, the lower address kept its own (rds_tcp_accept_one): A refused
                // B's and connected to B's 16385 (when A's connect had not started yet, it took B's instead)
                if (p.rdsA().statistics().get("s_tcp_connect_raced") > 0) {
                    raced++;
                    assertThat(ca.tcpRemoteAddress().getPort()).as("round %d", round).isEqualTo(16385);
                    assertThat(cb.tcpLocalAddress().getPort()).isEqualTo(16385);
                }
                assertThat(p.rdsB().statistics().get("s_tcp_connect_raced")).as("the higher address never refuses").isZero();
                // and it stays so: more traffic on the same connection
                InetSocketAddress before = ca.tcpLocalAddress();
                a.send(buf, 0, 10, addr(B, 6000));
                assertThat(b.receive(buf, 0, 100).length()).isEqualTo(10);
                assertThat(ca.tcpLocalAddress()).isEqualTo(before);
                p.assertNoInternalErrors();
            }
        }
        System.out.println("duelling connects: " + raced + " of 15 rounds crossed");
    }

    static void sendAfter(CountDownLatch go, RdsSocket s, InetSocketAddress to) {
        try {
            go.await();
            for (int i = 0; i < 20; i++) s.send(new byte[10], 0, 10, to);
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    @Test
    void onlyTheOutgoingSideReconnects() throws Exception {
        try (RdsPair p = new RdsPair()) {
            RdsSocket a = RdsPair.open(p.a, A, 5000), b = RdsPair.open(p.b, B, 6000);
            byte[] buf = new byte[100];
            a.send(buf, 0, 5, addr(B, 6000));
            b.receive(buf, 0, 100);
            assertThat(RdsPair.await(() -> up(p))).isTrue();
            RdsStatistics sa = p.rdsA().statistics(), sb = p.rdsB().statistics();
            assertThat(sa.get("jnet_s_conn_connect")).isEqualTo(1);
            RdsConnection ca = p.connA(), cb = p.connB();
            InetSocketAddress first = ca.tcpLocalAddress();
            cb.drop(); // the passive side resets: it waits, the outgoing side reconnects
            assertThat(RdsPair.await(() -> up(p) && !first.equals(ca.tcpLocalAddress()))).isTrue();
            assertThat(sa.get("jnet_s_conn_connect")).isEqualTo(2);
            assertThat(sb.get("jnet_s_conn_connect")).as("passive side never connects").isZero();
            assertThat(sb.get("s_conn_reset")).isEqualTo(1);
            assertThat(p.connA().reconnectJitterNanos()).as("back to 0 once UP").isZero();
            InetSocketAddress second = ca.tcpLocalAddress();
            ca.drop(); // the outgoing side resets: it reconnects itself
            assertThat(RdsPair.await(() -> up(p) && !second.equals(ca.tcpLocalAddress()))).isTrue();
            assertThat(sb.get("jnet_s_conn_connect")).isZero();
            b.send(buf, 0, 7, addr(A, 5000));
            assertThat(a.receive(buf, 0, 100).length()).isEqualTo(7);
            p.assertNoInternalErrors();
        }
    }

    @Test
    void refusedConnectsBackOffWithDoublingJitterUpToOneSecond() throws Exception {
        try (RdsPair p = new RdsPair()) {
            RdsSocket a = RdsPair.open(p.a, A, 5000); // b has no RDS socket: no listener, connects are refused
            a.send(new byte[5], 0, 5, addr(B, 6000));
            assertThat(RdsPair.await(() -> {
                try {
                    return p.connA().reconnectJitterNanos() >= 256_000_000L;
                } catch (Exception e) {
                    return false;
                }
            })).isTrue();
            long attempts = p.rdsA().statistics().get("jnet_s_conn_connect");
            assertThat(attempts).isBetween(9L, 40L); // 1 ms, 2, 4 ... 256 ms: about 9 attempts, randomly earlier
            assertThat(p.connA().reconnectJitterNanos()).isLessThanOrEqualTo(RdsConnection.RECONNECT_MAX_NANOS);
            RdsSocket b = RdsPair.open(p.b, B, 6000); // the listener opens: the next attempt succeeds
            assertThat(b.receive(new byte[10], 0, 10).length()).isEqualTo(5);
            assertThat(p.connA().reconnectJitterNanos()).isZero();
            p.assertNoInternalErrors();
        }
    }

    @Test
    void tcpSysctlsSetTheBuffersAndMsgMoreOffStillWorks() throws Exception {
        try (RdsPair p = new RdsPair()) {
            p.a.sysctl().set("net.rds.tcp.rds_tcp_sndbuf", "100000");
            p.a.sysctl().set("net.rds.tcp.rds_tcp_rcvbuf", "90000");
            p.a.sysctl().set("net.rds.tcp.jnet_msg_more", "0");
            p.b.sysctl().set("net.rds.tcp.jnet_msg_more", "0");
            RdsSocket a = RdsPair.open(p.a, A, 5000), b = RdsPair.open(p.b, B, 6000);
            List<String> errors = RdsPair.exchange(List.of(a), List.of(b), 200, 30000);
            assertThat(errors).isEmpty();
            io.jnet.socket.TcpSocket t = p.connA().tc.socket();
            // exactly the bytes set, not doubled as SO_SNDBUF (rds_tcp_tune assigns sk_sndbuf)
            assertThat(t.getOption(SocketOption.SO_SNDBUF)).isEqualTo(100000);
            assertThat(t.getOption(SocketOption.SO_RCVBUF)).isEqualTo(90000);
            assertThat(p.connB().tc.socket().getOption(SocketOption.SO_SNDBUF))
                    .as("b's defaults: left to TCP").isNotEqualTo(100000);
            p.assertNoInternalErrors();
        }
    }
}
