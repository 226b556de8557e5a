package io.jnet.perf;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The {@code --compare} report: per test one table in the shape of the netperf tables of the TCP friends
 * patch series, one row per size, one column per path (the median figure in the test's unit), then the
 * percentages of the first path's figure to each other path's ({@code p1} = first/second, {@code p2} =
 * first/third, ...; the patch's FRIENDS/BASE and FRIENDS/AF_UNIX with FRIENDS listed first). Each
 * percentage is the median of the per-pair ratios, from the same pairs as the medians. A figure whose
 * confidence interval is wider than {@code -I} asks is marked {@code *}; a path that cannot run the test
 * shows {@code n/a}, with the reason below the table. A plan that asks for the friends patch's own layout
 * (BASE, UNIX, FRIENDS, FRIENDS/BASE, FRIENDS/UNIX, then the kernel's columns) prints {@link FriendsTable}.
 */
public final class SizeTable {

    private final PrintStream out;

    public SizeTable(PrintStream out) {
        this.out = out;
    }

    /** Prints one table per test of the result, then the run-wide notes. */
    public void print(CompareResult result) {
        List<Measurement> group = new ArrayList<>();
        for (Measurement m : result.measurements()) {
            if (!group.isEmpty() && group.getFirst().spec().kind() != m.spec().kind()) {
                printTable(result.plan(), group);
                group.clear();
            }
            group.add(m);
        }
        if (!group.isEmpty()) printTable(result.plan(), group);
        for (String n : result.notes()) out.println("Note: " + n);
        out.flush();
    }

    /**
     * Prints the table of one test's measurements (all of the same kind, in size order): a column per path,
     * or the friends patch's layout ({@link FriendsTable}) when the plan asks for it.
     */
    public void printTable(PerfPlan plan, List<Measurement> rows) {
        if (plan.friendsTable()) {
            FriendsTable.print(out, plan, rows);
            return;
        }
        Measurement head = rows.getFirst();
        TestKind kind = head.spec().kind();
        List<String> paths = head.lanes().stream().map(Measurement.LaneResult::label).toList();
        out.println(title(plan, head));
        for (int k = 1; k < paths.size(); k++) {
            out.println("  p" + k + " = " + paths.getFirst() + " / " + paths.get(k) + " (median of per-pair ratios)");
        }
        out.println();
        String sizeHead = sizeHeading(kind);
        StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "%9s", sizeHead));
        for (String p : paths) h.append(String.format(Locale.ROOT, "%" + width(p) + "s ", p));
        for (int k = 1; k < paths.size(); k++) h.append(String.format(Locale.ROOT, "%7s", "p" + k));
        out.println(h.toString().stripTrailing());
        Set<String> notes = new LinkedHashSet<>();
        boolean unmet = false;
        for (Measurement m : rows) {
            StringBuilder r = new StringBuilder(String.format(Locale.ROOT, "%9s", sizeLabel(m)));
            for (int i = 0; i < paths.size(); i++) {
                Measurement.LaneResult lane = m.lanes().get(i);
                String cell;
                if (lane.notApplicable() != null) {
                    cell = "n/a ";
                    notes.add("n/a: " + lane.label() + ": " + lane.notApplicable());
                } else if (lane.measured()) {
                    boolean met = confidenceMet(m, lane);
                    unmet |= !met;
                    cell = TextReport.num(lane.series().median(), 2) + (met ? " " : "*");
                } else {
                    cell = m.failure() != null ? "FAILED " : "- ";
                }
                r.append(String.format(Locale.ROOT, "%" + (width(paths.get(i)) + 1) + "s", cell));
            }
            for (int k = 1; k < paths.size(); k++) {
                double ratio = m.ratioMedian(k);
                r.append(String.format(Locale.ROOT, "%7s", Double.isNaN(ratio) ? "-" : Math.round(ratio * 100) + "%"));
            }
            out.println(r.toString().stripTrailing());
            if (m.failure() != null) notes.add("FAILED at " + sizeLabel(m).trim() + ": " + m.failure());
            for (String n : m.notes()) notes.add(n);
        }
        flows(rows, paths);
        printFooter(out, plan, kind, unmet, notes);
    }

    /**
     * Below the rows of TCP_RR, UDP_RR and UDP_STREAM: each path's flows and lookups per packet received
     * ({@link FlowSummary#line}), one line per path, prefixed with the size when the table has several rows.
     */
    private void flows(List<Measurement> rows, List<String> paths) {
        TestKind kind = rows.getFirst().spec().kind();
        if (kind != TestKind.TCP_RR && !kind.isUdp()) return;
        List<String> lines = new ArrayList<>();
        for (Measurement m : rows) {
            for (int i = 0; i < paths.size(); i++) {
                FlowSummary f = FlowSummary.of(m.lanes().get(i).series());
                if (f == null || (f.lookups() == null && f.flows() == 1 && f.flowsSeen() < 0)) continue;
                String label = rows.size() > 1 ? sizeHeading(kind) + " " + sizeLabel(m).trim() + " " + paths.get(i) : paths.get(i);
                lines.add(f.line(label));
            }
        }
        if (lines.isEmpty()) return;
        out.println();
        out.println("Flows and lookups per packet received (all measured runs):");
        for (String l : lines) out.println("  " + l);
    }

    /** The first line of a test's table: test, unit, pairs per path, run length, TCP_NODELAY. */
    static String title(PerfPlan plan, Measurement head) {
        TestKind kind = head.spec().kind();
        int pairs = plan.iterations().min() == plan.iterations().max() ? plan.iterations().min() : -1;
        return kind + ": " + kind.unit().label() + ", median of " + (pairs > 0 ? pairs : plan.iterations().min() + ".."
                + plan.iterations().max()) + " pairs per path, " + TextReport.num(head.spec().durationSeconds(), 2)
                + " s per run" + (head.spec().local().noDelay() ? ", TCP_NODELAY" : "");
    }

    /** True when the lane's confidence interval is no wider than {@code -I} asks (false with fewer than two runs). */
    static boolean confidenceMet(Measurement m, Measurement.LaneResult lane) {
        ConfidenceInterval ci = lane.series() == null ? null : lane.series().interval(m.confidence());
        return ci != null && m.confidence().isMet(ci);
    }

    /** The size column's heading: {@code MS} for the stream tests, {@code RR} for the others. */
    static String sizeHeading(TestKind kind) {
        return kind.isStream() ? "MS" : "RR";
    }

    /** Below a table: what the size column means, the confidence footnote when a figure is marked, the notes. */
    static void printFooter(PrintStream out, PerfPlan plan, TestKind kind, boolean unmet, Set<String> notes) {
        out.println(kind.isStream()
                ? "MS means message size in bytes: -m (bytes per send) and -M (bytes per receive)"
                : "RR means request and response size in bytes: -r size,size");
        if (unmet) {
            out.println("* confidence not met: the " + plan.confidence().levelPercent() + "% interval is wider than "
                    + TextReport.num(plan.confidence().widthPercent(), 2).replaceAll("\\.?0+$", "")
                    + "% of the mean (-I); more pairs (-i) or longer runs (-l) narrow it");
        }
        for (String n : notes) out.println("Note: " + n);
        out.println();
        out.flush();
    }

    private static int width(String path) {
        return Math.max(12, path.length() + 1);
    }

    /** The row's size: the swept size, or the spec's own (-m for stream tests, -r for the others). */
    static String sizeLabel(Measurement m) {
        if (m.size() >= 0) return Integer.toString(m.size());
        TestSpec s = m.spec();
        if (s.kind().isStream()) return Integer.toString(s.sendSize());
        return s.requestSize() == s.responseSize() ? Integer.toString(s.requestSize()) : s.requestSize() + "," + s.responseSize();
    }
}
