package io.jnet.drill.kernel;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The file descriptors a {@link KernelSyscalls} opened and has not closed, with their kind. Calls on any other
 * descriptor (the JVM's own files, standard streams) are refused with EBADF, so a script can neither read nor close
 * them. Thread-safe.
 */
final class Descriptors {

    /** What a descriptor is. */
    enum Kind { SOCKET, EPOLL }

    private final Map<Integer, Kind> open = new ConcurrentHashMap<>();

    void add(int fd, Kind kind) {
        open.put(fd, kind);
    }

    /** The kind of {@code fd}, or null when this table does not hold it. */
    Kind kind(int fd) {
        return open.get(fd);
    }

    boolean contains(int fd) {
        return open.containsKey(fd);
    }

    /** Forgets {@code fd}; true when it was held. Forget before close(2), so that a reused number is not lost. */
    boolean remove(int fd) {
        return open.remove(fd) != null;
    }

    /** A copy of the table. */
    Map<Integer, Kind> snapshot() {
        return Map.copyOf(open);
    }

    int size() {
        return open.size();
    }
}
