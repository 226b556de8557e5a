package io.jnet.socket;

import java.time.Duration;

/** Checks and conversions of SOL_SOCKET option values shared by every socket type (Linux sock_setsockopt). */
public final class SocketOptionValues {
    private SocketOptionValues() {}

    /**
     * SO_SNDBUF / SO_RCVBUF as Linux sock_setsockopt stores them: capped at {@code max} (net.core.wmem_max or
     * rmem_max), doubled for bookkeeping overhead, never below {@code min}; bytes.
     *
     * @throws ErrnoException EINVAL for a negative size
     */
    public static int clampBuf(int requested, int max, int min) throws ErrnoException {
        if (requested < 0) throw new ErrnoException(Errno.EINVAL, "buffer size " + requested);
        long v = Math.min(requested, max);
        return (int) Math.max(min, v * 2);
    }

    /**
     * SO_RCVTIMEO / SO_SNDTIMEO in nanoseconds; 0 waits forever.
     *
     * @throws ErrnoException EINVAL for a negative duration
     */
    public static long timeout(Duration d) throws ErrnoException {
        if (d.isNegative()) throw new ErrnoException(Errno.EINVAL, "negative timeout");
        return d.toNanos();
    }
}
