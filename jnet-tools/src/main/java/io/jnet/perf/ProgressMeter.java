package io.jnet.perf;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The progress line on stderr: test, size, path, pair n of max, and the time elapsed of the estimated
 * total. It never writes to stdout, so {@code --json} and {@code --csv} output stays clean.
 */
public final class ProgressMeter implements Progress {

    /** How the line is shown. */
    public enum Mode {
        /** One line redrawn in place with {@code \r} as each run starts (stderr is a terminal). */
        REDRAW,
        /** One line per finished run with its figure ({@code -v}, or stderr is not a terminal). */
        LINES,
        /** Nothing ({@code -q}). */
        OFF
    }

    private final PrintStream err;
    private final Mode mode;
    private final LongSupplier nanoClock;
    private final long start;
    private double estimateSeconds;
    private int drawn;

    /**
     * @param err             where the line goes (stderr)
     * @param mode            how
     * @param estimateSeconds the estimated total at the start; pairs beyond {@code -i min} add to it
     * @param nanoClock       a monotonic clock in nanoseconds ({@code System::nanoTime})
     */
    public ProgressMeter(PrintStream err, Mode mode, double estimateSeconds, LongSupplier nanoClock) {
        this.err = err;
        this.mode = mode;
        this.nanoClock = nanoClock;
        this.start = nanoClock.getAsLong();
        this.estimateSeconds = estimateSeconds;
    }

    @Override
    public synchronized void starting(Run run) {
        if (run.extra()) estimateSeconds += run.seconds();
        if (mode != Mode.REDRAW) return;
        String line = run.describe() + "  " + clock();
        StringBuilder sb = new StringBuilder("\r").append(line);
        for (int i = line.length(); i < drawn; i++) sb.append(' ');
        drawn = line.length();
        err.print(sb);
        err.flush();
    }

    @Override
    public synchronized void finished(Run run, double value) {
        if (mode != Mode.LINES) return;
        err.println(String.format(Locale.ROOT, "  %s: %.2f %s  %s", run.describe(), value, run.kind().unit().label(), clock()));
        err.flush();
    }

    @Override
    public synchronized void failed(Run run, String why) {
        if (mode != Mode.LINES) return;
        err.println("  " + run.describe() + ": " + why + "  " + clock());
        err.flush();
    }

    @Override
    public synchronized void clear() {
        if (mode != Mode.REDRAW || drawn == 0) return;
        err.print("\r" + " ".repeat(drawn) + "\r");
        err.flush();
        drawn = 0;
    }

    /** {@code 0:12 of ~1:40}: elapsed and the estimated total (never less than elapsed). */
    private String clock() {
        double elapsed = (nanoClock.getAsLong() - start) / 1e9;
        return duration(elapsed) + " of ~" + duration(Math.max(elapsed, estimateSeconds));
    }

    /** {@code m:ss}, or {@code h:mm:ss} from an hour. */
    public static String duration(double seconds) {
        long s = Math.round(seconds);
        if (s >= 3600) return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
        return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
