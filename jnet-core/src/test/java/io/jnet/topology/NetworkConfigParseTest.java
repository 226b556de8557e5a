package io.jnet.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.dns.HostsTable;
import io.jnet.dns.ResolvConf;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.topology.Statement.AddrAdd;
import io.jnet.topology.Statement.Host;
import io.jnet.topology.Statement.LinkSet;
import io.jnet.topology.Statement.RouteAdd;
import io.jnet.topology.Statement.Sysctl;
import io.jnet.topology.Statement.Tap;
import io.jnet.topology.Statement.Veth;
import io.jnet.topology.Statement.Vxlan;
import io.jnet.wire.Ipv4;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NetworkConfigParseTest {

    static final String EXAMPLE = """
            # a client namespace on a TAP to the kernel and a veth to a database namespace
            default app

            namespace app
            sysctl net.ipv4.tcp_sack=0
            sysctl -w net.ipv4.tcp_rmem = 4096  87380   6291456
            sysctl net.ipv4.conf.veth0.rp_filter=1      # a device's own sysctl
            link add tap0 type tap mtu 1400 pcap app.pcap
            link add vx0 type vxlan id 42 remote 198.51.100.1 local 198.51.100.2 dstport 4790 localport 4791 mtu 1400 nolearning
            link add veth0 type veth peer name veth1 netns db mtu 9000
            link set veth0 impair loss=1%,delay=20ms,seed=7
            link set dev tap0 mtu 1300
            addr add 192.0.2.2/24 dev tap0
            address add 10.0.0.1/24 dev veth0
            addr add 10.9.9.9 dev lo
            route add default via 192.0.2.1 dev tap0
            route add 203.0.113.0/24 via 10.0.0.2 metric 10
            nameserver 192.0.2.1
            search example.test lab.test
            domain example.test
            options ndots:2 timeout:1
            host 10.0.0.2 db.example.test db
            host 2001:db8::2 db6.example.test

            namespace db
            addr add 10.0.0.2/24 dev veth1
            route add 192.0.2.0/24 via 10.0.0.1
            """;

    @Test
    void readsEveryStatement() {
        NetworkConfig c = NetworkConfig.parse(EXAMPLE);

        assertThat(c.defaultNamespace()).isEqualTo("app");
        assertThat(c.namespaces()).extracting(NamespaceConfig::name).containsExactly("app", "db");
        NamespaceConfig app = c.namespace("app");
        assertThat(app.statements(Sysctl.class)).containsExactly(
                new Sysctl("net.ipv4.tcp_sack", "0"),
                new Sysctl("net.ipv4.tcp_rmem", "4096 87380 6291456"),
                new Sysctl("net.ipv4.conf.veth0.rp_filter", "1"));
        assertThat(app.links()).containsExactly(
                new Tap("tap0", 1400, Path.of("app.pcap")),
                new Vxlan("vx0", 42, addr("198.51.100.1"), addr("198.51.100.2"), 4790, 4791, 1400, false, null),
                new Veth("veth0", "veth1", "db", 9000, null));
        assertThat(app.statements(LinkSet.class)).containsExactly(
                new LinkSet("veth0", 0, ImpairmentConfig.parse("loss=1%,delay=20ms,seed=7")),
                new LinkSet("tap0", 1300, null));
        assertThat(app.statements(AddrAdd.class)).containsExactly(
                new AddrAdd("192.0.2.2/24", "tap0"), new AddrAdd("10.0.0.1/24", "veth0"), new AddrAdd("10.9.9.9/32", "lo"));
        assertThat(app.statements(RouteAdd.class)).extracting(r -> r.route().toString())
                .containsExactly("default via 192.0.2.1 dev tap0", "203.0.113.0/24 via 10.0.0.2 metric 10");
        RouteAdd second = app.statements(RouteAdd.class).get(1);
        assertThat(second.route().dev()).isNull();
        assertThat(second.route().gateway()).isEqualTo(Ipv4.parseAddress("10.0.0.2"));
        assertThat(app.resolvConfLines()).containsExactly("nameserver 192.0.2.1", "search example.test lab.test",
                "domain example.test", "options ndots:2 timeout:1");
        assertThat(app.hostsLines()).containsExactly("10.0.0.2 db.example.test db", "2001:db8::2 db6.example.test");
        assertThat(app.statements(Host.class).getFirst().names()).containsExactly("db.example.test", "db");
        assertThat(c.namespace("db").statements()).hasSize(2);
        assertThat(c.namespace("db").resolvConfLines()).isEmpty();
        assertThat(c.namespace("db").hostsLines()).isEmpty();
    }

    @Test
    void knowsTheLineOfEachStatement() {
        NetworkConfig c = NetworkConfig.parse(EXAMPLE);
        List<Statement> app = c.namespace("app").statements();
        assertThat(c.lineOf(app.getFirst())).isEqualTo(5);
        assertThat(c.lineOf(app.get(3))).isEqualTo(8); // link add tap0
        assertThat(c.lineOf(c.namespace("db").statements().getLast())).isEqualTo(27);
        assertThat(c.lineOf(new Sysctl("net.ipv4.tcp_sack", "0"))).as("an equal statement that was not read").isZero();
    }

    @Test
    void defaults() {
        NetworkConfig c = NetworkConfig.parse("""
                link add tap0 type tap
                link add vx0 type vxlan id 7
                namespace b
                link add veth0 type veth peer veth1
                namespace a
                """);
        assertThat(c.namespaces()).extracting(NamespaceConfig::name).as("statements before any namespace go to init")
                .containsExactly("init", "b", "a");
        assertThat(c.defaultNamespace()).as("the first namespace").isEqualTo("init");
        assertThat(c.namespace("init").links()).containsExactly(new Tap("tap0", 0, null),
                new Vxlan("vx0", 7, null, null, 4789, 0, 0, true, null));
        Vxlan vx = (Vxlan) c.namespace("init").links().get(1);
        assertThat(vx.boundPort()).as("a Linux vxlan device listens on its dstport").isEqualTo(4789);
        assertThat(c.namespace("b").links()).containsExactly(new Veth("veth0", "veth1", null, 0, null));
        assertThat(c.namespace("a").statements()).isEmpty();
    }

    @Test
    void aNamespaceNamedAgainContinuesItsBlock() {
        NetworkConfig c = NetworkConfig.parse("""
                namespace a
                sysctl net.ipv4.tcp_sack=0
                namespace b
                namespace a
                sysctl net.ipv4.tcp_dsack=0
                """);
        assertThat(c.namespaces()).extracting(NamespaceConfig::name).containsExactly("a", "b");
        assertThat(c.namespace("a").statements()).hasSize(2);
    }

    @Test
    void inlineStatementsAreSeparatedBySemicolons() {
        NetworkConfig c = NetworkConfig.parseInline(
                "namespace app; link add veth0 type veth peer veth1; addr add 10.0.0.1/24 dev veth0;nameserver 10.0.0.53");
        assertThat(c.namespace("app").statements()).hasSize(3);
        assertThat(c.lineOf(c.namespace("app").statements().get(1))).as("statements count as lines").isEqualTo(3);
        assertThat(c.namespace("app").resolvConfLines()).containsExactly("nameserver 10.0.0.53");

        assertThatThrownBy(() -> NetworkConfig.parseInline("namespace app; addr add 10.0.0.1/24 dev nope"))
                .isInstanceOf(NetworkConfigException.class)
                .hasMessage("line 2: addr add 10.0.0.1/24 dev nope: no such device: nope");
    }

    @Test
    void printsBackWhatItReads() {
        NetworkConfig c = NetworkConfig.parse(EXAMPLE);
        String printed = c.toString();
        NetworkConfig again = NetworkConfig.parse(printed);
        assertThat(again).isEqualTo(c).hasSameHashCodeAs(c);
        assertThat(again.toString()).isEqualTo(printed);
        assertThat(printed).contains("""
                default app

                namespace app
                sysctl net.ipv4.tcp_sack=0
                sysctl net.ipv4.tcp_rmem=4096 87380 6291456
                """).contains("""
                link add tap0 type tap mtu 1400 pcap app.pcap
                link add vx0 type vxlan id 42 remote 198.51.100.1 local 198.51.100.2 dstport 4790 localport 4791 mtu 1400 nolearning
                link add veth0 type veth peer veth1 netns db mtu 9000
                link set veth0 impair loss=1%,delay=20ms,seed=7
                link set tap0 mtu 1300
                addr add 192.0.2.2/24 dev tap0
                address add 10.0.0.1/24 dev veth0
                """.replace("address add", "addr add")).contains("route add 203.0.113.0/24 via 10.0.0.2 metric 10\n")
                .contains("host 2001:db8::2 db6.example.test\n");
    }

    @Test
    void anImpairmentWithoutSeedGetsOneWhenParsedSoThatThePrintedFormRepeatsTheRun() {
        NetworkConfig c = NetworkConfig.parse("link add veth0 type veth peer veth1\nlink set veth0 impair loss=2%");
        LinkSet set = c.namespace("init").statements(LinkSet.class).getFirst();
        assertThat(set.text()).matches("link set veth0 impair loss=2%,seed=-?\\d+");
        assertThat(NetworkConfig.parse(c.toString())).isEqualTo(c);
    }

    @Test
    void roundTripOfDefaultsAndImplicitNamespace() {
        NetworkConfig c = NetworkConfig.parse("link add vx0 type vxlan id 1\nhost 192.0.2.9 a");
        assertThat(c.toString()).isEqualTo("""
                default init

                namespace init
                link add vx0 type vxlan id 1
                host 192.0.2.9 a
                """);
        assertThat(NetworkConfig.parse(c.toString())).isEqualTo(c);
    }

    @ParameterizedTest(name = "[{index}] {2}")
    @CsvSource(delimiter = '|', textBlock = """
            # text (\\n between lines)                                   | line | message
            bogus 1                                                        | 1 | bogus 1: unknown statement 'bogus' (statements: namespace, default, sysctl, link, addr, route, nameserver, search, domain, options, host)
            namespace a\\n\\nnamespace a b                                 | 3 | namespace a b: expected namespace NAME
            namespace a/b                                                  | 1 | namespace a/b: bad namespace name (1..64 of A-Z a-z 0-9 _ . -): a/b
            default a\\ndefault a\\nnamespace a                            | 2 | default a: default given twice (first on line 1)
            default x\\nnamespace a                                        | 1 | default x: no namespace x in the configuration
            # comment only                                                 | 0 | no namespace in the configuration
            namespace a\\nsysctl net.ipv4.tcp_nope=1                       | 2 | sysctl net.ipv4.tcp_nope=1: unknown sysctl: net.ipv4.tcp_nope
            namespace a\\nsysctl net.ipv4.tcp_sack=7                       | 2 | sysctl net.ipv4.tcp_sack=7: net.ipv4.tcp_sack
            namespace a\\nsysctl net.ipv4.tcp_sack                         | 2 | sysctl net.ipv4.tcp_sack: expected sysctl KEY=VALUE
            namespace a\\nsysctl net.ipv4.tcp_sack=                        | 2 | sysctl net.ipv4.tcp_sack=: missing value of net.ipv4.tcp_sack
            namespace a\\nsysctl net.ipv4.conf.eth9.forwarding=1           | 2 | sysctl net.ipv4.conf.eth9.forwarding=1: unknown sysctl: net.ipv4.conf.eth9.forwarding
            link add tap0                                                  | 1 | link add tap0: expected type tap, vxlan or veth after tap0
            link add tap0 type ppp                                         | 1 | link add tap0 type ppp: unknown link type ppp (types: tap, vxlan, veth)
            link add tap0 type tap mtu 20                                  | 1 | link add tap0 type tap mtu 20: mtu 20 outside 68..65535
            link add tap0 type tap mtu big                                 | 1 | link add tap0 type tap mtu big: bad mtu big (a number 68..65535)
            link add tap0 type tap mtu                                     | 1 | link add tap0 type tap mtu: missing value after mtu
            link add tap0 type tap color red                               | 1 | link add tap0 type tap color red: unknown option color (options: mtu, pcap)
            link add tap%d type tap                                        | 1 | link add tap%d type tap: a TAP name in a configuration is literal (no %d): tap%d
            link add averyveryverylongname type tap                        | 1 | link add averyveryverylongname type tap: bad device name (Linux dev_valid_name: 1..15 bytes, no '/', ':' or blanks): averyveryverylongname
            link add vx0 type vxlan remote 192.0.2.1                       | 1 | link add vx0 type vxlan remote 192.0.2.1: missing id VNI
            link add vx0 type vxlan id 16777216                            | 1 | link add vx0 type vxlan id 16777216: id 16777216 outside 0..16777215
            link add vx0 type vxlan id 1 remote 2001:db8::1                | 1 | link add vx0 type vxlan id 1 remote 2001:db8::1: bad IPv4 address: 2001:db8::1
            link add vx0 type vxlan id 1 dstport 0                         | 1 | link add vx0 type vxlan id 1 dstport 0: dstport 0 outside 1..65535
            link add veth0 type veth                                       | 1 | link add veth0 type veth: missing peer NAME
            link add veth0 type veth peer veth1 netns nowhere              | 1 | link add veth0 type veth peer veth1 netns nowhere: no namespace nowhere in the configuration
            link add veth0 type veth peer veth0                            | 1 | link add veth0 type veth peer veth0: device exists: veth0
            link add lo type tap                                           | 1 | link add lo type tap: device exists: lo
            link add veth0 type veth peer veth1\\nlink add veth0 type tap  | 2 | link add veth0 type tap: device exists: veth0
            namespace a\\nlink add v0 type veth peer v1 netns b\\nnamespace b\\nlink add v1 type tap | 4 | link add v1 type tap: device exists: v1
            namespace b\\nlink add v1 type tap\\nnamespace a\\nlink add v0 type veth peer v1 netns b | 4 | link add v0 type veth peer v1 netns b: device exists in namespace b: v1
            link mod tap0                                                  | 1 | link mod tap0: expected link add or link set, not link mod
            link set                                                       | 1 | link set: expected link add NAME type TYPE ... or link set DEV ...
            link set lo                                                    | 1 | link set lo: expected mtu N or impair SPEC after lo
            link set eth9 mtu 1400                                         | 1 | link set eth9 mtu 1400: no such device: eth9
            link set lo impair loss=200%                                   | 1 | link set lo impair loss=200%: bad impairment 'loss=200%'
            link set lo impair wobble=1                                    | 1 | link set lo impair wobble=1: unknown impairment 'wobble'
            link set lo impair loss=1%\\nlink set lo impair loss=2%        | 2 | link set lo impair loss=2%: device lo is impaired already
            link set lo up                                                 | 1 | link set lo up: unknown option up (options: mtu, impair)
            addr add 10.0.0.1/24 dev eth9                                  | 1 | addr add 10.0.0.1/24 dev eth9: no such device: eth9
            addr add 10.0.0.1/33 dev lo                                    | 1 | addr add 10.0.0.1/33 dev lo: bad prefix length: 10.0.0.1/33
            addr add 10.0.0.300/24 dev lo                                  | 1 | addr add 10.0.0.300/24 dev lo: bad IPv4 address: 10.0.0.300
            addr add 10.0.0.1/24                                           | 1 | addr add 10.0.0.1/24: missing dev
            addr add dev lo                                                | 1 | addr add dev lo: missing address
            addr del 10.0.0.1/24 dev lo                                    | 1 | addr del 10.0.0.1/24 dev lo: expected addr add ADDR/LEN dev DEV
            addr add 10.0.0.1/24 dev lo\\naddr add 10.0.0.1/24 dev lo      | 2 | addr add 10.0.0.1/24 dev lo: File exists: 10.0.0.1/24 on lo
            address   add 10.0.0.1 dev eth9                                | 1 | address add 10.0.0.1 dev eth9: no such device: eth9
            route add default via 192.0.2.1 dev lo                         | 1 | route add default via 192.0.2.1 dev lo: Nexthop has invalid gateway
            route add default via 192.0.2.1                                | 1 | route add default via 192.0.2.1: Nexthop has invalid gateway: no connected route holds 192.0.2.1 (add its address first, or give dev)
            route add 10.0.0.0/8                                           | 1 | route add 10.0.0.0/8: missing dev
            route add 10.0.0.1/8 dev lo                                    | 1 | route add 10.0.0.1/8 dev lo: invalid prefix for given prefix length
            route add blackhole 10.0.0.0/8                                 | 1 | route add blackhole 10.0.0.0/8: blackhole routes are not supported
            route add 10.0.0.0/8 dev lo table 7                            | 1 | route add 10.0.0.0/8 dev lo table 7: only table main is supported, not 7
            route add 10.0.0.0/8 dev lo weight 2                           | 1 | route add 10.0.0.0/8 dev lo weight 2: unknown keyword weight
            route del 10.0.0.0/8 dev lo                                    | 1 | route del 10.0.0.0/8 dev lo: expected route add ROUTE
            route add                                                      | 1 | route add: missing destination
            route add 10.0.0.0/8 dev eth9                                  | 1 | route add 10.0.0.0/8 dev eth9: no such device: eth9
            route add 10.0.0.0/8 dev lo\\nroute add 10.0.0.0/8 dev lo     | 2 | route add 10.0.0.0/8 dev lo: File exists
            nameserver                                                     | 1 | nameserver: expected nameserver ADDR
            nameserver dns.example                                         | 1 | nameserver dns.example: bad IPv4 address: dns.example
            nameserver 2001:db8::zz                                        | 1 | nameserver 2001:db8::zz: Invalid IP address literal: 2001:db8::zz
            search                                                         | 1 | search: expected search VALUE...
            domain a b                                                     | 1 | domain a b: expected domain NAME
            options                                                        | 1 | options: expected options VALUE...
            host 192.0.2.1                                                 | 1 | host 192.0.2.1: expected host ADDR NAME [ALIAS...]
            host db 192.0.2.1                                              | 1 | host db 192.0.2.1: bad IPv4 address: db
            """)
    void everyErrorNamesItsLine(String text, int line, String message) {
        String config = text.replace("\\n", "\n");
        assertThatThrownBy(() -> NetworkConfig.parse(config))
                .isInstanceOf(NetworkConfigException.class)
                .satisfies(e -> {
                    NetworkConfigException n = (NetworkConfigException) e;
                    assertThat(n.line()).isEqualTo(line);
                    assertThat(n.getMessage()).startsWith(line > 0 ? "line " + line + ": " + message : message);
                });
    }

    @Test
    void errorsOfAFileNameTheFile(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("jnet.conf");
        Files.writeString(f, "namespace a\n\nlink add veth0 type veth peer veth1 mtu 1\n");
        assertThatThrownBy(() -> NetworkConfig.load(f))
                .isInstanceOf(NetworkConfigException.class)
                .hasMessage(f + ": line 3: link add veth0 type veth peer veth1 mtu 1: mtu 1 outside 68..65536")
                .satisfies(e -> {
                    NetworkConfigException n = (NetworkConfigException) e;
                    assertThat(n.source()).isEqualTo(f.toString());
                    assertThat(n.problem()).isEqualTo("mtu 1 outside 68..65536");
                });
    }

    @Test
    void theSystemPropertiesNameAFileOrHoldTheStatements(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("net.conf");
        Files.writeString(f, "namespace fromfile\nhost 192.0.2.1 gw\n");
        Properties p = new Properties();
        assertThat(NetworkConfig.fromProperties(p)).isEmpty();

        p.setProperty(NetworkConfig.CONFIG_PROPERTY, f.toString());
        NetworkConfig fromFile = NetworkConfig.fromProperties(p).orElseThrow();
        assertThat(fromFile.defaultNamespace()).isEqualTo("fromfile");
        assertThat(fromFile.source()).isEqualTo(f.toString());

        p.setProperty(NetworkConfig.INLINE_PROPERTY, "namespace x");
        assertThatThrownBy(() -> NetworkConfig.fromProperties(p)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("set jnet.config or jnet.config.inline, not both");

        p.remove(NetworkConfig.CONFIG_PROPERTY);
        p.setProperty(NetworkConfig.INLINE_PROPERTY, "namespace x; nameserver 192.0.2.53; search lab.test");
        assertThat(NetworkConfig.fromProperties(p).orElseThrow().namespace("x").resolvConfLines())
                .containsExactly("nameserver 192.0.2.53", "search lab.test");

        p.setProperty(NetworkConfig.INLINE_PROPERTY, "namespace x; link add t0 type tap mtu 9");
        assertThatThrownBy(() -> NetworkConfig.fromProperties(p)).isInstanceOf(NetworkConfigException.class)
                .hasMessage("jnet.config.inline: line 2: link add t0 type tap mtu 9: mtu 9 outside 68..65535");
    }

    @Test
    void statementsMayNameDevicesAndNamespacesDeclaredFurtherDown() {
        NetworkConfig c = NetworkConfig.parse("""
                namespace server
                addr add 10.0.0.2/24 dev veth1
                route add default via 10.0.0.1
                sysctl net.ipv4.conf.veth1.rp_filter=1
                namespace client
                route add 10.1.0.0/16 via 10.0.0.2
                addr add 10.0.0.1/24 dev veth0
                link add veth0 type veth peer veth1 netns server
                """);
        assertThat(c.namespaces()).hasSize(2);
    }

    @Test
    void parsingOpensNothingAndLeavesNoThread() {
        for (int i = 0; i < 20; i++) {
            NetworkConfig.parse("namespace dryrunprobe\nlink add veth0 type veth peer veth1\nlink set veth0 impair delay=1ms"
                    + "\naddr add 10.0.0.1/24 dev veth0");
        }
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .noneMatch(n -> n.contains("dryrunprobe"));
    }

    @Test
    void theReadmeExampleParsesAndRoundTrips() throws IOException {
        String readme = Files.readString(io.jnet.testing.ProjectFiles.find("README.md"));
        int start = readme.indexOf("# jnet.conf");
        assertThat(start).as("the README's example").isPositive();
        String example = readme.substring(start, readme.indexOf("```", start));
        NetworkConfig c = NetworkConfig.parse(example);
        assertThat(c.defaultNamespace()).isEqualTo("app");
        assertThat(c.namespace("app").resolvConfLines()).containsExactly("nameserver 192.0.2.1", "search example.test");
        assertThat(c.namespace("db").links()).hasSize(1);
        assertThat(NetworkConfig.parse(c.toString())).isEqualTo(c);
    }

    @Test
    void theNameServiceLinesAreWhatIoJnetDnsReads() {
        NamespaceConfig app = NetworkConfig.parse(EXAMPLE).namespace("app");
        ResolvConf conf = ResolvConf.parse(String.join("\n", app.resolvConfLines()));
        assertThat(conf.ignored()).isEmpty();
        assertThat(conf.nameservers()).containsExactly((Inet4Address) addr("192.0.2.1"));
        assertThat(conf.search()).containsExactly("example.test"); // the last of search and domain wins, as glibc
        assertThat(conf.ndots()).isEqualTo(2);
        HostsTable hosts = new HostsTable();
        assertThat(hosts.addAll(String.join("\n", app.hostsLines()))).isEmpty();
        assertThat(hosts.lookupByName("db")).containsExactly((Inet4Address) addr("10.0.0.2"));
        assertThat(hosts.ipv6LinesSkipped()).isEqualTo(1);
    }

    private static InetAddress addr(String s) {
        return Ipv4.toInet(Ipv4.parseAddress(s));
    }
}
