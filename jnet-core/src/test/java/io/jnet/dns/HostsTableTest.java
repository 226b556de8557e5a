package io.jnet.dns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** hosts(5) text and lookups as glibc's files source answers them. */
class HostsTableTest {

    static Inet4Address ip(String s) { return (Inet4Address) InetAddress.ofLiteral(s); }

    @Test
    void aNewTableKnowsLocalhost() {
        HostsTable t = new HostsTable();
        assertThat(t.lookupByName("localhost")).containsExactly(ip("127.0.0.1"));
        assertThat(t.lookupByName("LocalHost.")).containsExactly(ip("127.0.0.1"));
        assertThat(t.lookupByAddress(ip("127.0.0.1"))).contains("localhost");
        assertThat(t.lookupByName("localhost.localdomain")).isEmpty();
    }

    @Test
    void debiansHostsFileWithCommentsAliasesAndIpv6Lines() {
        HostsTable t = new HostsTable();
        t.clear();
        List<IgnoredLine> ignored = t.addAll("""
                127.0.0.1\tlocalhost
                127.0.1.1\tbox.example.test\tbox   # the host itself
                # The following lines are desirable for IPv6 capable hosts
                ::1     localhost ip6-localhost ip6-loopback
                ff02::1 ip6-allnodes

                192.0.2.10 db.example.test db
                192.0.2.11 db.example.test
                192.0.2.10 other.example.test
                300.1.2.3 broken
                192.0.2.12
                """);
        assertThat(ignored).extracting(IgnoredLine::number, IgnoredLine::reason).containsExactly(
                org.assertj.core.groups.Tuple.tuple(10, "not an IPv4 or IPv6 address: 300.1.2.3"),
                org.assertj.core.groups.Tuple.tuple(11, "no host name after the address"));
        assertThat(t.ipv6LinesSkipped()).isEqualTo(2);
        assertThat(t.lookupByName("box")).containsExactly(ip("127.0.1.1"));
        assertThat(t.lookupByName("DB")).containsExactly(ip("192.0.2.10"));
        assertThat(t.lookupByName("db.example.test")).as("every line of the name, in order").containsExactly(ip("192.0.2.10"), ip("192.0.2.11"));
        assertThat(t.lookupByAddress(ip("192.0.2.10"))).as("the first line's canonical name").contains("db.example.test");
        assertThat(t.lookupByName("ip6-localhost")).isEmpty();
        assertThat(t.lookupByName("broken")).isEmpty();
        assertThat(t.entries()).hasSize(5);
    }

    @Test
    void addAndLoad(@TempDir Path dir) throws Exception {
        HostsTable t = new HostsTable().add("192.0.2.20", "web.example.test", "web", "www");
        assertThat(t.lookupByName("www")).containsExactly(ip("192.0.2.20"));
        assertThat(t.toString()).isEqualTo("127.0.0.1 localhost\n192.0.2.20 web.example.test web www\n");
        assertThatThrownBy(() -> t.add("192.0.2.300", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> t.add("192.0.2.1", "two words")).hasMessageContaining("bad host name");
        Path f = dir.resolve("hosts");
        Files.writeString(f, "192.0.2.30 only\n");
        assertThat(t.load(f)).isEmpty();
        assertThat(t.entries()).extracting(HostsTable.Entry::canonicalName).containsExactly("only");
        assertThat(t.lookupByName("localhost")).as("load replaces the table").isEmpty();
    }
}
