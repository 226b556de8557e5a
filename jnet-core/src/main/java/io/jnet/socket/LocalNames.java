package io.jnet.socket;

import java.io.IOException;
import java.util.List;

/**
 * A namespace's table of local socket names ({@link LocalSocket}, {@link LocalServerSocket}): what the file
 * system holds for AF_UNIX sockets bound to a path on Linux, one table per namespace and no file system.
 *
 * <p>As a socket file, a name is created by bind(2) and stays after its socket closes, until
 * {@link #unlink}: binding it again gives EADDRINUSE, connecting to it ECONNREFUSED. Unlinking the name of a
 * live socket leaves that socket bound ({@code localAddress()} still says the name) but unreachable: connects
 * give ENOENT, and another socket may bind the name.
 *
 * <p>Thread-safe.
 */
public interface LocalNames {

    /**
     * unlink(2) of a socket name.
     *
     * @throws ErrnoException ENOENT when no such name exists; EINVAL for a malformed name (see
     *                        {@link LocalSocket#bind})
     */
    void unlink(String path) throws IOException;

    /** True while {@code path} exists: bound, and not yet unlinked (also after its socket closed). */
    boolean exists(String path);

    /** Every name that exists, sorted. */
    List<String> names();
}
