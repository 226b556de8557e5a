package io.jnet.ip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.link.VethPair;
import io.jnet.stack.Interface;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Ipv4;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** NetNamespace.addAddress and Ipv4Layer.addRoute refuse and accept what Linux's ip addr add / ip route add do. */
class RouteApiTest {
    NetNamespace ns;
    Ipv4Layer ip;
    Interface eth0, eth1;

    @BeforeEach
    void setUp() {
        ns = NetNamespace.create("routeapi");
        VethPair p = VethPair.create("eth0", "peer0");
        VethPair q = VethPair.create("eth1", "peer1");
        eth0 = ns.attach(p.a());
        eth1 = ns.attach(q.a());
        ns.addAddress("eth0", "10.0.1.2/24");
        ip = ns.extension(Ipv4Layer.class);
    }

    @AfterEach
    void tearDown() { ns.close(); }

    static int a(String s) { return Ipv4.parseAddress(s); }

    List<Route> routesTo(String cidr) {
        int[] d = IpRouteFile.parseDestination(cidr);
        return ip.routes().routes().stream().filter(r -> r.prefix() == d[0] && r.prefixLength() == d[1]).toList();
    }

    @Test
    void secondAddressInTheSubnetIsSecondaryAndKeepsOnePrefixRoute() {
        ns.addAddress("eth0", "10.0.1.50/24");
        assertThat(ns.isLocalAddress(a("10.0.1.50"))).isTrue();
        assertThat(eth0.addresses()).extracting(Interface.Address::toString).containsExactly("10.0.1.2/24", "10.0.1.50/24");
        assertThat(routesTo("10.0.1.0/24")).singleElement()
                .satisfies(r -> assertThat(r.preferredSource()).isEqualTo(a("10.0.1.2")));
        assertThat(ip.route(a("10.0.1.9")).source(a("10.0.1.9"))).isEqualTo(a("10.0.1.2"));
        // another length is another subnet: its own prefix route
        ns.addAddress("eth0", "10.0.1.60/25");
        assertThat(routesTo("10.0.1.0/25")).hasSize(1);
    }

    @Test
    void addAddressIsAllOrNothing() {
        assertThatThrownBy(() -> ns.addAddress("eth0", "10.0.1.2/24")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("File exists");
        assertThat(eth0.addresses()).hasSize(1);
        // the connected route cannot be added (a user route holds it on eth0): no address is left behind
        ip.routes().add(new Route(a("10.0.8.0"), 24, 0, eth1, 0, 0));
        assertThatThrownBy(() -> ns.addAddress("eth1", "10.0.8.1/24")).isInstanceOf(IllegalArgumentException.class);
        assertThat(ns.isLocalAddress(a("10.0.8.1"))).isFalse();
        assertThat(eth1.addresses()).isEmpty();
    }

    @Test
    void connectedRoutesOfTwoDevicesInOneSubnetAreBothKept() {
        ns.addAddress("eth1", "10.0.1.3/24");
        assertThat(routesTo("10.0.1.0/24")).extracting(Route::itf).containsExactly(eth0, eth1);
    }

    @Test
    void prefixWithHostBitsIsRefused() {
        assertThatThrownBy(() -> ip.addRoute("10.9.9.9/24", null, "eth0")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invalid prefix for given prefix length");
        assertThat(routesTo("10.9.9.0/24")).isEmpty();
        ip.addRoute("10.9.9.9", null, "eth0");
        assertThat(routesTo("10.9.9.9/32")).hasSize(1);
    }

    @Test
    void gatewayMustBeOnLinkThroughTheDevice() {
        assertThatThrownBy(() -> ip.addRoute("10.8.0.0/16", "192.168.5.1", "eth0")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Nexthop has invalid gateway");
        assertThatThrownBy(() -> ip.addRoute("10.8.0.0/16", "10.0.1.1", "eth1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Nexthop has invalid gateway");
        assertThatThrownBy(() -> ip.addRoute("10.6.0.0/16", "10.0.1.2", "eth0")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Nexthop has invalid gateway");
        // a route via a gateway does not make another gateway on-link
        ip.addRoute("10.8.0.0/16", "10.0.1.1", "eth0");
        assertThatThrownBy(() -> ip.addRoute("10.5.0.0/16", "10.8.0.1", "eth0")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Nexthop has invalid gateway");
        assertThat(routesTo("10.6.0.0/16")).isEmpty();
        assertThat(ip.route(a("10.8.1.1")).nextHop(a("10.8.1.1"))).isEqualTo(a("10.0.1.1"));
        // a connected route added by hand makes its subnet on-link
        ip.addRoute("192.168.5.0/24", null, "eth0");
        ip.addRoute("10.4.0.0/16", "192.168.5.1", "eth0");
    }

    @Test
    void defaultIsZeroSlashZero() {
        ip.addRoute("default", "10.0.1.1", "eth0");
        assertThat(routesTo("0.0.0.0/0")).singleElement().satisfies(r -> assertThat(r.gateway()).isEqualTo(a("10.0.1.1")));
        assertThat(ip.route(a("8.8.8.8")).itf()).isSameAs(eth0);
    }

    @Test
    void routePrefixIsMaskedSoDuplicatesAreFoundAndRemoved() {
        RouteTable t = new RouteTable();
        Route r = new Route(a("10.5.0.0"), 16, a("10.0.1.1"), eth0, 0, 200);
        Route unmasked = new Route(a("10.5.3.3"), 16, a("10.0.1.1"), eth0, 0, 200);
        assertThat(unmasked.prefix()).isEqualTo(a("10.5.0.0"));
        assertThat(unmasked).isEqualTo(r);
        t.add(r);
        assertThatThrownBy(() -> t.add(unmasked)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("route exists");
        assertThat(t.remove(unmasked)).isTrue();
        assertThat(t.size()).isZero();
        assertThat(t.lookup(a("10.5.1.1"))).isNull();
    }

    @Test
    void userRouteWithSamePrefixAndMetricOnAnotherDeviceExists() {
        ns.addAddress("eth1", "10.0.2.2/24");
        ip.addRoute("10.7.0.0/16", "10.0.1.1", "eth0");
        assertThatThrownBy(() -> ip.addRoute("10.7.0.0/16", "10.0.2.1", "eth1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("File exists");
        assertThat(routesTo("10.7.0.0/16")).singleElement().satisfies(r -> assertThat(r.itf()).isSameAs(eth0));
        // another metric is another route
        ip.addRoute(new Route(a("10.7.0.0"), 16, a("10.0.2.1"), eth1, 0, 100));
        assertThat(routesTo("10.7.0.0/16")).hasSize(2);
    }

    @Test
    void loadRoutesChecksGatewaysInFileOrderAndIsAllOrNothing(@TempDir Path dir) throws Exception {
        Path good = dir.resolve("good");
        Files.writeString(good, "192.168.9.0/24 dev eth1\n10.3.0.0/16 via 192.168.9.1 dev eth1 metric 5 src 10.0.1.2\n");
        assertThat(ip.loadRoutes(good)).isEqualTo(2);
        assertThat(ip.route(a("10.3.2.1")).gateway()).isEqualTo(a("192.168.9.1"));
        Path bad = dir.resolve("bad");
        Files.writeString(bad, "10.2.0.0/16 via 10.0.1.1 dev eth0\n10.1.0.0/16 via 172.16.0.1 dev eth0\n");
        assertThatThrownBy(() -> ip.loadRoutes(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Nexthop has invalid gateway");
        assertThat(routesTo("10.2.0.0/16")).isEmpty();
    }

    @Test
    void readmeExample(@TempDir Path dir) throws Exception {
        Path routesTxt = dir.resolve("routes.txt");
        Files.writeString(routesTxt, "10.9.0.0/16 via 10.0.1.1 dev eth0 metric 5\n");
        ip.addRoute("default", "10.0.1.1", "eth0");
        Route r = new Route(Ipv4.parseAddress("192.0.2.0"), 24, Ipv4.parseAddress("10.0.1.1"), eth0,
                Ipv4.parseAddress("10.0.1.2"), 100);
        ip.addRoute(r);
        assertThat(ip.route(a("192.0.2.7"))).isEqualTo(r);
        assertThat(ip.routes().remove(r)).isTrue();
        assertThat(ip.route(a("192.0.2.7")).prefixLength()).isZero();
        assertThat(ip.loadRoutes(routesTxt)).isEqualTo(1);
        assertThat(ip.route(a("10.9.1.1")).metric()).isEqualTo(5);
    }
}
