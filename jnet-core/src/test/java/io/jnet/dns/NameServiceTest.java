package io.jnet.dns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.stack.NetNamespace;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A namespace's own hosts table and resolv.conf, as /etc/netns/NAME/ gives a Linux namespace. */
class NameServiceTest {

    @Test
    void eachNamespaceHasItsOwnTableStartingWithLocalhost() throws Exception {
        try (NetNamespace a = NetNamespace.create("names-a"); NetNamespace b = NetNamespace.create("names-b")) {
            NameService na = NameService.of(a);
            assertThat(NameService.of(a)).isSameAs(na);
            na.hosts().add("192.0.2.10", "db.example.test", "db");
            NameService.of(b).hosts().add("198.51.100.10", "db");
            assertThat(na.lookupByName("db")).containsExactly((java.net.Inet4Address) InetAddress.ofLiteral("192.0.2.10"));
            assertThat(NameService.of(b).lookupByName("db")).extracting(InetAddress::getHostAddress).containsExactly("198.51.100.10");
            assertThat(na.lookupByName("localhost")).extracting(InetAddress::getHostAddress).containsExactly("127.0.0.1");
            assertThat(na.lookupByName("192.0.2.99")).extracting(InetAddress::getHostAddress).containsExactly("192.0.2.99");
            assertThat(na.lookupByAddress((java.net.Inet4Address) InetAddress.ofLiteral("192.0.2.10"))).isEqualTo("db.example.test");
            UnknownHostException e = catchThrowableOfType(UnknownHostException.class, () -> na.lookupByName("web"));
            assertThat(e).hasMessage("web: not in the hosts table of namespace names-a, and no name server is configured");
        }
    }

    @Test
    void loadReadsHostsAndResolvConfFromADirectory(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("hosts"), "192.0.2.5 five\nbad line\n");
        Files.writeString(dir.resolve("resolv.conf"), "nameserver 192.0.2.1\nsearch example.test\nbogus\n");
        try (NetNamespace ns = NetNamespace.create("names-load")) {
            NameService s = NameService.of(ns);
            assertThat(s.load(dir)).extracting(IgnoredLine::reason)
                    .containsExactly("not an IPv4 or IPv6 address: bad", "keyword not supported: bogus");
            assertThat(s.lookupByName("five")).extracting(InetAddress::getHostAddress).containsExactly("192.0.2.5");
            assertThat(s.resolvConf().search()).containsExactly("example.test");
            assertThat(s.resolver().conf()).isSameAs(s.resolvConf());
        }
    }
}
