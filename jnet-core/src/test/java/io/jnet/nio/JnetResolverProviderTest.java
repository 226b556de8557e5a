package io.jnet.nio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.dns.NameService;
import io.jnet.stack.NetNamespace;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.net.spi.InetAddressResolver.LookupPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The JDK's resolver hook: {@link InetAddress} inside a {@link JnetNetwork} scope answers from that namespace's name
 * service; outside any scope the JDK's built-in resolver answers. The JDK caches by host name JVM-wide, so the tests
 * in this JVM use names of their own, and the test of one name in two namespaces runs in a child JVM.
 */
class JnetResolverProviderTest {

    @Test
    void theServiceFileNamesTheProvider() {
        assertThat(ServiceLoader.load(java.net.spi.InetAddressResolverProvider.class).stream()
                .map(ServiceLoader.Provider::type)).contains(JnetResolverProvider.class);
    }

    @Test
    void inetAddressInsideAScopeAsksThatNamespacesHostsTable() throws Exception {
        try (NetNamespace ns = NetNamespace.create("resolver-scope")) {
            NameService.of(ns).hosts().add("192.0.2.77", "provider-test-db.example.test", "provider-test-db");
            InetAddress a = JnetNetwork.of(ns).call(() -> InetAddress.getByName("provider-test-db"));
            assertThat(a.getHostAddress()).isEqualTo("192.0.2.77");
            InetAddress[] all = JnetNetwork.of(ns).call(() -> InetAddress.getAllByName("provider-test-db.example.test"));
            assertThat(all).extracting(InetAddress::getHostAddress).containsExactly("192.0.2.77");
            String name = JnetNetwork.of(ns).call(() -> InetAddress.getByAddress(new byte[] {(byte) 192, 0, 2, 77}).getHostName());
            assertThat(name).isEqualTo("provider-test-db.example.test");
            // threads started inside the scope inherit it
            List<String> seen = new ArrayList<>();
            JnetNetwork.of(ns).run(() -> {
                Thread t = Thread.ofVirtual().start(() -> {
                    try {
                        seen.add(InetAddress.getByName("provider-test-db").getHostAddress());
                    } catch (UnknownHostException e) {
                        seen.add(e.toString());
                    }
                });
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertThat(seen).containsExactly("192.0.2.77");
            UnknownHostException e = catchThrowableOfType(UnknownHostException.class,
                    () -> JnetNetwork.of(ns).call(() -> InetAddress.getByName("provider-test-unknown.example.test")));
            assertThat(e).hasMessageContaining("not in the hosts table of namespace resolver-scope");
        }
    }

    @Test
    void outsideAnyScopeTheBuiltinResolverAnswers() throws Exception {
        assertThat(JnetNetwork.current()).isNull();
        assertThat(InetAddress.getByName("localhost").isLoopbackAddress()).isTrue();
        // the delegation itself, with a stand-in for the built-in resolver
        List<String> asked = new ArrayList<>();
        InetAddressResolver builtin = new InetAddressResolver() {
            @Override
            public Stream<InetAddress> lookupByName(String host, LookupPolicy policy) {
                asked.add(host);
                return Stream.of(InetAddress.ofLiteral("203.0.113.1"));
            }

            @Override
            public String lookupByAddress(byte[] addr) {
                asked.add("reverse");
                return "builtin.example";
            }
        };
        JnetResolverProvider.Resolver r = new JnetResolverProvider.Resolver(builtin, () -> "box.example.test");
        LookupPolicy v4 = LookupPolicy.of(LookupPolicy.IPV4);
        assertThat(r.lookupByName("example.org", v4)).extracting(InetAddress::getHostAddress).containsExactly("203.0.113.1");
        assertThat(r.lookupByAddress(new byte[] {1, 2, 3, 4})).isEqualTo("builtin.example");
        assertThat(asked).containsExactly("example.org", "reverse");
        try (NetNamespace ns = NetNamespace.create("resolver-policy")) {
            asked.clear();
            NameService.of(ns).hosts().add("192.0.2.5", "five");
            assertThat(JnetNetwork.of(ns).call(() -> r.lookupByName("five", LookupPolicy.of(LookupPolicy.IPV4 | LookupPolicy.IPV6))))
                    .extracting(InetAddress::getHostAddress).containsExactly("192.0.2.5");
            UnknownHostException v6 = catchThrowableOfType(UnknownHostException.class,
                    () -> JnetNetwork.of(ns).call(() -> r.lookupByName("five", LookupPolicy.of(LookupPolicy.IPV6))));
            assertThat(v6).hasMessageContaining("IPv6 addresses only").hasMessageContaining("IPv4 only");
            UnknownHostException v6reverse = catchThrowableOfType(UnknownHostException.class,
                    () -> JnetNetwork.of(ns).call(() -> r.lookupByAddress(new byte[16])));
            assertThat(v6reverse).hasMessageContaining("IPv6");
            assertThat(asked).as("inside a scope the built-in resolver is never asked").isEmpty();
            // the answers carry the name asked for, as the built-in resolver's do
            assertThat(JnetNetwork.of(ns).call(() -> r.lookupByName("five", v4)).findFirst().orElseThrow())
                    .hasToString("five/192.0.2.5");
            // the machine's own name, unknown to hosts and DNS, stands for the namespace's addresses
            // (nss-myhostname): 127.0.0.1 while it has no other
            assertThat(JnetNetwork.of(ns).call(() -> r.lookupByName("box", v4)).map(Object::toString)).containsExactly("box/127.0.0.1");
            ns.attach(io.jnet.link.VethPair.create("v0", "v1").a());
            ns.addAddress("v0", "198.51.100.7/24");
            assertThat(JnetNetwork.of(ns).call(() -> r.lookupByName("box.example.test", v4)).map(InetAddress::getHostAddress))
                    .containsExactly("198.51.100.7");
            assertThat(catchThrowableOfType(UnknownHostException.class,
                    () -> JnetNetwork.of(ns).call(() -> r.lookupByName("other", v4)))).hasMessageContaining("other");
        }
    }

    @Test
    void withTheCacheOffTwoNamespacesGetTheirOwnAnswersForOneName() throws Exception {
        List<String> off = child("disable-cache");
        assertThat(off).containsExactly("a db 192.0.2.10", "b db 198.51.100.10", "outside localhost 127.0.0.1",
                "b localhost 127.0.0.2");
        // without it the JDK's cache hands namespace b what namespace a got, as the provider's documentation warns
        List<String> cached = child("keep-cache");
        assertThat(cached).containsExactly("a db 192.0.2.10", "b db 192.0.2.10", "outside localhost 127.0.0.1",
                "b localhost 127.0.0.1");
    }

    private static List<String> child(String arg) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(List.of(java.toString(), "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), ResolverCacheMain.class.getName(), arg)).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(err).isZero();
        return out.lines().toList();
    }
}
