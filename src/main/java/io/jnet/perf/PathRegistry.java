package io.jnet.perf;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The paths {@code jnet perf} can measure, by id ({@code jnet:loopback}, {@code jnet:veth},
 * {@code kernel:tcp}, {@code kernel:unix}). A new path (another topology, another socket family) is one more
 * {@link #register} call: the runner, the reports and the command line know paths only through their
 * {@link Entry}.
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
     */
    public record Entry(String id, String stack, String summary, boolean appliesSysctls, Opener opener,
            Function<TestSpec, String> notApplicable) {

        public Entry {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(stack, "stack");
            Objects.requireNonNull(opener, "opener");
            if (notApplicable == null) notApplicable = spec -> null;
            if (!id.matches("[a-z0-9]+:[a-z0-9_-]+")) throw new IllegalArgumentException("path id must be stack:name: " + id);
        }

        /** Why this path cannot run {@code spec}, or null when it can. */
        public String notApplicableTo(TestSpec spec) {
            return notApplicable.apply(spec);
        }

        /** Opens the path; see {@link Opener#open}. */
        public PerfPath open(Map<String, String> sysctls) throws IOException {
            return opener.open(sysctls);
        }
    }

    /** Id of jnet over one namespace's loopback. */
    public static final String JNET_LOOPBACK = "jnet:loopback";
    /** Id of jnet over two namespaces joined by a veth pair. */
    public static final String JNET_VETH = "jnet:veth";
    /** Id of the host kernel's TCP and UDP over 127.0.0.1. */
    public static final String KERNEL_TCP = "kernel:tcp";
    /** Id of the host kernel's AF_UNIX stream sockets. */
    public static final String KERNEL_UNIX = "kernel:unix";
    /** Id of jnet's local stream sockets (the AF_UNIX analogue), the counterpart of {@link #KERNEL_UNIX}. */
    public static final String JNET_UNIX = "jnet:unix";

    private final Map<String, Entry> entries = new LinkedHashMap<>();

    /** An empty registry (tests register fakes). */
    public PathRegistry() {}

    /** The four paths of this build. */
    public static PathRegistry standard() {
        return new PathRegistry()
                .register(new Entry(JNET_LOOPBACK, JnetPaths.STACK,
                        "jnet, one namespace over lo (127.0.0.1)", true, JnetPaths::loopback, null))
                .register(new Entry(JNET_VETH, JnetPaths.STACK,
                        "jnet, two namespaces joined by a veth pair (10.0.0.1 -> 10.0.0.2)", true, JnetPaths::veth, null))
                .register(new Entry(KERNEL_TCP, KernelPaths.STACK,
                        "host kernel TCP/UDP over 127.0.0.1 (JDK SocketChannel)", false, sysctls -> KernelPaths.tcp(), null))
                .register(new Entry(KERNEL_UNIX, KernelPaths.STACK,
                        "host kernel AF_UNIX stream sockets (JDK SocketChannel, UNIX family); TCP tests only",
                        false, sysctls -> KernelPaths.unix(), PathRegistry::unixNotApplicable))
                .register(new Entry(JNET_UNIX, JnetPaths.STACK, "jnet local stream sockets (AF_UNIX analogue); TCP tests only",
                        true, JnetUnixPath::open, PathRegistry::unixNotApplicable));
    }

    /** AF_UNIX stream sockets carry the TCP tests' byte streams; UDP and TCP_NODELAY have no meaning there. */
    static String unixNotApplicable(TestSpec spec) {
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

    /** The registered ids in registration order. */
    public List<String> ids() {
        return List.copyOf(entries.keySet());
    }

    /** The registered paths in registration order. */
    public List<Entry> entries() {
        return List.copyOf(entries.values());
    }

    /**
     * The path with this id (case-insensitive).
     *
     * @throws IllegalArgumentException for an unknown id, listing the known ones
     */
    public Entry get(String id) {
        Entry e = entries.get(id.trim().toLowerCase(java.util.Locale.ROOT));
        if (e == null) {
            throw new IllegalArgumentException("unknown path '" + id.trim() + "' (known paths: " + String.join(", ", ids()) + ")");
        }
        return e;
    }

    /**
     * Parses a comma-separated list of ids, e.g. {@code jnet:loopback,kernel:tcp,kernel:unix}.
     *
     * @throws IllegalArgumentException for an empty list or item, an unknown id or one given twice
     */
    public List<Entry> parseList(String list) {
        List<Entry> out = new ArrayList<>();
        for (String item : list.split(",", -1)) {
            if (item.isBlank()) throw new IllegalArgumentException("empty path in '" + list + "' (known paths: " + String.join(", ", ids()) + ")");
            Entry e = get(item);
            if (out.contains(e)) throw new IllegalArgumentException("path " + e.id() + " given twice in '" + list + "'");
            out.add(e);
        }
        return out;
    }
}
