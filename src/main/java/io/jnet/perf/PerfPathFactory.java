package io.jnet.perf;

import java.io.IOException;

/** Builds {@link PerfPath}s for one stack. */
public interface PerfPathFactory {

    /** The stack's name, as {@link PerfPath#stack()} reports it. */
    String stack();

    /**
     * Builds a path of the given topology.
     *
     * @throws IOException                   if the topology cannot be set up
     * @throws UnsupportedOperationException if the stack cannot provide this path (yet)
     */
    PerfPath open(PathConfig config) throws IOException;
}
