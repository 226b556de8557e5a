package io.jnet.rds;

import static io.jnet.rds.RdsFaultNet.counter;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.link.impair.Direction;
import io.jnet.link.impair.ImpairedDevice;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.link.vxlan.VxlanDevice;
import io.jnet.socket.RdsSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RDS over an impaired link: two namespaces joined by VXLAN devices over host UDP on 127.0.0.1 (one JVM), each
 * behind jnet's impairment device (loss, duplication and reordering, both directions, fixed seeds). Three
 * sockets on each side send messages of mixed sizes, 1 byte to 1 MiB, to the three of the other side: every
 * message must arrive once, in order and intact per (sender, receiver) pair, within a bounded time; the
 * impairment counters and TCP's retransmissions show the link did lose, duplicate and reorder.
 */
class RdsImpairedLinkTest {
    static final String A = "198.51.100.1";
    static final String B = "198.51.100.2";
    static final String IMPAIRMENT = "loss=1%,dup=1%,reorder=1%,reorder-gap=3,reorder-delay=5ms";

    @Test
    @Timeout(90)
    void mixedSizesBothWaysThroughLossAndReordering() throws Exception {
        run(IMPAIRMENT, 150, Duration.ofSeconds(40));
    }

    /** About 0.5 MB/s get through this one (measured: 315 MB in 600 s), so 5400 messages, some 115 MB, in 600 s. */
    @Test
    @Tag("long")
    @Timeout(900)
    void manyMessagesThroughHeavierLoss() throws Exception {
        run("loss=3%,dup=2%,reorder=3%,reorder-gap=5,reorder-delay=10ms", 300, Duration.ofSeconds(600));
    }

    /**
     * @param perPair messages per (sender, receiver) pair; 18 pairs
     * @param bound the time the whole run may take
     */
    private static void run(String impairment, int perPair, Duration bound) throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (NetNamespace a = NetNamespace.create("a"); NetNamespace b = NetNamespace.create("b");
             VxlanDevice va = VxlanDevice.builder("vx0").vni(42).learning(false).localAddress(new InetSocketAddress(lo, 0)).open();
             VxlanDevice vb = VxlanDevice.builder("vx0").vni(42).learning(false).localAddress(new InetSocketAddress(lo, 0))
                     .remote(va.localAddress()).open()) {
            va.addFloodRemote(vb.localAddress());
            a.attach(va);
            b.attach(vb);
            a.addAddress("vx0", A + "/24");
            b.addAddress("vx0", B + "/24");
            ImpairedDevice ia = ImpairedDevice.interpose(a, "vx0", ImpairmentConfig.parse(impairment + ",seed=41"));
            ImpairedDevice ib = ImpairedDevice.interpose(b, "vx0", ImpairmentConfig.parse(impairment + ",seed=42"));
            List<RdsSocket> as = RdsFaultNet.sockets(a, A, 4000, 3, 4 << 20);
            List<RdsSocket> bs = RdsFaultNet.sockets(b, B, 4000, 3, 4 << 20);
            long start = System.nanoTime();
            try (RdsTraffic t = new RdsTraffic(41, RdsTraffic.mixed(RdsSocket.MAX_MESSAGE_SIZE))) {
                for (RdsSocket s : as) t.startReceiver(s, false);
                for (RdsSocket s : bs) t.startReceiver(s, false);
                for (RdsSocket s : as) t.startSender(s, RdsFaultNet.addresses(bs), perPair);
                for (RdsSocket s : bs) t.startSender(s, RdsFaultNet.addresses(as), perPair);
                boolean delivered = t.awaitDelivered(bound);
                double secs = (System.nanoTime() - start) / 1e9;
                System.out.printf("RDS over an impaired VXLAN link (%s): %d messages, %d bytes in %.1f s;"
                                + " TCP retransmitted a %d b %d; s_conn_reset a %d b %d%n", impairment, t.accepted(),
                        t.bytesReceived(), secs, a.mib().get(MibCounter.TcpRetransSegs), b.mib().get(MibCounter.TcpRetransSegs),
                        counter(a, "s_conn_reset"), counter(b, "s_conn_reset"));
                for (Direction dir : Direction.values()) {
                    System.out.println("a " + dir + ": " + ia.counts(dir).summary() + "\nb " + dir + ": " + ib.counts(dir).summary());
                }
                System.out.print(t.report());

                assertThat(t.failures()).isEmpty();
                assertThat(delivered).as("everything delivered within %s:%n%s", bound, t.report()).isTrue();
                assertThat(t.accounts()).hasSize(18).allSatisfy(acc -> {
                    assertThat(acc.clean()).as(acc.toString()).isTrue();
                    assertThat(acc.accepted()).as(acc.toString()).isEqualTo(acc.sent()).isEqualTo(perPair);
                });
                for (ImpairedDevice d : List.of(ia, ib)) {
                    for (Direction dir : Direction.values()) {
                        assertThat(d.counts(dir).dropped()).as("%s %s dropped", d, dir).isPositive();
                        assertThat(d.counts(dir).duplicated()).as("%s %s duplicated", d, dir).isPositive();
                        assertThat(d.counts(dir).reordered()).as("%s %s reordered", d, dir).isPositive();
                    }
                }
                assertThat(a.mib().get(MibCounter.TcpRetransSegs) + b.mib().get(MibCounter.TcpRetransSegs)).isPositive();
                assertThat(a.internalErrors()).isZero();
                assertThat(b.internalErrors()).isZero();
            } finally {
                RdsFaultNet.close(as);
                RdsFaultNet.close(bs);
            }
        }
    }
}
