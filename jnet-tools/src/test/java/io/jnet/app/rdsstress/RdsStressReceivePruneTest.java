package io.jnet.app.rdsstress;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.net.InetAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reproduction for the RDS transport and TCP underneath it: 16 tasks with 16 requests of 100000 bytes in
 * flight each (about 25 MB offered to the one TCP connection of the pair), default sysctls, both sides on a veth
 * pair. Every message must arrive, the passive side's TCP must not drop in-order data it had advertised window
 * for (TcpExtRcvPruned, TcpExtTCPRcvQDrop), and the active side must take no retransmission timeout
 * (TcpExtTCPTimeouts).
 *
 * <p>It used to fail: once the passive side's buffer was at net.ipv4.tcp_rmem[2] and its window small, the
 * active side cut its 64 KiB segments down to the window (TcpOutput.split) and each cut kept the charge of its
 * whole array, which the veth hands to the receiver as it is; a few KiB of window let in tens of KiB of charge,
 * so in-order data was dropped and each drop cost a retransmission timeout. A split now moves the charge with
 * the bytes, as Linux's tcp_fragment (TcpReceiveWindowChargeTest is the same without RDS).
 */
@Timeout(120)
class RdsStressReceivePruneTest {
    @Test
    void manyTasksOfLargeRequestsDoNotMakeTheReceiverDropInOrderData() throws Exception {
        StressConfig c = new StressConfig(100_000, 256, 16, 16, 3, false, 4000, false, Duration.ofSeconds(10),
                Duration.ofSeconds(10));
        try (NetNamespace a = NetNamespace.create("rds-active"); NetNamespace b = NetNamespace.create("rds-passive")) {
            Topology.link(a, b, "eth0", "192.0.2.1/24", "192.0.2.2/24");
            int buffer = c.socketBuffer(a.sysctl().wmemDefault.intValue());
            for (NetNamespace ns : new NetNamespace[] {a, b}) {
                ns.sysctl().set("net.core.wmem_max", Integer.toString(buffer));
                ns.sysctl().set("net.core.rmem_max", Integer.toString(buffer));
            }
            InetAddress aAddr = InetAddress.getByName("192.0.2.1");
            InetAddress bAddr = InetAddress.getByName("192.0.2.2");
            StressResult r;
            try (StressPassive p = new StressPassive(c, b::openRdsSocket, bAddr, 212992);
                 StressActive act = new StressActive(c, a::openRdsSocket, aAddr, bAddr, 212992)) {
                p.start();
                r = act.run((line, tasks) -> { });
            }
            assertThat(r.ok()).as(r.verdictLine() + " " + r.problems()).isTrue();
            assertThat(b.mib().get(MibCounter.TcpExtTCPRcvQDrop)).as("in-order data dropped by the receiver").isZero();
            assertThat(b.mib().get(MibCounter.TcpExtRcvPruned)).as("receive queue pruned").isZero();
            assertThat(a.mib().get(MibCounter.TcpExtTCPTimeouts)).as("retransmission timeouts of the sender").isZero();
        }
    }
}
