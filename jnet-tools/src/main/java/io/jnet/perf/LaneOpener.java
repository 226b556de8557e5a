package io.jnet.perf;

import java.io.IOException;
import java.util.Map;

/**
 * Opens the lane of a registered path, once per path for a whole {@code jnet perf} invocation
 * ({@link PerfSuite}): in this JVM ({@link #inProcess()}, {@code --same-jvm}) or in a JVM of its own
 * ({@link ChildJvmLane#opener()}, the default).
 */
@FunctionalInterface
public interface LaneOpener {

    /**
     * Opens {@code path} with the {@code --sysctl} settings, as {@link PathRegistry.Entry#open} does.
     *
     * @param sysctls Linux sysctl name to value, in the order given
     * @throws UnsupportedOperationException if the path's stack cannot provide the path (not built)
     * @throws LinkageError                  if the stack's classes cannot be loaded in this JVM
     * @throws IOException                   if the path cannot be set up in this JVM
     * @throws PerfException                 if the path cannot be set up in a JVM of its own, or that JVM does
     *                                       not start or answer
     */
    LaneRunner open(PathRegistry.Entry path, Map<String, String> sysctls) throws IOException, PerfException;

    /** Lanes in this JVM: every path opened here, every test run in threads of this JVM (as before child JVMs). */
    static LaneOpener inProcess() {
        return (path, sysctls) -> new InProcessLane(path.open(sysctls));
    }
}
