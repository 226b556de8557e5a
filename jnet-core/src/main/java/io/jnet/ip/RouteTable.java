package io.jnet.ip;

import io.jnet.wire.Ipv4;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The IPv4 routing table (Linux's main table): longest-prefix match, then lowest metric; among routes
 * with the same prefix, length and metric the one added first wins.
 *
 * <h2>Structure</h2>
 * Two sides. The writer side (the routes as given, {@link #routes()}, removal by exact route, several
 * routes per prefix) is a persistent 6-bit-stride trie, Tree Bitmap style: the node at depth {@code d}
 * (0, 6, ... 30 bits) holds the best route of each prefix of length {@code d+1 .. d+6} that passes
 * through it (the root also {@code /0}) as a 128-bit bitmap of positions {@code (1 << l) | bits} plus
 * the routes in position order, and its children as a 64-bit bitmap plus a dense array.
 * <p>
 * The read side, compiled from it, is a Poptrie (Asai, Ohara, "Poptrie: a compressed trie with
 * population count for fast and scalable software IP routing table lookup", SIGCOMM 2015): a direct
 * array indexed by the top {@code K} address bits ({@code K} = 12, a 16 KiB array, up to 65,536
 * routes; 18, 1 MiB, above; back to 12 below 16,384) whose entry is either the answer for the whole
 * {@code /K} (a {@link Route} or null) or a {@link Region}: the compiled subtrie below that
 * {@code /K}. A region's nodes stride 6 bits; each has a 64-bit {@code vector} (slots with a child
 * node) and a 64-bit {@code leafvec} (slots where a run of equal answers starts: leaf compression),
 * its children contiguous in a {@code long[]} and its answers contiguous, both indexed by popcount.
 * The top node of a region and its first four answers sit in the region object's own fields, so a
 * lookup of a /24 at {@code K} = 18 reads the direct array entry and the region, nothing else.
 * Answers from prefixes of length {@code <= K} are not pushed into regions: a region's answer is null
 * where nothing longer than {@code /K} matches, and the region's {@code cover}, the best route of
 * length {@code <= K} over it, answers then. So adding or removing a short prefix replaces the direct
 * entries of its range (a region by a shallow copy with the new cover), and a longer one rebuilds the
 * one region it falls in from the writer trie's node of depth {@code K}.
 * <p>
 * Measured ({@code RouteTableBenchmark}, {@code RouteTableHeap}; synthetic internet-like tables,
 * {@link SyntheticRoutes}; a shared 2-core VM with other jobs running, so figures vary by up to 2x
 * between runs; BENCHMARKS.md has the tables and commands): at 1M prefixes the average lookup of
 * random destinations takes about half the time of the trie looked up directly (its previous read
 * side), the median of single lookups 20-40 % less; at 10 and 1,000 prefixes it is as fast or
 * faster. Heap besides the caller's {@link Route} objects: 42.5 bytes a prefix at 1M (21 of them
 * the writer trie), 19.1 KiB for 10 routes. Add or remove one prefix at 1M: median 0.6-1.2 us, 99th
 * percentile 7-19 us (a short prefix replaces up to 2^(18 - length) direct entries). DIR-24-8 (Gupta, Lin, McKeown 1998) was not built: its 2^24-entry first table is 64 MiB
 * even for 10 routes, and a short prefix rewrites up to 2^24 entries.
 *
 * <h2>Concurrency</h2>
 * Trie nodes and regions are immutable (final fields). An update, serialized by this object's
 * monitor, changes the trie by copying the path to the prefix, then stores the new direct entries
 * with release stores; a change of {@code K} builds a new direct array and publishes it with one
 * volatile write. A lookup (one volatile read, plain reads after it, no lock, no retry) reads one
 * direct entry and the immutable region behind it, so it sees its {@code /K} either before or after
 * any update. Replaced regions and nodes are left to the garbage collector (the role RCU plays for
 * Linux's fib_trie).
 */
public final class RouteTable {
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

    /** Direct bits while the table holds up to {@link #GROW_ABOVE} routes, and above. */
    static final int SMALL_BITS = 12, LARGE_BITS = 18;
    /** The direct array grows to {@link #LARGE_BITS} above this many routes and shrinks back below {@link #SHRINK_BELOW}. */
    static final int GROW_ABOVE = 1 << 16, SHRINK_BELOW = 1 << 14;

    private static final VarHandle ENTRY = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final long[] NO_NODES = new long[0];
    private static final Route[] NO_ROUTES = new Route[0];

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

    /**
     * The compiled subtrie below one {@code /K}; immutable. Its top node (depth {@code K}) is in
     * {@link #vector}, {@link #leafvec} with children from {@code nodes[0]} and leaves from number 0;
     * every other node is three longs of {@link #nodes}: vector, leafvec, and
     * {@code (first child << 32) | first leaf}. Leaves 0-3 are in {@link #l0}..{@link #l3}, on the
     * region's own cache line (the answer of most lookups at {@code K} = 18, whose top node has few
     * leaves), leaf {@code i >= 4} in {@code more[i - 4]}.
     */
    static final class Region {
        final long vector, leafvec;
        final long[] nodes;
        final Route l0, l1, l2, l3;
        final Route[] more;
        /** The best route of length {@code <= K} covering the region, or null; the answer where a leaf is null. */
        final Route cover;

        Region(long vector, long leafvec, long[] nodes, Route[] leaves, int count, Route cover) {
            this.vector = vector;
            this.leafvec = leafvec;
            this.nodes = nodes;
            this.l0 = count > 0 ? leaves[0] : null;
            this.l1 = count > 1 ? leaves[1] : null;
            this.l2 = count > 2 ? leaves[2] : null;
            this.l3 = count > 3 ? leaves[3] : null;
            this.more = count > 4 ? Arrays.copyOfRange(leaves, 4, count) : NO_ROUTES;
            this.cover = cover;
        }

        /** {@code g} with another cover. */
        Region(Region g, Route cover) {
            this.vector = g.vector;
            this.leafvec = g.leafvec;
            this.nodes = g.nodes;
            this.l0 = g.l0;
            this.l1 = g.l1;
            this.l2 = g.l2;
            this.l3 = g.l3;
            this.more = g.more;
            this.cover = cover;
        }

        Route leaf(int i) {
            return switch (i) {
                case 0 -> l0;
                case 1 -> l1;
                case 2 -> l2;
                case 3 -> l3;
                default -> more[i - 4];
            };
        }

        /** The answer for {@code dst}; {@code shift} is 30 - K, the top node's slot bit in the 36-bit address. */
        Route lookup(int dst, int shift) {
            long x = (dst & 0xFFFF_FFFFL) << 4; // 36 bits: the nodes of depth 30 see bits 30-31 and four zeros
            long vec = vector, lv = leafvec;
            int b0 = 0, b1 = 0;
            for (; ; shift -= STRIDE) {
                int v = (int) (x >>> shift) & 63;
                long upTo = (2L << v) - 1;
                if ((vec >>> v & 1) == 0) {
                    Route r = leaf(b0 + Long.bitCount(lv & upTo) - 1);
                    return r != null ? r : cover;
                }
                long[] ns = nodes;
                int i = 3 * (b1 + Long.bitCount(vec & upTo) - 1);
                vec = ns[i];
                lv = ns[i + 1];
                long b = ns[i + 2];
                b1 = (int) (b >>> 32);
                b0 = (int) b;
            }
        }
    }

    /** Direct array of 2^K entries: a Route (or null), the answer for the whole /K, or a Region. */
    private volatile Object[] direct = new Object[1 << SMALL_BITS];
    private volatile int generation;
    /** The writer trie; written and read under this monitor only. */
    private Node root = EMPTY;
    /** All routes, best first, of the prefixes that have more than one; writer side only (under this monitor). */
    private final Map<Long, Route[]> shared = new HashMap<>();
    private int size;
    private final int growAbove, shrinkBelow;

    public RouteTable() { this(GROW_ABOVE, SHRINK_BELOW); }

    /** A table whose direct array grows above {@code growAbove} routes and shrinks below {@code shrinkBelow}; for tests. */
    RouteTable(int growAbove, int shrinkBelow) {
        if (shrinkBelow > growAbove) throw new IllegalArgumentException("shrinkBelow " + shrinkBelow + " > growAbove " + growAbove);
        this.growAbove = growAbove;
        this.shrinkBelow = shrinkBelow;
    }

    /** The best route to {@code dst}, or null (ENETUNREACH). Lock-free; never blocked by updates. */
    public Route lookup(int dst) {
        Object[] d = direct;
        int z = Integer.numberOfLeadingZeros(d.length); // 31 - K
        Object o = d[dst >>> (z + 1)];
        if (!(o instanceof Region g)) return (Route) o;
        return g.lookup(dst, z - 1);
    }

    /**
     * Adds {@code r} beside routes of the same prefix, length and metric on other interfaces, as the
     * kernel appends the connected routes of addresses (Linux fib_magic, NLM_F_APPEND). Throws
     * IllegalArgumentException when a route with the same prefix, prefix length, metric and interface
     * exists (Linux: EEXIST).
     */
    public synchronized void add(Route r) {
        int len = r.prefixLength();
        int p = r.prefix() & Ipv4.prefixMask(len);
        Route best = find(p, len);
        if (best == null) {
            root = put(root, 0, p, len, r);
            size++;
            compile(p, len);
        } else {
            Long key = key(p, len);
            Route[] all = shared.get(key);
            if (all == null) all = new Route[] {best};
            for (Route x : all) {
                if (x.metric() == r.metric() && x.itf() == r.itf())
                    throw new IllegalArgumentException("route exists: " + x);
            }
            int at = 0;
            while (at < all.length && all[at].metric() <= r.metric()) at++;
            Route[] grown = new Route[all.length + 1];
            System.arraycopy(all, 0, grown, 0, at);
            grown[at] = r;
            System.arraycopy(all, at, grown, at + 1, all.length - at);
            shared.put(key, grown);
            size++;
            if (at == 0) {
                root = put(root, 0, p, len, r);
                compile(p, len);
            }
        }
        generation++;
    }

    /**
     * Adds {@code r} as {@code ip route add} does (NLM_F_CREATE | NLM_F_EXCL): throws
     * IllegalArgumentException "File exists" (Linux: EEXIST) when any route with the same prefix, prefix
     * length and metric exists, whatever its interface or gateway.
     */
    public synchronized void addExclusive(Route r) {
        int len = r.prefixLength();
        Route best = find(r.prefix(), len);
        if (best != null) {
            Route[] all = shared.get(key(r.prefix(), len));
            for (Route x : all == null ? new Route[] {best} : all) {
                if (x.metric() == r.metric()) throw new IllegalArgumentException("File exists: " + x);
            }
        }
        add(r);
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
            Node n = delete(root, 0, p, len);
            root = n == null ? EMPTY : n;
            size--;
            compile(p, len);
        } else {
            int at = 0;
            while (at < all.length && !all[at].equals(r)) at++;
            if (at == all.length) return false;
            Route[] shrunk = new Route[all.length - 1];
            System.arraycopy(all, 0, shrunk, 0, at);
            System.arraycopy(all, at + 1, shrunk, at, all.length - at - 1);
            if (shrunk.length == 1) shared.remove(key);
            else shared.put(key, shrunk);
            size--;
            if (at == 0) {
                root = put(root, 0, p, len, shrunk[0]);
                compile(p, len);
            }
        }
        generation++;
        return true;
    }

    /** All routes: longest prefix first, then lowest metric (the order lookups prefer them in). */
    public synchronized List<Route> routes() {
        List<Route> out = new ArrayList<>(size);
        collect(root, 0, 0, out);
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

    /** Bits resolved by the direct array now (12 or 18); for tests. */
    synchronized int directBits() { return 31 - Integer.numberOfLeadingZeros(direct.length); }

    // ---- read side: compiling the trie ------------------------------------------------------------

    /** Brings the read side up to date after the trie's best route of {@code p/len} changed (added, replaced or removed). */
    private void compile(int p, int len) {
        Object[] d = direct;
        int k = 31 - Integer.numberOfLeadingZeros(d.length);
        int want = k == SMALL_BITS && size > growAbove ? LARGE_BITS : k == LARGE_BITS && size < shrinkBelow ? SMALL_BITS : k;
        if (want != k) {
            Object[] nd = new Object[1 << want];
            fill(nd, root, 0, 0, null, want);
            direct = nd;
        } else if (len > k) {
            int slot = p >>> (32 - k);
            Node n = root;
            for (int depth = 0; depth < k && n != null; depth += STRIDE) n = n.child(slotOf(p, depth));
            Object o = d[slot];
            Route cover = o instanceof Region g ? g.cover : (Route) o;
            ENTRY.setRelease(d, slot, n == null ? cover : region(n, cover));
        } else {
            int lo = p >>> (32 - k), hi = lo + (1 << (k - len)); // len 0: the whole array
            for (int slot = lo; slot < hi; slot++) {
                Route cover = coverOf(slot, k);
                Object o = d[slot];
                if (o instanceof Region g) {
                    if (g.cover != cover) ENTRY.setRelease(d, slot, new Region(g, cover));
                } else if (o != cover) {
                    ENTRY.setRelease(d, slot, cover);
                }
            }
        }
    }

    /** The best route of {@code n} (a trie node) for its slot {@code s}, or {@code inherited} when it has none. */
    private static Route best(Node n, int s, Route inherited) {
        if ((n.pfx1 >>> s & 1) != 0) return n.route(n.routeIndex(64 + s));
        long m = n.pfx0 & ANCESTORS[s];
        return m != 0 ? n.route(n.routeIndex(63 - Long.numberOfLeadingZeros(m))) : inherited;
    }

    /** The best route of length {@code <= k} covering the {@code /k} numbered {@code slot}, or null. */
    private Route coverOf(int slot, int k) {
        Route best = null;
        Node n = root;
        for (int depth = 0; ; depth += STRIDE) {
            int s = (slot >>> (k - depth - STRIDE)) & 63;
            best = best(n, s, best);
            if (depth + STRIDE == k) return best;
            n = n.child(s);
            if (n == null) return best;
        }
    }

    /** Fills {@code d} (2^k entries) below trie node {@code n} of depth {@code depth} and number {@code base} at that depth. */
    private static void fill(Object[] d, Node n, int depth, int base, Route inherited, int k) {
        for (int s = 0; s < 64; s++) {
            Route best = best(n, s, inherited);
            Node c = n.child(s);
            int idx = (base << STRIDE) | s;
            int rest = k - depth - STRIDE;
            if (rest == 0) d[idx] = c == null ? best : region(c, best);
            else if (c == null) Arrays.fill(d, idx << rest, (idx + 1) << rest, best);
            else fill(d, c, depth + STRIDE, idx, best, k);
        }
    }

    /** Growable arrays of one region being compiled. */
    private static final class Builder {
        long[] nodes = NO_NODES;
        int nodeCount;
        Route[] leaves = new Route[8];
        int leafCount;
    }

    /** The region compiled from trie node {@code top} (at depth K) with {@code cover} for what nothing below matches. */
    static Region region(Node top, Route cover) {
        Builder b = new Builder();
        long[] t = encode(top, null, b);
        long[] nodes = b.nodeCount == 0 ? NO_NODES : Arrays.copyOf(b.nodes, 3 * b.nodeCount);
        return new Region(t[0], t[1], nodes, b.leaves, b.leafCount, cover);
    }

    /**
     * Appends the leaves of {@code n} (null where none of its prefixes and no {@code inherited} route
     * matches), reserves its children's nodes contiguously and encodes them; returns {vector, leafvec, bases}.
     */
    private static long[] encode(Node n, Route inherited, Builder b) {
        long vector = n.childMap, leafvec = 0;
        int base0 = b.leafCount;
        Route last = null;
        boolean any = false;
        for (int s = 0; s < 64; s++) {
            if ((vector >>> s & 1) != 0) continue;
            Route r = best(n, s, inherited);
            if (!any || r != last) {
                leafvec |= 1L << s;
                if (b.leafCount == b.leaves.length) b.leaves = Arrays.copyOf(b.leaves, 2 * b.leaves.length);
                b.leaves[b.leafCount++] = r;
                last = r;
                any = true;
            }
        }
        int base1 = b.nodeCount;
        int children = Long.bitCount(vector);
        b.nodeCount += children;
        if (3 * b.nodeCount > b.nodes.length) b.nodes = Arrays.copyOf(b.nodes, Math.max(3 * b.nodeCount, 2 * b.nodes.length));
        int i = base1;
        for (long m = vector; m != 0; m &= m - 1, i++) {
            int s = Long.numberOfTrailingZeros(m);
            long[] c = encode(n.children[i - base1], best(n, s, inherited), b);
            b.nodes[3 * i] = c[0];
            b.nodes[3 * i + 1] = c[1];
            b.nodes[3 * i + 2] = c[2];
        }
        return new long[] {vector, leafvec, ((long) base1 << 32) | (base0 & 0xFFFF_FFFFL)};
    }

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
        Node n = root;
        for (int d = 0; d < depth; d += STRIDE) {
            n = n.child(slotOf(p, d));
            if (n == null) return null;
        }
        int pos = positionOf(p, len);
        return n.hasPrefix(pos) ? n.route(n.routeIndex(pos)) : null;
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
