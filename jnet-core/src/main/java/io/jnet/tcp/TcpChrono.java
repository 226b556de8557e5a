package io.jnet.tcp;

/**
 * What limited the sender and for how long (Linux's {@code tcp_chrono_*}): busy (the write queue holds
 * data), limited by the peer's receive window, limited by the send buffer. One chronograph runs at a
 * time, the most specific one (send buffer over receive window over busy); the times add up to the
 * busy time of TCP_INFO. Nanosecond clock, no allocation.
 */
final class TcpChrono {
    static final int NONE = 0, BUSY = 1, RWND_LIMITED = 2, SNDBUF_LIMITED = 3;

    private int type = NONE;
    private long startNs;
    /** Accumulated ns per type, index type - 1. */
    private final long[] stat = new long[3];

    /** Starts {@code t} if it is more specific than the running one (tcp_chrono_start). */
    void start(int t, long nowNs) {
        if (t > type) set(t, nowNs);
    }

    /**
     * Stops {@code t} (tcp_chrono_stop): with both queues empty everything stops; otherwise, if {@code t}
     * was running, the connection is still busy.
     */
    void stop(int t, boolean queueEmpty, long nowNs) {
        if (queueEmpty) set(NONE, nowNs);
        else if (t == type) set(BUSY, nowNs);
    }

    private void set(int t, long nowNs) {
        if (type > NONE) stat[type - 1] += nowNs - startNs;
        startNs = nowNs;
        type = t;
    }

    /** Time spent in {@code t} (BUSY, RWND_LIMITED or SNDBUF_LIMITED) up to {@code nowNs}, in ns. */
    long total(int t, long nowNs) {
        long v = stat[t - 1];
        if (t == type) v += nowNs - startNs;
        return v;
    }
}
