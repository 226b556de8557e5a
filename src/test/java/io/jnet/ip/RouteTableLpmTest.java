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

/** {@link RouteTable} against {@link LinearRouteTable}, the linear scan it replaced. */
class RouteTableLpmTest {
    private static NetNamespace ns;
    private static Interface[] itfs;

    @BeforeAll
    static void setUp() {
        ns = NetNamespace.create("lpm");
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
        RouteTable t = new RouteTable();
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
