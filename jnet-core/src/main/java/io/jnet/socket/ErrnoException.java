package io.jnet.socket;

import java.io.IOException;

/** An I/O error that names its Linux errno, e.g. {@code ECONNREFUSED: Connection refused (connect)}. */
public class ErrnoException extends IOException {
    private final Errno errno;

    public ErrnoException(Errno errno, String operation) {
        super(errno.name() + ": " + errno.message() + (operation == null ? "" : " (" + operation + ")"));
        this.errno = errno;
    }

    public ErrnoException(Errno errno) {
        this(errno, null);
    }

    public Errno errno() { return errno; }
}
