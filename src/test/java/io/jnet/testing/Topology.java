package io.jnet.testing;

import io.jnet.ip.Ipv4Layer;
import io.jnet.link.NetDevice;
import io.jnet.link.VethPair;
import io.jnet.stack.NetNamespace;
import java.util.function.UnaryOperator;

/**
 * Multi-namespace topologies built from veth pairs, for tests.
 *
 * <pre>{@code
 * try (NetNamespace a = NetNamespace.create("a"); NetNamespace r = NetNamespace.create("r");
 *      NetNamespace b = NetNamespace.create("b")) {
 *     Topology.Routed t = Topology.routed(a, r, b);
 *     TcpTransfers.transfer(a, b, Topology.Routed.B, 4 << 20);
 * }
 * }</pre>
 */
public final class Topology {
    private Topology() {}

    /**
     * Host A - router R - host B: A's {@code eth0} (10.0.1.2/24) to R's {@code eth0} (10.0.1.1/24), R's
     * {@code eth1} (10.0.2.1/24) to B's {@code eth0} (10.0.2.2/24). A and B route 10.0.0.0/16 via R, and R
     * has {@code net.ipv4.ip_forward = 1}.
     */
    public record Routed(NetNamespace a, NetNamespace r, NetNamespace b) {
        public static final String A = "10.0.1.2";
        public static final String R_A = "10.0.1.1";
        public static final String R_B = "10.0.2.1";
        public static final String B = "10.0.2.2";
    }

    /**
     * Joins {@code a} and {@code b} with a veth pair whose ends are both named {@code dev}: {@code aCidr} on
     * a's end, {@code bCidr} on b's (address/prefix, e.g. {@code 10.0.1.1/24}).
     */
    public static VethPair link(NetNamespace a, NetNamespace b, String dev, String aCidr, String bCidr) {
        VethPair p = VethPair.create(dev, dev);
        a.attach(p.a());
        b.attach(p.b());
        a.addAddress(dev, aCidr);
        b.addAddress(dev, bCidr);
        return p;
    }

    /** {@link Routed} with MTU 1500 on both links. */
    public static Routed routed(NetNamespace a, NetNamespace r, NetNamespace b) {
        return routed(a, r, b, 1500, UnaryOperator.identity());
    }

    /**
     * {@link Routed} with MTU 1500 between A and R and {@code mtuRB} bytes between R and B; {@code wrapRB} may put
     * a decorator in front of R's {@code eth1} (identity for none).
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
