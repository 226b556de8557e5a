package io.jnet.bench;

import io.jnet.nio.JnetNetwork;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.List;
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
 * The cost of a selection that finds one ready channel among {@code registered} idle ones: one datagram is sent
 * to the one busy channel, {@code selectNow} reports it, it is read and the selected-key set cleared. jnet's
 * selector is pushed readiness by the sockets, so the cost should not grow with the idle channels; the kernel's
 * (JDK NIO over epoll on 127.0.0.1, system calls each time) is measured beside it for reference. Run with
 * {@code -prof gc} for the allocation per selection.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SelectorBenchmark {
    /** Channels registered with the selector, all but one idle. */
    @Param({"10", "10000"})
    public int registered;

    /** jnet (in-process, no system call) or kernel (JDK NIO, epoll system calls). */
    @Param({"jnet", "kernel"})
    public String stack;

    private NetNamespace ns;
    private Selector selector;
    private final List<DatagramChannel> channels = new ArrayList<>();
    private DatagramChannel busy;
    private DatagramChannel sender;
    private final ByteBuffer out = ByteBuffer.allocateDirect(32);
    private final ByteBuffer in = ByteBuffer.allocateDirect(64);

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        SelectorProvider provider;
        if (stack.equals("jnet")) {
            ns = NetNamespace.create("bench-select");
            provider = JnetNetwork.of(ns).selectorProvider();
        } else {
            provider = SelectorProvider.provider();
        }
        selector = provider.openSelector();
        for (int i = 0; i < registered; i++) {
            DatagramChannel ch = provider.openDatagramChannel();
            ch.bind(new InetSocketAddress("127.0.0.1", 0)).configureBlocking(false);
            ch.register(selector, SelectionKey.OP_READ);
            channels.add(ch);
        }
        busy = channels.get(registered / 2);
        sender = provider.openDatagramChannel();
        sender.connect(busy.getLocalAddress());
        busy.connect(sender.getLocalAddress()); // so that read() takes its datagrams
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        for (DatagramChannel ch : channels) ch.close();
        sender.close();
        selector.close();
        if (ns != null) ns.close();
    }

    /** One datagram to the busy channel, one selection that reports it, its read. */
    @Benchmark
    public int selectOneReady() throws IOException {
        sender.write(out.clear());
        int n = selector.selectNow();
        busy.read(in.clear());
        selector.selectedKeys().clear();
        return n;
    }
}
