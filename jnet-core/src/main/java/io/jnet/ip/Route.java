package io.jnet.ip;

import io.jnet.stack.Interface;
import io.jnet.wire.Ipv4;

/**
 * One IPv4 route: destination prefix, optional gateway (0 = directly connected), output interface,
 * preferred source address (0 = the interface's primary address) and metric.
 */
public record Route(int prefix, int prefixLength, int gateway, Interface itf, int preferredSource, int metric) {

    /**
     * Host bits of {@code prefix} beyond {@code prefixLength} are cleared, so two routes to the same
     * network are equal however their prefix was written ({@code ip route add} refuses such a prefix
     * instead: {@link IpRouteFile#parseDestination}). Throws IllegalArgumentException for a length
     * outside 0..32, a negative metric or a null interface.
     */
    public Route {
        if (prefixLength < 0 || prefixLength > 32) throw new IllegalArgumentException("bad prefix length " + prefixLength);
        if (metric < 0) throw new IllegalArgumentException("bad metric " + metric);
        if (itf == null) throw new IllegalArgumentException("route needs a device");
        prefix &= Ipv4.prefixMask(prefixLength);
    }

    public boolean matches(int dst) { return (dst & Ipv4.prefixMask(prefixLength)) == (prefix & Ipv4.prefixMask(prefixLength)); }

    /** The next hop for {@code dst}: the gateway, or {@code dst} itself on a connected route. */
    public int nextHop(int dst) { return gateway != 0 ? gateway : dst; }

    /** Source address for packets to {@code dst} over this route. */
    public int source(int dst) {
        if (preferredSource != 0) return preferredSource;
        for (Interface.Address a : itf.addresses()) if (a.contains(nextHop(dst))) return a.address();
        return itf.primaryAddress();
    }

    @Override
    public String toString() {
        String p = prefixLength == 0 ? "default" : Ipv4.addressToString(prefix) + "/" + prefixLength;
        return p + (gateway != 0 ? " via " + Ipv4.addressToString(gateway) : "") + " dev " + itf.name()
                + (preferredSource != 0 ? " src " + Ipv4.addressToString(preferredSource) : "") + " metric " + metric;
    }
}
