package io.jnet.perf;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The human-readable report: for each test a netperf-style table (the same headings netperf prints, one
 * row per stack with the median over the measured runs), latency percentiles for RR/CRR, netperf's
 * warning when the confidence interval is wider than asked, and a comparison table; after a suite, a
 * summary table of all tests. UDP_STREAM gets netperf's send and receive lines ({@link UdpStreamTable}). With
 * {@code verbose} every run's figure is listed too.
 */
public final class TextReport {

    /** How a confidence interval wider than asked is reported. */
    public enum WarningStyle {
        /**
         * netperf's five-line {@code !!! WARNING} block per stack: for a test run on purpose with
         * {@code -i}/{@code -I}, where the interval is what was asked for.
         */
        NETPERF_BLOCK,
        /**
         * One line per test naming every stack's interval, e.g. {@code confidence not met: jnet +/-4.1%,
         * kernel +/-3.0% (asked 99%,+/-2.5%); rerun with -i 30 for tighter intervals}: for the default suite,
         * whose few short pairs rarely meet netperf's default and would otherwise print mostly warnings.
         */
        ONE_LINE
    }

    private final PrintStream out;
    private final boolean verbose;
    private final WarningStyle warnings;

    /** A report with netperf's warning blocks. */
    public TextReport(PrintStream out, boolean verbose) {
        this(out, verbose, WarningStyle.NETPERF_BLOCK);
    }

    /**
     * @param out where the report goes
     * @param verbose also list every run's figure, the intervals that were met, and progress
     * @param warnings how an unmet confidence interval is reported
     */
    public TextReport(PrintStream out, boolean verbose, WarningStyle warnings) {
        this.out = out;
        this.verbose = verbose;
        this.warnings = java.util.Objects.requireNonNull(warnings, "warnings");
    }

    /** Prints the whole result: every test, then the summary. */
    public void print(SuiteResult result) {
        for (Comparison c : result.comparisons()) printTest(c);
        printSummary(result);
    }

    /** Prints what follows the tests: the summary table after a suite, and the notes. */
    public void printSummary(SuiteResult result) {
        if (result.comparisons().size() > 1) {
            out.println("Summary (medians; ratio = jnet/kernel per pair, spread = min..max over pairs)");
            printComparisonTable(result.comparisons());
            out.println();
        }
        for (String n : result.notes()) out.println("Note: " + n);
    }

    /** Prints one test: banner, netperf table, latency, warnings, per-run figures, comparison row, blank line. */
    public void printTest(Comparison c) {
        TestSpec spec = c.spec();
        out.println(banner(c));
        out.println(String.format(Locale.ROOT, "%.2f s per run%s, %s", spec.durationSeconds(),
                spec.local().noDelay() ? ", TCP_NODELAY on both ends" : "", runsLine(c)));
        out.println();
        List<Series> measured = c.measured();
        if (!measured.isEmpty()) {
            if (spec.kind() == TestKind.UDP_STREAM) {
                UdpStreamTable.print(out, spec, measured);
            } else {
                if (spec.kind().isStream()) streamTable(spec, measured);
                else rrTable(spec, measured);
                out.println();
            }
            if (!spec.kind().isStream()) latency(measured);
            lookups(measured);
            if (warnings == WarningStyle.ONE_LINE) confidenceLine(c, measured);
            for (Series s : measured) confidenceWarning(c, s);
            if (verbose) perRun(c);
        }
        for (String n : c.notes()) out.println("Note: " + n);
        if (c.failure() != null) out.println("FAILED: " + c.failure());
        printComparisonTable(List.of(c));
        out.println();
        out.flush();
    }

    private String banner(Comparison c) {
        StringBuilder sb = new StringBuilder(c.spec().kind().banner());
        if (c.candidate() != null) sb.append(" on ").append(c.candidate().stack()).append(" ").append(c.candidate().description());
        if (c.reference() != null) {
            sb.append(c.candidate() != null ? " vs " : " on ");
            sb.append(c.reference().stack()).append(" ").append(c.reference().description());
        }
        return sb.toString();
    }

    private static String runsLine(Comparison c) {
        int pairs = c.measured().stream().mapToInt(s -> s.runs().size()).max().orElse(0);
        if (c.failure() != null && pairs == 0) return "no measured run completed";
        boolean both = c.candidate() != null && c.reference() != null;
        boolean warmed = c.measured().stream().anyMatch(s -> s.warmup() != null);
        String warmup = warmed ? "warm-up runs until the rate stopped rising, then " : "no warm-up, ";
        return both
                ? warmup + pairs + " measured pairs (" + c.candidate().stack() + ", " + c.reference().stack()
                        + " alternating); rows show medians"
                : warmup + pairs + " measured runs; rows show medians";
    }

    private static final String STREAM_HEAD = "%-8s %-8s %-8s %-8s %-13s %s";
    private static final String STREAM_ROW = "%-8d %-8d %-8d %-8.2f %-13.2f %s";
    private static final String RR_HEAD = "%-8s %-8s %-8s %-8s %-8s %-13s %s";
    private static final String RR_ROW = "%-8s %-8s %-8d %-8d %-8.2f %-13.2f %s";

    private void streamTable(TestSpec spec, List<Series> measured) {
        line(STREAM_HEAD, "Recv", "Send", "Send", "", "", "");
        line(STREAM_HEAD, "Socket", "Socket", "Message", "Elapsed", "", "");
        line(STREAM_HEAD, "Size", "Size", "Size", "Time", "Throughput", "");
        line(STREAM_HEAD, "bytes", "bytes", "bytes", "secs.", "10^6bits/sec", "Stack");
        out.println();
        boolean maerts = spec.kind() == TestKind.TCP_MAERTS;
        for (Series s : measured) {
            SocketSizes z = s.sizes();
            int recv = maerts ? z.localRecv() : z.remoteRecv();
            int send = maerts ? z.remoteSend() : z.localSend();
            line(STREAM_ROW, recv, send, spec.sendSize(), s.medianElapsedSeconds(), s.median(), s.stack());
        }
    }

    private void rrTable(TestSpec spec, List<Series> measured) {
        out.println("Local /Remote");
        line(RR_HEAD, "Socket", "Size", "Request", "Resp.", "Elapsed", "Trans.", "");
        line(RR_HEAD, "Send", "Recv", "Size", "Size", "Time", "Rate", "");
        line(RR_HEAD, "bytes", "Bytes", "bytes", "bytes", "secs.", "per sec", "Stack");
        out.println();
        for (Series s : measured) {
            SocketSizes z = s.sizes();
            line(RR_ROW, socketSize(z.localSend()), socketSize(z.localRecv()), spec.requestSize(), spec.responseSize(),
                    s.medianElapsedSeconds(), s.median(), s.stack());
            line(RR_HEAD, socketSize(z.remoteSend()), socketSize(z.remoteRecv()), "", "", "", "", "");
        }
    }

    /**
     * A socket buffer size in bytes, or {@code -} for a side without a socket (the frame generator of
     * {@code --udp unconnected} writes raw frames, {@link SocketSizes} -1).
     */
    static String socketSize(int bytes) {
        return bytes < 0 ? "-" : Integer.toString(bytes);
    }

    /** Prints a formatted line without trailing blanks. */
    private void line(String format, Object... args) {
        out.println(String.format(Locale.ROOT, format, args).stripTrailing());
    }

    private void latency(List<Series> measured) {
        out.println("Transaction latency (usec, all measured runs)");
        line("%-8s %10s %10s %10s %10s %10s %10s", "Stack", "min", "p10", "p50", "mean", "p99", "max");
        for (Series s : measured) {
            LatencySummary l = s.latencySummary();
            if (l == null) l = new LatencySummary(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
            line("%-8s %10s %10s %10s %10s %10s %10s", s.stack(), num(l.min(), 1), num(l.p10(), 1), num(l.p50(), 1),
                    num(l.mean(), 1), num(l.p99(), 1), num(l.max(), 1));
        }
        out.println();
    }

    private void confidenceWarning(Comparison c, Series s) {
        ConfidenceInterval ci = s.interval(c.confidence());
        if (ci == null || c.confidence().isMet(ci)) {
            if (verbose && ci != null) {
                line("%s: %d%% confidence interval of the mean %.2f..%.2f (width %.3f%%, asked %s%%)",
                        s.stack(), c.confidence().levelPercent(), ci.low(), ci.high(), ci.widthPercent(),
                        num(c.confidence().widthPercent(), 1));
            }
            return;
        }
        if (warnings != WarningStyle.NETPERF_BLOCK) return;
        String what = c.spec().kind().isStream() ? "Throughput" : "Trans. Rate";
        out.println("!!! WARNING (" + s.stack() + ")");
        out.println("!!! Desired confidence was not achieved within the specified iterations.");
        out.println("!!! This implies that there was variability in the test environment that");
        out.println("!!! must be investigated before going further.");
        line("!!! Confidence intervals: %-12s: %.3f%% (asked -I %d,%s)", what,
                ci.widthPercent(), c.confidence().levelPercent(), num(c.confidence().widthPercent(), 1));
        out.println();
    }

    /**
     * The {@link WarningStyle#ONE_LINE} report: nothing when every stack met the interval, else one line
     * with each stack's half width in percent of its mean.
     */
    private void confidenceLine(Comparison c, List<Series> measured) {
        Confidence asked = c.confidence();
        StringBuilder stacks = new StringBuilder();
        boolean unmet = false;
        for (Series s : measured) {
            ConfidenceInterval ci = s.interval(asked);
            if (ci == null) continue;
            unmet |= !asked.isMet(ci);
            if (!stacks.isEmpty()) stacks.append(", ");
            stacks.append(s.stack()).append(" +/-").append(num(ci.widthPercent() / 2, 1)).append('%');
        }
        if (!unmet) return;
        int pairs = measured.stream().mapToInt(s -> s.runs().size()).max().orElse(0);
        out.println("confidence not met: " + stacks + " (asked " + asked.levelPercent() + "%,+/-"
                + num(asked.widthPercent() / 2, 2).replaceAll("\\.?0+$", "") + "%)"
                + (pairs < Iterations.CEILING ? "; rerun with -i " + Iterations.CEILING + " for tighter intervals" : ""));
        out.println();
    }

    /**
     * Flows and lookups per packet received ({@link FlowSummary}), one line per stack, for the tests whose runs
     * count them (TCP_RR, UDP_RR, UDP_STREAM); with {@code -v} also the time the flows took to open.
     */
    private void lookups(List<Series> measured) {
        boolean any = false;
        for (Series s : measured) {
            FlowSummary f = FlowSummary.of(s);
            if (f == null || (f.lookups() == null && f.flows() == 1 && f.flowsSeen() < 0)) continue;
            if (f.lookups() == null && s.runs().getFirst().kind() != TestKind.TCP_RR && !s.runs().getFirst().kind().isUdp()) continue;
            out.println(f.line(s.stack()));
            if (verbose && f.setupSeconds() > 0) {
                out.println(String.format(Locale.ROOT, "%s: %d flows opened in %.3f s (median per run)", s.stack(),
                        f.flows(), f.setupSeconds()));
            }
            any = true;
        }
        if (any) out.println();
    }

    private void perRun(Comparison c) {
        Series a = c.candidate();
        Series b = c.reference();
        out.println("Per run (" + c.spec().kind().unit().label() + ")");
        line("%-8s %14s %14s %8s", "Run", a == null ? "" : a.stack(),
                b == null ? "" : b.stack(), a != null && b != null ? "ratio" : "");
        line("%-8s %14s %14s", "warm-up",
                a == null || a.warmup() == null ? "" : num(a.warmup().value(), 2),
                b == null || b.warmup() == null ? "" : num(b.warmup().value(), 2));
        List<Double> ratios = c.ratios();
        int n = Math.max(a == null ? 0 : a.runs().size(), b == null ? 0 : b.runs().size());
        for (int i = 0; i < n; i++) {
            line("%-8d %14s %14s %8s", i + 1,
                    a != null && i < a.runs().size() ? num(a.runs().get(i).value(), 2) : "",
                    b != null && i < b.runs().size() ? num(b.runs().get(i).value(), 2) : "",
                    i < ratios.size() ? num(ratios.get(i), 3) : "");
        }
        out.println();
    }

    /** Prints the comparison table for some tests: test, path, both medians, unit, ratio median and spread. */
    public void printComparisonTable(List<Comparison> cs) {
        String aName = cs.stream().map(Comparison::candidate).filter(s -> s != null).map(Series::stack).findFirst().orElse("jnet");
        String bName = cs.stream().map(Comparison::reference).filter(s -> s != null).map(Series::stack).findFirst().orElse("kernel");
        String fmt = "%-12s  %-8s  %14s  %14s  %-10s  %7s  %s";
        line(fmt, "Test", "Path", aName + " median", bName + " median", "Unit", "Ratio", "Spread");
        for (Comparison c : cs) {
            String spread = Double.isNaN(c.ratioMin()) ? "n/a" : num(c.ratioMin(), 3) + ".." + num(c.ratioMax(), 3);
            line(fmt, c.spec().kind(), c.path(),
                    median(c.candidate()), median(c.reference()), c.spec().kind().unit().label(),
                    num(c.ratioMedian(), 3), c.succeeded() ? spread : "FAILED");
        }
    }

    private static String median(Series s) {
        return s == null || !s.hasRuns() ? "n/a" : num(s.median(), 2);
    }

    /** A number with {@code decimals} places, or {@code n/a} for NaN. */
    static String num(double v, int decimals) {
        if (Double.isNaN(v)) return "n/a";
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
