package io.jnet.nio;

import io.jnet.dns.NameService;
import io.jnet.stack.NetNamespace;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.net.spi.InetAddressResolver.LookupPolicy;
import java.net.spi.InetAddressResolverProvider;
import java.security.Security;
import java.util.List;
import java.util.stream.Stream;

/**
 * The JDK's host name resolver on jnet (JDK 18+, JEP 418): {@link InetAddress#getByName},
 * {@link InetAddress#getAllByName}, {@link InetAddress#getHostName} and everything built on them ask the
 * {@link NameService} of the namespace of {@link JnetNetwork#current()}: its hosts table first, then DNS when a name
 * server is configured there. Registered in {@code META-INF/services/java.net.spi.InetAddressResolverProvider}; the
 * JDK loads the first provider it finds once, at the JVM's first lookup (unless {@code -Djdk.net.hosts.file} is set,
 * which makes the JDK use that file instead of any provider).
 *
 * <p><b>Outside jnet.</b> The service file is active in every JVM that has jnet on its class path, including
 * programs that use only the kernel's network (and jnet's own tests). So where {@link JnetNetwork#current()} is null
 * (no {@link JnetNetwork#run} scope on the thread and no default network), every lookup goes to the JDK's built-in
 * resolver ({@link InetAddressResolverProvider.Configuration#builtinResolver()}, the operating system's), unchanged.
 *
 * <p><b>IPv4 only.</b> jnet has no IPv6 yet: a lookup whose {@link LookupPolicy} asks for IPv6 addresses only (the JDK's
 * platform policy on a host without IPv4, or {@code LookupPolicy.of(IPV6)} from a caller of the resolver) throws {@link UnknownHostException} saying so; with both families allowed it returns the IPv4 addresses.
 * A reverse lookup of an IPv6 address fails the same way.
 *
 * <p><b>The JDK's cache.</b> The JDK caches the result of a lookup JVM-wide, keyed by the host name alone
 * ({@code networkaddress.cache.ttl}, 30 s by default for successes; {@code networkaddress.cache.negative.ttl}, 10 s
 * in the JDK's {@code java.security} for failures). Two namespaces that resolve one name differently then see
 * whichever answer was cached first, for that long. {@link #disableJdkAddressCache()} sets both to 0; the JDK reads
 * them once, when its cache policy class is initialised at the JVM's first lookup by name, so it must run before
 * that (first thing in {@code main} of a launcher). Equivalent from the command line:
 * {@code -Djava.security.properties=FILE} with those two lines. The system properties
 * {@code -Dsun.net.inetaddr.ttl=0} and {@code -Dsun.net.inetaddr.negative.ttl=0} are only fall-backs for Security
 * properties that are unset, and the JDK's {@code java.security} sets the negative one, so they do not suffice.
 */
public final class JnetResolverProvider extends InetAddressResolverProvider {

    /** Made by the {@link java.util.ServiceLoader}. */
    public JnetResolverProvider() {}

    @Override
    public InetAddressResolver get(Configuration configuration) {
        return new Resolver(configuration.builtinResolver(), configuration::lookupLocalHostName);
    }

    @Override
    public String name() { return "jnet"; }

    /**
     * Sets the Security properties {@code networkaddress.cache.ttl} and {@code networkaddress.cache.negative.ttl}
     * to 0, so that the JDK caches no lookup and each namespace's answer is asked for afresh. Effective only when
     * called before the JVM's first lookup by host name (the JDK reads them once); a later call changes the
     * properties but not the running cache policy.
     */
    public static void disableJdkAddressCache() {
        Security.setProperty("networkaddress.cache.ttl", "0");
        Security.setProperty("networkaddress.cache.negative.ttl", "0");
    }

    /** The resolver the JDK calls: jnet's name service in a jnet scope, the built-in resolver elsewhere. */
    static final class Resolver implements InetAddressResolver {
        private final InetAddressResolver builtin;
        private final java.util.function.Supplier<String> localHostName;

        Resolver(InetAddressResolver builtin, java.util.function.Supplier<String> localHostName) {
            this.builtin = builtin;
            this.localHostName = localHostName;
        }

        @Override
        public Stream<InetAddress> lookupByName(String host, LookupPolicy policy) throws UnknownHostException {
            NetNamespace ns = namespace();
            if (ns == null) return builtin.lookupByName(host, policy);
            if ((policy.characteristics() & LookupPolicy.IPV4) == 0) {
                throw new UnknownHostException(host + ": IPv6 addresses only were asked for, and jnet (namespace "
                        + ns.name() + ") has IPv4 only");
            }
            List<Inet4Address> found;
            try {
                found = NameService.of(ns).lookupByName(host);
            } catch (UnknownHostException e) {
                found = isLocalHostName(host) ? localAddresses(ns) : null;
                if (found == null) throw e;
            }
            // the addresses carry the name asked for, as the built-in resolver's do (toString "name/address")
            List<InetAddress> named = new java.util.ArrayList<>(found.size());
            for (Inet4Address a : found) named.add(InetAddress.getByAddress(host, a.getAddress()));
            return named.stream();
        }

        /** True for the machine's host name (InetAddress.getLocalHost asks for it), with or without its domain. */
        private boolean isLocalHostName(String host) {
            String local;
            try {
                local = localHostName.get();
            } catch (RuntimeException e) {
                return false;
            }
            if (local == null || local.isEmpty()) return false;
            int dot = local.indexOf('.');
            return host.equalsIgnoreCase(local) || (dot > 0 && host.equalsIgnoreCase(local.substring(0, dot)));
        }

        /**
         * The addresses the machine's host name stands for in {@code ns} when neither its hosts table nor DNS knows
         * the name, as glibc's nss-myhostname answers: the addresses of the namespace's interfaces, loopback last,
         * 127.0.0.1 when it has no other.
         */
        private static List<Inet4Address> localAddresses(NetNamespace ns) {
            List<Inet4Address> out = new java.util.ArrayList<>();
            for (io.jnet.stack.Interface i : ns.interfaces()) {
                for (io.jnet.stack.Interface.Address a : i.addresses()) {
                    if ((a.address() >>> 24) != 127) out.add(io.jnet.wire.Ipv4.toInet(a.address()));
                }
            }
            if (out.isEmpty()) out.add(io.jnet.wire.Ipv4.toInet(io.jnet.wire.Ipv4.parseAddress("127.0.0.1")));
            return out;
        }

        @Override
        public String lookupByAddress(byte[] addr) throws UnknownHostException {
            NetNamespace ns = namespace();
            if (ns == null) return builtin.lookupByAddress(addr);
            if (addr.length != 4) {
                throw new UnknownHostException("reverse lookup of an IPv6 address: jnet (namespace " + ns.name() + ") has IPv4 only");
            }
            return NameService.of(ns).lookupByAddress((Inet4Address) InetAddress.getByAddress(addr));
        }

        private static NetNamespace namespace() throws UnknownHostException {
            JnetNetwork n = JnetNetwork.current();
            if (n == null) return null;
            NetNamespace ns = n.namespace();
            if (ns.isClosed()) throw new UnknownHostException("jnet: the network's namespace " + ns.name() + " is closed");
            return ns;
        }
    }
}
