package io.jnet.perf;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How to build a {@link PerfPath}: the topology and the sysctls to set in jnet namespaces before any
 * socket is opened (Linux names such as {@code net.ipv4.tcp_timestamps}; the kernel reference ignores them).
 *
 * @param kind    loopback or veth
 * @param sysctls sysctl name to value, applied in order to every namespace of the path
 */
public record PathConfig(PathKind kind, Map<String, String> sysctls) {

    public PathConfig {
        Objects.requireNonNull(kind, "kind");
        sysctls = Collections.unmodifiableMap(new LinkedHashMap<>(sysctls));
    }

    /** The given topology with no sysctl changes. */
    public static PathConfig of(PathKind kind) {
        return new PathConfig(kind, Map.of());
    }
}
