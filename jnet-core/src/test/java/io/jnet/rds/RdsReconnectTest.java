package io.jnet.rds;

import static io.jnet.rds.RdsPair.A;
import static io.jnet.rds.RdsPair.B;
import static io.jnet.rds.RdsPair.addr;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.ErrnoException;
import io.jnet.socket.RdsSocket;
import io.jnet.socket.SocketOption;
import io.jnet.link.vxlan.VxlanDevice;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.RdsHeader;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Reconnects of the accepting side (connection.c rds_conn_shutdown, rds_queue_reconnect). */
@Timeout(120)
class RdsReconnectTest {

    /**
     * B's connection to A is made by an accept (c_outgoing 0) from a peer that reads nothing, so B's messages stay
     * unacknowledged; when that TCP connection is reset, B reconnects because messages wait, and A's RDS gets
     * every one of them.
     */
    @Test
    void acceptedSideWithQueuedMessagesReconnectsAndResends() throws Exception {
        try (RdsPair p = new RdsPair(); RdsSocket a = RdsPair.open(p.a, A, 6000);
             RdsSocket b = RdsPair.open(p.b, B, 7000)) {
            TcpSocket s = p.a.openTcpSocket();
            s.setOption(SocketOption.SO_RCVBUF, 4096); // reads nothing: B's messages stay unacknowledged
            s.connect(addr(B, RdsHeader.TCP_PORT));
            assertThat(RdsPair.await(() -> {
                try {
                    RdsConnection c = p.connB();
                    return c != null && c.state() == RdsConnState.UP;
                } catch (Exception e) {
                    return false;
                }
            })).isTrue();
            RdsConnection cb = p.connB();
            assertThat(cb.isOutgoing()).isFalse();
            b.setBlocking(false);
            int sent = 0;
            try {
                for (int i = 0; i < 1000; i++) {
                    byte[] m = RdsPair.message(7000, 6000, i, 1000);
                    b.send(m, 0, m.length, addr(A, 6000));
                    sent++;
                }
            } catch (ErrnoException e) {
                // the send buffer is full
            }
            assertThat(sent).isPositive();
            int queued = sent;
            assertThat(RdsPair.await(() -> cb.retransmitQueueSize() + cb.sendQueueSize() == queued)).isTrue();
            s.setOption(SocketOption.SO_LINGER, Duration.ZERO);
            s.close(); // RST

            RdsPair.Checker check = new RdsPair.Checker();
            byte[] buf = new byte[2000];
            a.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(10));
            try {
                for (int i = 0; i < sent; i++) {
                    RdsSocket.Received r = a.receive(buf, 0, buf.length);
                    check.check(buf, r.length(), r.sender(), 6000);
                }
            } catch (ErrnoException e) {
                throw new AssertionError("received " + check.received + " of " + sent + "\n" + p.dump(), e);
            }
            assertThat(check.errors).isEmpty();
            assertThat(RdsPair.await(() -> cb.state() == RdsConnState.UP && cb.retransmitQueueSize() == 0)).isTrue();
            p.assertNoInternalErrors();
        }
    }

    static final String LOW = "198.51.100.1", HIGH = "198.51.100.2";

    /** A node on a VXLAN device over a host UDP socket on 127.0.0.1: a peer that can die silently and restart. */
    record Node(NetNamespace ns, VxlanDevice dev) implements AutoCloseable {
        static Node open(String name, String ip, long mac, int udpPort, int remoteUdpPort) throws Exception {
            InetAddress lo = InetAddress.getLoopbackAddress();
            VxlanDevice v = VxlanDevice.builder("vx0").vni(42).macAddress(mac).learning(false)
                    .localAddress(new InetSocketAddress(lo, udpPort)).remote(new InetSocketAddress(lo, remoteUdpPort)).open();
            NetNamespace ns = NetNamespace.create(name);
            ns.attach(v);
            ns.addAddress("vx0", ip + "/24");
            return new Node(ns, v);
        }

        /** Dies as a killed process does: the device goes first, so nothing of the close reaches the peer. */
        @Override
        public void close() {
            dev.close();
            ns.close();
        }
    }

    /**
     * The lower address holds an idle UP connection to a higher-address peer that dies silently and restarts
     * with the same address: the restarted peer's connects lose the arbitration to the stale connection, so the
     * lower address probes it with a ping; the restarted peer's TCP answers with an RST, the stale connection
     * goes, and the restarted peer's message arrives.
     */
    @Test
    void restartedHigherPeerIsNotLockedOutByAnIdleStaleConnection() throws Exception {
        int highUdp;
        try (DatagramSocket probe = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            highUdp = probe.getLocalPort();
        }
        try (Node low = Node.open("low", LOW, 0x02_00_00_00_00_01L, 0, highUdp)) {
            int lowUdp = low.dev().localAddress().getPort();
            RdsSocket a = RdsPair.open(low.ns(), LOW, 5000);
            byte[] buf = new byte[100];
            try (Node high = Node.open("high1", HIGH, 0x02_00_00_00_00_02L, highUdp, lowUdp)) {
                RdsSocket b = RdsPair.open(high.ns(), HIGH, 7000);
                a.send(buf, 0, 10, addr(HIGH, 7000));
                assertThat(b.receive(buf, 0, buf.length).length()).isEqualTo(10);
                RdsConnection c = RdsProtocol.of(low.ns()).connection(InetAddress.getByName(LOW), InetAddress.getByName(HIGH));
                assertThat(RdsPair.await(() -> c.state() == RdsConnState.UP && c.retransmitQueueSize() == 0)).isTrue();
            }
            try (Node high = Node.open("high2", HIGH, 0x02_00_00_00_00_02L, highUdp, lowUdp)) {
                RdsSocket b = RdsPair.open(high.ns(), HIGH, 7000);
                byte[] hello = "hello".getBytes(StandardCharsets.US_ASCII);
                b.send(hello, 0, hello.length, addr(LOW, 5000));
                a.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(10));
                RdsSocket.Received r;
                try {
                    r = a.receive(buf, 0, buf.length);
                } catch (ErrnoException e) {
                    throw new AssertionError("the restarted peer's message did not arrive: "
                            + RdsProtocol.of(low.ns()).statistics(), e);
                }
                assertThat(new String(buf, 0, r.length(), StandardCharsets.US_ASCII)).isEqualTo("hello");
                assertThat(RdsProtocol.of(low.ns()).statistics().get("jnet_s_send_probe_ping")).isPositive();
            }
            assertThat(low.ns().internalErrors()).isZero();
        }
    }
}
