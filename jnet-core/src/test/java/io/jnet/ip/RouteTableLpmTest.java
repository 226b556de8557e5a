package io.jnet.ip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.link.VethPair;
import io.jnet.stack.Interface;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Ipv4;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link RouteTable} against {@link LinearRouteTable}, the linear scan it replaced: longest match,
 * metrics, /0 and /32, random and synthetic tables, deletions during lookups, and the Poptrie read side's edges (leaf runs, regions rebuilt on longer prefixes, covers replaced on shorter ones,
 * the direct array growing and shrinking, also while lookups run).
 */
class RouteTableLpmTest {
    private static NetNamespace ns;
    private static Interface[] itfs;

    @BeforeAll
    static void setUp() {
        ns = NetNamespace.create("plpm");
        itfs = new Interface[3];
        for (int i = 0; i < itfs.length; i++) itfs[i] = ns.attach(VethPair.create("a" + i, "b" + i).a());
    }

    @AfterAll
    static void tearDown() { ns.close(); }

    private static Route route(String cidr, int metric, int itf) {
        int slash = cidr.indexOf('/');
        int len = Integer.parseInt(cidr.substring(slash + 1));
        return new Route(Ipv4.parseAddress(cidr.substring(0, slash)), len, 0, itfs[itf], 0, metric);
    }

    private static int a(String s) { return Ipv4.parseAddress(s); }

    @Test
    void emptyTableHasNoRoute() {
        RouteTable t = new RouteTable();
        assertThat(t.lookup(0)).isNull();
        assertThat(t.lookup(-1)).isNull();
        assertThat(t.routes()).isEmpty();
        assertThat(t.size()).isZero();
    }

    @Test
    void defaultAndHostRoutes() {
        RouteTable t = new RouteTable();
        Route dflt = route("0.0.0.0/0", 0, 0);
        Route host = route("255.255.255.255/32", 0, 1);
        Route zero = route("0.0.0.0/32", 0, 2);
        Route low = route("0.0.0.1/32", 0, 1);
        t.add(dflt);
        t.add(host);
        t.add(zero);
        t.add(low);
        assertThat(t.lookup(a("255.255.255.255"))).isSameAs(host);
        assertThat(t.lookup(a("255.255.255.254"))).isSameAs(dflt);
        assertThat(t.lookup(0)).isSameAs(zero);
        assertThat(t.lookup(1)).isSameAs(low);
        assertThat(t.lookup(2)).isSameAs(dflt);
        assertThat(t.lookup(a("8.8.8.8"))).isSameAs(dflt);
        assertThat(t.remove(dflt)).isTrue();
        assertThat(t.lookup(a("8.8.8.8"))).isNull();
        assertThat(t.lookup(-1)).isSameAs(host);
        assertThat(t.routes()).containsExactlyInAnyOrder(host, zero, low);
    }

    @Test
    void overlappingPrefixesEveryLength() {
        RouteTable t = new RouteTable();
        int dst = a("203.0.113.77");
        List<Route> rs = new ArrayList<>();
        for (int len = 0; len <= 32; len++) {
            Route r = new Route(dst & Ipv4.prefixMask(len), len, 0, itfs[len % 3], 0, 0);
            rs.add(r);
            t.add(r);
            assertThat(t.lookup(dst)).isSameAs(r);
        }
        // an address leaving the chain at bit k matches the /k route
        for (int len = 0; len < 32; len++) {
            int other = dst ^ (1 << (31 - len));
            assertThat(t.lookup(other)).as("flip bit for /%d", len).isSameAs(rs.get(len));
        }
        for (int len = 32; len >= 0; len--) {
            assertThat(t.remove(rs.get(len))).isTrue();
            assertThat(t.lookup(dst)).isSameAs(len == 0 ? null : rs.get(len - 1));
        }
        assertThat(t.size()).isZero();
    }

    @Test
    void samePrefixLowestMetricThenFirstAdded() {
        RouteTable t = new RouteTable();
        Route m100 = route("192.0.2.0/24", 100, 0);
        Route m50 = route("192.0.2.0/24", 50, 1);
        Route m50b = route("192.0.2.0/24", 50, 2);
        Route m10 = route("192.0.2.0/24", 10, 0);
        t.add(m100);
        assertThat(t.lookup(a("192.0.2.9"))).isSameAs(m100);
        t.add(m50);
        t.add(m50b);
        assertThat(t.lookup(a("192.0.2.9"))).isSameAs(m50);
        t.add(m10);
        assertThat(t.lookup(a("192.0.2.9"))).isSameAs(m10);
        assertThat(t.routes()).containsExactly(m10, m50, m50b, m100);
        assertThatThrownBy(() -> t.add(route("192.0.2.0/24", 50, 1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("route exists");
        assertThat(t.remove(m10)).isTrue();
        assertThat(t.lookup(a("192.0.2.9"))).isSameAs(m50);
        assertThat(t.remove(m50)).isTrue();
        assertThat(t.lookup(a("192.0.2.9"))).isSameAs(m50b);
        assertThat(t.remove(m50)).isFalse();
        assertThat(t.remove(m50b)).isTrue();
        assertThat(t.lookup(a("192.0.2.9"))).isSameAs(m100);
        assertThat(t.remove(m100)).isTrue();
        assertThat(t.lookup(a("192.0.2.9"))).isNull();
        assertThat(t.size()).isZero();
    }

    @Test
    void removeOfAbsentRouteChangesNothing() {
        RouteTable t = new RouteTable();
        Route r = route("198.51.100.0/24", 0, 0);
        t.add(r);
        int g = t.generation();
        assertThat(t.remove(route("198.51.100.0/24", 1, 0))).isFalse(); // other metric
        assertThat(t.remove(route("198.51.100.0/25", 0, 0))).isFalse(); // other length
        assertThat(t.remove(route("198.51.0.0/16", 0, 0))).isFalse(); // no such node
        assertThat(t.generation()).isEqualTo(g);
        assertThat(t.remove(new Route(r.prefix(), 24, 0, itfs[0], 0, 0))).isTrue(); // equal, not the same object
        assertThat(t.generation()).isNotEqualTo(g);
    }

    @Test
    void randomTablesMatchLinearScan() {
        SplittableRandom rnd = new SplittableRandom(42);
        for (int round = 0; round < 20; round++) {
            RouteTable t = new RouteTable();
            LinearRouteTable ref = new LinearRouteTable();
            List<Route> present = new ArrayList<>();
            int[] bases = {a("10.0.0.0"), a("10.1.0.0"), a("192.168.0.0"), a("172.16.4.0"), rnd.nextInt()};
            for (int op = 0; op < 400; op++) {
                if (!present.isEmpty() && rnd.nextInt(4) == 0) {
                    Route r = present.remove(rnd.nextInt(present.size()));
                    assertThat(t.remove(r)).isTrue();
                    assertThat(ref.remove(r)).isTrue();
                } else {
                    int len = rnd.nextInt(33);
                    int p = (bases[rnd.nextInt(bases.length)] ^ (rnd.nextInt() >>> rnd.nextInt(1, 33))) & Ipv4.prefixMask(len);
                    Route r = new Route(p, len, rnd.nextInt(3), itfs[rnd.nextInt(3)], 0, rnd.nextInt(3));
                    boolean refThrew = throwsIae(() -> ref.add(r));
                    assertThat(throwsIae(() -> t.add(r))).isEqualTo(refThrew);
                    if (!refThrew) present.add(r);
                }
                for (int q = 0; q < 20; q++) {
                    int dst = present.isEmpty() || rnd.nextBoolean() ? bases[rnd.nextInt(bases.length)] ^ (rnd.nextInt() >>> rnd.nextInt(1, 33))
                            : present.get(rnd.nextInt(present.size())).prefix() | (rnd.nextInt() & 0xFF);
                    assertThat(t.lookup(dst)).as("lookup %s", Ipv4.addressToString(dst)).isSameAs(ref.lookup(dst));
                }
            }
            assertThat(t.routes()).containsExactlyInAnyOrderElementsOf(ref.routes());
            assertThat(t.size()).isEqualTo(present.size());
        }
    }

    @Test
    void syntheticTableMatchesLinearScan() {
        long[] ps = SyntheticRoutes.prefixes(7, 20_000);
        RouteTable t = new RouteTable();
        List<Route> rs = new ArrayList<>();
        for (long p : ps) {
            Route r = new Route(SyntheticRoutes.prefixOf(p), SyntheticRoutes.lengthOf(p), 0, itfs[0], 0, 0);
            rs.add(r);
            t.add(r);
        }
        LinearRouteTable ref = new LinearRouteTable(rs);
        SplittableRandom rnd = new SplittableRandom(3);
        for (int q = 0; q < 3000; q++) {
            int dst = rnd.nextBoolean() ? rnd.nextInt() : SyntheticRoutes.addressIn(ps[rnd.nextInt(ps.length)], rnd);
            assertThat(t.lookup(dst)).isSameAs(ref.lookup(dst));
        }
        assertThat(t.routes()).hasSize(ps.length);
        assertThat(new HashSet<>(t.routes())).isEqualTo(new HashSet<>(rs)); // AssertJ's in-any-order check is quadratic
    }

    /**
     * A writer removes then re-adds routes while readers look up: each result must be the linear-scan
     * answer of a table state between the writer's step before and after the lookup (the step counter
     * is published after each update), so no lookup sees a torn table.
     */
    @Test
    void lookupsDuringUpdatesSeeOldOrNewTable() throws Exception {
        lookupsDuringUpdatesSeeOldOrNewTable(new RouteTable());
    }

    /** As above, with the direct array shrinking (below 500 routes) while all are removed and growing (above 1,000) while they come back. */
    @Test
    void lookupsDuringResizesSeeOldOrNewTable() throws Exception {
        RouteTable t = new RouteTable(1000, 500);
        lookupsDuringUpdatesSeeOldOrNewTable(t);
        assertThat(t.directBits()).isEqualTo(RouteTable.LARGE_BITS);
    }

    private void lookupsDuringUpdatesSeeOldOrNewTable(RouteTable t) throws Exception {
        SplittableRandom rnd = new SplittableRandom(11);
        long[] ps = SyntheticRoutes.prefixes(5, 1500);
        List<Route> all = new ArrayList<>();
        for (long p : ps) all.add(new Route(SyntheticRoutes.prefixOf(p), SyntheticRoutes.lengthOf(p), 0, itfs[0], 0, 0));
        // covering routes so that removals change answers rather than leave no route
        for (int len : new int[] {0, 8, 16}) {
            for (int k = 0; k < 40; k++) {
                long p = ps[rnd.nextInt(ps.length)];
                Route r = new Route(SyntheticRoutes.prefixOf(p) & Ipv4.prefixMask(len), len, 0, itfs[1], 0, 1 + k % 4); // metrics unlike the generated routes' 0: no ties
                if (all.stream().noneMatch(x -> x.prefix() == r.prefix() && x.prefixLength() == len && x.metric() == r.metric()
                        && x.itf() == r.itf())) all.add(r);
            }
        }
        for (Route r : all) t.add(r);
        // ops: remove every route in a random order, then add them back in another
        List<Route> removeOrder = shuffled(all, rnd), addOrder = shuffled(all, rnd);
        int n = all.size();
        Map<Route, int[]> life = new HashMap<>(); // route -> {step removed, step added back}: present in state j iff j < removed or j >= added
        for (int i = 0; i < n; i++) life.put(removeOrder.get(i), new int[] {i + 1, 0});
        for (int i = 0; i < n; i++) life.get(addOrder.get(i))[1] = n + i + 1;
        AtomicInteger step = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            for (int i = 0; i < 2 * n; i++) {
                if (i < n) t.remove(removeOrder.get(i));
                else t.add(addOrder.get(i - n));
                step.set(i + 1);
                if (i % 8 == 0) LockSupport.parkNanos(50_000); // let the readers overlap many steps
            }
        });
        Thread[] readers = new Thread[2];
        AtomicInteger checked = new AtomicInteger();
        for (int k = 0; k < readers.length; k++) {
            SplittableRandom rr = rnd.split();
            readers[k] = new Thread(() -> {
                try {
                    while (step.get() < 2 * n) {
                        int dst = SyntheticRoutes.addressIn(ps[rr.nextInt(ps.length)], rr);
                        int before = step.get();
                        Route got = t.lookup(dst);
                        int after = step.get();
                        boolean ok = false;
                        for (int j = before; j <= Math.min(after + 1, 2 * n) && !ok; j++) ok = got == expected(all, life, j, dst);
                        if (!ok) throw new AssertionError("lookup " + Ipv4.addressToString(dst) + " -> " + got + " in none of states " + before + ".." + (after + 1));
                        checked.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
        }
        for (Thread r : readers) r.start();
        writer.start();
        writer.join();
        for (Thread r : readers) r.join();
        if (failure.get() != null) throw new AssertionError(failure.get());
        assertThat(checked.get()).isPositive();
        assertThat(t.routes()).containsExactlyInAnyOrderElementsOf(all);
    }

    private static final String[] EDGES = {
        "10.16.0.0/13", "10.24.0.0/16", "10.31.255.0/24", "10.16.0.0/24", "10.16.0.0/25", "10.16.0.128/25",
        "10.16.1.0/24", "10.16.2.0/24", "10.16.3.0/24", "10.16.64.0/18", "10.16.64.0/24", "10.16.127.0/24",
        "10.17.0.0/17", "10.17.0.0/18", "10.17.0.0/19", "10.17.0.0/20", "10.17.0.0/21", "10.17.0.0/22", "10.17.0.0/23",
        "10.18.0.0/32", "10.18.0.1/32", "10.18.0.2/31", "10.18.0.4/30", "10.18.0.252/30", "10.18.0.255/32",
        "10.18.255.255/32", "10.19.0.0/26", "10.19.0.64/26", "10.19.0.192/26", "10.31.255.255/32", "10.16.0.0/12",
        "10.0.0.0/8", "10.28.0.0/14", "10.20.4.0/22", "10.20.4.0/23", "10.20.6.0/23", "10.21.0.0/24",
    };

    private static List<Route> edgeRoutes() {
        List<Route> rs = new ArrayList<>();
        for (int i = 0; i < EDGES.length; i++) rs.add(route(EDGES[i], i % 2, i % 3));
        rs.add(route("10.16.0.0/24", 5, 1)); // a second route of a prefix: not the best
        return rs;
    }

    /** Every address of 10.16.0.0/12 (and around it) against the linear scan, with the direct array at 12 and at 18 bits. */
    @Test
    void everyAddressOfARegionMatchesLinearScan() {
        for (int bits : new int[] {RouteTable.SMALL_BITS, RouteTable.LARGE_BITS}) {
            RouteTable t = bits == RouteTable.LARGE_BITS ? new RouteTable(0, 0) : new RouteTable();
            List<Route> rs = edgeRoutes();
            for (Route r : rs) t.add(r);
            assertThat(t.directBits()).isEqualTo(bits);
            LinearRouteTable ref = new LinearRouteTable(rs);
            int base = a("10.16.0.0");
            for (int i = -4096; i < (1 << 20) + 4096; i++) {
                int dst = base + i;
                if (ref.lookup(dst) != t.lookup(dst)) assertThat(t.lookup(dst)).as("lookup %s", Ipv4.addressToString(dst)).isSameAs(ref.lookup(dst));
            }
            // removals one by one: each changes a region (longer than /K) or the covers of a range (not longer)
            SplittableRandom rnd = new SplittableRandom(bits);
            List<Route> left = new ArrayList<>(rs);
            while (!left.isEmpty()) {
                Route gone = left.remove(rnd.nextInt(left.size()));
                assertThat(t.remove(gone)).isTrue();
                ref = new LinearRouteTable(left);
                for (Route r : rs) {
                    int first = r.prefix(), last = r.prefix() | ~Ipv4.prefixMask(r.prefixLength());
                    for (int dst : new int[] {first - 1, first, first + 1, last - 1, last, last + 1, first + (int) ((last - (long) first) / 2)})
                        assertThat(t.lookup(dst)).as("lookup %s", Ipv4.addressToString(dst)).isSameAs(ref.lookup(dst));
                }
                for (int q = 0; q < 2000; q++) {
                    int dst = base + rnd.nextInt(1 << 20);
                    assertThat(t.lookup(dst)).as("lookup %s", Ipv4.addressToString(dst)).isSameAs(ref.lookup(dst));
                }
            }
            assertThat(t.lookup(a("10.16.0.1"))).isNull();
        }
    }

    /**
     * Short prefixes (not longer than the direct bits) over many regions: adding, replacing by a lower
     * metric, and removing them changes the answer wherever no longer prefix matches, and only there.
     */
    @Test
    void shortPrefixesReplaceCoversOfRegions() {
        RouteTable t = new RouteTable(0, 0); // 18 direct bits
        SplittableRandom rnd = new SplittableRandom(9);
        List<Route> rs = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            int len = 19 + rnd.nextInt(14);
            Route r = new Route((a("10.0.0.0") | rnd.nextInt(1 << 24)) & Ipv4.prefixMask(len), len, 0, itfs[0], 0, 0);
            if (rs.stream().noneMatch(x -> x.prefix() == r.prefix() && x.prefixLength() == r.prefixLength())) {
                rs.add(r);
                t.add(r);
            }
        }
        Route[] shorts = {
            route("10.0.0.0/8", 3, 1), route("10.0.0.0/8", 1, 2), route("10.128.0.0/9", 0, 1), route("0.0.0.0/0", 0, 2),
            route("10.64.0.0/18", 0, 1), route("10.64.0.0/17", 0, 2), route("10.200.0.0/13", 0, 0), route("10.200.0.0/16", 2, 0),
        };
        List<Route> present = new ArrayList<>(rs);
        for (int step = 0; step < 2 * shorts.length; step++) {
            Route r = shorts[step % shorts.length];
            if (step < shorts.length) {
                t.add(r);
                present.add(r);
            } else {
                assertThat(t.remove(r)).isTrue();
                present.remove(r);
            }
            LinearRouteTable ref = new LinearRouteTable(present);
            for (int q = 0; q < 20_000; q++) {
                Route in = rs.get(rnd.nextInt(rs.size()));
                int dst = q % 2 == 0 ? a("10.0.0.0") | rnd.nextInt(1 << 24) : SyntheticRoutes.addressIn(SyntheticRoutes.pack(in.prefix(), in.prefixLength()), rnd);
                assertThat(t.lookup(dst)).as("lookup %s", Ipv4.addressToString(dst)).isSameAs(ref.lookup(dst));
            }
            assertThat(t.lookup(a("11.0.0.1"))).isSameAs(ref.lookup(a("11.0.0.1")));
        }
    }

    /** The direct array grows past the threshold and shrinks back below the lower one; lookups match the linear scan throughout. */
    @Test
    void directArrayGrowsAndShrinks() {
        RouteTable t = new RouteTable(400, 100);
        assertThat(t.directBits()).isEqualTo(RouteTable.SMALL_BITS);
        long[] ps = SyntheticRoutes.prefixes(13, 600);
        List<Route> rs = new ArrayList<>();
        for (long p : ps) rs.add(new Route(SyntheticRoutes.prefixOf(p), SyntheticRoutes.lengthOf(p), 0, itfs[0], 0, 0));
        rs.add(route("0.0.0.0/0", 0, 1));
        SplittableRandom rnd = new SplittableRandom(4);
        List<Route> present = new ArrayList<>();
        for (int i = 0; i < rs.size(); i++) {
            t.add(rs.get(i));
            present.add(rs.get(i));
            if (i % 50 == 0 || i == 400 || i == 401) checkAgainstLinear(t, present, ps, rnd);
        }
        assertThat(t.directBits()).isEqualTo(RouteTable.LARGE_BITS);
        while (present.size() > 50) {
            assertThat(t.remove(present.remove(rnd.nextInt(present.size())))).isTrue();
            if (present.size() % 50 == 0 || present.size() == 99) checkAgainstLinear(t, present, ps, rnd);
        }
        assertThat(t.directBits()).isEqualTo(RouteTable.SMALL_BITS);
        checkAgainstLinear(t, present, ps, rnd);
    }

    /** A table of ten routes keeps the small direct array. */
    @Test
    void tenRoutesKeepTheSmallDirectArray() {
        RouteTable t = new RouteTable();
        long[] ps = SyntheticRoutes.prefixes(2, 10);
        for (long p : ps) t.add(new Route(SyntheticRoutes.prefixOf(p), SyntheticRoutes.lengthOf(p), 0, itfs[0], 0, 0));
        assertThat(t.directBits()).isEqualTo(RouteTable.SMALL_BITS);
    }

    private static void checkAgainstLinear(RouteTable t, List<Route> present, long[] ps, SplittableRandom rnd) {
        LinearRouteTable ref = new LinearRouteTable(present);
        for (int q = 0; q < 3000; q++) {
            int dst = rnd.nextBoolean() ? rnd.nextInt() : SyntheticRoutes.addressIn(ps[rnd.nextInt(ps.length)], rnd);
            assertThat(t.lookup(dst)).as("lookup %s", Ipv4.addressToString(dst)).isSameAs(ref.lookup(dst));
        }
    }

    private static Route expected(List<Route> all, Map<Route, int[]> life, int state, int dst) {
        Route best = null;
        for (Route r : all) {
            int[] l = life.get(r);
            if (!(state < l[0] || state >= l[1]) || !r.matches(dst)) continue;
            if (best == null || r.prefixLength() > best.prefixLength()
                    || (r.prefixLength() == best.prefixLength() && r.metric() < best.metric())) best = r;
        }
        return best;
    }

    private static List<Route> shuffled(List<Route> l, SplittableRandom rnd) {
        List<Route> c = new ArrayList<>(l);
        for (int i = c.size() - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            Route x = c.get(i);
            c.set(i, c.get(j));
            c.set(j, x);
        }
        return c;
    }

    private static boolean throwsIae(Runnable r) {
        try {
            r.run();
            return false;
        } catch (IllegalArgumentException e) {
            return true;
        }
    }
}
