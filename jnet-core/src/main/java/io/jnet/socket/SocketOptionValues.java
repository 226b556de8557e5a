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

    /** TCP_TIMEOUT_INIT and TCP_RTO_MAX in seconds, as TCP_DEFER_ACCEPT's conversions take them. */
    private static final int TIMEOUT_INIT_S = 1, RTO_MAX_S = 120;

    /**
     * TCP_DEFER_ACCEPT seconds as the SYN-ACK retransmissions Linux stores (tcp.c secs_to_retrans with
     * TCP_TIMEOUT_INIT 1 s and TCP_RTO_MAX 120 s): the fewest retransmissions whose timeouts, doubling from 1 s up
     * to 120 s, add up to at least {@code seconds}, at most 255; 0 (off) for 0 or less.
     */
    public static int deferAcceptRetrans(int seconds) {
        int res = 0;
        if (seconds > 0) {
            int timeout = TIMEOUT_INIT_S, period = timeout;
            res = 1;
            while (seconds > period && res < 255) {
                res++;
                timeout = Math.min(timeout << 1, RTO_MAX_S);
                period += timeout;
            }
        }
        return res;
    }

    /**
     * TCP_DEFER_ACCEPT's stored retransmissions back in seconds, as getsockopt reads them (tcp.c retrans_to_secs):
     * what that many timeouts take, so a value set reads back rounded up (5 gives 3 retransmissions, read as 7).
     */
    public static int deferAcceptSeconds(int retrans) {
        int period = 0;
        if (retrans > 0) {
            int timeout = TIMEOUT_INIT_S;
            period = timeout;
            while (--retrans > 0) {
                timeout = Math.min(timeout << 1, RTO_MAX_S);
                period += timeout;
            }
        }
        return period;
    }
}
