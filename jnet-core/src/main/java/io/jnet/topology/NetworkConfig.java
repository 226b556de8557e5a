package io.jnet.topology;

import io.jnet.stack.Clock;
import io.jnet.stack.SystemClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * A description of a jnet network in a small text format modelled on Linux's {@code ip} and {@code sysctl}
 * commands: namespaces, their devices (TAP to the kernel, VXLAN, veth pairs between namespaces), impairments,
 * addresses, routes, sysctls, and each namespace's name service lines (resolv.conf and hosts). Parsing checks
 * everything that can be checked without opening a device; {@link #apply()} builds the namespaces.
 *
 * <pre>
 * # comments run from # to the end of the line; blank lines are skipped
 * default app                                   # the default namespace (else the first one)
 * namespace app                                 # the statements below belong to namespace app
 * sysctl net.ipv4.tcp_sack=0                    # sysctl -w KEY=VALUE
 * link add tap0 type tap mtu 1500 pcap app.pcap # a TAP interface to the kernel
 * link add veth0 type veth peer veth1 netns db  # a veth pair; veth1 goes to namespace db
 * link set veth0 impair loss=1%,delay=20ms      # jnet's impairment device (netem's job on Linux)
 * addr add 192.0.2.2/24 dev tap0                # ip addr add
 * addr add 10.0.0.1/24 dev veth0
 * route add 198.51.100.0/24 via 192.0.2.1       # ip route add (dev found from the gateway when left out)
 * nameserver 192.0.2.1                          # resolv.conf(5) lines: nameserver, search, domain, options
 * search example.test
 * host 10.0.0.2 db.example.test db              # hosts(5): ADDR NAME [ALIAS...]
 *
 * namespace db
 * addr add 10.0.0.2/24 dev veth1
 * </pre>
 *
 * <table>
 * <caption>Statements (one a line; words separated by blanks)</caption>
 * <tr><th>statement</th><th>Linux command it mirrors</th><th>values</th></tr>
 * <tr><td>{@code namespace NAME}</td><td>{@code ip netns add NAME}</td><td>1..64 of {@code A-Z a-z 0-9 _ . -}; starts
 *     (or, named again, continues) the block that the following statements belong to. Statements before the first
 *     {@code namespace} line belong to namespace {@code init}</td></tr>
 * <tr><td>{@code default NAME}</td><td>-</td><td>the namespace a program gets when it names none; at most once,
 *     anywhere; default: the first namespace</td></tr>
 * <tr><td>{@code sysctl [-w] KEY=VALUE}</td><td>{@code sysctl -w}</td><td>any sysctl of a jnet namespace
 *     ({@code NetNamespace.sysctl()}: Linux's names, units and ranges), {@code /proc/sys/} paths accepted</td></tr>
 * <tr><td>{@code link add NAME type tap [mtu N] [pcap FILE]}</td><td>{@code ip tuntap add NAME mode tap}</td>
 *     <td>NAME literal, at most 15 bytes; MTU in bytes 68..65535 (1500)</td></tr>
 * <tr><td>{@code link add NAME type vxlan id VNI [remote ADDR] [local ADDR] [dstport PORT] [localport PORT] [mtu N]
 *     [nolearning] [pcap FILE]}</td><td>{@code ip link add NAME type vxlan id VNI remote ADDR local ADDR dstport PORT}</td>
 *     <td>VNI 0..16777215; IPv4 underlay; dstport 4789; the socket binds {@code local}:{@code localport} (default
 *     0.0.0.0 and dstport, as Linux listens on dstport); MTU 68..65536 (1450)</td></tr>
 * <tr><td>{@code link add NAME type veth peer [name] PEER [netns NS] [mtu N] [pcap FILE]}</td>
 *     <td>{@code ip link add NAME type veth peer name PEER netns NS}</td><td>NS another namespace of this configuration
 *     (default this one); MTU 68..65536 (1500) on both ends</td></tr>
 * <tr><td>{@code link set [dev] DEV [mtu N] [impair SPEC]}</td><td>{@code ip link set DEV mtu N}; {@code tc qdisc add
 *     dev DEV root netem ...}</td><td>SPEC as {@link io.jnet.link.impair.ImpairmentConfig#parse}, no blanks, e.g.
 *     {@code loss=1%,delay=20ms,egress.rate=10mbit,seed=7}; at most one impairment per device</td></tr>
 * <tr><td>{@code addr add ADDR[/LEN] dev DEV}</td><td>{@code ip addr add}</td><td>IPv4; no LEN: /32</td></tr>
 * <tr><td>{@code route add ROUTE}</td><td>{@code ip route add}</td><td>ROUTE as {@link io.jnet.ip.IpRouteFile}:
 *     {@code default|ADDR/LEN [via GW] [dev DEV] [src ADDR] [metric N]}</td></tr>
 * <tr><td>{@code nameserver ADDR}, {@code search DOMAIN...}, {@code domain DOMAIN}, {@code options OPT...}</td>
 *     <td>resolv.conf(5)</td><td>kept as written: {@link NamespaceConfig#resolvConfLines()}</td></tr>
 * <tr><td>{@code host ADDR NAME [ALIAS...]}</td><td>hosts(5)</td><td>IPv4 or IPv6 literal: {@link NamespaceConfig#hostsLines()}</td></tr>
 * </table>
 *
 * <p><b>Order.</b> Within a block statements keep file order, and {@link #apply()} carries them out in phases, so a
 * statement may name a device or namespace declared further down: all namespaces are created; then sysctls that name no
 * device (so devices start from {@code net.ipv4.conf.default.*}, as on Linux); devices ({@code link add}); {@code link
 * set}; the devices' own sysctls ({@code net.ipv4.conf.DEV.*}); addresses; routes (after every address, so a gateway is
 * on a connected subnet whatever the order of the lines). A capture sees the frames on the wire: an impairment sits in
 * front of it. A relative capture FILE is resolved against the working directory.
 *
 * <p><b>Errors.</b> Parsing throws {@link NetworkConfigException} (an IllegalArgumentException) naming the line, the
 * statement and the problem, e.g. {@code line 4: addr add 10.0.0.1/24 dev veth9: no such device: veth9}: unknown
 * statements, keywords, sysctls and devices, malformed or out-of-range values, duplicate devices or addresses, gateways
 * not on a connected subnet ("Nexthop has invalid gateway"), a {@code default} or {@code netns} naming no namespace of
 * the file. Parsing is checked by a dry run of {@link #apply()} on stand-in devices, which needs no privileges and opens
 * nothing.
 *
 * <p><b>Sources.</b> {@link #parse(String)} for text, {@link #load(Path)} for a file (UTF-8), {@link #parseInline(String)}
 * for statements separated by {@code ;} (errors count statements as lines), and {@link #fromSystemProperties()}: the file
 * named by {@code -Djnet.config=PATH}, or the one-liner {@code -Djnet.config.inline="link add tap0 type tap; addr add
 * 192.0.2.2/24 dev tap0"}. {@link #toString()} prints the configuration back in canonical form; parsing that gives an
 * equal configuration.
 */
public final class NetworkConfig {
    /** System property naming a configuration file. */
    public static final String CONFIG_PROPERTY = "jnet.config";
    /** System property holding a configuration inline, statements separated by {@code ;}. */
    public static final String INLINE_PROPERTY = "jnet.config.inline";

    private final String source;
    private final String defaultNamespace;
    private final List<NamespaceConfig> namespaces;
    private final Map<Statement, Origin> origins;

    /** Where a statement was read: its line and its text as written (blanks collapsed). */
    record Origin(int line, String written) {}

    NetworkConfig(String source, String defaultNamespace, List<NamespaceConfig> namespaces, Map<Statement, Origin> origins) {
        this.source = source;
        this.defaultNamespace = defaultNamespace;
        this.namespaces = List.copyOf(namespaces);
        this.origins = new IdentityHashMap<>(origins);
    }

    /**
     * Parses a configuration.
     *
     * @throws NetworkConfigException naming the line (see the class comment)
     */
    public static NetworkConfig parse(String text) {
        return NetworkConfigParser.parse(Objects.requireNonNull(text, "text"), null);
    }

    /**
     * Parses a configuration whose errors name {@code source} (e.g. the file it came from).
     *
     * @throws NetworkConfigException naming the source and line
     */
    public static NetworkConfig parse(String text, String source) {
        return NetworkConfigParser.parse(Objects.requireNonNull(text, "text"), source);
    }

    /**
     * Reads a configuration file (UTF-8).
     *
     * @throws IOException when the file cannot be read
     * @throws NetworkConfigException naming the file and line
     */
    public static NetworkConfig load(Path file) throws IOException {
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    }

    /**
     * Parses statements separated by {@code ;} (a one-liner); errors number the statements from 1 as lines.
     *
     * @throws NetworkConfigException naming the statement's number
     */
    public static NetworkConfig parseInline(String statements) {
        return parseInline(statements, null);
    }

    private static NetworkConfig parseInline(String statements, String source) {
        return NetworkConfigParser.parse(Objects.requireNonNull(statements, "statements").replace(';', '\n'), source);
    }

    /**
     * The configuration the JVM was started with: the file of system property {@value #CONFIG_PROPERTY}, or the
     * statements of {@value #INLINE_PROPERTY} (separated by {@code ;}); empty when neither is set.
     *
     * @throws IOException when the file cannot be read
     * @throws NetworkConfigException for a bad configuration (naming the file or the property, and the line)
     * @throws IllegalArgumentException when both properties are set
     */
    public static Optional<NetworkConfig> fromSystemProperties() throws IOException {
        return fromProperties(System.getProperties());
    }

    /** {@link #fromSystemProperties()} on the given properties. */
    public static Optional<NetworkConfig> fromProperties(Properties props) throws IOException {
        String file = props.getProperty(CONFIG_PROPERTY);
        String inline = props.getProperty(INLINE_PROPERTY);
        if (file != null && inline != null) {
            throw new IllegalArgumentException("set " + CONFIG_PROPERTY + " or " + INLINE_PROPERTY + ", not both");
        }
        if (file != null) return Optional.of(load(Path.of(file)));
        if (inline != null) return Optional.of(parseInline(inline, INLINE_PROPERTY));
        return Optional.empty();
    }

    /** The file the configuration was read from, the property name for {@value #INLINE_PROPERTY}, or null. */
    public String source() { return source; }

    /** The default namespace's name. */
    public String defaultNamespace() { return defaultNamespace; }

    /** The namespace blocks in order of first appearance. */
    public List<NamespaceConfig> namespaces() { return namespaces; }

    /**
     * The block of namespace {@code name}.
     *
     * @throws IllegalArgumentException when there is none
     */
    public NamespaceConfig namespace(String name) {
        for (NamespaceConfig n : namespaces) if (n.name().equals(name)) return n;
        throw new IllegalArgumentException("no namespace " + name + " in the configuration");
    }

    /** The line {@code statement} (this very object, from {@link NamespaceConfig#statements()}) was read from; 0 if unknown. */
    public int lineOf(Statement statement) {
        Origin o = origins.get(statement);
        return o != null ? o.line() : 0;
    }

    /** {@code statement} as it was written, or its canonical text when it was not read by this configuration. */
    String writtenOf(Statement statement) {
        Origin o = origins.get(statement);
        return o != null ? o.written() : statement.text();
    }

    /** Runs the dry run (see {@link NetworkBuilder}); called once by the parser. */
    void validate() {
        NetworkBuilder.dryRun(this);
    }

    /**
     * Builds the network: one {@link io.jnet.stack.NetNamespace} per block on the real clock, its devices opened, in
     * the phases of the class comment. All or nothing: when a step fails, everything built so far is closed (TAP
     * interfaces removed, sockets closed) before the exception is thrown.
     *
     * @throws IOException when a device cannot be opened or a capture file written, with the line, statement, device
     *     and cause, e.g. {@code line 3: link add tap0 type tap: cannot open TAP device tap0: TUNSETIFF failed: errno
     *     1 (EPERM: Operation not permitted)} (a TAP needs CAP_NET_ADMIN; a VXLAN port may be in use)
     * @throws NetworkConfigException for a statement the namespace refuses (rare after parsing's dry run)
     */
    public Network apply() throws IOException {
        return NetworkBuilder.apply(this, () -> SystemClock.INSTANCE);
    }

    /**
     * {@link #apply()} with every namespace on {@code clock} (e.g. one {@link io.jnet.stack.VirtualClock} for a
     * deterministic test).
     */
    public Network apply(Clock clock) throws IOException {
        Objects.requireNonNull(clock, "clock");
        return NetworkBuilder.apply(this, () -> clock);
    }

    /** Equal default namespace and blocks (statements compared as values; source and line numbers do not count). */
    @Override
    public boolean equals(Object o) {
        return o instanceof NetworkConfig c && c.defaultNamespace.equals(defaultNamespace) && c.namespaces.equals(namespaces);
    }

    @Override
    public int hashCode() { return Objects.hash(defaultNamespace, namespaces); }

    /** The configuration in canonical text form, one statement a line: {@link #parse} of it gives an equal configuration. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("default ").append(defaultNamespace).append('\n');
        for (NamespaceConfig n : namespaces) {
            b.append('\n').append("namespace ").append(n.name()).append('\n');
            for (Statement s : n.statements()) b.append(s.text()).append('\n');
        }
        return b.toString();
    }
}
