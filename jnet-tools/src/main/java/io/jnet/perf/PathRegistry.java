package io.jnet.perf;

import io.jnet.stack.Sysctls;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The paths {@code jnet perf} can measure, by id ({@code jnet:loopback}, {@code jnet:friends},
 * {@code jnet:veth}, {@code jnet:routed}, {@code kernel:tcp}, {@code kernel:unix}). A new path (another
 * topology, another socket family) is one more {@link #register} call: the runner, the reports and the command line know paths only
 * through their {@link Entry}.
 *
 * <p><b>Aliases.</b> A path may also be named by an alias: a short name without a colon that stands for one
 * id ({@link #alias}). {@link #standard()} has the names of the TCP friends patch's tables: {@code base} for
 * {@value #JNET_LOOPBACK}, {@code friends} for {@value #JNET_FRIENDS}, {@code unix} for {@value #JNET_UNIX}.
 * An alias resolves when it is looked up, so it may name a path that is registered later or not at all in a
 * build; looking it up then fails saying that the path is not in this build. Ids and aliases are
 * case-insensitive; an alias never shadows an id (ids have a colon, aliases none), and a list naming one
 * path twice, by id and by alias, is an error.
 */
public final class PathRegistry {

    /** Builds a path for one invocation. */
    @FunctionalInterface
    public interface Opener {
        /**
         * @param sysctls Linux sysctl name to value, for paths that {@link Entry#appliesSysctls() apply} them
         * @throws IOException                   if the path cannot be set up
         * @throws UnsupportedOperationException if the stack cannot provide this path (not built)
         */
        PerfPath open(Map<String, String> sysctls) throws IOException;
    }

    /**
     * One registered path.
     *
     * @param id             {@code stack:name}, e.g. {@code kernel:unix}; the column heading of compare tables
     * @param stack          the stack's name ({@code jnet}, {@code kernel}), the row label of the two-stack report
     * @param summary        one line for the help text
     * @param appliesSysctls true when {@code --sysctl} reaches the path (jnet namespaces); false for the host
     * @param opener         builds the path
     * @param notApplicable  for a test spec, why this path cannot run it (e.g. UDP over AF_UNIX stream
     *                       sockets), or null when it can
     * @param ownSysctls     sysctls that define the path (Linux name to value, e.g. {@code net.ipv4.tcp_friends=1}
     *                       for {@value #JNET_FRIENDS}): {@link #open} applies them after the {@code --sysctl}
     *                       ones, so they win over a {@code --sysctl} of the same name; empty for most paths
     */
    public record Entry(String id, String stack, String summary, boolean appliesSysctls, Opener opener,
            Function<TestSpec, String> notApplicable, Map<String, String> ownSysctls) {

        public Entry {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(stack, "stack");
            Objects.requireNonNull(opener, "opener");
            if (notApplicable == null) notApplicable = spec -> null;
            ownSysctls = ownSysctls == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(ownSysctls));
            if (!id.matches("[a-z0-9]+:[a-z0-9_-]+")) throw new IllegalArgumentException("path id must be stack:name: " + id);
            if (!ownSysctls.isEmpty() && !appliesSysctls) {
                throw new IllegalArgumentException("path " + id + " sets sysctls but does not apply them");
            }
        }

        /** A path that sets no sysctls of its own. */
        public Entry(String id, String stack, String summary, boolean appliesSysctls, Opener opener,
                Function<TestSpec, String> notApplicable) {
            this(id, stack, summary, appliesSysctls, opener, notApplicable, Map.of());
        }

        /** Why this path cannot run {@code spec}, or null when it can. */
        public String notApplicableTo(TestSpec spec) {
            return notApplicable.apply(spec);
        }

        /**
         * Opens the path with {@link #sysctlsFor(Map) sysctlsFor(sysctls)}; see {@link Opener#open}.
         *
         * @param sysctls the {@code --sysctl} settings, Linux name to value
         */
        public PerfPath open(Map<String, String> sysctls) throws IOException {
            return opener.open(sysctlsFor(sysctls));
        }

        /**
         * The sysctls the path runs with: the given ones in order, except those the path sets itself
         * ({@link #ownSysctls}, matched by the sysctl's canonical name, so {@code net/ipv4/tcp_friends} is
         * {@code net.ipv4.tcp_friends}), then the path's own.
         */
        public Map<String, String> sysctlsFor(Map<String, String> sysctls) {
            if (ownSysctls.isEmpty()) return sysctls;
            Set<String> own = ownNames();
            Map<String, String> out = new LinkedHashMap<>();
            sysctls.forEach((name, value) -> {
                if (!own.contains(canonicalSysctl(name))) out.put(name, value);
            });
            out.putAll(ownSysctls);
            return out;
        }

        /**
         * The {@code --sysctl} settings this path overrides with its own, as {@code NAME=VALUE} as given, in
         * order; empty when there are none.
         */
        public List<String> overriddenSysctls(Map<String, String> sysctls) {
            if (ownSysctls.isEmpty()) return List.of();
            Set<String> own = ownNames();
            List<String> out = new ArrayList<>();
            sysctls.forEach((name, value) -> {
                if (own.contains(canonicalSysctl(name))) out.add(name + "=" + value);
            });
            return out;
        }

        /** The canonical names of {@link #ownSysctls}. */
        private Set<String> ownNames() {
            Set<String> own = new HashSet<>();
            for (String name : ownSysctls.keySet()) own.add(canonicalSysctl(name));
            return own;
        }
    }

    /** The sysctl {@value #JNET_ROUTED}'s router sets to 1 after the {@code --sysctl} settings. */
    public static final String IP_FORWARD_SYSCTL = "net.ipv4.ip_forward";

    /**
     * A note when {@code sysctls} set {@value #IP_FORWARD_SYSCTL} and {@code ids} hold {@value #JNET_ROUTED}: its
     * router runs with forwarding on whatever was given (the path measures forwarding), the value given applies
     * to the client and server namespaces; null otherwise.
     */
    public static String routerForwardingNote(List<String> ids, Map<String, String> sysctls) {
        if (!ids.contains(JNET_ROUTED)) return null;
        for (Map.Entry<String, String> s : sysctls.entrySet()) {
            if (canonicalSysctl(s.getKey()).equals(IP_FORWARD_SYSCTL)) {
                return JNET_ROUTED + "'s router runs with " + IP_FORWARD_SYSCTL + "=1, which defines the path, whatever "
                        + "--sysctl says; --sysctl " + s.getKey() + "=" + s.getValue()
                        + " applies to its client and server namespaces";
            }
        }
        return null;
    }

    /** The sysctl's name as Linux lists it ({@code sysctl -a}); the name unchanged when it is not known. */
    private static String canonicalSysctl(String name) {
        try {
            return SYSCTL_NAMES.lookup(name).name();
        } catch (IllegalArgumentException e) {
            return name.trim();
        }
    }

    /** Only for looking names up (never set). */
    private static final Sysctls SYSCTL_NAMES = new Sysctls();

    /** Id of jnet over one namespace's loopback. */
    public static final String JNET_LOOPBACK = "jnet:loopback";
    /**
     * Id of jnet over one namespace's loopback with TCP friends on ({@code net.ipv4.tcp_friends=1}): a
     * connection whose two ends are sockets of the namespace is paired, and data goes straight to the peer's
     * receive queue.
     */
    public static final String JNET_FRIENDS = "jnet:friends";
    /** The sysctl {@value #JNET_FRIENDS} sets to 1. */
    public static final String TCP_FRIENDS_SYSCTL = "net.ipv4.tcp_friends";
    /** Id of jnet over two namespaces joined by a veth pair. */
    public static final String JNET_VETH = "jnet:veth";
    /**
     * Id of jnet over three namespaces: client - router ({@code net.ipv4.ip_forward=1}) - server, joined by two
     * veth pairs ({@link JnetPaths#routed}); against {@value #JNET_VETH} it measures forwarding.
     */
    public static final String JNET_ROUTED = "jnet:routed";
    /** Id of the host kernel's TCP and UDP over 127.0.0.1. */
    public static final String KERNEL_TCP = "kernel:tcp";
    /** Id of the host kernel's AF_UNIX stream sockets. */
    public static final String KERNEL_UNIX = "kernel:unix";
    /**
     * Id of jnet's local stream sockets (the AF_UNIX analogue), the counterpart of {@link #KERNEL_UNIX}; the alias
     * {@code unix} names it.
     */
    public static final String JNET_UNIX = "jnet:unix";

    private final Map<String, Entry> entries = new LinkedHashMap<>();
    /** Alias to id, in registration order. */
    private final Map<String, String> aliases = new LinkedHashMap<>();

    /** An empty registry (tests register fakes). */
    public PathRegistry() {}

    /** The paths of this build, and the aliases {@code base}, {@code friends} and {@code unix}. */
    public static PathRegistry standard() {
        return new PathRegistry()
                .register(new Entry(JNET_LOOPBACK, JnetPaths.STACK,
                        "jnet, one namespace over lo (127.0.0.1)", true, JnetPaths::loopback,
                        spec -> generatorNotApplicable(JNET_LOOPBACK, spec)))
                .register(new Entry(JNET_FRIENDS, JnetPaths.STACK,
                        "jnet, one namespace over lo (127.0.0.1) with " + TCP_FRIENDS_SYSCTL + "=1 (wins over --sysctl)",
                        true, JnetPaths::loopback, spec -> generatorNotApplicable(JNET_FRIENDS, spec),
                        Map.of(TCP_FRIENDS_SYSCTL, "1")))
                .register(new Entry(JNET_VETH, JnetPaths.STACK,
                        "jnet, two namespaces joined by a veth pair (10.0.0.1 -> 10.0.0.2)", true, JnetPaths::veth, null))
                .register(new Entry(JNET_ROUTED, JnetPaths.STACK,
                        "jnet, client - router (ip_forward=1) - server namespaces over two veth pairs (10.0.1.2 -> 10.0.2.2)",
                        true, JnetPaths::routed, spec -> generatorNotApplicable(JNET_ROUTED, spec)))
                .register(new Entry(KERNEL_TCP, KernelPaths.STACK,
                        "host kernel TCP/UDP over 127.0.0.1 (JDK SocketChannel)", false, sysctls -> KernelPaths.tcp(),
                        PathRegistry::kernelFlowsNotApplicable))
                .register(new Entry(KERNEL_UNIX, KernelPaths.STACK,
                        "host kernel AF_UNIX stream sockets (JDK SocketChannel, UNIX family); TCP tests only",
                        false, sysctls -> KernelPaths.unix(), spec -> {
                            String flows = kernelFlowsNotApplicable(spec);
                            return flows != null ? flows : unixNotApplicable(spec);
                        }))
                .register(new Entry(JNET_UNIX, JnetPaths.STACK, "jnet local stream sockets (AF_UNIX analogue); TCP tests only",
                        true, JnetUnixPath::open, PathRegistry::unixNotApplicable))
                .alias("base", JNET_LOOPBACK)
                .alias("friends", JNET_FRIENDS)
                .alias("unix", JNET_UNIX);
    }

    /**
     * What the kernel path cannot do with {@code --flows}/{@code --udp}: unconnected UDP needs jnet's frame
     * generator; connected UDP_STREAM needs a receiver over many sockets, which only jnet paths have; and every
     * flow takes two file descriptors of this process, so more flows than half the descriptor limit
     * (RLIMIT_NOFILE, {@code ulimit -n}) cannot open.
     */
    public static String kernelFlowsNotApplicable(TestSpec spec) {
        if (spec.udp() == UdpMode.UNCONNECTED) {
            return "--udp unconnected injects frames through a veth: jnet paths only";
        }
        if (spec.udp() == UdpMode.CONNECTED && spec.kind() == TestKind.UDP_STREAM) {
            return "UDP_STREAM --udp connected reads many sockets through jnet's poller: jnet paths only";
        }
        long limit = descriptorLimit();
        if (spec.flows() > 1 && limit > 0 && 2L * spec.flows() + 64 > limit) {
            return "--flows " + spec.flows() + " needs " + 2L * spec.flows() + " file descriptors, above this process's "
                    + "limit of " + limit + " (ulimit -n)";
        }
        return null;
    }

    /**
     * Unconnected UDP ({@link UdpMode#UNCONNECTED}) on a path other than {@value #JNET_VETH}: the frame generator
     * writes into a veth of the server's namespace, so its frames never take the path's own way (lo, or the
     * router of {@value #JNET_ROUTED}); a figure there would be jnet:veth's under another name.
     */
    public static String generatorNotApplicable(String id, TestSpec spec) {
        if (spec.udp() != UdpMode.UNCONNECTED) return null;
        return "--udp unconnected measures " + JNET_VETH + " only: the frame generator writes into a veth of the "
                + "server's namespace, so its frames do not cross " + id + (id.equals(JNET_ROUTED) ? "'s router" : "'s lo");
    }

    /** This process's file descriptor limit, or -1 when the platform does not say. */
    static long descriptorLimit() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            return u.getMaxFileDescriptorCount();
        }
        return -1;
    }

    /** AF_UNIX stream sockets carry the TCP tests' byte streams; UDP and TCP_NODELAY have no meaning there. */
    public static String unixNotApplicable(TestSpec spec) {
        if (spec.kind().isUdp()) return spec.kind() + " is a UDP test; AF_UNIX stream sockets run the TCP tests only";
        if (spec.local().noDelay() || spec.remote().noDelay()) return "-D (TCP_NODELAY) is a TCP option; AF_UNIX has no Nagle";
        return null;
    }

    /**
     * Adds a path.
     *
     * @throws IllegalArgumentException if the id is taken
     */
    public PathRegistry register(Entry entry) {
        if (entries.putIfAbsent(entry.id(), entry) != null) {
            throw new IllegalArgumentException("path " + entry.id() + " registered twice");
        }
        return this;
    }

    /**
     * Adds an alias: {@code name} stands for the path {@code id} wherever a path is named. The id need not be
     * registered yet (a path of a later build); looking the alias up fails until it is.
     *
     * @param name lower-case letters, digits, {@code _} and {@code -}, no colon
     * @throws IllegalArgumentException if the name is malformed or already an alias, or the id is malformed
     */
    public PathRegistry alias(String name, String id) {
        if (!name.matches("[a-z0-9_-]+")) throw new IllegalArgumentException("alias must be a lower-case name without a colon: " + name);
        if (!id.matches("[a-z0-9]+:[a-z0-9_-]+")) throw new IllegalArgumentException("path id must be stack:name: " + id);
        if (aliases.putIfAbsent(name, id) != null) throw new IllegalArgumentException("alias " + name + " registered twice");
        return this;
    }

    /** Alias to the id it stands for, in registration order (including ids not registered in this build). */
    public Map<String, String> aliases() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(aliases));
    }

    /** True when {@code name} (case-insensitive, trimmed) is an alias rather than an id. */
    public boolean isAlias(String name) {
        return aliases.containsKey(key(name));
    }

    /** The registered ids in registration order. */
    public List<String> ids() {
        return List.copyOf(entries.keySet());
    }

    /** The registered paths in registration order. */
    public List<Entry> entries() {
        return List.copyOf(entries.values());
    }

    /**
     * The path with this id or alias (case-insensitive).
     *
     * @throws IllegalArgumentException for an unknown name, listing the known ids and aliases; for an alias
     *                                  whose path is not registered, saying that it is not in this build
     */
    public Entry get(String name) {
        String key = key(name);
        String alias = aliases.get(key);
        Entry e = entries.get(alias != null ? alias : key);
        if (e == null && alias != null) {
            throw new IllegalArgumentException("path '" + name.trim() + "' is " + alias + ", which is not in this build"
                    + " (known paths: " + known() + ")");
        }
        if (e == null) throw new IllegalArgumentException("unknown path '" + name.trim() + "' (known paths: " + known() + ")");
        return e;
    }

    private static String key(String name) {
        return name.trim().toLowerCase(java.util.Locale.ROOT);
    }

    /** The ids, then the aliases whose paths are registered, for error messages. */
    private String known() {
        StringBuilder sb = new StringBuilder(String.join(", ", ids()));
        String names = aliases.entrySet().stream().filter(a -> entries.containsKey(a.getValue()))
                .map(a -> a.getKey() + " = " + a.getValue()).collect(java.util.stream.Collectors.joining(", "));
        if (!names.isEmpty()) sb.append("; aliases: ").append(names);
        return sb.toString();
    }

    /**
     * Parses a comma-separated list of ids and aliases, e.g. {@code jnet:loopback,kernel:tcp,kernel:unix} or
     * {@code base,friends}.
     *
     * @throws IllegalArgumentException for an empty list or item, an unknown name, an alias of a path not in
     *                                  this build, or a path given twice (also once by id and once by alias)
     */
    public List<Entry> parseList(String list) {
        List<Entry> out = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (String item : list.split(",", -1)) {
            if (item.isBlank()) throw new IllegalArgumentException("empty path in '" + list + "' (known paths: " + known() + ")");
            Entry e = get(item);
            int seen = out.indexOf(e);
            if (seen >= 0) {
                String first = names.get(seen);
                String how = first.equals(key(item)) ? "" : " (" + first + " and " + key(item) + " are both " + e.id() + ")";
                throw new IllegalArgumentException("path " + e.id() + " given twice in '" + list + "'" + how);
            }
            out.add(e);
            names.add(key(item));
        }
        return out;
    }
}
