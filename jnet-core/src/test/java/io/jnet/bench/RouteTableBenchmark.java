package io.jnet.bench;

import io.jnet.ip.LinearRouteTable;
import io.jnet.ip.Route;
import io.jnet.ip.RouteTable;
import io.jnet.ip.SyntheticRoutes;
import io.jnet.ip.TrieRouteTable;
import io.jnet.link.VethPair;
import io.jnet.stack.Interface;
import io.jnet.stack.NetNamespace;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
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
 * The routing table on synthetic internet-like tables ({@link SyntheticRoutes}, seed 1): {@code lookup}
 * of destinations drawn uniformly inside random prefixes of the table (65,536 of them, cycled, so
 * every lookup walks to a real prefix's depth), for {@link RouteTable} ({@code table=poptrie}: its Poptrie
 * read side), the trie looked up directly as it was before ({@code table=trie}, {@link TrieRouteTable}) and
 * the linear scan the trie replaced ({@link LinearRouteTable}); {@code update} alternately adds a prefix not in the table and
 * removes it again (4,096 such prefixes, cycled), so its samples are half adds, half removes.
 * With {@code dst=hot256} the destinations fall in 256 random prefixes only, so the lookup's nodes stay
 * in cache: the cost of the trie walk itself, without the memory latency of a table larger than the caches.
 * SampleTime of a single lookup includes the timer's own cost (about 20-30 ns), so its median is an
 * upper bound. The linear table at 1M prefixes takes about a millisecond a lookup and longer to
 * update: run it with {@code -p table=linear -p routes=1000000 -i 1} and only {@code lookup}; {@code dst}
 * does not matter to {@code update}: run it with {@code -p dst=table}.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class RouteTableBenchmark {
    private static final int DESTINATIONS = 1 << 16;
    private static final int EXTRA = 4096;

    @Param({"10", "1000", "1000000"})
    public int routes;

    @Param({"trie", "poptrie", "linear"})
    public String table;

    /** Lookup destinations: inside random prefixes of the whole table, or of 256 of them (a cache-resident working set). */
    @Param({"table", "hot256"})
    public String dst;

    private NetNamespace ns;
    private TrieRouteTable trie;
    private RouteTable poptrie;
    private LinearRouteTable linear;
    private final int[] destinations = new int[DESTINATIONS];
    private Route[] extra;
    private int next;
    private int nextUpdate;

    @Setup(Level.Trial)
    public void setUp() {
        ns = NetNamespace.create("rtbench");
        Interface itf = ns.attach(VethPair.create("rb0", "rb1").a());
        long[] ps = SyntheticRoutes.prefixes(1, routes + EXTRA);
        List<Route> rs = new ArrayList<>(routes);
        for (int i = 0; i < routes; i++) rs.add(route(ps[i], itf));
        extra = new Route[EXTRA];
        for (int i = 0; i < EXTRA; i++) extra[i] = route(ps[routes + i], itf);
        switch (table) {
            case "trie" -> {
                trie = new TrieRouteTable();
                for (Route r : rs) trie.add(r);
            }
            case "poptrie" -> {
                poptrie = new RouteTable();
                for (Route r : rs) poptrie.add(r);
            }
            case "linear" -> linear = new LinearRouteTable(rs);
            default -> throw new IllegalArgumentException("table: trie, poptrie or linear, not " + table);
        }
        SplittableRandom rnd = new SplittableRandom(2);
        int[] pool = new int[dst.equals("hot256") ? Math.min(256, routes) : routes];
        for (int i = 0; i < pool.length; i++) pool[i] = dst.equals("hot256") ? rnd.nextInt(routes) : i;
        for (int i = 0; i < DESTINATIONS; i++) destinations[i] = SyntheticRoutes.addressIn(ps[pool[rnd.nextInt(pool.length)]], rnd);
    }

    @TearDown(Level.Trial)
    public void tearDown() { ns.close(); }

    private static Route route(long packed, Interface itf) {
        return new Route(SyntheticRoutes.prefixOf(packed), SyntheticRoutes.lengthOf(packed), 0x0A000001, itf, 0, 0);
    }

    /** One longest-prefix lookup of a destination inside a random prefix of the table. */
    @Benchmark
    @BenchmarkMode({Mode.AverageTime, Mode.SampleTime})
    public Route lookup() {
        int dst = destinations[next++ & (DESTINATIONS - 1)];
        return trie != null ? trie.lookup(dst) : poptrie != null ? poptrie.lookup(dst) : linear.lookup(dst);
    }

    /** One add (even calls) or remove (odd calls) of a prefix not otherwise in the table. */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    public boolean update() {
        int k = nextUpdate++;
        Route r = extra[(k >>> 1) & (EXTRA - 1)];
        if ((k & 1) == 0) {
            if (trie != null) trie.add(r);
            else if (poptrie != null) poptrie.add(r);
            else linear.add(r);
            return true;
        }
        return trie != null ? trie.remove(r) : poptrie != null ? poptrie.remove(r) : linear.remove(r);
    }
}
