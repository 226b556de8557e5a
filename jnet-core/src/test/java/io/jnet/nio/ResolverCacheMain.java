package io.jnet.nio;

import io.jnet.dns.NameService;
import io.jnet.stack.NetNamespace;
import java.net.InetAddress;

/**
 * Run by {@link JnetResolverProviderTest} in a JVM of its own, as a launcher would: with {@code disable-cache} as
 * argument it first calls {@link JnetResolverProvider#disableJdkAddressCache()}; then it resolves one name in two
 * namespaces whose hosts tables answer it differently, "localhost" outside any scope and inside one whose table maps it
 * elsewhere, and prints each answer on a line.
 */
public final class ResolverCacheMain {
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("disable-cache")) JnetResolverProvider.disableJdkAddressCache();
        try (NetNamespace a = NetNamespace.create("cache-a"); NetNamespace b = NetNamespace.create("cache-b")) {
            NameService.of(a).hosts().add("192.0.2.10", "db.example.test", "db");
            NameService.of(b).hosts().clear();
            NameService.of(b).hosts().add("198.51.100.10", "db.example.test", "db");
            NameService.of(b).hosts().add("127.0.0.2", "localhost");
            System.out.println("a db " + JnetNetwork.of(a).call(() -> InetAddress.getByName("db").getHostAddress()));
            System.out.println("b db " + JnetNetwork.of(b).call(() -> InetAddress.getByName("db").getHostAddress()));
            System.out.println("outside localhost " + InetAddress.getByName("localhost").getHostAddress());
            System.out.println("b localhost " + JnetNetwork.of(b).call(() -> InetAddress.getByName("localhost").getHostAddress()));
        }
    }
}
