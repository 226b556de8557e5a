package io.jnet.perf;

/**
 * The socket options one side of a test sets before it connects or listens, as netperf's {@code -s}
 * (local), {@code -S} (remote) and {@code -D} (both) set them.
 *
 * @param sendBufferBytes    SO_SNDBUF in bytes, or {@link #SYSTEM_DEFAULT} to leave the stack's default
 *                           (and its autotuning) alone
 * @param receiveBufferBytes SO_RCVBUF in bytes, or {@link #SYSTEM_DEFAULT}
 * @param noDelay            TCP_NODELAY: true disables Nagle's algorithm
 */
public record SocketSettings(int sendBufferBytes, int receiveBufferBytes, boolean noDelay) implements java.io.Serializable {

    /** Marks a buffer size that is not set, so the stack's default and autotuning apply. */
    public static final int SYSTEM_DEFAULT = -1;

    /** Checks that the sizes are positive or {@link #SYSTEM_DEFAULT}. */
    public SocketSettings {
        if (sendBufferBytes < 1 && sendBufferBytes != SYSTEM_DEFAULT) {
            throw new IllegalArgumentException("socket send buffer must be positive: " + sendBufferBytes);
        }
        if (receiveBufferBytes < 1 && receiveBufferBytes != SYSTEM_DEFAULT) {
            throw new IllegalArgumentException("socket receive buffer must be positive: " + receiveBufferBytes);
        }
    }

    /** No buffer sizes set, Nagle on: what a plain socket gets. */
    public static SocketSettings defaults() {
        return new SocketSettings(SYSTEM_DEFAULT, SYSTEM_DEFAULT, false);
    }

    /** True when SO_SNDBUF is to be set. */
    public boolean setsSendBuffer() { return sendBufferBytes != SYSTEM_DEFAULT; }

    /** True when SO_RCVBUF is to be set. */
    public boolean setsReceiveBuffer() { return receiveBufferBytes != SYSTEM_DEFAULT; }
}
