package io.jnet.perf;

import java.util.Locale;

/** Which stacks a perf run measures. */
public enum StackChoice {
    /** jnet and the kernel reference in alternating pairs (the default). */
    BOTH,
    /** jnet alone. */
    JNET,
    /** The kernel reference alone. */
    KERNEL;

    /** The option value, e.g. {@code both}. */
    public String optionName() { return name().toLowerCase(Locale.ROOT); }

    /**
     * Parses {@code both}, {@code jnet} or {@code kernel} (any case).
     *
     * @throws IllegalArgumentException for anything else
     */
    public static StackChoice parse(String s) {
        for (StackChoice c : values()) {
            if (c.optionName().equalsIgnoreCase(s.trim())) return c;
        }
        throw new IllegalArgumentException("unknown stack choice '" + s + "' (expected both, jnet or kernel)");
    }
}
