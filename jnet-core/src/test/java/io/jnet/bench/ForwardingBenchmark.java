package io.jnet.bench;

import io.jnet.socket.UdpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * UDP between two namespaces in one thread, either over one veth pair ({@code path=veth}: 10.0.0.1 ->
 * 10.0.0.2) or through a router namespace ({@code path=routed}: {@link Topology#routed}, 10.0.1.2 -> router
 * -> 10.0.2.2): a datagram sent from a direct {@link ByteBuffer} on a connected socket reaches the peer's
 * receive queue before {@code send} returns (the router's receive, input route, TTL, neighbour and output
 * run in the sender's thread), then is read into another direct buffer. The difference between the two is
 * what forwarding one packet costs; with {@code -prof gc}, gc.alloc.rate.norm is the allocation per datagram
 * once warm.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ForwardingBenchmark {
    /** {@code veth}: two namespaces on one link; {@code routed}: client - router - server. */
    @Param({"veth", "routed"})
    public String path;

    /** Datagram payload in bytes: a small one and one that fills a 1500-byte MTU. */
    @Param({"64", "1472"})
    public int size;

    private NetNamespace a;
    private NetNamespace r;
    private NetNamespace b;
    private UdpSocket sender;
    private UdpSocket receiver;
    private ByteBuffer out;
    private ByteBuffer in;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        a = NetNamespace.create("bench-a");
        b = NetNamespace.create("bench-b");
        String bAddress;
        if (path.equals("routed")) {
            r = NetNamespace.create("bench-r");
            Topology.routed(a, r, b);
            bAddress = Topology.Routed.B;
        } else if (path.equals("veth")) {
            Topology.link(a, b, "eth0", "10.0.0.1/24", "10.0.0.2/24");
            bAddress = "10.0.0.2";
        } else {
            throw new IllegalArgumentException("path: veth or routed, not " + path);
        }
        receiver = UdpSocket.open(b);
        receiver.bind(new InetSocketAddress(bAddress, 0));
        sender = UdpSocket.open(a);
        sender.connect(receiver.localAddress());
        out = ByteBuffer.allocateDirect(size);
        in = ByteBuffer.allocateDirect(size + 1);
        // the first datagram waits for ARP on each link; read it so the measured ones find every neighbour
        sender.send(out.clear(), null);
        receiver.read(in.clear());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        sender.close();
        receiver.close();
        a.close();
        if (r != null) r.close();
        b.close();
    }

    /** One datagram sent and read. */
    @Benchmark
    public int sendAndRead() throws IOException {
        sender.send(out.clear(), null);
        return receiver.read(in.clear());
    }
}
