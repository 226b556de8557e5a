package io.jnet.ip;

import io.jnet.stack.Interface;

/**
 * A socket's cached input route (Linux's {@code sk_rx_dst} with {@code sk_rx_dst_ifindex}): the input routing
 * decision for the socket's flow, which is always local delivery (a socket's local address is one of the
 * namespace's), together with the input interface and the route table's generation it was made for. When early
 * demux finds the socket, {@link Ipv4Layer} skips its input routing decision (the local-address check and the
 * reverse path filter) if the packet came in on the same interface and the table's generation is unchanged;
 * otherwise it decides again and stores the new decision here.
 *
 * <p>Held by established TCP connections and connected UDP sockets. Safe from any thread: the decision is one
 * immutable entry published through a volatile field, allocated only when it changes (never per packet).
 */
public final class InputRouteCache {
    private record Entry(Interface in, int generation) { }

    private volatile Entry entry;

    /** True when the cached decision holds for a packet arriving on {@code in} at route table {@code generation}. */
    boolean valid(Interface in, int generation) {
        Entry e = entry;
        return e != null && e.in == in && e.generation == generation;
    }

    /** Stores the decision (local delivery) made for a packet of this flow that arrived on {@code in}. */
    void set(Interface in, int generation) {
        Entry e = entry;
        if (e == null || e.in != in || e.generation != generation) entry = new Entry(in, generation);
    }

    /** The input interface of the cached decision, or null when none is cached. */
    public Interface inputInterface() {
        Entry e = entry;
        return e == null ? null : e.in;
    }

    /** Forgets the decision (the socket's flow changed, e.g. a UDP socket connected elsewhere). */
    public void invalidate() { entry = null; }
}
