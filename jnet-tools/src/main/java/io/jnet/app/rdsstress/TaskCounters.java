package io.jnet.app.rdsstress;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * One task's running totals on one side: messages and payload bytes sent (written by the task's sending thread)
 * and received (its receiving thread), and the round-trip times of its requests in nanoseconds (the receiving
 * thread of the active side), read every second by the meter.
 */
public final class TaskCounters {
    /** Longest round trip the histograms hold, in nanoseconds; longer ones are recorded as this. */
    static final long MAX_RTT_NANOS = TimeUnit.SECONDS.toNanos(60);

    final AtomicLong txMsgs = new AtomicLong();
    final AtomicLong txBytes = new AtomicLong();
    final AtomicLong rxMsgs = new AtomicLong();
    final AtomicLong rxBytes = new AtomicLong();
    final SingleWriterRecorder rtt = new SingleWriterRecorder(1, MAX_RTT_NANOS, 3);

    /** The sending thread sent one message of {@code bytes}. */
    void sent(int bytes) {
        txMsgs.setRelease(txMsgs.getPlain() + 1);
        txBytes.setRelease(txBytes.getPlain() + bytes);
    }

    /** The receiving thread got one message of {@code bytes}. */
    void received(int bytes) {
        rxMsgs.setRelease(rxMsgs.getPlain() + 1);
        rxBytes.setRelease(rxBytes.getPlain() + bytes);
    }

    /** The receiving thread measured one round trip of {@code nanos}. */
    void rtt(long nanos) {
        rtt.recordValue(Math.max(1, Math.min(nanos, MAX_RTT_NANOS)));
    }
}
