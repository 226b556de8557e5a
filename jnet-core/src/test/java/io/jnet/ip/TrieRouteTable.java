package io.jnet.ip;

import io.jnet.wire.Ipv4;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The routing table as it was before {@link RouteTable} got its Poptrie read side: the same writer
 * trie, looked up directly through an index of its depth-18 nodes. Kept for comparison only, as the
 * baseline of {@code RouteTableBenchmark} and {@code RouteTableHeap}; its description as it was:
 * <p>
 * The IPv4 routing table (Linux's main table): longest-prefix match, then lowest metric; among routes
 * with the same prefix, length and metric the one added first wins.
 *
 * <h2>Structure</h2>
 * A persistent (path-copying) multibit trie with a fixed stride of 6 bits, Tree Bitmap style
 * (Eatherton, Varghese, Dittia, "Tree bitmap: hardware/software IP lookups with incremental updates",
 * 2004): the node at depth {@code d} (0, 6, 12, 18, 24, 30 bits) holds the prefixes of length
 * {@code d+1 .. d+6} that pass through it (the root also holds {@code /0}) as a 128-bit bitmap of
 * positions {@code (1 << l) | bits} ({@code l} bits below the node's depth) plus their best routes in
 * position order (in the node's own fields when at most four, else an array), and its children as a
 * 64-bit bitmap plus a dense {@code Node[]} (popcount indexing, as in Poptrie). Per node a lookup
 * masks the prefix bitmap with the slot's 7 ancestor positions (a 64-entry table) and takes the
 * highest bit, so only the last matching node's route is read. A /24 ends in the node of depth 18,
 * so the 55-60 % /24s of an internet table add no node of their own.
 * <p>
 * Above it, a direct index (Poptrie's direct pointing) maps the top 18 address bits to the node of
 * depth 18 through three levels of plain 64-entry arrays. A lookup reads the index, walks from that
 * node down, and only when nothing longer than /18 matches walks the trie from the root; at 1M
 * prefixes this halved the lookup time (a node and its children array are two dependent cache misses
 * per level, an index array one).
 *
 * <h2>Concurrency</h2>
 * Nodes and index arrays are immutable. An update copies the nodes on the path from the root to the
 * prefix's node (at most 6 nodes of at most 64 children each) and, for a prefix longer than /18, the
 * three index arrays on its way, then publishes the new version (root and index) with one volatile
 * write, so a lookup (one volatile read, no lock, no retry) sees the whole table either before or
 * after any update; replaced nodes are left to the garbage collector (the role RCU plays for Linux's
 * fib_trie). Updates are serialized by this object's monitor. Routes beyond the best one of a
 * prefix (other metrics or devices) are kept by the writer side only ({@link #routes()}, removal).
 *
 * <h2>Why this structure</h2>
 * DIR-24-8 (Gupta, Lin, McKeown 1998) needs a 2^24-entry first table: 64 MiB even for a 10-route
 * table (the limit here is 64 KiB), and a short prefix rewrites up to 2^24 entries. Poptrie (Asai,
 * Ohara 2015) leaf-pushes routes into every descendant, so adding a short prefix rewrites its
 * subtree, and its node pools need a reclamation scheme (RCU) that Java objects get from the
 * collector for free. Linux's LC-trie (fib_trie) adapts node sizes with inflate/halve heuristics and
 * keeps an object per prefix. A fixed 6-bit stride keeps an update to one path copy and needs no
 * rebalancing, and the bitmap/popcount compression keeps the heap small. Those alternatives were
 * not built; the choice rests on their footprint and update cost as computed above and on what this
 * structure and its variants measured (synthetic internet-like tables, {@link SyntheticRoutes},
 * seed 1; JMH, one fork, 3 x 1 s, on a shared 2-core VM with a load average of 4-6, so figures vary
 * by up to 2x between runs):
 * <ul>
 * <li>heap without the caller's {@link Route} objects (40 bytes each): 21.0 bytes a prefix at 1M
 *     prefixes (20.0 without the direct index), 376 bytes at 1,000, 6.5 KiB for 10 routes
 *     ({@code RouteTableHeap} in the test sources: used heap after full collections before and
 *     after building, and an object-graph walk; both agree);</li>
 * <li>add or remove one prefix at 1M prefixes: median 0.45 us without the direct index, 2.4 us with
 *     it ({@code RouteTableBenchmark.update}, sample mode);</li>
 * <li>lookup of destinations inside random prefixes, average: 21 ns at 10 prefixes, 51 ns at 1,000;
 *     at 1M, 54 ns when the destinations fall in 256 prefixes, 190-300 ns when they are spread over
 *     the whole table (450-580 ns without the direct index, 490-510 ns in the same back-to-back
 *     runs that gave it 190-250 ns). One dependent load outside the 1 MiB L2 cache costs
 *     140-270 ns on that machine (a pointer chase over 4-64 MiB), and a 1M-prefix table of any of
 *     the structures above is larger than that cache, so the 100 ns target is not met there.</li>
 * </ul>
 */
public final class TrieRouteTable {
    private static final int STRIDE = 6;
    /** Position bitmap (low word) of the ancestors, lengths 0..5 below the node, of each 6-bit slot. */
    private static final long[] ANCESTORS = new long[64];

    static {
        for (int i = 0; i < 64; i++) {
            long m = 0;
            for (int l = 0; l < STRIDE; l++) m |= 1L << ((1 << l) | (i >>> (STRIDE - l)));
            ANCESTORS[i] = m;
        }
    }

    /** One trie node; immutable once published. */
    private static final class Node {
        /** Prefix positions {@code (1 << l) | bits}, l = 0..5 in {@code pfx0}, l = 6 ({@code 64 + bits}) in {@code pfx1}. */
        final long pfx0, pfx1;
        /** Slots with a child. */
        final long childMap;
        /** Children in slot order; null when none. */
        final Node[] children;
        /**
         * Best route of each set prefix position, in position order: in {@code r0..r3} when there are at
         * most four (most nodes of an internet table: the route is then on the node's own cache lines, not
         * one more miss away), else all in {@code many}.
         */
        final Route r0, r1, r2, r3;
        final Route[] many;

        Node(long pfx0, long pfx1, long childMap, Route[] routes, Node[] children) {
            this.pfx0 = pfx0;
            this.pfx1 = pfx1;
            this.childMap = childMap;
            this.children = children;
            int n = routes == null ? 0 : routes.length;
            if (n > 4) {
                many = routes;
                r0 = r1 = r2 = r3 = null;
            } else {
                many = null;
                r0 = n > 0 ? routes[0] : null;
                r1 = n > 1 ? routes[1] : null;
                r2 = n > 2 ? routes[2] : null;
                r3 = n > 3 ? routes[3] : null;
            }
        }

        /** {@code n} with other children. */
        Node(Node n, long childMap, Node[] children) {
            this.pfx0 = n.pfx0;
            this.pfx1 = n.pfx1;
            this.childMap = childMap;
            this.children = children;
            this.r0 = n.r0;
            this.r1 = n.r1;
            this.r2 = n.r2;
            this.r3 = n.r3;
            this.many = n.many;
        }

        Route route(int i) {
            Route[] m = many;
            if (m != null) return m[i];
            return switch (i) {
                case 0 -> r0;
                case 1 -> r1;
                case 2 -> r2;
                default -> r3;
            };
        }

        /** A fresh array of the routes in position order; null when none. */
        Route[] routes() {
            int n = Long.bitCount(pfx0) + Long.bitCount(pfx1);
            if (n == 0) return null;
            if (many != null) return many.clone();
            Route[] rs = new Route[n];
            for (int i = 0; i < n; i++) rs[i] = route(i);
            return rs;
        }

        boolean isEmpty() { return pfx0 == 0 && pfx1 == 0 && childMap == 0; }

        int routeIndex(int pos) {
            return pos < 64 ? Long.bitCount(pfx0 & ((1L << pos) - 1))
                    : Long.bitCount(pfx0) + Long.bitCount(pfx1 & ((1L << (pos - 64)) - 1));
        }

        boolean hasPrefix(int pos) { return pos < 64 ? (pfx0 >>> pos & 1) != 0 : (pfx1 >>> (pos - 64) & 1) != 0; }

        Node child(int slot) {
            return (childMap >>> slot & 1) == 0 ? null : children[Long.bitCount(childMap & ((1L << slot) - 1))];
        }
    }

    private static final Node EMPTY = new Node(0, 0, 0, null, null);

    /** Top bits resolved by {@link Version#top}: the depth of the nodes it points to. */
    private static final int DIRECT_BITS = 18;

    /**
     * One published table: the trie, and its nodes of depth 18 indexed by the top 18 address bits
     * (Poptrie's direct pointing) as three levels of plain 64-entry arrays (null: nothing below), copied
     * on write, so that a lookup ending at depth 18 or below reads one array per 6 bits instead of a
     * node and its children array.
     */
    private static final class Version {
        final Node root;
        final Node[][][] top;

        Version(Node root, Node[][][] top) {
            this.root = root;
            this.top = top;
        }
    }

    private volatile Version current = new Version(EMPTY, new Node[64][][]);
    private volatile int generation;
    /** All routes, best first, of the prefixes that have more than one; writer side only (under this monitor). */
    private final Map<Long, Route[]> shared = new HashMap<>();
    private int size;

    /** The best route to {@code dst}, or null (ENETUNREACH). Lock-free; never blocked by updates. */
    public Route lookup(int dst) {
        Version v = current;
        Node[][] mid = v.top[dst >>> 26];
        if (mid != null) {
            Node[] chunk = mid[(dst >>> 20) & 63];
            if (chunk != null) {
                Node n = chunk[(dst >>> 14) & 63];
                if (n != null) {
                    Route r = walk(n, 30 - DIRECT_BITS, dst);
                    if (r != null) return r;
                }
            }
        }
        return walk(v.root, 30, dst); // no prefix longer than 18 bits matches
    }

    /** The longest match at or below {@code n}, whose slot is at bit {@code shift} of the 36-bit address; null when none. */
    private static Route walk(Node n, int shift, int dst) {
        Node best = null;
        int bestPos = 0;
        long x = (dst & 0xFFFF_FFFFL) << 4; // 36 bits: the last node (depth 30) sees bits 30-31 and four zeros
        for (; ; shift -= STRIDE) {
            int slot = (int) (x >>> shift) & 63;
            if ((n.pfx1 >>> slot & 1) != 0) {
                best = n;
                bestPos = 64 + slot;
            } else {
                long m = n.pfx0 & ANCESTORS[slot];
                if (m != 0) {
                    best = n;
                    bestPos = 63 - Long.numberOfLeadingZeros(m);
                }
            }
            long cm = n.childMap;
            if ((cm >>> slot & 1) == 0) break;
            n = n.children[Long.bitCount(cm & ((1L << slot) - 1))];
        }
        return best == null ? null : best.route(best.routeIndex(bestPos));
    }

    /**
     * Adds {@code r}. Throws IllegalArgumentException when a route with the same prefix, prefix length,
     * metric and interface exists (Linux: EEXIST).
     */
    public synchronized void add(Route r) {
        int len = r.prefixLength();
        int p = r.prefix() & Ipv4.prefixMask(len);
        Route best = find(p, len);
        if (best == null) {
            publish(put(current.root, 0, p, len, r), p, len);
        } else {
            Long key = key(p, len);
            Route[] all = shared.get(key);
            if (all == null) all = new Route[] {best};
            for (Route x : all) {
                if (x.prefix() == r.prefix() && x.metric() == r.metric() && x.itf() == r.itf())
                    throw new IllegalArgumentException("route exists: " + x);
            }
            int at = 0;
            while (at < all.length && all[at].metric() <= r.metric()) at++;
            Route[] grown = new Route[all.length + 1];
            System.arraycopy(all, 0, grown, 0, at);
            grown[at] = r;
            System.arraycopy(all, at, grown, at + 1, all.length - at);
            shared.put(key, grown);
            if (at == 0) publish(put(current.root, 0, p, len, r), p, len);
        }
        size++;
        generation++;
    }

    /** Removes the route equal to {@code r}; false (and no change) when there is none. */
    public synchronized boolean remove(Route r) {
        int len = r.prefixLength();
        int p = r.prefix() & Ipv4.prefixMask(len);
        Route best = find(p, len);
        if (best == null) return false;
        Long key = key(p, len);
        Route[] all = shared.get(key);
        if (all == null) {
            if (!best.equals(r)) return false;
            Node n = delete(current.root, 0, p, len);
            publish(n == null ? EMPTY : n, p, len);
        } else {
            int at = 0;
            while (at < all.length && !all[at].equals(r)) at++;
            if (at == all.length) return false;
            Route[] shrunk = new Route[all.length - 1];
            System.arraycopy(all, 0, shrunk, 0, at);
            System.arraycopy(all, at + 1, shrunk, at, all.length - at - 1);
            if (shrunk.length == 1) shared.remove(key);
            else shared.put(key, shrunk);
            if (at == 0) publish(put(current.root, 0, p, len, shrunk[0]), p, len);
        }
        size--;
        generation++;
        return true;
    }

    /** All routes: longest prefix first, then lowest metric (the order lookups prefer them in). */
    public synchronized List<Route> routes() {
        List<Route> out = new ArrayList<>(size);
        collect(current.root, 0, 0, out);
        out.sort(Comparator.comparingInt(Route::prefixLength).reversed().thenComparingInt(Route::metric));
        return List.copyOf(out);
    }

    /** Number of routes. */
    public synchronized int size() { return size; }

    /** Changes on every change of the table; read it before a lookup to validate a cached result. */
    public int generation() { return generation; }

    /**
     * Changes the generation without changing a route (Linux's rt_cache_flush): every cached route and cached
     * input route is looked up again, e.g. after a write to {@code net.ipv4.conf.all.rp_filter}.
     */
    public synchronized void flush() { generation++; }

    // ---- writer side -----------------------------------------------------------------------------

    private static Long key(int p, int len) { return ((p & 0xFFFF_FFFFL) << 6) | len; }

    /** Depth (bits) of the node holding prefixes of length {@code len}. */
    private static int depthOf(int len) { return len == 0 ? 0 : (len - 1) / STRIDE * STRIDE; }

    /** Slot of {@code p} in a node at {@code depth}. */
    private static int slotOf(int p, int depth) { return (int) (((p & 0xFFFF_FFFFL) << 4) >>> (30 - depth)) & 63; }

    private static int positionOf(int p, int len) {
        int l = len - depthOf(len);
        return (1 << l) | (slotOf(p, depthOf(len)) >>> (STRIDE - l));
    }

    /** The best route stored for exactly {@code p/len}, or null. */
    private Route find(int p, int len) {
        int depth = depthOf(len);
        Node n = current.root;
        for (int d = 0; d < depth; d += STRIDE) {
            n = n.child(slotOf(p, d));
            if (n == null) return null;
        }
        int pos = positionOf(p, len);
        return n.hasPrefix(pos) ? n.route(n.routeIndex(pos)) : null;
    }

    /**
     * Publishes {@code root}, changed at {@code p/len}: a prefix longer than 18 bits changed the depth-18
     * node on its path (copied or removed), whose three arrays of the direct index are copied with it.
     */
    private void publish(Node root, int p, int len) {
        Node[][][] top = current.top;
        if (len > DIRECT_BITS) {
            Node n = root;
            for (int d = 0; d < DIRECT_BITS && n != null; d += STRIDE) n = n.child(slotOf(p, d));
            int i = p >>> 26, j = (p >>> 20) & 63, k = (p >>> 14) & 63;
            Node[][] mid = top[i];
            Node[] chunk = mid == null ? null : mid[j];
            if ((chunk == null ? null : chunk[k]) != n) {
                Node[] c = chunk == null ? new Node[64] : chunk.clone();
                c[k] = n;
                Node[][] m = mid == null ? new Node[64][] : mid.clone();
                m[j] = allNull(c) ? null : c;
                top = top.clone();
                top[i] = allNull(m) ? null : m;
            }
        }
        current = new Version(root, top);
    }

    private static boolean allNull(Object[] a) {
        for (Object o : a) if (o != null) return false;
        return true;
    }

    /** A copy of {@code n} (null: an empty node) at {@code depth} with {@code r} as the best route of {@code p/len}. */
    private static Node put(Node n, int depth, int p, int len, Route r) {
        if (n == null) n = EMPTY;
        if (depth == depthOf(len)) {
            int pos = positionOf(p, len);
            int i = n.routeIndex(pos);
            Route[] rs;
            long pfx0 = n.pfx0, pfx1 = n.pfx1;
            if (n.hasPrefix(pos)) {
                rs = n.routes();
            } else {
                int count = Long.bitCount(pfx0) + Long.bitCount(pfx1);
                rs = new Route[count + 1];
                if (count > 0) {
                    Route[] old = n.routes();
                    System.arraycopy(old, 0, rs, 0, i);
                    System.arraycopy(old, i, rs, i + 1, count - i);
                }
                if (pos < 64) pfx0 |= 1L << pos;
                else pfx1 |= 1L << (pos - 64);
            }
            rs[i] = r;
            return new Node(pfx0, pfx1, n.childMap, rs, n.children);
        }
        int slot = slotOf(p, depth);
        Node c = put(n.child(slot), depth + STRIDE, p, len, r);
        return withChild(n, slot, c);
    }

    /** A copy of {@code n} without the prefix {@code p/len}; null when the copy would be empty (and is not the root). */
    private static Node delete(Node n, int depth, int p, int len) {
        Node out;
        if (depth == depthOf(len)) {
            int pos = positionOf(p, len);
            int i = n.routeIndex(pos);
            int count = Long.bitCount(n.pfx0) + Long.bitCount(n.pfx1);
            Route[] rs = null;
            if (count > 1) {
                Route[] old = n.routes();
                rs = new Route[count - 1];
                System.arraycopy(old, 0, rs, 0, i);
                System.arraycopy(old, i + 1, rs, i, count - 1 - i);
            }
            long pfx0 = pos < 64 ? n.pfx0 & ~(1L << pos) : n.pfx0;
            long pfx1 = pos < 64 ? n.pfx1 : n.pfx1 & ~(1L << (pos - 64));
            out = new Node(pfx0, pfx1, n.childMap, rs, n.children);
        } else {
            int slot = slotOf(p, depth);
            out = withChild(n, slot, delete(n.child(slot), depth + STRIDE, p, len));
        }
        return out.isEmpty() ? null : out;
    }

    /** A copy of {@code n} whose child at {@code slot} is {@code c} (null: none). */
    private static Node withChild(Node n, int slot, Node c) {
        long bit = 1L << slot;
        int i = Long.bitCount(n.childMap & (bit - 1));
        int count = Long.bitCount(n.childMap);
        Node[] cs;
        long cm = n.childMap;
        if ((cm & bit) != 0) {
            if (c != null) {
                cs = n.children.clone();
                cs[i] = c;
            } else {
                cm &= ~bit;
                cs = count == 1 ? null : new Node[count - 1];
                if (cs != null) {
                    System.arraycopy(n.children, 0, cs, 0, i);
                    System.arraycopy(n.children, i + 1, cs, i, count - 1 - i);
                }
            }
        } else {
            if (c == null) return n;
            cm |= bit;
            cs = new Node[count + 1];
            if (count > 0) {
                System.arraycopy(n.children, 0, cs, 0, i);
                System.arraycopy(n.children, i, cs, i + 1, count - i);
            }
            cs[i] = c;
        }
        return new Node(n, cm, cs);
    }

    private void collect(Node n, int depth, int base, List<Route> out) {
        for (int pos = 1; pos < 128; pos++) {
            if (!n.hasPrefix(pos)) continue;
            int l = 31 - Integer.numberOfLeadingZeros(pos);
            int len = depth + l;
            int bits = pos & ((1 << l) - 1);
            int p = l == 0 ? base : base | (bits << (32 - len));
            Route best = n.route(n.routeIndex(pos));
            Route[] all = shared.get(key(p, len));
            if (all == null) out.add(best);
            else out.addAll(Arrays.asList(all));
        }
        for (int slot = 0; slot < 64; slot++) {
            Node c = n.child(slot);
            if (c != null) {
                int childBase = depth + STRIDE >= 32 ? base : base | (int) (((long) slot << 26) >>> depth);
                collect(c, depth + STRIDE, childBase, out);
            }
        }
    }
}
