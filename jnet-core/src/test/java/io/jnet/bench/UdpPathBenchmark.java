package io.jnet.bench;

import io.jnet.socket.UdpSocket;
import io.jnet.stack.NetNamespace;
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
 * UDP over loopback in one thread: a datagram sent from a direct {@link ByteBuffer} on a connected socket
 * is delivered to the peer's receive queue before {@code send} returns, then read into another direct
 * buffer. Run with {@code -prof gc}: gc.alloc.rate.norm is the allocation per datagram once warm (the
 * UDP_STREAM path).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class UdpPathBenchmark {
    /** Datagram payload in bytes: a small one and one that fills a 1500-byte MTU. */
    @Param({"64", "1472"})
    public int size;

    private NetNamespace ns;
    private UdpSocket sender;
    private UdpSocket receiver;
    private ByteBuffer out;
    private ByteBuffer in;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        ns = NetNamespace.create("bench-udp");
        receiver = UdpSocket.open(ns);
        receiver.bind(new InetSocketAddress("127.0.0.1", 0));
        sender = UdpSocket.open(ns);
        sender.connect(receiver.localAddress());
        out = ByteBuffer.allocateDirect(size);
        in = ByteBuffer.allocateDirect(size + 1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        sender.close();
        receiver.close();
        ns.close();
    }

    /** One datagram sent and read. */
    @Benchmark
    public int sendAndRead() throws IOException {
        sender.send(out.clear(), null);
        return receiver.read(in.clear());
    }
}
