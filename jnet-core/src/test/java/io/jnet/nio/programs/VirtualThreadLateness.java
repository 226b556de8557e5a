package io.jnet.nio.programs;

import io.jnet.arp.NeighbourTable;
import io.jnet.link.VethPair;
import io.jnet.link.impair.ImpairedDevice;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.nio.JnetNetwork;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import io.jnet.wire.Ipv4;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A ticker virtual thread that sleeps in 5 ms steps stays on time while many other virtual threads block in jnet
 * calls: run with {@code -Djdk.virtualThreadScheduler.parallelism=1 -Djdk.virtualThreadScheduler.maxPoolSize=1},
 * so that one carrier runs every virtual thread, and a blocked call that held its carrier would stop the ticker.
 *
 * <p>Per kind, K virtual threads (default 2,500) block in: {@link SocketChannel#read} on an idle loopback
 * connection; {@link ServerSocketChannel#accept} on a listener of its own; {@link SocketChannel#connect} to a peer
 * in a second namespace behind a veth whose sending end drops every frame (jnet's impairment device,
 * {@code loss=100%}, with a permanent neighbour entry so that ARP is not needed); {@link Selector#select()} on a
 * selector of its own, with the idle client end of a read connection registered for OP_READ. The ticker runs from
 * the start: lateness is recorded while the threads are set up ("setup") and, once every one of them is seen
 * {@link Thread.State#WAITING}, for {@code seconds} more ("blocked").
 *
 * <p>A JFR recording of the whole run counts {@code jdk.VirtualThreadPinned} events (no threshold).
 *
 * <p>A platform thread ticks the same way alongside, as a witness of the OS's own stalls (a busy or virtualised
 * machine delays any thread): a late virtual tick that a late platform tick overlaps was not the scheduler's doing.
 *
 * <p>Prints {@code key value} lines: the counts of threads seen parked per kind, and per phase the ticks, the
 * worst lateness, the 99th percentile and the median in ms, the five worst ticks, the witness's figures, and how
 * many blocked-phase ticks were 10 ms late or more and of those how many the witness's stalls overlap.
 *
 * <p>Arguments: K (default 2,500), the seconds of the blocked phase (default 3), the number of threads blocked in
 * connect (default K).
 *
 * <pre>{@code java -Djdk.virtualThreadScheduler.parallelism=1 ... io.jnet.nio.programs.VirtualThreadLateness 2500 3}</pre>
 */
public final class VirtualThreadLateness {
    private VirtualThreadLateness() {}

    private static final long START = System.nanoTime();
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    /** Lateness samples of one phase, in ns. */
    static final class Phase {
        final String name;
        final long[] samples = new long[1 << 16];
        final long[] at = new long[1 << 16];
        int count;

        Phase(String name) { this.name = name; }

        void add(long lateNanos, long whenNanos) {
            if (count < samples.length) {
                at[count] = whenNanos;
                samples[count++] = lateNanos;
            }
        }

        void print() {
            long[] s = Arrays.copyOf(samples, count);
            Arrays.sort(s);
            long max = count == 0 ? 0 : s[count - 1];
            long p99 = count == 0 ? 0 : s[Math.min(count - 1, (int) (count * 0.99))];
            long p50 = count == 0 ? 0 : s[count / 2];
            System.out.println(String.format(Locale.ROOT, "%s-ticks %d", name, count));
            System.out.println(String.format(Locale.ROOT, "%s-max-late-ms %.3f", name, max / 1e6));
            System.out.println(String.format(Locale.ROOT, "%s-p99-late-ms %.3f", name, p99 / 1e6));
            System.out.println(String.format(Locale.ROOT, "%s-p50-late-ms %.3f", name, p50 / 1e6));
            StringBuilder worst = new StringBuilder(name + "-worst-ticks (late ms @ s since start)");
            Integer[] idx = new Integer[count];
            for (int i = 0; i < count; i++) idx[i] = i;
            Arrays.sort(idx, (x, y) -> Long.compare(samples[y], samples[x]));
            for (int i = 0; i < Math.min(5, count); i++) {
                worst.append(String.format(Locale.ROOT, " %.1f@%.3f", samples[idx[i]] / 1e6, (at[idx[i]] - START) / 1e9));
            }
            System.out.println(worst);
        }
    }

    public static void main(String[] args) throws Exception {
        int k = args.length > 0 ? Integer.parseInt(args[0]) : 2_500;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int connects = args.length > 2 ? Integer.parseInt(args[2]) : k; // threads blocked in connect (default k)
        System.out.println("scheduler-parallelism " + System.getProperty("jdk.virtualThreadScheduler.parallelism"));

        // every pinned park of the run, whatever its length (a pinned thread would also hold the only carrier)
        jdk.jfr.Recording rec = new jdk.jfr.Recording();
        rec.enable("jdk.VirtualThreadPinned").withThreshold(java.time.Duration.ZERO).withStackTrace();
        rec.start();

        NetNamespace a = NetNamespace.create("lateness-a"), b = NetNamespace.create("lateness-b");
        a.sysctl().set("net.ipv4.ip_local_port_range", "10000 65535");
        a.sysctl().set("net.core.somaxconn", "65535");
        VethPair pair = Topology.link(a, b, "veth0", "10.7.0.1/24", "10.7.0.2/24");
        a.extension(NeighbourTable.class).addPermanent(a.requireInterface("veth0"), Ipv4.parseAddress("10.7.0.2"),
                pair.b().macAddress());
        ImpairedDevice.interpose(a, "veth0", ImpairmentConfig.parse("loss=100%"));
        SelectorProvider provider = JnetNetwork.of(a).selectorProvider();

        Phase setup = new Phase("setup"), blocked = new Phase("blocked");
        // a platform thread ticking the same way: a witness of the stalls of the OS (a busy or virtualised
        // machine), which delay threads whatever runs on the virtual scheduler
        Phase witnessSetup = new Phase("witness-setup"), witnessBlocked = new Phase("witness-blocked");
        Phase[] current = {setup}, witnessCurrent = {witnessSetup};
        long[] stopAt = {Long.MAX_VALUE};
        Thread ticker = Thread.ofVirtual().name("ticker").start(() -> tick(current, stopAt));
        Thread witness = Thread.ofPlatform().name("witness").daemon().start(() -> tick(witnessCurrent, stopAt));
        Thread.sleep(200); // the ticker runs before any other virtual thread starts
        long t0 = System.nanoTime();

        List<Thread> readers = new ArrayList<>(), acceptors = new ArrayList<>(), connectors = new ArrayList<>(),
                selectors = new ArrayList<>();
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger returned = new AtomicInteger();

        // read: K idle loopback connections, a virtual reader on each accepted end
        ServerSocketChannel server = provider.openServerSocketChannel().bind(new InetSocketAddress("127.0.0.1", 100), 65535);
        SocketChannel[] clients = new SocketChannel[k];
        for (int i = 0; i < k; i++) {
            clients[i] = provider.openSocketChannel();
            clients[i].connect(server.getLocalAddress());
            SocketChannel ch = server.accept();
            readers.add(Thread.ofVirtual().name("read-" + i).start(() -> blockIn(failures, returned, () -> ch.read(ByteBuffer.allocate(1)))));
        }
        // accept: K listeners, a virtual acceptor on each
        for (int i = 0; i < k; i++) {
            ServerSocketChannel l = provider.openServerSocketChannel().bind(new InetSocketAddress("127.0.0.1", 1000 + i), 16);
            acceptors.add(Thread.ofVirtual().name("accept-" + i).start(() -> blockIn(failures, returned, l::accept)));
        }
        // connect: K connects to a peer whose SYNs are all dropped
        InetSocketAddress silent = new InetSocketAddress("10.7.0.2", 80);
        for (int i = 0; i < connects; i++) {
            SocketChannel c = provider.openSocketChannel();
            connectors.add(Thread.ofVirtual().name("connect-" + i).start(() -> blockIn(failures, returned, () -> c.connect(silent))));
        }
        // select: K selectors, each with an idle client end registered for reading
        for (int i = 0; i < k; i++) {
            SocketChannel c = clients[i];
            c.configureBlocking(false);
            Selector sel = provider.openSelector();
            c.register(sel, SelectionKey.OP_READ);
            selectors.add(Thread.ofVirtual().name("select-" + i).start(() -> blockIn(failures, returned, sel::select)));
        }
        long started = System.nanoTime();
        System.out.println(String.format(Locale.ROOT, "s setup-from %.3f threads-started %.3f", (t0 - START) / 1e9, (started - START) / 1e9));

        int[] parked = new int[4];
        List<List<Thread>> kinds = List.of(readers, acceptors, connectors, selectors);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < until) {
            for (int j = 0; j < 4; j++) parked[j] = waiting(kinds.get(j));
            if (Arrays.stream(parked).sum() == 3 * k + connects) break;
            Thread.sleep(20);
        }
        long setupDone = System.nanoTime();
        System.gc(); // no collection of setup's garbage during the measurement
        current[0] = blocked;
        witnessCurrent[0] = witnessBlocked;
        System.out.println(String.format(Locale.ROOT, "s blocked-phase-from %.3f", (System.nanoTime() - START) / 1e9));
        stopAt[0] = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        ticker.join();
        witness.join();
        int[] stillParked = new int[4];
        for (int j = 0; j < 4; j++) stillParked[j] = waiting(kinds.get(j));

        System.out.println("parked read " + parked[0] + " accept " + parked[1] + " connect " + parked[2] + " select " + parked[3]);
        System.out.println("still-parked read " + stillParked[0] + " accept " + stillParked[1] + " connect " + stillParked[2]
                + " select " + stillParked[3]);
        System.out.println("returned " + returned.get());
        System.out.println("failures " + failures.get());
        System.out.println(String.format(Locale.ROOT, "ms start-threads %d until-all-parked %d",
                (started - t0) / 1_000_000, (setupDone - started) / 1_000_000));
        setup.print();
        blocked.print();
        witnessBlocked.print();
        int over = 0, explained = 0;
        for (int i = 0; i < blocked.count; i++) {
            if (blocked.samples[i] < TimeUnit.MILLISECONDS.toNanos(10)) continue;
            over++;
            long from = blocked.at[i], to = from + TICK_NANOS + blocked.samples[i];
            for (int j = 0; j < witnessBlocked.count; j++) {
                long wFrom = witnessBlocked.at[j], wTo = wFrom + TICK_NANOS + witnessBlocked.samples[j];
                if (witnessBlocked.samples[j] >= TimeUnit.MILLISECONDS.toNanos(5) && wFrom < to && from < wTo) {
                    explained++;
                    break;
                }
            }
        }
        rec.stop();
        java.nio.file.Path jfr = java.nio.file.Files.createTempFile("jnet-lateness", ".jfr");
        rec.dump(jfr);
        rec.close();
        List<jdk.jfr.consumer.RecordedEvent> pinned = jdk.jfr.consumer.RecordingFile.readAllEvents(jfr);
        java.nio.file.Files.deleteIfExists(jfr);
        System.out.println("pinned-events " + pinned.size());
        if (!pinned.isEmpty()) System.out.println("first-pinned " + pinned.getFirst());
        System.out.println("blocked-ticks-over-10ms " + over + " of-which-the-platform-witness-also-stalled " + explained);
        System.out.flush();
        System.exit(0);
    }

    /** Sleeps in 5 ms steps until {@code stopAt}, adding each step's lateness to the phase then current. */
    private static void tick(Phase[] current, long[] stopAt) {
        while (System.nanoTime() - stopAt[0] < 0) {
            Phase p = current[0];
            long t = System.nanoTime();
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                return;
            }
            long late = System.nanoTime() - t - TICK_NANOS;
            if (p == current[0]) p.add(Math.max(0, late), t);
        }
    }

    interface Call {
        Object call() throws Exception;
    }

    private static void blockIn(AtomicInteger failures, AtomicInteger returned, Call c) {
        try {
            c.call();
            returned.incrementAndGet();
        } catch (Exception e) {
            if (failures.getAndIncrement() == 0) e.printStackTrace();
        }
    }

    private static int waiting(List<Thread> threads) {
        int n = 0;
        for (Thread t : threads) {
            Thread.State s = t.getState();
            if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) n++;
        }
        return n;
    }
}
