package io.jnet.stack;

/**
 * A protocol module installed into every new namespace (Linux's protocol registration at init,
 * e.g. {@code inet_init}). Found with {@link java.util.ServiceLoader}; installed in {@link #order()}.
 */
public interface ProtocolFamily {
    /** Lower installs first (IPv4/ARP/ICMP before TCP and UDP). */
    int order();

    /** Creates this module's per-namespace state and registers its handlers in {@code ns}. */
    void install(NetNamespace ns);
}
