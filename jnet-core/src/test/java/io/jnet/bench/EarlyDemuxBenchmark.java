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
 * What UDP early demux costs or saves per received datagram, in one thread: {@code flows} sender sockets in
 * namespace A (10.0.0.1, one port each) send 64-byte datagrams round-robin over a veth pair to namespace B
 * (10.0.0.2), where each is read before the next is sent (veth delivers in the sender's thread). With
 * {@code receiver=connected} B has one socket per flow, connected back to its sender (the sockets early demux
 * serves, which keep their input route); with {@code receiver=unconnected} one bound, unconnected socket takes
 * every flow (early demux misses). {@code earlyDemux} sets {@code net.ipv4.udp_early_demux} in B. The figure is
 * the time of one send plus one read, in ns; the difference between on and off at the same shape is what
 * early demux changes per datagram.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class EarlyDemuxBenchmark {
    @Param({"connected", "unconnected"})
    public String receiver;

    /** {@code net.ipv4.udp_early_demux} in the receiving namespace. */
    @Param({"1", "0"})
    public String earlyDemux;

    /** Sender sockets (4-tuples), used round-robin. */
    @Param({"1", "10000"})
    public int flows;

    private NetNamespace a;
    private NetNamespace b;
    private UdpSocket[] senders;
    private UdpSocket[] receivers;
    private final ByteBuffer out = ByteBuffer.allocateDirect(64);
    private final ByteBuffer in = ByteBuffer.allocateDirect(65);
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        a = NetNamespace.create("bench-a");
        b = NetNamespace.create("bench-b");
        Topology.link(a, b, "eth0", "10.0.0.1/24", "10.0.0.2/24");
        b.sysctl().set("net.ipv4.udp_early_demux", earlyDemux);
        senders = new UdpSocket[flows];
        boolean connected = switch (receiver) {
            case "connected" -> true;
            case "unconnected" -> false;
            default -> throw new IllegalArgumentException("receiver: connected or unconnected, not " + receiver);
        };
        receivers = new UdpSocket[connected ? flows : 1];
        if (!connected) {
            receivers[0] = UdpSocket.open(b);
            receivers[0].bind(new InetSocketAddress("10.0.0.2", 9));
        }
        for (int i = 0; i < flows; i++) {
            senders[i] = UdpSocket.open(a);
            senders[i].bind(new InetSocketAddress("10.0.0.1", 1024 + i));
            if (connected) {
                receivers[i] = UdpSocket.open(b);
                receivers[i].bind(new InetSocketAddress("10.0.0.2", 1024 + i));
                receivers[i].connect(senders[i].localAddress());
                senders[i].connect(receivers[i].localAddress());
            } else {
                senders[i].connect(receivers[0].localAddress());
            }
        }
        // every flow once before measuring: ARP, and each connected socket's input route
        for (int i = 0; i < flows; i++) sendAndRead();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        for (UdpSocket s : senders) if (s != null) s.close();
        for (UdpSocket s : receivers) if (s != null) s.close();
        a.close();
        b.close();
    }

    /** One datagram sent on the next flow and read by its receiver. */
    @Benchmark
    public int sendAndRead() throws IOException {
        int i = next;
        next = i + 1 == senders.length ? 0 : i + 1;
        senders[i].send(out.clear(), null);
        return receivers[receivers.length == 1 ? 0 : i].read(in.clear());
    }
}
