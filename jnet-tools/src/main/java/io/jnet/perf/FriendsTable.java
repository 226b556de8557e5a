package io.jnet.perf;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The {@code --compare} layout of the TCP friends patch series' netperf tables, asked for by naming
 * {@code friends} with {@code base} and/or {@code unix} ({@link PathRegistry} aliases):
 * <pre>
 *        RR        BASE        UNIX     FRIENDS  FRIENDS/BASE  FRIENDS/UNIX  KERNEL_TCP  KERNEL_AF_UNIX
 *         1    31022.17    47220.50    52310.00          169%          111%    32477.91        45012.33
 * </pre>
 * Per test a row per size; the columns, always all of them and in this order:
 * <ul>
 *   <li>{@code BASE} ({@value PathRegistry#JNET_LOOPBACK}), {@code UNIX} ({@value PathRegistry#JNET_UNIX}),
 *       {@code FRIENDS} ({@value PathRegistry#JNET_FRIENDS}): the path's median in the test's unit;</li>
 *   <li>{@code FRIENDS/BASE}, {@code FRIENDS/UNIX}: the patch's two percentages, each the median of the
 *       per-pair ratios ({@link Measurement#ratios(int, int)}, from the same pairs as the medians);</li>
 *   <li>{@code KERNEL_TCP} ({@value PathRegistry#KERNEL_TCP}) and {@code KERNEL_AF_UNIX}
 *       ({@value PathRegistry#KERNEL_UNIX}): the host kernel's TCP and AF_UNIX, added to the comparison
 *       ({@link #paths}) as references.</li>
 * </ul>
 * A median whose confidence interval is wider than {@code -I} asks is marked {@code *}; as in the patch,
 * {@code -} stands where a path cannot run the test (the reason is noted below the table), was not named
 * (e.g. no {@code unix}), or a percentage lacks one of its paths; {@code FAILED} where the measurement failed.
 * The CSV ({@link CsvReport#FRIENDS_HEADER}) and JSON reports carry the same columns ({@link #values}).
 */
public final class FriendsTable {

    /** A column holding one path's median. */
    public enum PathColumn {
        BASE("BASE", "base", PathRegistry.JNET_LOOPBACK),
        UNIX("UNIX", "unix", PathRegistry.JNET_UNIX),
        FRIENDS("FRIENDS", "friends", PathRegistry.JNET_FRIENDS),
        KERNEL_TCP("KERNEL_TCP", "kernel_tcp", PathRegistry.KERNEL_TCP),
        KERNEL_AF_UNIX("KERNEL_AF_UNIX", "kernel_af_unix", PathRegistry.KERNEL_UNIX);

        private final String heading;
        private final String key;
        private final String id;

        PathColumn(String heading, String key, String id) {
            this.heading = heading;
            this.key = key;
            this.id = id;
        }

        /** The text table's heading, e.g. {@code BASE}. */
        public String heading() { return heading; }

        /** The CSV column and JSON field name, e.g. {@code base}. */
        public String key() { return key; }

        /** The path id whose median the column shows. */
        public String id() { return id; }
    }

    /** The aliases that ask for this layout: {@code friends} with {@code base} and/or {@code unix}. */
    static final String FRIENDS = "friends";
    static final String BASE = "base";
    static final String UNIX = "unix";

    /**
     * The tests the layout is for, the patch's: the TCP tests of the default suite. Without {@code -t} a
     * friends comparison runs these; UDP tests are refused (tcp_friends pairs TCP connections).
     */
    public static final List<TestKind> TESTS = List.of(TestKind.TCP_STREAM, TestKind.TCP_MAERTS,
            TestKind.TCP_SENDFILE, TestKind.TCP_RR, TestKind.TCP_CRR);

    private FriendsTable() {}

    /**
     * True when a {@code --compare} list asks for this layout: it names {@code friends} and {@code base}
     * and/or {@code unix} by these aliases of {@code registry} (case-insensitive). Full ids do not: a list
     * of ids gets a column per path.
     */
    public static boolean asks(PathRegistry registry, String list) {
        Set<String> names = new LinkedHashSet<>();
        for (String item : list.split(",", -1)) {
            String name = item.trim().toLowerCase(Locale.ROOT);
            if (registry.isAlias(name)) names.add(name);
        }
        return names.contains(FRIENDS) && (names.contains(BASE) || names.contains(UNIX));
    }

    /**
     * The paths of a friends comparison in lane order: FRIENDS, then BASE and UNIX when named, then
     * {@code kernel:tcp} and {@code kernel:unix}, added when not named.
     *
     * @throws IllegalArgumentException for what {@link PathRegistry#parseList} rejects, or a path that has
     *                                  no column here (e.g. {@code jnet:veth})
     */
    public static List<String> paths(PathRegistry registry, String list) {
        Set<String> named = new LinkedHashSet<>();
        List<String> ids = java.util.Arrays.stream(PathColumn.values()).map(PathColumn::id).toList();
        for (PathRegistry.Entry e : registry.parseList(list)) {
            if (!ids.contains(e.id())) {
                throw new IllegalArgumentException("path " + e.id() + " has no column in the friends table (BASE, UNIX, "
                        + "FRIENDS, KERNEL_TCP, KERNEL_AF_UNIX); list full ids for a column per path, e.g. --compare "
                        + PathRegistry.JNET_FRIENDS + "," + e.id());
            }
            named.add(e.id());
        }
        List<String> out = new ArrayList<>();
        for (PathColumn c : List.of(PathColumn.FRIENDS, PathColumn.BASE, PathColumn.UNIX)) {
            if (named.contains(c.id())) out.add(c.id());
        }
        for (PathColumn c : List.of(PathColumn.KERNEL_TCP, PathColumn.KERNEL_AF_UNIX)) {
            out.add(registry.get(c.id()).id());
        }
        return out;
    }

    /** The lane of {@code column}'s path in {@code m}, or -1 when the path was not compared. */
    static int lane(Measurement m, PathColumn column) {
        for (int i = 0; i < m.lanes().size(); i++) {
            if (m.lanes().get(i).label().equals(column.id())) return i;
        }
        return -1;
    }

    /** Per-pair ratios FRIENDS/{@code other} in percent (median, min, max), all NaN without pairs. */
    static double[] percent(Measurement m, PathColumn other) {
        int f = lane(m, PathColumn.FRIENDS);
        int o = lane(m, other);
        if (f < 0 || o < 0) return new double[] {Double.NaN, Double.NaN, Double.NaN};
        return new double[] {100 * m.ratioMedian(f, o), 100 * m.ratioMin(f, o), 100 * m.ratioMax(f, o)};
    }

    /**
     * The columns of a row for the CSV and JSON reports, in table order: each path's {@code median} and
     * {@code _ci_met} (null where the table shows {@code -}), {@code friends_base_percent} and
     * {@code friends_unix_percent} with their {@code _min} and {@code _max} over the pairs (null without
     * pairs), and {@code not_applicable}: why paths could not run the test, {@code "; "}-separated, or null.
     */
    public static Map<String, Object> values(Measurement m) {
        Map<String, Object> v = new LinkedHashMap<>();
        List<String> why = new ArrayList<>();
        for (PathColumn c : PathColumn.values()) {
            int i = lane(m, c);
            Measurement.LaneResult lane = i < 0 ? null : m.lanes().get(i);
            boolean measured = lane != null && lane.measured();
            v.put(c.key(), measured ? lane.series().median() : null);
            v.put(c.key() + "_ci_met", measured ? SizeTable.confidenceMet(m, lane) : null);
            if (lane != null && lane.notApplicable() != null) why.add(c.id() + ": " + lane.notApplicable());
            if (c == PathColumn.FRIENDS) {
                for (PathColumn other : List.of(PathColumn.BASE, PathColumn.UNIX)) {
                    double[] p = percent(m, other);
                    String name = "friends_" + other.key() + "_percent";
                    v.put(name, Double.isNaN(p[0]) ? null : p[0]);
                    v.put(name + "_min", Double.isNaN(p[1]) ? null : p[1]);
                    v.put(name + "_max", Double.isNaN(p[2]) ? null : p[2]);
                }
            }
        }
        v.put("not_applicable", why.isEmpty() ? null : String.join("; ", why));
        return v;
    }

    /** The names of {@link #values}, in order. */
    public static List<String> columns() {
        List<String> out = new ArrayList<>();
        for (PathColumn c : PathColumn.values()) {
            out.add(c.key());
            out.add(c.key() + "_ci_met");
            if (c == PathColumn.FRIENDS) {
                for (String other : List.of("base", "unix")) {
                    out.add("friends_" + other + "_percent");
                    out.add("friends_" + other + "_percent_min");
                    out.add("friends_" + other + "_percent_max");
                }
            }
        }
        out.add("not_applicable");
        return out;
    }

    /** Width of a path column: its heading and two spaces, at least 12. */
    private static int width(PathColumn c) {
        return Math.max(12, c.heading().length() + 2);
    }

    private static final int PERCENT_WIDTH = 14;

    /** Prints the table of one test's measurements (all of the same kind, in size order). */
    static void print(PrintStream out, PerfPlan plan, List<Measurement> rows) {
        Measurement head = rows.getFirst();
        TestKind kind = head.spec().kind();
        out.println(SizeTable.title(plan, head));
        out.println("  " + legend(plan, PathColumn.BASE) + ", " + legend(plan, PathColumn.UNIX) + ", "
                + legend(plan, PathColumn.FRIENDS) + " (net.ipv4.tcp_friends=1)");
        out.println("  FRIENDS/BASE, FRIENDS/UNIX: medians of per-pair ratios, in percent");
        out.println("  " + legend(plan, PathColumn.KERNEL_TCP) + ", " + legend(plan, PathColumn.KERNEL_AF_UNIX)
                + ": the host kernel, for reference");
        out.println();
        StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "%9s", SizeTable.sizeHeading(kind)));
        for (PathColumn c : PathColumn.values()) {
            h.append(String.format(Locale.ROOT, "%" + width(c) + "s ", c.heading()));
            if (c == PathColumn.FRIENDS) {
                for (String p : List.of("FRIENDS/BASE", "FRIENDS/UNIX")) {
                    h.append(String.format(Locale.ROOT, "%" + (PERCENT_WIDTH - 1) + "s ", p));
                }
            }
        }
        out.println(h.toString().stripTrailing());
        Set<String> notes = new LinkedHashSet<>();
        boolean unmet = false;
        for (Measurement m : rows) {
            StringBuilder r = new StringBuilder(String.format(Locale.ROOT, "%9s", SizeTable.sizeLabel(m)));
            for (PathColumn c : PathColumn.values()) {
                int i = lane(m, c);
                Measurement.LaneResult lane = i < 0 ? null : m.lanes().get(i);
                String cell;
                if (lane == null) {
                    cell = "- ";
                } else if (lane.notApplicable() != null) {
                    cell = "- ";
                    notes.add("-: " + c.heading() + " (" + c.id() + "): " + lane.notApplicable());
                } else if (lane.measured()) {
                    boolean met = SizeTable.confidenceMet(m, lane);
                    unmet |= !met;
                    cell = TextReport.num(lane.series().median(), 2) + (met ? " " : "*");
                } else {
                    cell = m.failure() != null ? "FAILED " : "- ";
                }
                r.append(String.format(Locale.ROOT, "%" + (width(c) + 1) + "s", cell));
                if (c == PathColumn.FRIENDS) {
                    for (PathColumn other : List.of(PathColumn.BASE, PathColumn.UNIX)) {
                        double p = percent(m, other)[0];
                        r.append(String.format(Locale.ROOT, "%" + (PERCENT_WIDTH - 1) + "s ",
                                Double.isNaN(p) ? "-" : Math.round(p) + "%"));
                    }
                }
            }
            out.println(r.toString().stripTrailing());
            if (m.failure() != null) notes.add("FAILED at " + SizeTable.sizeLabel(m).trim() + ": " + m.failure());
            notes.addAll(m.notes());
        }
        SizeTable.printFooter(out, plan, kind, unmet, notes);
    }

    /** {@code BASE = jnet:loopback}, or {@code UNIX = jnet:unix (not compared: -)} when the path is not in the plan. */
    private static String legend(PerfPlan plan, PathColumn c) {
        return c.heading() + " = " + c.id() + (plan.paths().contains(c.id()) ? "" : " (not compared: -)");
    }
}
