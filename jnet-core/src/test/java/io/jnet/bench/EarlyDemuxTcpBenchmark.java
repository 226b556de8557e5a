package io.jnet.bench;

import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
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
 * What TCP early demux changes per segment, in one thread: {@code flows} established connections from namespace
 * A (10.0.0.1) to B (10.0.0.2) over a veth pair, used round-robin for a 64-byte request and a 64-byte response
 * (veth delivers in the sender's thread, so each segment is in the peer's receive queue when write returns).
 * {@code earlyDemux} sets {@code net.ipv4.tcp_early_demux} in both namespaces. The figure is one transaction (two
 * data segments, each carrying the ACK of the one before) in ns.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class EarlyDemuxTcpBenchmark {
    /** {@code net.ipv4.tcp_early_demux} in both namespaces. */
    @Param({"1", "0"})
    public String earlyDemux;

    /** Connections, used round-robin. */
    @Param({"1", "1000"})
    public int flows;

    private NetNamespace a;
    private NetNamespace b;
    private TcpServerSocket listener;
    private TcpSocket[] clients;
    private TcpSocket[] servers;
    private final ByteBuffer out = ByteBuffer.allocateDirect(64);
    private final ByteBuffer in = ByteBuffer.allocateDirect(64);
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        a = NetNamespace.create("bench-a");
        b = NetNamespace.create("bench-b");
        Topology.link(a, b, "eth0", "10.0.0.1/24", "10.0.0.2/24");
        a.sysctl().set("net.ipv4.tcp_early_demux", earlyDemux);
        b.sysctl().set("net.ipv4.tcp_early_demux", earlyDemux);
        listener = TcpServerSocket.open(b);
        listener.bind(new InetSocketAddress("10.0.0.2", 5001));
        listener.listen(1024);
        clients = new TcpSocket[flows];
        servers = new TcpSocket[flows];
        for (int i = 0; i < flows; i++) {
            clients[i] = TcpSocket.open(a);
            clients[i].connect(new InetSocketAddress("10.0.0.2", 5001));
            servers[i] = listener.accept();
        }
        for (int i = 0; i < flows; i++) transaction();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        for (TcpSocket s : clients) if (s != null) s.close();
        for (TcpSocket s : servers) if (s != null) s.close();
        listener.close();
        a.close();
        b.close();
    }

    /** A 64-byte request on the next connection and its 64-byte response. */
    @Benchmark
    public int transaction() throws IOException {
        int i = next;
        next = i + 1 == clients.length ? 0 : i + 1;
        clients[i].write(out.clear());
        readFully(servers[i]);
        servers[i].write(out.clear());
        return readFully(clients[i]);
    }

    private int readFully(TcpSocket s) throws IOException {
        in.clear();
        while (in.hasRemaining()) {
            if (s.read(in) < 0) throw new IOException("connection closed");
        }
        return in.position();
    }
}
