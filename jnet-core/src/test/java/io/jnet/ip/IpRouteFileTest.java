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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IpRouteFileTest {
    private static NetNamespace ns;
    private static Interface veth0, tap0;

    @BeforeAll
    static void setUp() {
        ns = NetNamespace.create("rtfile");
        veth0 = ns.attach(VethPair.create("veth0", "peer0").a());
        tap0 = ns.attach(VethPair.create("tap0", "peer1").a());
    }

    @AfterAll
    static void tearDown() { ns.close(); }

    private static int a(String s) { return Ipv4.parseAddress(s); }

    @Test
    void readsIpRouteSyntax() {
        List<Route> rs = IpRouteFile.parse("""
                # routes of the lab
                default via 198.51.100.1 dev veth0

                192.0.2.0/24 via 198.51.100.1 dev veth0 metric 100 src 192.0.2.5
                10.0.0.0/8 dev tap0 proto kernel scope link   # connected
                unicast 203.0.113.7 via inet 198.51.100.2 dev veth0 onlink priority 7 table main
                198.51.100.0/24 dev veth0 linkdown preference 3
                """, ns::interfaceByName);
        assertThat(rs).containsExactly(
                new Route(0, 0, a("198.51.100.1"), veth0, 0, 0),
                new Route(a("192.0.2.0"), 24, a("198.51.100.1"), veth0, a("192.0.2.5"), 100),
                new Route(a("10.0.0.0"), 8, 0, tap0, 0, 0),
                new Route(a("203.0.113.7"), 32, a("198.51.100.2"), veth0, 0, 7),
                new Route(a("198.51.100.0"), 24, 0, veth0, 0, 3));
        RouteTable t = new RouteTable();
        rs.forEach(t::add);
        assertThat(t.lookup(a("192.0.2.77"))).isSameAs(rs.get(1));
        assertThat(t.lookup(a("8.8.8.8"))).isSameAs(rs.get(0));
    }

    @Test
    void errorsNameTheLine() {
        assertError("10.0.0.0/8 dev tap0\n\nblackhole 192.0.2.0/24\n", "<string>:3: blackhole routes are not supported");
        assertError("unreachable 192.0.2.0/24", "<string>:1: unreachable routes are not supported");
        assertError("# x\n192.0.2.0/24 dev nosuch0", "<string>:2: no such device: nosuch0");
        assertError("192.0.2.0/24 via 198.51.100.1", "<string>:1: missing dev");
        assertError("192.0.2.1/24 dev tap0", "<string>:1: invalid prefix for given prefix length");
        assertError("192.0.2.0/33 dev tap0", "<string>:1: bad prefix length 33");
        assertError("192.0.2.0/24 dev tap0 metric -1", "<string>:1: bad metric -1");
        assertError("192.0.2.0/24 dev tap0 metric", "<string>:1: missing value after metric");
        assertError("192.0.2.0/24 dev tap0 mtu 1400", "<string>:1: unknown keyword mtu");
        assertError("192.0.2.0/24 dev tap0 table 100", "<string>:1: only table main is supported, not 100");
        assertError("192.0.2/24 dev tap0", "<string>:1: bad IPv4 address: 192.0.2");
        assertError("unicast", "<string>:1: missing destination");
    }

    @Test
    void loadsFileAndNamesIt(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("routes");
        Files.writeString(f, "10.0.0.0/8 dev tap0\nlocal 10.0.0.1 dev tap0\n");
        assertThatThrownBy(() -> IpRouteFile.load(f, ns::interfaceByName)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(f + ":2: local routes are not supported");
        Files.writeString(f, "10.0.0.0/8 dev tap0\n");
        assertThat(IpRouteFile.load(f, ns::interfaceByName)).containsExactly(new Route(a("10.0.0.0"), 8, 0, tap0, 0, 0));
    }

    @Test
    void ipv4LayerLoadsAllOrNothing(@TempDir Path dir) throws Exception {
        try (NetNamespace other = NetNamespace.create("rtload")) {
            other.attach(VethPair.create("veth0", "peer0").a());
            other.addAddress("veth0", "198.51.100.2/24");
            Ipv4Layer ip = other.extension(Ipv4Layer.class);
            int before = ip.routes().size();
            Path f = dir.resolve("routes");
            Files.writeString(f, "default via 198.51.100.1 dev veth0\n192.0.2.0/24 via 198.51.100.3 dev veth0 metric 5\n");
            assertThat(ip.loadRoutes(f)).isEqualTo(2);
            assertThat(ip.route(a("192.0.2.1")).gateway()).isEqualTo(a("198.51.100.3"));
            assertThat(ip.route(a("8.8.8.8")).gateway()).isEqualTo(a("198.51.100.1"));
            // the second line repeats an existing route: the first one is taken back
            Files.writeString(f, "10.0.0.0/8 via 198.51.100.1 dev veth0\n192.0.2.0/24 via 198.51.100.9 dev veth0 metric 5\n");
            assertThatThrownBy(() -> ip.loadRoutes(f)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("File exists");
            assertThat(ip.routes().routes()).filteredOn(r -> r.prefixLength() == 8).isEmpty();
            assertThat(ip.routes().size()).isEqualTo(before + 2);
        }
    }

    private static void assertError(String text, String message) {
        assertThatThrownBy(() -> IpRouteFile.parse(text, ns::interfaceByName)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }
}
