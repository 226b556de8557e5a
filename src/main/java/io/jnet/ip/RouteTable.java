package io.jnet.ip;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The IPv4 routing table (Linux's main table): longest-prefix match, then lowest metric. Lookups are
 * lock-free over an immutable sorted array replaced on every change; {@link #generation()} changes
 * with it so cached routes can be revalidated.
 */
public final class RouteTable {
    private volatile Route[] routes = new Route[0];
    private volatile int generation;

    /** The best route to {@code dst}, or null (ENETUNREACH). */
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
        l.sort(Comparator.comparingInt(Route::prefixLength).reversed().thenComparingInt(Route::metric));
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
