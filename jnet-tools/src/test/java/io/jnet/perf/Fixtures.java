package io.jnet.perf;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/** Hand-made results for report and statistics tests. */
final class Fixtures {
    private Fixtures() {}

    /** A series whose runs have exactly the given figures (1-second runs). */
    static Series series(String stack, TestKind kind, double... values) {
        List<RunResult> runs = new ArrayList<>();
        for (double v : values) runs.add(run(stack, kind, v));
        return new Series(stack, stack + " path", run(stack, kind, values[0]), runs);
    }

    /**
     * A UDP_STREAM series of one-second runs of {@code size}-byte datagrams: run i sent {@code sent[i]} and
     * the receiver got {@code received[i]}, no send errors; sockets of 212992 bytes.
     */
    static Series udpStream(String stack, int size, long[] sent, long[] received) {
        List<RunResult> runs = new ArrayList<>();
        for (int i = 0; i < sent.length; i++) {
            runs.add(new RunResult(TestKind.UDP_STREAM, stack, 1.0, sent[i] * size, received[i] * size, 0, null,
                    new SocketSizes(212992, 212992, 212992, 212992), new DatagramCounts(sent[i], 0, received[i], 1.0)));
        }
        return new Series(stack, stack + " path", runs.getFirst(), runs);
    }

    /** A one-second run with figure {@code value} in the kind's unit. */
    static RunResult run(String stack, TestKind kind, double value) {
        SocketSizes sizes = new SocketSizes(16384, 131072, 16384, 131072);
        if (kind.isStream()) {
            long bytes = Math.round(value * 1e6 / 8);
            return new RunResult(kind, stack, 1.0, bytes, bytes, 0, null, sizes);
        }
        Histogram h = new Histogram(3);
        h.recordValue(10_000);
        h.recordValue(20_000);
        return new RunResult(kind, stack, 1.0, 2 * (long) value, 2 * (long) value, (long) value, h, sizes);
    }
}
