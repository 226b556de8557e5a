package io.jnet.dns;

import io.jnet.stack.NetNamespace;
import io.jnet.wire.Ipv4;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A namespace's name resolution: its {@link HostsTable}, its {@link ResolvConf} and the {@link DnsResolver} that
 * uses it, as Linux gives each network namespace made with {@code ip netns add NAME} its own
 * {@code /etc/netns/NAME/hosts} and {@code /etc/netns/NAME/resolv.conf} (ip-netns(8)). Lookups consult the hosts
 * table first, then DNS when a name server is configured, as glibc with {@code hosts: files dns} in
 * nsswitch.conf(5). IPv4 only.
 *
 * <pre>{@code
 * NameService names = NameService.of(ns);               // made at the first call: localhost, no name server
 * names.hosts().add("192.0.2.10", "db.example.test", "db");
 * names.setResolvConf(ResolvConf.parse("nameserver 192.0.2.1\nsearch example.test\n"));
 * List<Inet4Address> a = names.lookupByName("www");     // hosts, then DNS: www.example.test, then www
 * }</pre>
 */
public final class NameService {
    private final NetNamespace namespace;
    private final HostsTable hosts = new HostsTable();
    private volatile ResolvConf resolvConf = ResolvConf.EMPTY;
    private final DnsResolver resolver;

    private NameService(NetNamespace namespace) {
        this.namespace = namespace;
        this.resolver = new DnsResolver(namespace, () -> resolvConf);
    }

    /** The name service of {@code ns}: one per namespace, made at the first call. */
    public static NameService of(NetNamespace ns) {
        Objects.requireNonNull(ns, "ns");
        synchronized (ns) {
            try {
                return ns.extension(NameService.class);
            } catch (IllegalStateException absent) {
                NameService s = new NameService(ns);
                ns.putExtension(NameService.class, s);
                return s;
            }
        }
    }

    public NetNamespace namespace() { return namespace; }

    /** The hosts table, to read or change in place. */
    public HostsTable hosts() { return hosts; }

    /** The resolver configuration in force; {@link ResolvConf#EMPTY} (no DNS) until set. */
    public ResolvConf resolvConf() { return resolvConf; }

    /** Replaces the resolver configuration; lookups that start afterwards use it. */
    public void setResolvConf(ResolvConf conf) { resolvConf = Objects.requireNonNull(conf, "conf"); }

    /** The DNS resolver, which always uses {@link #resolvConf()}. */
    public DnsResolver resolver() { return resolver; }

    /**
     * Loads {@code dir/hosts} (replacing the hosts table) and {@code dir/resolv.conf} (replacing the
     * configuration), each when present, as ip-netns(8) binds {@code /etc/netns/NAME/*} over {@code /etc}.
     *
     * @return the lines of either file left out, with their reasons
     * @throws IOException when a file is present but cannot be read
     */
    public List<IgnoredLine> load(Path dir) throws IOException {
        List<IgnoredLine> ignored = new ArrayList<>();
        Path h = dir.resolve("hosts");
        if (Files.exists(h)) ignored.addAll(hosts.load(h));
        Path r = dir.resolve("resolv.conf");
        if (Files.exists(r)) {
            ResolvConf c = ResolvConf.load(r);
            ignored.addAll(c.ignored());
            setResolvConf(c);
        }
        return ignored;
    }

    /**
     * The IPv4 addresses of {@code host}: a dotted quad stands for itself; else the hosts table's entries for it,
     * else DNS ({@link DnsResolver#lookup}) when a name server is configured.
     *
     * @throws UnknownHostException when neither knows the name, naming the cause
     */
    public List<Inet4Address> lookupByName(String host) throws UnknownHostException {
        Objects.requireNonNull(host, "host");
        try {
            return List.of(Ipv4.toInet(Ipv4.parseAddress(host)));
        } catch (IllegalArgumentException notLiteral) {
            // a name
        }
        List<Inet4Address> fromHosts = hosts.lookupByName(host);
        if (!fromHosts.isEmpty()) return fromHosts;
        if (resolvConf.nameservers().isEmpty()) {
            throw new UnknownHostException(host + ": not in the hosts table of namespace " + namespace.name()
                    + ", and no name server is configured");
        }
        return resolver.lookup(host);
    }

    /**
     * The name of {@code address}: the hosts table's canonical name for it, else its PTR record when a name
     * server is configured.
     *
     * @throws UnknownHostException when neither has one
     */
    public String lookupByAddress(Inet4Address address) throws UnknownHostException {
        Optional<String> fromHosts = hosts.lookupByAddress(address);
        if (fromHosts.isPresent()) return fromHosts.get();
        if (resolvConf.nameservers().isEmpty()) {
            throw new UnknownHostException(address.getHostAddress() + ": not in the hosts table of namespace "
                    + namespace.name() + ", and no name server is configured");
        }
        return resolver.reverseLookup(address);
    }

    @Override
    public String toString() { return "NameService[" + namespace.name() + "]"; }
}
