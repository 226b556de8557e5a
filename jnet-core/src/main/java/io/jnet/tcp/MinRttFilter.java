package io.jnet.tcp;

/**
 * The minimum RTT over a sliding time window (Linux's {@code tp->rtt_min}, Kathleen Nichols' windowed
 * min filter of {@code lib/win_minmax.c}): it keeps the best, second-best and third-best samples of
 * successive sub-windows, so the minimum of the last window is known in constant time and memory.
 * Times are clock nanoseconds, values microseconds. No allocation.
 */
final class MinRttFilter {
    /** The value before any sample (Linux's ~0U). */
    static final long NONE = 0xffffffffL;

    private final long[] time = new long[3];
    private final long[] value = {NONE, NONE, NONE};

    /** The windowed minimum in µs, {@link #NONE} before the first sample. */
    long get() { return value[0]; }

    /** Adds a sample of {@code rttUs} µs taken at {@code nowNs}; {@code windowNs} is the window length. */
    void update(long nowNs, long windowNs, long rttUs) {
        long v = Math.max(1, Math.min(rttUs, NONE - 1));
        if (v <= value[0] || nowNs - time[2] > windowNs || value[0] == NONE) {
            reset(nowNs, v); // a new minimum, or nothing left in the window: forget earlier samples
            return;
        }
        if (v <= value[1]) {
            set(1, nowNs, v);
            set(2, nowNs, v);
        } else if (v <= value[2]) {
            set(2, nowNs, v);
        }
        subwindowUpdate(nowNs, windowNs, v);
    }

    private void subwindowUpdate(long nowNs, long windowNs, long v) {
        long dt = nowNs - time[0];
        if (dt > windowNs) {
            // the best sample left the window: promote the second and third, the new one becomes third
            shift(nowNs, v);
            if (nowNs - time[0] > windowNs) shift(nowNs, v);
        } else if (time[1] == time[0] && dt > windowNs / 4) {
            // a quarter of the window passed with one sample: take a second-best from the second quarter
            set(1, nowNs, v);
            set(2, nowNs, v);
        } else if (time[2] == time[1] && dt > windowNs / 2) {
            // half the window passed: take a third-best from the second half
            set(2, nowNs, v);
        }
    }

    private void shift(long nowNs, long v) {
        set(0, time[1], value[1]);
        set(1, time[2], value[2]);
        set(2, nowNs, v);
    }

    private void reset(long nowNs, long v) {
        for (int i = 0; i < 3; i++) set(i, nowNs, v);
    }

    private void set(int i, long t, long v) {
        time[i] = t;
        value[i] = v;
    }
}
