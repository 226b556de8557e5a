package io.jnet.topology;

import io.jnet.ip.Ipv4Layer;
import io.jnet.link.NetDevice;
import io.jnet.link.VethPair;
import io.jnet.stack.NetNamespace;
import java.util.function.UnaryOperator;

/**
 * Multi-namespace topologies built from veth pairs: two namespaces on one link ({@link #link}), and host A -
 * router R - host B ({@link #routed}), the shape of {@code ip netns add} plus {@code ip link add type veth}
 * plus {@code sysctl net.ipv4.ip_forward=1} on Linux. The namespaces are the caller's: the helpers attach
 * devices, add addresses and routes and set sysctls, and closing the namespaces releases all of it.
 *
 * <pre>{@code
 * try (NetNamespace a = NetNamespace.create("a"); NetNamespace r = NetNamespace.create("r");
 *      NetNamespace b = NetNamespace.create("b")) {
 *     Topology.routed(a, r, b);
 *     // a TCP or UDP socket in a reaches Topology.Routed.B (10.0.2.2) through r
 * }
 * }</pre>
 */
public final class Topology {
    private Topology() {}

    /**
     * Host A - router R - host B over two veth pairs:
     * <pre>
     *   A eth0 10.0.1.2/24 ---- 10.0.1.1/24 eth0  R  eth1 10.0.2.1/24 ---- 10.0.2.2/24 eth0 B
     * </pre>
     * A routes 10.0.0.0/16 via 10.0.1.1 dev eth0, B routes 10.0.0.0/16 via 10.0.2.1 dev eth0, and R has
     * {@code net.ipv4.ip_forward = 1} (its two connected routes are all it needs).
     *
     * @param a the host on the first link
     * @param r the router
     * @param b the host on the second link
     */
    public record Routed(NetNamespace a, NetNamespace r, NetNamespace b) {
        /** A's address on eth0. */
        public static final String A = "10.0.1.2";
        /** R's address on eth0, the link to A; A's gateway. */
        public static final String R_A = "10.0.1.1";
        /** R's address on eth1, the link to B; B's gateway. */
        public static final String R_B = "10.0.2.1";
        /** B's address on eth0. */
        public static final String B = "10.0.2.2";
    }

    /**
     * Joins {@code a} and {@code b} with a veth pair (MTU 1500) whose ends are both named {@code dev}:
     * {@code aCidr} on a's end, {@code bCidr} on b's (address/prefix, e.g. {@code 10.0.1.1/24}), each with its
     * connected route.
     *
     * @return the pair, its {@code a()} end in {@code a}
     * @throws IllegalArgumentException if either namespace already has a device named {@code dev}, or for a
     *                                  malformed address
     * @throws IllegalStateException    if a namespace is closed
     */
    public static VethPair link(NetNamespace a, NetNamespace b, String dev, String aCidr, String bCidr) {
        VethPair p = VethPair.create(dev, dev);
        a.attach(p.a());
        b.attach(p.b());
        a.addAddress(dev, aCidr);
        b.addAddress(dev, bCidr);
        return p;
    }

    /**
     * {@link Routed} with MTU 1500 on both links.
     *
     * @throws IllegalArgumentException if a namespace already has a device named eth0 (or R eth1)
     * @throws IllegalStateException    if a namespace is closed
     */
    public static Routed routed(NetNamespace a, NetNamespace r, NetNamespace b) {
        return routed(a, r, b, 1500, UnaryOperator.identity());
    }

    /**
     * {@link Routed} with MTU 1500 between A and R and {@code mtuRB} bytes between R and B; {@code wrapRB} may put
     * a decorator in front of R's {@code eth1} (identity for none), see {@link NetNamespace#interpose}.
     *
     * @param mtuRB the MTU of the R - B link in bytes
     * @throws IllegalArgumentException if a namespace already has a device of the same name, or the decorator
     *                                  renames the device
     * @throws IllegalStateException    if a namespace is closed
     */
    public static Routed routed(NetNamespace a, NetNamespace r, NetNamespace b, int mtuRB, UnaryOperator<NetDevice> wrapRB) {
        VethPair ar = VethPair.create("eth0", "eth0");
        VethPair rb = VethPair.create("eth1", "eth0", mtuRB);
        a.attach(ar.a());
        r.attach(ar.b());
        r.attach(rb.a());
        b.attach(rb.b());
        a.addAddress("eth0", Routed.A + "/24");
        r.addAddress("eth0", Routed.R_A + "/24");
        r.addAddress("eth1", Routed.R_B + "/24");
        b.addAddress("eth0", Routed.B + "/24");
        r.interpose("eth1", wrapRB);
        a.extension(Ipv4Layer.class).addRoute("10.0.0.0/16", Routed.R_A, "eth0");
        b.extension(Ipv4Layer.class).addRoute("10.0.0.0/16", Routed.R_B, "eth0");
        r.sysctl().set("net.ipv4.ip_forward", "1");
        return new Routed(a, r, b);
    }
}
