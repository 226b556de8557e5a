package io.jnet.topology;

import io.jnet.link.impair.ImpairedDevice;
import io.jnet.stack.NetNamespace;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The namespaces a {@link NetworkConfig} built ({@link NetworkConfig#apply()}): by name, the default one, the
 * impairment devices put in front of links, and the configuration they came from (with each namespace's
 * resolv.conf and hosts lines). {@link #close()} closes every namespace, and with them their sockets and
 * devices (a TAP interface disappears from the kernel, a VXLAN socket is closed).
 */
public final class Network implements AutoCloseable {
    private final NetworkConfig config;
    private final Map<String, NetNamespace> namespaces;
    private final Map<String, ImpairedDevice> impairments;

    Network(NetworkConfig config, Map<String, NetNamespace> namespaces, Map<String, ImpairedDevice> impairments) {
        this.config = config;
        this.namespaces = Collections.unmodifiableMap(new LinkedHashMap<>(namespaces));
        this.impairments = Map.copyOf(impairments);
    }

    /** The configuration this network was built from. */
    public NetworkConfig config() { return config; }

    /** Every namespace by name, in the order of the configuration. */
    public Map<String, NetNamespace> namespaces() { return namespaces; }

    /**
     * The namespace called {@code name}.
     *
     * @throws IllegalArgumentException when the configuration has no such namespace
     */
    public NetNamespace namespace(String name) {
        NetNamespace ns = namespaces.get(name);
        if (ns == null) throw new IllegalArgumentException("no namespace " + name + " in the configuration (namespaces: " + namespaces.keySet() + ")");
        return ns;
    }

    /** The default namespace: the one named by {@code default}, else the first of the configuration. */
    public NetNamespace defaultNamespace() { return namespace(config.defaultNamespace()); }

    /**
     * The impairment device that {@code link set DEV impair ...} put in front of {@code dev} in namespace
     * {@code ns}, for its counts and report; null when there is none.
     */
    public ImpairedDevice impairment(String ns, String dev) { return impairments.get(ns + "/" + dev); }

    /** The resolv.conf(5) lines of namespace {@code ns} ({@link NamespaceConfig#resolvConfLines()}). */
    public List<String> resolvConfLines(String ns) { return config.namespace(ns).resolvConfLines(); }

    /** The hosts(5) lines of namespace {@code ns} ({@link NamespaceConfig#hostsLines()}). */
    public List<String> hostsLines(String ns) { return config.namespace(ns).hostsLines(); }

    /** Closes every namespace (sockets, devices, captures, timers). Idempotent. */
    @Override
    public void close() {
        for (NetNamespace ns : namespaces.values()) ns.close();
    }

    @Override
    public String toString() { return "Network" + namespaces.keySet() + " default " + config.defaultNamespace(); }
}
