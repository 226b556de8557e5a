package io.jnet.ip;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The routing table as it was before {@link RouteTable} became a trie: an array sorted by prefix
 * length (longest first) then metric, scanned linearly, copied on every change. Kept for comparison
 * only: the reference of the tests and the baseline of {@code RouteTableBenchmark}.
 */
public final class LinearRouteTable {
    private static final Comparator<Route> ORDER =
            Comparator.comparingInt(Route::prefixLength).reversed().thenComparingInt(Route::metric);
    private volatile Route[] routes = new Route[0];
    private volatile int generation;

    public LinearRouteTable() {}

    /** A table of {@code rs} sorted once (no duplicate check): building 1M routes by {@link #add} is quadratic. */
    public LinearRouteTable(Collection<Route> rs) {
        List<Route> l = new ArrayList<>(rs);
        l.sort(ORDER);
        routes = l.toArray(new Route[0]);
    }

    public Route lookup(int dst) {
        for (Route r : routes) if (r.matches(dst)) return r;
        return null;
    }

    public synchronized void add(Route r) {
        List<Route> l = new ArrayList<>(List.of(routes));
        for (Route x : l) {
            if (x.prefix() == r.prefix() && x.prefixLength() == r.prefixLength() && x.metric() == r.metric()
                    && x.itf() == r.itf()) throw new IllegalArgumentException("route exists: " + x);
        }
        l.add(r);
        l.sort(ORDER);
        routes = l.toArray(new Route[0]);
        generation++;
    }

    public synchronized boolean remove(Route r) {
        List<Route> l = new ArrayList<>(List.of(routes));
        boolean removed = l.remove(r);
        routes = l.toArray(new Route[0]);
        generation++;
        return removed;
    }

    public List<Route> routes() { return List.of(routes); }

    public int generation() { return generation; }
}
