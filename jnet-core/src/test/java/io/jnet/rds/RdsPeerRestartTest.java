package io.jnet.rds;

import static io.jnet.rds.RdsFaultNet.counter;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.link.vxlan.VxlanDevice;
import io.jnet.socket.RdsSocket;
import io.jnet.socket.SocketOption;
import io.jnet.stack.NetNamespace;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer JVM killed and restarted. A child JVM ({@link RdsEchoNode}) runs an RDS node on a VXLAN device over a
 * host UDP socket on 127.0.0.1 and returns every message to its sender; this JVM's node, on its own VXLAN
 * device, sends a numbered stream from two sockets to the child's two, kills the child (destroyForcibly) in the
 * middle of the stream, starts it again on the same UDP port and MAC, and goes on sending.
 *
 * <p>What RDS promises across a peer restart, as Linux: delivery once and in order only while the peer lives.
 * A message the dead peer had taken (its TCP acknowledged it) but not yet returned is lost, without an error to
 * the sender; messages it had not acknowledged stay in the sender's retransmit queue and are resent to the new
 * incarnation after the reconnect (flagged retransmitted; the new incarnation's sequence state starts fresh,
 * so it takes them). So what the test asserts of the returned messages, per (sender, receiver) pair: none
 * duplicated, none reordered, none damaged; what is missing is one contiguous range per kill at most (what the
 * dead peer swallowed), and everything after it came back (the stream resumed, and all the messages sent
 * after the restart arrived). It also asserts that the sender's connection was reset and reconnected by the
 * sender (its connection is the outgoing one: its sends made it), and that afterwards one TCP connection carries
 * it, the same on both nodes (this node's reconnect, or the restarted child's own connect, whichever the
 * arbitration kept: the child connects too, to send its hello).
 *
 * <p>RDS has no keepalive (nor has Linux's connecting side): when every message to the dead peer was acknowledged and
 * the senders wait on its congestion map (it was congested when it died), nothing is in flight to find the dead
 * connection. So each incarnation of the child sends a hello when it starts, as a rejoining cluster node would
 * ({@link RdsEchoNode}); the test checks that every hello arrives, and that the stream resumes after it. The
 * first incarnation is quiet, so that this node's sends make the connection (c_outgoing here).
 */
class RdsPeerRestartTest {
    static final String LOCAL = "198.51.100.1";
    static final String PEER = "198.51.100.2";
    static final long PEER_MAC = 0x02_00_00_00_00_02L;

    @Test
    @Timeout(90)
    void echoedStreamResumesAfterThePeerRestarts() throws Exception {
        run(1, 1000);
    }

    @Test
    @Tag("long")
    @Timeout(600)
    void echoedStreamResumesAfterManyPeerRestarts() throws Exception {
        run(8, 3000);
    }

    private static void run(int kills, int echoesBetween) throws Exception {
        long start = System.nanoTime();
        InetAddress lo = InetAddress.getLoopbackAddress();
        int peerUdp;
        try (DatagramSocket probe = new DatagramSocket(0, lo)) {
            peerUdp = probe.getLocalPort();
        }
        try (NetNamespace ns = NetNamespace.create("local");
             VxlanDevice v = VxlanDevice.builder("vx0").vni(42).learning(false)
                     .localAddress(new InetSocketAddress(lo, 0)).remote(new InetSocketAddress(lo, peerUdp)).open()) {
            ns.attach(v);
            ns.addAddress("vx0", LOCAL + "/24");
            List<RdsSocket> mine = RdsFaultNet.sockets(ns, LOCAL, 5000, 2, 1 << 20);
            RdsSocket hellos = RdsFaultNet.sockets(ns, LOCAL, 5999, 1, 1 << 16).getFirst();
            hellos.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(20));
            List<InetSocketAddress> peers = List.of(new InetSocketAddress(PEER, 7000), new InetSocketAddress(PEER, 7001));
            List<String> childArgs = List.of(Integer.toString(peerUdp), Integer.toString(v.localAddress().getPort()),
                    Long.toHexString(PEER_MAC), PEER, "7000", "2");
            List<String> restartArgs = new ArrayList<>(childArgs);
            restartArgs.add(LOCAL + ":5999");
            Child child = Child.start(childArgs); // quiet: this node's first send makes the connection (outgoing)
            try (RdsTraffic t = new RdsTraffic(31, RdsTraffic.atLeast(RdsTraffic.HEADER, RdsTraffic.mixed(16 << 10)))) {
                for (RdsSocket s : mine) t.startReceiver(s, true);
                for (RdsSocket s : mine) t.startSender(s, peers, Long.MAX_VALUE);
                long lost = 0;
                for (int k = 0; k < kills; k++) {
                    long want = t.accepted() + echoesBetween;
                    assertThat(RdsFaultNet.await(() -> t.accepted() >= want || !t.failures().isEmpty(), 30_000))
                            .as("echoes before kill %d: %d%n%s%s", k + 1, t.accepted(), t.report(), child.output()).isTrue();
                    long resetsBefore = counter(ns, "s_conn_reset");
                    child.kill();
                    long acceptedAtKill = t.accepted();
                    Thread.sleep(200); // the stream goes on into the dead peer meanwhile
                    child = Child.start(restartArgs);
                    assertThat(hello(hellos)).as("the restarted child's hello").isEqualTo(child.process.pid());
                    long want2 = acceptedAtKill + echoesBetween;
                    assertThat(RdsFaultNet.await(() -> t.accepted() >= want2 || !t.failures().isEmpty(), 30_000))
                            .as("echoes after restart %d: %d%n%s%s%n%s%n%s", k + 1, t.accepted(), t.report(), child.output(),
                                    RdsFaultNet.describe(ns), RdsFaultNet.allConnections(ns)).isTrue();
                    assertThat(counter(ns, "s_conn_reset")).as("the sender's connection was reset").isGreaterThan(resetsBefore);
                }
                t.stopSending();
                boolean delivered = t.awaitDelivered(Duration.ofSeconds(30));
                List<String> childConns = child.connections();
                System.out.printf("RDS peer restarts: %d kills, %d messages sent, %d echoed in %.1f s; s_conn_reset %d"
                                + "; connections: here %s, child %s%n", kills, t.sent(), t.accepted(),
                        (System.nanoTime() - start) / 1e9, counter(ns, "s_conn_reset"), RdsFaultNet.rdsConnections(ns), childConns);
                System.out.print(t.report());

                assertThat(t.failures()).isEmpty();
                assertThat(delivered).as("the last message of every pair came back:%n%s", t.report()).isTrue();
                assertThat(t.accounts()).hasSize(4).allSatisfy(acc -> {
                    assertThat(acc.duplicated()).as(acc.toString()).isZero();
                    assertThat(acc.reordered()).as(acc.toString()).isZero();
                    assertThat(acc.corrupted()).as(acc.toString()).isZero();
                    assertThat(acc.gaps()).as("at most one gap per kill: %s", acc).hasSizeLessThanOrEqualTo(kills);
                    assertThat(acc.lastSeq()).isEqualTo(acc.sent());
                });
                for (RdsTraffic.StreamAccount acc : t.accounts()) lost += acc.sent() - acc.accepted();
                System.out.println("messages the dead peers swallowed: " + lost);
                // this node's connection (outgoing: its sends made it) was torn down at each kill (asserted above) and
                // is UP again over one TCP connection, the same on both nodes: this node's reconnect, or the restarted
                // child's connect (its hello makes it connect too), whichever the arbitration kept
                RdsConnection conn = RdsProtocol.of(ns).connections().getFirst();
                assertThat(RdsProtocol.of(ns).connections()).hasSize(1);
                assertThat(conn.isOutgoing()).isTrue();
                assertThat(conn.state()).isEqualTo(RdsConnState.UP);
                List<String> here = RdsFaultNet.rdsConnections(ns);
                assertThat(here).hasSize(1);
                assertThat(childConns).containsExactly(RdsFaultNet.reverse(here.getFirst()));
                assertThat(ns.internalErrors()).isZero();
            } finally {
                child.kill();
                RdsFaultNet.close(mine);
                hellos.close();
            }
        }
    }

    /** The process id in the next hello. */
    static long hello(RdsSocket s) throws IOException {
        byte[] b = new byte[64];
        RdsSocket.Received r;
        do {
            r = s.receive(b, 0, b.length);
        } while (r.isCongestionUpdate());
        return Long.parseLong(new String(b, 0, r.length(), StandardCharsets.US_ASCII));
    }

    /** The child JVM: its output lines in a queue, its stdin for commands. */
    static final class Child {
        final Process process;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final StringBuffer all = new StringBuffer();
        final Writer stdin;

        private Child(Process p) {
            this.process = p;
            this.stdin = new java.io.OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
            Thread.ofPlatform().daemon().name("child " + p.pid()).start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String l; (l = r.readLine()) != null; ) {
                        all.append(l).append('\n');
                        lines.add(l);
                    }
                } catch (IOException ignored) {
                    // the child died
                }
            });
        }

        static Child start(List<String> args) throws IOException, InterruptedException {
            Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            List<String> cmd = new ArrayList<>(List.of(java.toString(), "--enable-native-access=ALL-UNNAMED", "-Xmx512m",
                    "-cp", System.getProperty("java.class.path"), RdsEchoNode.class.getName()));
            cmd.addAll(args);
            Child c = new Child(new ProcessBuilder(cmd).redirectErrorStream(true).start());
            String l = c.next("READY", 20);
            if (l == null) {
                c.kill();
                throw new AssertionError("the child did not come up:\n" + c.all);
            }
            return c;
        }

        /** The next output line starting with {@code prefix}, or null after {@code seconds}. */
        String next(String prefix, int seconds) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < deadline) {
                String l = lines.poll(50, TimeUnit.MILLISECONDS);
                if (l != null && l.startsWith(prefix)) return l;
                if (l == null && !process.isAlive() && lines.isEmpty()) return null;
            }
            return null;
        }

        /** The child's RDS TCP connections, asked on its stdin. */
        List<String> connections() throws IOException, InterruptedException {
            stdin.write("conns\n");
            stdin.flush();
            String l = next("CONNS", 10);
            if (l == null) throw new AssertionError("no answer from the child:\n" + all);
            String rest = l.substring("CONNS".length()).trim();
            return rest.isEmpty() ? List.of() : List.of(rest.split(";"));
        }

        String output() { return all.toString(); }

        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
