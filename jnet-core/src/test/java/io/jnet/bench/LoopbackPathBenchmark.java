package io.jnet.bench;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.link.VethPair;
import io.jnet.wire.Checksum;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * The per-packet send and receive path, measured in one thread: on loopback and veth a write is
 * delivered to the peer's receive queue before it returns, so a request/response (two segments, each
 * carrying data and an ACK) or a 64 KiB stream write and its read run without any thread handoff.
 * Run with {@code -prof gc}: gc.alloc.rate.norm is the allocation per operation once warm.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1) // the fork inherits bench.sh's --enable-native-access
public class LoopbackPathBenchmark {
    /** loopback, veth, or friends (loopback with net.ipv4.tcp_friends=1: the connection pairs). */
    @Param({"loopback", "veth", "friends"})
    public String path;

    /**
     * The per-socket buffer caches: off, tx (net.ipv4.tcp_tx_skb_cache=1), rx (tcp_rx_skb_cache=1) or both;
     * e.g. {@code -p skbCache=off,tx,rx,both}.
     */
    @Param({"off"})
    public String skbCache;

    private NetNamespace a;
    private NetNamespace b;
    private TcpSocket client;
    private TcpSocket server;
    private final byte[] one = new byte[1];
    private final byte[] chunk = new byte[65536];
    private final byte[] sink = new byte[65536];
    private final byte[] packet = new byte[1460];
    /** Slots of the sendfile ring file, 64 KiB each, sent in turn (netperf's send ring). */
    private static final int SLOTS = 16;
    private Path ringFile;
    private FileChannel ring;
    private int slot;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        a = NetNamespace.create("bench-a");
        String addr = "127.0.0.1";
        b = a;
        if (path.equals("friends")) a.sysctl().set("net.ipv4.tcp_friends", "1");
        if (path.equals("veth")) {
            b = NetNamespace.create("bench-b");
            VethPair p = VethPair.create("veth0", "veth1");
            a.attach(p.a());
            b.attach(p.b());
            a.addAddress("veth0", "10.0.0.1/24");
            b.addAddress("veth1", "10.0.0.2/24");
            addr = "10.0.0.2";
        }
        for (NetNamespace ns : new NetNamespace[] {a, b}) {
            ns.sysctl().set("net.ipv4.tcp_tx_skb_cache", skbCache.equals("tx") || skbCache.equals("both") ? "1" : "0");
            ns.sysctl().set("net.ipv4.tcp_rx_skb_cache", skbCache.equals("rx") || skbCache.equals("both") ? "1" : "0");
        }
        TcpServerSocket srv = TcpServerSocket.open(b);
        srv.bind(new InetSocketAddress(addr, 5001));
        srv.listen(4);
        client = TcpSocket.open(a);
        client.setOption(SocketOption.TCP_NODELAY, true);
        client.connect(new InetSocketAddress(addr, 5001));
        server = srv.accept();
        server.setOption(SocketOption.TCP_NODELAY, true);
        srv.close();
        if (path.equals("friends") && a.mib().get(io.jnet.stack.MibCounter.TcpExtJnetFriendsPaired) != 1) {
            throw new IllegalStateException("the friends connection did not pair");
        }
        ringFile = Files.createTempFile("jnet-bench-sendfile", ".bin");
        byte[] content = new byte[SLOTS * chunk.length];
        for (int i = 0; i < content.length; i++) content[i] = (byte) (i * 31 + (i >>> 9));
        Files.write(ringFile, content);
        ring = FileChannel.open(ringFile, StandardOpenOption.READ);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        ring.close();
        Files.deleteIfExists(ringFile);
        client.close();
        server.close();
        a.close();
        if (b != a) b.close();
    }

    /** TCP_RR 1,1 in one thread: request and response each cross the stack once. */
    @Benchmark
    public int requestResponse() throws IOException {
        client.write(one, 0, 1);
        int n = server.read(one, 0, 1);
        server.write(one, 0, 1);
        return n + client.read(one, 0, 1);
    }

    /** TCP_STREAM step: one 64 KiB write and reading it all on the other side. */
    @Benchmark
    public int stream64k() throws IOException {
        client.write(chunk, 0, chunk.length);
        int got = 0;
        while (got < chunk.length) got += server.read(sink, 0, sink.length);
        return got;
    }

    /**
     * TCP_SENDFILE step: one 64 KiB sendfile call (the segments refer to the file's mapping, no copy) and
     * reading it all on the other side (the one copy); the next call sends the next slot of a 1 MiB file.
     */
    @Benchmark
    public int sendfile64k() throws IOException {
        long sent = client.transferFrom(ring, (long) slot * chunk.length, chunk.length);
        if (++slot == SLOTS) slot = 0;
        int got = 0;
        while (got < sent) got += server.read(sink, 0, sink.length);
        return got;
    }

    /** RFC 1071 checksum of a full-sized segment. */
    @Benchmark
    public int checksum1460() {
        return Checksum.compute(packet, 0, packet.length);
    }
}
