package io.jnet.ip;

import io.jnet.arp.Neighbour;

/**
 * A socket's cached route and neighbour (Linux's sk_dst_cache): valid while the routing table's
 * generation is unchanged. Owned by one socket; not thread-safe.
 */
public final class DstCache {
    Route route;
    Neighbour neighbour;
    int generation = -1;
    int destination;

    public Route route() { return route; }

    public void invalidate() {
        route = null;
        neighbour = null;
        generation = -1;
    }
}
