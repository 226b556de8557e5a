package io.jnet.suite;

/**
 * One way of joining a TCP client to a TCP server for the socket behaviour suite: the same tests run
 * over every path (as Netty's testsuite runs one set of tests over many transports).
 *
 * <p>Implementations are listed in {@link TransportPaths#all()}; a new path (jnet friends, a TAP device
 * joined to the host kernel, ...) implements this interface and is added there.
 */
public interface TransportPath {

    /** Short name shown in test reports, e.g. {@code LOOPBACK}. */
    String name();

    /**
     * Builds a fresh topology (new namespaces, devices and addresses) on real time. The caller closes
     * it, which closes every namespace it created.
     *
     * @throws Exception when the path cannot be built (a missing host facility, say)
     */
    Topology open() throws Exception;
}
