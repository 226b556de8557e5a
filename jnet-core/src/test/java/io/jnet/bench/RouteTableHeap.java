package io.jnet.bench;

import io.jnet.ip.LinearRouteTable;
import io.jnet.ip.Route;
import io.jnet.ip.RouteTable;
import io.jnet.ip.SyntheticRoutes;
import io.jnet.ip.TrieRouteTable;
import io.jnet.link.VethPair;
import io.jnet.stack.Interface;
import io.jnet.stack.NetNamespace;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Heap of a routing table on synthetic internet-like tables ({@link SyntheticRoutes}, seed 1), two ways:
 * <ul>
 * <li>measured: heap used after full collections ({@code System.gc()} until two readings agree),
 *     with the {@link Route} objects already allocated, before and after building the table, several
 *     times; the difference is the table's own structure;</li>
 * <li>estimated: a walk of the table's object graph (reflection, stopping at {@link Route} objects and
 *     interfaces) summing object sizes with the HotSpot layout of a heap below 32 GiB (12-byte object
 *     headers, 16-byte array headers, 4-byte references, 8-byte alignment), as JOL's
 *     {@code GraphLayout.totalSize()} would.</li>
 * </ul>
 * Tables: {@code trie}, the trie looked up directly as {@link RouteTable} was before
 * ({@link TrieRouteTable}); {@code poptrie}, {@link RouteTable} (the same trie plus its Poptrie read
 * side); {@code linear}, {@link LinearRouteTable}.
 * Route objects themselves (40 bytes each with that layout) belong to the caller and are reported
 * apart. Run (after {@code ./bench.sh -h} built the classes): {@code java -Xms3g -Xmx3g --add-opens java.base/java.util=ALL-UNNAMED
 * -cp jnet-core/target/test-classes:jnet-core/target/classes:$(cat jnet-core/target/test.classpath) io.jnet.bench.RouteTableHeap [sizes...]}.
 */
public final class RouteTableHeap {
    private RouteTableHeap() {}

    public static void main(String[] args) throws Exception {
        int[] sizes = args.length == 0 ? new int[] {10, 1000, 1_000_000} : java.util.Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        try (NetNamespace ns = NetNamespace.create("heap")) {
            Interface itf = ns.attach(VethPair.create("h0", "h1").a());
            for (int n : sizes) {
                long[] ps = SyntheticRoutes.prefixes(1, n);
                List<Route> rs = new ArrayList<>(n);
                for (long p : ps) rs.add(new Route(SyntheticRoutes.prefixOf(p), SyntheticRoutes.lengthOf(p), 0x0A000001, itf, 0, 0));
                ps = null;
                for (int rep = 0; rep < 3; rep++) {
                    long before = usedAfterGc();
                    TrieRouteTable t = new TrieRouteTable();
                    for (Route r : rs) t.add(r);
                    long after = usedAfterGc();
                    long est = estimate(t);
                    System.out.printf("trie    %9d prefixes: measured %,12d B (%.1f B/prefix), estimated %,12d B (%.1f B/prefix)%n",
                            n, after - before, (after - before) / (double) n, est, est / (double) n);
                    if (t.size() != n) throw new AssertionError();
                }
                for (int rep = 0; rep < 3; rep++) {
                    long before = usedAfterGc();
                    RouteTable t = new RouteTable();
                    for (Route r : rs) t.add(r);
                    long after = usedAfterGc();
                    long est = estimate(t);
                    System.out.printf("poptrie %9d prefixes: measured %,12d B (%.1f B/prefix), estimated %,12d B (%.1f B/prefix)%n",
                            n, after - before, (after - before) / (double) n, est, est / (double) n);
                    if (t.size() != n) throw new AssertionError();
                }
                long before = usedAfterGc();
                LinearRouteTable l = new LinearRouteTable(rs);
                long after = usedAfterGc();
                System.out.printf("linear  %9d prefixes: measured %,12d B (%.1f B/prefix), estimated %,12d B%n",
                        n, after - before, (after - before) / (double) n, estimate(l));
                if (l.routes().size() != n) throw new AssertionError();
                System.out.printf("routes  %9d Route objects: estimated %,12d B (%.1f B/route)%n", n, n * sizeOf(rs.get(0)), (double) sizeOf(rs.get(0)));
            }
        }
    }

    private static long usedAfterGc() throws InterruptedException {
        var mem = ManagementFactory.getMemoryMXBean();
        long last = -1;
        for (int i = 0; i < 10; i++) {
            System.gc();
            Thread.sleep(50);
            long used = mem.getHeapMemoryUsage().getUsed();
            if (used == last) return used;
            last = used;
        }
        return last;
    }

    /** Bytes of the objects reachable from {@code root}, not counting Route objects, interfaces and static fields. */
    static long estimate(Object root) throws IllegalAccessException {
        Map<Object, Boolean> seen = new IdentityHashMap<>();
        List<Object> stack = new ArrayList<>(List.of(root));
        long total = 0;
        while (!stack.isEmpty()) {
            Object o = stack.remove(stack.size() - 1);
            if (o == null || o instanceof Route || o instanceof Interface || o instanceof Class<?> || seen.put(o, true) != null) continue;
            total += sizeOf(o);
            Class<?> c = o.getClass();
            if (c.isArray()) {
                if (!c.getComponentType().isPrimitive()) for (int i = 0; i < Array.getLength(o); i++) stack.add(Array.get(o, i));
                continue;
            }
            for (Class<?> k = c; k != null; k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) continue;
                    f.setAccessible(true);
                    stack.add(f.get(o));
                }
            }
        }
        return total;
    }

    /** Shallow size with 12-byte headers, 4-byte references, 8-byte alignment. */
    static long sizeOf(Object o) {
        Class<?> c = o.getClass();
        long size;
        if (c.isArray()) {
            Class<?> e = c.getComponentType();
            int w = e == long.class || e == double.class ? 8 : e == int.class || e == float.class || !e.isPrimitive() ? 4
                    : e == short.class || e == char.class ? 2 : 1;
            size = 16 + (long) w * Array.getLength(o);
        } else {
            size = 12;
            for (Class<?> k = c; k != null; k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers())) continue;
                    Class<?> t = f.getType();
                    size += t == long.class || t == double.class ? 8 : t == int.class || t == float.class || !t.isPrimitive() ? 4
                            : t == short.class || t == char.class ? 2 : 1;
                }
            }
        }
        return (size + 7) & ~7L;
    }
}
