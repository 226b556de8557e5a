package io.jnet.app.rdsstress;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Turns one side's {@link TaskCounters} into a {@link StressLine} per interval (rates over the interval's
 * measured length) and keeps every line and every round trip for the summary. Used by one thread.
 */
public final class StressMeter {
    private final TaskCounters[] tasks;
    private final long[][] last;
    private final Histogram interval = new Histogram(1, TaskCounters.MAX_RTT_NANOS, 3);
    private final Histogram total = new Histogram(1, TaskCounters.MAX_RTT_NANOS, 3);
    /** Per task: the histogram last handed back by its recorder, to give back next time. */
    private final Histogram[] reuse;
    private final List<StressLine> lines = new ArrayList<>();
    private final List<String> taskLines = new ArrayList<>();

    public StressMeter(TaskCounters[] tasks) {
        this.tasks = tasks;
        this.last = new long[tasks.length][4];
        this.reuse = new Histogram[tasks.length];
    }

    /**
     * The line of the interval since the previous call (or since the counters started), which lasted
     * {@code nanos}; kept for {@link #lines()}. Per-task lines of the same interval are in {@link #taskLines()}.
     */
    public StressLine sample(long nanos) {
        double secs = Math.max(nanos, 1) / 1e9;
        long tx = 0, rx = 0, txB = 0, rxB = 0;
        interval.reset();
        taskLines.clear();
        for (int i = 0; i < tasks.length; i++) {
            TaskCounters c = tasks[i];
            long[] now = {c.txMsgs.get(), c.rxMsgs.get(), c.txBytes.get(), c.rxBytes.get()};
            long[] d = new long[4];
            for (int k = 0; k < 4; k++) d[k] = now[k] - last[i][k];
            last[i] = now;
            tx += d[0];
            rx += d[1];
            txB += d[2];
            rxB += d[3];
            Histogram h = reuse[i] = c.rtt.getIntervalHistogram(reuse[i]);
            interval.add(h);
            taskLines.add(String.format(Locale.ROOT, "  task %3d %9.0f %9.0f %11.2f %11.2f %11.2f %10s", i, d[0] / secs,
                    d[1] / secs, (d[2] + d[3]) / 1024.0 / secs, d[3] / 1024.0 / secs, d[2] / 1024.0 / secs,
                    StressLine.us(h.getTotalCount() == 0 ? Double.NaN : h.getMean() / 1000.0)));
        }
        total.add(interval);
        boolean any = interval.getTotalCount() > 0;
        StressLine line = new StressLine(tasks.length, tx / secs, rx / secs, rxB / 1024.0 / secs, txB / 1024.0 / secs,
                any ? interval.getMean() / 1000.0 : Double.NaN,
                any ? interval.getValueAtPercentile(99) / 1000.0 : Double.NaN);
        lines.add(line);
        return line;
    }

    /** Every line sampled so far. */
    public List<StressLine> lines() { return List.copyOf(lines); }

    /** The per-task lines of the last interval, for -v. */
    public List<String> taskLines() { return List.copyOf(taskLines); }

    /** Every round trip of the sampled intervals, nanoseconds. */
    public Histogram total() { return total; }

    /**
     * The summary's average: the mean of each rate column over the lines, and the rtt mean and 99th percentile
     * of every round trip measured (not a mean of per-second means).
     */
    public static StressLine average(List<StressLine> lines, Histogram total) {
        if (lines.isEmpty()) return new StressLine(0, 0, 0, 0, 0, Double.NaN, Double.NaN);
        boolean any = total.getTotalCount() > 0;
        return new StressLine(lines.getFirst().tasks(),
                lines.stream().mapToDouble(StressLine::txPerSec).average().orElse(0),
                lines.stream().mapToDouble(StressLine::rxPerSec).average().orElse(0),
                lines.stream().mapToDouble(StressLine::kibInPerSec).average().orElse(0),
                lines.stream().mapToDouble(StressLine::kibOutPerSec).average().orElse(0),
                any ? total.getMean() / 1000.0 : Double.NaN,
                any ? total.getValueAtPercentile(99) / 1000.0 : Double.NaN);
    }

    /** The summary's median: the median of each column over the lines (NaN rtts left out). */
    public static StressLine median(List<StressLine> lines) {
        if (lines.isEmpty()) return new StressLine(0, 0, 0, 0, 0, Double.NaN, Double.NaN);
        return new StressLine(lines.getFirst().tasks(),
                median(lines.stream().mapToDouble(StressLine::txPerSec).toArray()),
                median(lines.stream().mapToDouble(StressLine::rxPerSec).toArray()),
                median(lines.stream().mapToDouble(StressLine::kibInPerSec).toArray()),
                median(lines.stream().mapToDouble(StressLine::kibOutPerSec).toArray()),
                median(lines.stream().mapToDouble(StressLine::rttMeanUs).filter(v -> !Double.isNaN(v)).toArray()),
                median(lines.stream().mapToDouble(StressLine::rttP99Us).filter(v -> !Double.isNaN(v)).toArray()));
    }

    /** The median of {@code v} (the mean of the middle two for an even count); NaN when empty. */
    static double median(double[] v) {
        if (v.length == 0) return Double.NaN;
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }
}
