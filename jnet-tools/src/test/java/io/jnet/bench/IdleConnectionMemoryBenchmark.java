package io.jnet.bench;

import io.jnet.nio.JnetNetwork;
import io.jnet.stack.NetNamespace;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.ObjectName;

/**
 * Heap per idle connection held by a virtual thread blocked in {@code SocketChannel.read}: N connections, both
 * ends in this process, the accepted end of each read by a virtual thread of its own (blocking mode) that stays
 * parked. Heap used is taken after full collections at three points: (1) listeners open, (2) the N connections
 * established and accepted, (3) the N readers started and all parked ({@link Thread.State#WAITING}). Reported
 * per connection: everything (3)-(1), the connection pair (2)-(1), its server end (half of the pair: both ends
 * are the same objects), the reader thread (3)-(2) with its stack chunk, and server end + thread; then the
 * classes that grew most from (1) to (3), per connection (a class histogram).
 *
 * <p>Two sides, each in a child JVM of its own (same options, {@code -Xmx4g}): jnet (one namespace, 127.0.0.1,
 * 4 listening ports, N as given) and the kernel (the JDK's NIO over 127.0.0.1, the same program; capped by the
 * open-file limit, two descriptors per connection). The kernel's figure covers the Java heap only: its socket
 * structures and buffers are kernel memory, outside the heap, estimated separately from /proc/slabinfo when
 * readable (the JDK opens IPv6 sockets unless java.net.preferIPv4Stack is set: TCPv6 is the cache that grows). jnet's covers everything of both ends: sockets, buffers, tables are all on the heap.
 *
 * <pre>{@code ./bench.sh --main io.jnet.bench.IdleConnectionMemoryBenchmark [connections] [jnet|kernel|both]}</pre>
 */
public final class IdleConnectionMemoryBenchmark {
    private IdleConnectionMemoryBenchmark() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        String side = args.length > 1 ? args[1] : "both";
        if (side.equals("both")) {
            System.out.println("# IdleConnectionMemoryBenchmark " + n + " connections, "
                    + java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS) + ", JDK "
                    + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors() + " cores");
            child(n, "jnet");
            child(n, "kernel");
            return;
        }
        measure(n, side);
        System.exit(0);
    }

    private static void child(int n, String side) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(List.of("-Xmx4g", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                IdleConnectionMemoryBenchmark.class.getName(), String.valueOf(n), side));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) System.out.println(line);
        }
        if (p.waitFor() != 0) throw new IllegalStateException(side + " side failed: exit " + p.exitValue());
    }

    static void measure(int requested, String side) throws Exception {
        boolean jnet = side.equals("jnet");
        int n = requested;
        SelectorProvider provider;
        String host = "127.0.0.1";
        if (jnet) {
            NetNamespace ns = NetNamespace.create("idle-memory");
            ns.sysctl().set("net.ipv4.ip_local_port_range", "1024 65535");
            ns.sysctl().set("net.core.somaxconn", "65535");
            provider = JnetNetwork.of(ns).selectorProvider();
        } else {
            provider = SelectorProvider.provider();
            long maxFd = ((com.sun.management.UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getMaxFileDescriptorCount();
            long openFd = ((com.sun.management.UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getOpenFileDescriptorCount();
            int cap = (int) ((maxFd - openFd - 1000) / 2);
            if (cap < n) {
                System.out.println("kernel: open-file limit " + maxFd + " allows " + cap + " connections (2 descriptors each), not " + n);
                n = cap;
            }
        }
        int ports = 4;
        ServerSocketChannel[] listeners = new ServerSocketChannel[ports];
        for (int p = 0; p < ports; p++) {
            listeners[p] = provider.openServerSocketChannel().bind(new InetSocketAddress(host, jnet ? 100 + p : 0), 4096);
        }
        warmUp(provider, listeners);

        Map<String, long[]> h1 = histogram();
        long heap1 = heapUsed();
        String slab1 = slab();

        SocketChannel[] clients = new SocketChannel[n];
        SocketChannel[] servers = new SocketChannel[n];
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            clients[i] = provider.openSocketChannel();
            clients[i].connect(listeners[i % ports].getLocalAddress());
            servers[i] = listeners[i % ports].accept();
        }
        long connectMs = (System.nanoTime() - t0) / 1_000_000;
        long heap2 = heapUsed();

        Thread[] readers = new Thread[n];
        AtomicInteger returned = new AtomicInteger();
        for (int i = 0; i < n; i++) {
            SocketChannel ch = servers[i];
            readers[i] = Thread.ofVirtual().start(() -> {
                try {
                    ch.read(ByteBuffer.allocate(1));
                } catch (Exception e) {
                    // not expected: counted below
                }
                returned.incrementAndGet();
            });
        }
        servers = null; // the reader threads hold the server ends from here on
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        int parked = 0;
        while (System.nanoTime() < until) {
            parked = 0;
            for (Thread t : readers) if (t.getState() == Thread.State.WAITING) parked++;
            if (parked == n) break;
            Thread.sleep(50);
        }
        long heap3 = heapUsed();
        Map<String, long[]> h3 = histogram();
        String slab3 = slab();

        double kib = 1024.0;
        System.out.println();
        System.out.println("== " + side + ": " + n + " idle connections over 127.0.0.1, both ends in this JVM, a virtual thread blocked in read on each server end");
        System.out.println(String.format(Locale.ROOT, "connect+accept: %d ms; readers parked: %d of %d, returned: %d", connectMs, parked, n, returned.get()));
        System.out.println(String.format(Locale.ROOT, "heap after full GC: listeners %.1f MiB, + connections %.1f MiB, + parked readers %.1f MiB",
                heap1 / kib / kib, heap2 / kib / kib, heap3 / kib / kib));
        double pair = (heap2 - heap1) / (double) n, thread = (heap3 - heap2) / (double) n;
        System.out.println(String.format(Locale.ROOT, "per connection, heap: everything (client end + server end + reader thread) %.2f KiB", (heap3 - heap1) / n / kib));
        System.out.println(String.format(Locale.ROOT, "per connection, heap: connection pair (both ends, no thread) %.2f KiB", pair / kib));
        System.out.println(String.format(Locale.ROOT, "per connection, heap: reader virtual thread parked in read (thread, stack chunk, wait records) %.2f KiB", thread / kib));
        System.out.println(String.format(Locale.ROOT, "per connection, heap: server end (half the pair) + its reader thread %.2f KiB", (pair / 2 + thread) / kib));
        if (!jnet) {
            System.out.println("kernel memory (outside the heap) per socket, /proc/slabinfo objects of the kind a socket takes (both ends: 2 sockets a connection):");
            System.out.println(slabDelta(slab1, slab3, n));
        }
        System.out.println("top heap holders, growth from listeners-only to parked readers, per connection:");
        System.out.println(String.format(Locale.ROOT, "  %10s %9s  %s", "bytes/conn", "inst/conn", "class"));
        List<Map.Entry<String, long[]>> grown = new ArrayList<>();
        for (Map.Entry<String, long[]> e : h3.entrySet()) {
            long[] before = h1.getOrDefault(e.getKey(), new long[2]);
            grown.add(Map.entry(e.getKey(), new long[] {e.getValue()[0] - before[0], e.getValue()[1] - before[1]}));
        }
        grown.sort((x, y) -> Long.compare(y.getValue()[1], x.getValue()[1]));
        for (int i = 0; i < Math.min(40, grown.size()); i++) {
            Map.Entry<String, long[]> e = grown.get(i);
            System.out.println(String.format(Locale.ROOT, "  %10.1f %9.2f  %s", e.getValue()[1] / (double) n,
                    e.getValue()[0] / (double) n, e.getKey()));
        }
        System.out.flush();
        // the client ends stay reachable through the measurements (a compiled frame would let them go after the loop)
        java.lang.ref.Reference.reachabilityFence(clients);
        java.lang.ref.Reference.reachabilityFence(listeners);
        java.lang.ref.Reference.reachabilityFence(readers);
    }

    /**
     * Runs the code paths (class loading, JIT) on a few connections, which are closed again: 20,000 reads that
     * block and are woken, so that the read path is compiled when the measured readers park (a thread parked in
     * interpreted frames keeps a larger stack chunk than one parked in compiled frames).
     */
    private static void warmUp(SelectorProvider provider, ServerSocketChannel[] listeners) throws Exception {
        List<SocketChannel> open = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            SocketChannel c = provider.openSocketChannel();
            c.connect(listeners[i % listeners.length].getLocalAddress());
            SocketChannel s = listeners[i % listeners.length].accept();
            Thread t = Thread.ofVirtual().start(() -> {
                ByteBuffer b = ByteBuffer.allocate(1);
                try {
                    while (s.read(b.clear()) > 0) {
                        // one byte per round
                    }
                } catch (Exception e) {
                    // closed below
                }
            });
            for (int round = 0; round < 200; round++) {
                while (t.getState() != Thread.State.WAITING) Thread.onSpinWait(); // blocked in read
                c.write(ByteBuffer.wrap(new byte[] {1}));
            }
            c.shutdownOutput();
            t.join();
            open.add(c);
            open.add(s);
        }
        for (SocketChannel c : open) c.close();
        Thread.sleep(200);
    }

    private static long heapUsed() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Class name to {instances, bytes}, from the JVM's class histogram (after a full collection). */
    private static Map<String, long[]> histogram() throws Exception {
        String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        Map<String, long[]> m = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 4 || !f[0].endsWith(":")) continue;
            m.put(f[3], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
        }
        return m;
    }

    private static String slab() {
        try {
            return Files.readString(Path.of("/proc/slabinfo"));
        } catch (Exception e) {
            return null;
        }
    }

    /** Growth of the slab caches a TCP socket uses (system-wide, so other processes add noise), per connection. */
    private static String slabDelta(String before, String after, int n) {
        if (before == null || after == null) return "  /proc/slabinfo not readable";
        Map<String, long[]> b = slabs(before), a = slabs(after);
        StringBuilder sb = new StringBuilder();
        long total = 0;
        for (String cache : List.of("TCP", "TCPv6", "sock_inode_cache", "dentry", "filp", "request_sock_TCP", "skbuff_head_cache", "eventpoll_epi", "eventpoll_pwq")) {
            long[] x = a.get(cache), y = b.get(cache);
            if (x == null || y == null) continue;
            double objs = (x[0] - y[0]) / (double) n;
            total += (x[0] - y[0]) * x[1];
            sb.append(String.format(Locale.ROOT, "  %-18s %6.2f objects/conn x %5d B = %7.0f B/conn%n", cache, objs, x[1], objs * x[1]));
        }
        sb.append(String.format(Locale.ROOT, "  slab total %.2f KiB per connection (both ends), not counting socket buffers (idle: none queued)",
                total / (double) n / 1024));
        return sb.toString();
    }

    private static Map<String, long[]> slabs(String text) {
        Map<String, long[]> m = new HashMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || line.startsWith("slabinfo")) continue;
            String[] f = line.trim().split("\\s+");
            if (f.length < 4) continue;
            try {
                m.put(f[0], new long[] {Long.parseLong(f[1]), Long.parseLong(f[3])});
            } catch (NumberFormatException e) {
                // header
            }
        }
        return m;
    }
}
