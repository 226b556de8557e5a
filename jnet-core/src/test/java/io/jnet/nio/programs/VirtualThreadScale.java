package io.jnet.nio.programs;

import io.jnet.nio.JnetNetwork;
import io.jnet.stack.NetNamespace;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * N virtual threads, each blocked in {@link SocketChannel#read} (blocking mode) on its own jnet connection, all
 * complete once one byte arrives on each, and none of them pins its carrier: a JFR recording of the whole run
 * ({@code jdk.VirtualThreadPinned} with no threshold) must hold no event.
 *
 * <p>One namespace, loopback 127.0.0.1, {@code net.ipv4.ip_local_port_range} raised to 1024-65535 and several
 * listening ports (a connect takes an ephemeral port whose 4-tuple is unused, so 4 ports give room for 250,000
 * clients). Listener threads accept and start one virtual reader per accepted channel; the main thread connects
 * the clients, waits until every reader is parked ({@link Thread.State#WAITING}), writes one byte on every client,
 * and waits for every read to return it.
 *
 * <p>Prints {@code key value} lines: {@code connections}, {@code parked}, {@code completed}, {@code correct},
 * {@code pinned-events}, timings in ms, and the first pinned event's stack if any.
 *
 * <pre>{@code java -Xmx3g ... io.jnet.nio.programs.VirtualThreadScale 100000 4}</pre>
 */
public final class VirtualThreadScale {
    private VirtualThreadScale() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int ports = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        // A virtual thread that loads a class pins its carrier while it waits on the class loader's lock (the
        // JDK's own limit, not the stack's): a small run first loads every class the readers touch, unrecorded.
        run("vthreads-warm", Math.min(n, 1000), ports, false);
        Path jfr = Files.createTempFile("jnet-vthreads", ".jfr");
        try (Recording rec = new Recording()) {
            rec.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            rec.enable("jdk.VirtualThreadSubmitFailed").withStackTrace();
            rec.start();
            run("vthreads", n, ports, true);
            rec.stop();
            rec.dump(jfr);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr);
        Files.deleteIfExists(jfr);
        long pinned = events.stream().filter(e -> e.getEventType().getName().equals("jdk.VirtualThreadPinned")).count();
        long submitFailed = events.stream().filter(e -> e.getEventType().getName().equals("jdk.VirtualThreadSubmitFailed")).count();
        System.out.println("pinned-events " + pinned);
        System.out.println("submit-failed-events " + submitFailed);
        events.stream().filter(e -> e.getEventType().getName().equals("jdk.VirtualThreadPinned")).limit(3).forEach(e -> {
            System.out.println("pinned " + e.getDuration().toNanos() / 1000 + " us, thread "
                    + (e.getThread() == null ? "?" : e.getThread().getJavaName()) + ", event " + e);
            if (e.getStackTrace() != null) {
                for (RecordedFrame f : e.getStackTrace().getFrames()) {
                    System.out.println("  at " + f.getMethod().getType().getName() + "." + f.getMethod().getName() + ":"
                            + f.getLineNumber() + " (" + f.getType() + ")");
                }
            }
        });
        System.out.flush();
        System.exit(0); // connections and parked threads are not torn down one by one
    }

    static void run(String name, int n, int ports, boolean report) throws Exception {
        long t0 = System.nanoTime();
        NetNamespace ns = NetNamespace.create(name);
        ns.sysctl().set("net.ipv4.ip_local_port_range", "1024 65535");
        ns.sysctl().set("net.core.somaxconn", "65535");
        SelectorProvider provider = JnetNetwork.of(ns).selectorProvider();

        Thread[] readers = new Thread[n];
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger entered = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        AtomicInteger correct = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        CountDownLatch allDone = new CountDownLatch(n);
        InetSocketAddress[] servers = new InetSocketAddress[ports];
        ServerSocketChannel[] listeners = new ServerSocketChannel[ports];
        Thread[] acceptors = new Thread[ports];
        for (int p = 0; p < ports; p++) {
            servers[p] = new InetSocketAddress("127.0.0.1", 100 + p);
            listeners[p] = provider.openServerSocketChannel().bind(servers[p], 65535);
            ServerSocketChannel l = listeners[p];
            acceptors[p] = Thread.ofPlatform().name("acceptor-" + p).daemon().start(() -> {
                while (true) {
                    SocketChannel ch;
                    try {
                        ch = l.accept();
                    } catch (Exception e) {
                        return;
                    }
                    int i = accepted.getAndIncrement();
                    readers[i] = Thread.ofVirtual().name("reader-" + i).start(() -> {
                        ByteBuffer b = ByteBuffer.allocate(1);
                        try {
                            entered.incrementAndGet();
                            int r = ch.read(b);
                            completed.incrementAndGet();
                            if (r == 1 && b.get(0) == (byte) 0x5a) correct.incrementAndGet();
                        } catch (Exception e) {
                            if (failed.getAndIncrement() == 0) e.printStackTrace();
                        } finally {
                            allDone.countDown();
                        }
                    });
                }
            });
        }

        SocketChannel[] clients = new SocketChannel[n];
        for (int i = 0; i < n; i++) {
            SocketChannel c = provider.openSocketChannel();
            c.connect(servers[i % ports]);
            clients[i] = c;
        }
        long connected = System.nanoTime();
        long acceptUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (accepted.get() < n && System.nanoTime() < acceptUntil) Thread.sleep(10);
        long acceptedAt = System.nanoTime();

        // every reader parked in read: counted before the read, then seen WAITING
        long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        int parked = 0;
        while (System.nanoTime() < waitUntil) {
            if (entered.get() == n) {
                parked = 0;
                for (Thread t : readers) if (t != null && t.getState() == Thread.State.WAITING) parked++;
                if (parked == n) break;
            }
            Thread.sleep(50);
        }
        long parkedAt = System.nanoTime();
        int doneBeforeData = completed.get();

        ByteBuffer one = ByteBuffer.allocate(1);
        for (SocketChannel c : clients) {
            one.clear();
            one.put(0, (byte) 0x5a);
            c.write(one);
        }
        long writtenAt = System.nanoTime();
        boolean all = allDone.await(180, TimeUnit.SECONDS);
        long doneAt = System.nanoTime();
        if (!report) {
            if (!all || correct.get() != n) throw new IllegalStateException("warm-up run: " + correct.get() + " of " + n);
            for (ServerSocketChannel l : listeners) l.close();
            for (SocketChannel c : clients) c.close();
            return;
        }

        System.out.println("connections " + accepted.get());
        System.out.println("parked " + parked);
        System.out.println("completed-before-data " + doneBeforeData);
        System.out.println("completed " + completed.get());
        System.out.println("correct " + correct.get());
        System.out.println("failed " + failed.get());
        System.out.println("all-done " + all);
        System.out.println(String.format(Locale.ROOT, "ms connect %d accept %d park %d write %d reads-return %d total %d",
                ms(connected - t0), ms(acceptedAt - connected), ms(parkedAt - acceptedAt), ms(writtenAt - parkedAt),
                ms(doneAt - writtenAt), ms(doneAt - t0)));
        Runtime rt = Runtime.getRuntime();
        System.out.println("heap-used-mib " + (rt.totalMemory() - rt.freeMemory()) / (1 << 20));
    }

    private static long ms(long nanos) { return nanos / 1_000_000; }
}
