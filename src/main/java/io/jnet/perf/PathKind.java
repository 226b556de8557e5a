package io.jnet.perf;

import java.util.Locale;

/** Which topology the jnet side of a test runs over (the kernel reference always uses 127.0.0.1). */
public enum PathKind {
    /** One namespace; client and server talk over its loopback device {@code lo} at 127.0.0.1. */
    LOOPBACK,
    /**
     * Two namespaces joined by a veth pair: the client at 10.0.0.1/24 on one end, the server at
     * 10.0.0.2/24 on the other. Exercises ARP and the Ethernet path that loopback skips.
     */
    VETH;

    /** The option value, e.g. {@code loopback}. */
    public String optionName() { return name().toLowerCase(Locale.ROOT); }

    /**
     * Parses {@code loopback} or {@code veth} (any case).
     *
     * @throws IllegalArgumentException for anything else
     */
    public static PathKind parse(String s) {
        for (PathKind k : values()) {
            if (k.optionName().equalsIgnoreCase(s.trim())) return k;
        }
        throw new IllegalArgumentException("unknown path '" + s + "' (expected loopback or veth)");
    }
}
