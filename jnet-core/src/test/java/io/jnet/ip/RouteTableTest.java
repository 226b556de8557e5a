package io.jnet.ip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.link.VethPair;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Ipv4;
import org.junit.jupiter.api.Test;

class RouteTableTest {

    @Test
    void longestPrefixWinsThenMetric() {
        try (NetNamespace ns = NetNamespace.create("rt")) {
            VethPair p = VethPair.create("v0", "v1");
            ns.attach(p.a());
            ns.addAddress("v0", "10.1.0.1/16");
            Ipv4Layer ip = ns.extension(Ipv4Layer.class);
            ip.addRoute("0.0.0.0/0", "10.1.0.254", "v0");
            ip.addRoute("10.2.0.0/16", "10.1.0.253", "v0");
            ip.addRoute("10.2.3.0/24", "10.1.0.252", "v0");
            assertThat(ip.route(Ipv4.parseAddress("10.2.3.4")).gateway()).isEqualTo(Ipv4.parseAddress("10.1.0.252"));
            assertThat(ip.route(Ipv4.parseAddress("10.2.4.4")).gateway()).isEqualTo(Ipv4.parseAddress("10.1.0.253"));
            assertThat(ip.route(Ipv4.parseAddress("10.1.7.7")).gateway()).isZero(); // connected
            assertThat(ip.route(Ipv4.parseAddress("8.8.8.8")).gateway()).isEqualTo(Ipv4.parseAddress("10.1.0.254"));
            assertThat(ip.route(Ipv4.parseAddress("10.1.0.1")).itf().name()).isEqualTo("lo"); // local goes via lo
            assertThat(ip.route(Ipv4.parseAddress("10.1.0.9")).source(Ipv4.parseAddress("10.1.0.9")))
                    .isEqualTo(Ipv4.parseAddress("10.1.0.1"));
        }
    }

    @Test
    void noRouteIsNull() {
        try (NetNamespace ns = NetNamespace.create("rt2")) {
            Ipv4Layer ip = ns.extension(Ipv4Layer.class);
            assertThat(ip.route(Ipv4.parseAddress("192.0.2.1"))).isNull();
        }
    }

    @Test
    void generationChangesOnUpdate() {
        RouteTable t = new RouteTable();
        int g = t.generation();
        try (NetNamespace ns = NetNamespace.create("rt3")) {
            Route r = new Route(0, 0, Ipv4.parseAddress("127.0.0.2"), ns.loopbackInterface(), 0, 0);
            t.add(r);
            assertThat(t.generation()).isNotEqualTo(g);
            assertThatThrownBy(() -> t.add(r)).isInstanceOf(IllegalArgumentException.class);
            assertThat(t.remove(r)).isTrue();
            assertThat(t.lookup(1)).isNull();
        }
    }
}
