package io.jnet.perf;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The machine-readable report as CSV (RFC 4180), one row per test and stack:
 * <pre>
 * test,path,stack,role,unit,runs,median,mean,ci_level,ci_width_percent,ci_half_width,ci_met,p50_us,p99_us,ratio_median,ratio_min,ratio_max,values,status,
 *   send_median,messages_sent,send_errors,messages_received,busy_cores
 * </pre>
 * {@code values} holds each measured run's figure separated by {@code ;}; the ratio columns (jnet/kernel)
 * repeat on both rows of a test; missing numbers are empty; {@code ci_half_width} is in the test's unit and
 * {@code ci_met} is {@code true} when the interval is no wider than {@code -I} asks ({@code false} when it
 * is wider or there are fewer than two runs); {@code status} is {@code ok} when the test ran to the end (even
 * with {@code ci_met} false) or the failure.
 * The last four are UDP_STREAM's (empty for the other tests): the median send rate in the test's unit (the
 * {@code median} column is the receive rate), and datagrams sent, refused and received over all measured runs.
 * {@code busy_cores} repeats on every row the number of cores kept busy by spinning processes during the run
 * ({@code --busy-cores}, {@link BusyCores}). Then the flow columns: {@code flows} and {@code udp} as given
 * ({@code --flows}, {@code --udp}), {@code flows_seen} (the fewest flows the server saw traffic on in a run),
 * {@code setup_s} (median seconds to open the flows), and per packet received over all measured runs
 * {@code lookups_per_packet} (socket plus input route lookups), {@code socket_lookups_per_packet},
 * {@code route_lookups_per_packet}, {@code demux_hits_per_packet}, {@code demux_misses_per_packet}, then
 * {@code packets_received}; the lookup columns are empty on the kernel, which has no such counters. Then
 * {@code threads} ({@code --threads}), {@code allocator} (the jnet namespaces' packet allocator, empty on the
 * kernel), and per transaction over all measured runs of TCP_RR over flows {@code bytes_per_transaction} (heap
 * bytes the JVM allocated), {@code lock_entries_per_transaction} and
 * {@code contended_lock_entries_per_transaction} (the packet allocators' lock entries; empty on the kernel).
 * A test that failed before any run gives one row with an empty stack.
 */
public final class CsvReport {

    /** The header line. */
    public static final String HEADER = "test,path,stack,role,unit,runs,median,mean,ci_level,ci_width_percent,ci_half_width,ci_met,"
            + "p50_us,p99_us,ratio_median,ratio_min,ratio_max,values,status,"
            + "send_median,messages_sent,send_errors,messages_received,busy_cores,"
            + "flows,udp,flows_seen,setup_s,lookups_per_packet,socket_lookups_per_packet,route_lookups_per_packet,"
            + "demux_hits_per_packet,demux_misses_per_packet,packets_received,"
            + "threads,allocator,bytes_per_transaction,lock_entries_per_transaction,contended_lock_entries_per_transaction";

    private final PrintStream out;
    private final int busyCores;

    /** A report of a run without busy cores. */
    public CsvReport(PrintStream out) {
        this(out, 0);
    }

    /** A report of a run during which {@code busyCores} cores were kept busy ({@link BusyCores}). */
    public CsvReport(PrintStream out, int busyCores) {
        this.out = out;
        this.busyCores = busyCores;
    }

    /** Prints the header and the rows. */
    public void print(SuiteResult result) {
        out.println(HEADER);
        for (Comparison c : result.comparisons()) {
            String status = c.failure() == null ? "ok" : c.failure();
            if (c.measured().isEmpty()) {
                out.println(String.join(",", c.spec().kind().name(), c.path(), "", "",
                        escape(c.spec().kind().unit().label()), "0", "", "", "", "", "", "false", "", "", "", "", "", "", escape(status),
                        "", "", "", "", Integer.toString(busyCores), Integer.toString(c.spec().flows()), c.spec().udp().label(),
                        "", "", "", "", "", "", "", "", Integer.toString(c.spec().threads()),
                        c.spec().allocator() == null ? "" : escape(c.spec().allocator()), "", "", ""));
                continue;
            }
            for (Series s : c.measured()) {
                ConfidenceInterval ci = s.interval(c.confidence());
                LatencySummary l = s.latencySummary();
                DatagramSummary d = DatagramSummary.of(s);
                out.println(String.join(",",
                        c.spec().kind().name(),
                        c.path(),
                        escape(s.stack()),
                        s == c.candidate() ? "candidate" : "reference",
                        escape(c.spec().kind().unit().label()),
                        Integer.toString(s.runs().size()),
                        n(s.median()),
                        ci == null ? "" : n(ci.mean()),
                        ci == null ? "" : Integer.toString(c.confidence().levelPercent()),
                        ci == null ? "" : n(ci.widthPercent()),
                        ci == null ? "" : n(ci.halfWidth()),
                        Boolean.toString(c.confidenceMet(s)),
                        l == null ? n(Double.NaN) : n(l.p50()),
                        l == null ? n(Double.NaN) : n(l.p99()),
                        n(c.ratioMedian()),
                        n(c.ratioMin()),
                        n(c.ratioMax()),
                        s.values().stream().map(CsvReport::n).collect(Collectors.joining(";")),
                        escape(status),
                        d == null ? "" : n(d.sendMedian()),
                        d == null ? "" : Long.toString(d.sent()),
                        d == null ? "" : Long.toString(d.errors()),
                        d == null ? "" : Long.toString(d.received()),
                        Integer.toString(busyCores),
                        flowColumns(c.spec(), FlowSummary.of(s))));
            }
        }
    }

    /**
     * The flow columns: {@code flows} and {@code udp} as given; {@code flows_seen} the fewest flows the server
     * saw traffic on in a run (empty when not counted); {@code setup_s} the median time to open the flows;
     * the per-packet figures over all measured runs ({@link FlowSummary}), empty on a stack without counters.
     */
    private static String flowColumns(TestSpec spec, FlowSummary f) {
        LookupCounts l = f == null ? null : f.lookups();
        boolean counted = l != null && l.packets() > 0;
        return String.join(",", Integer.toString(spec.flows()), spec.udp().label(),
                f == null || f.flowsSeen() < 0 ? "" : Long.toString(f.flowsSeen()),
                f == null ? "" : n(f.setupSeconds()),
                counted ? n(l.lookupsPerPacket()) : "",
                counted ? n(l.socketPerPacket()) : "",
                counted ? n(l.routePerPacket()) : "",
                counted ? n(l.hitsPerPacket()) : "",
                counted ? n(l.missesPerPacket()) : "",
                counted ? Long.toString(l.packets()) : "",
                Integer.toString(spec.threads()),
                f != null && f.allocator() != null ? escape(f.allocator())
                        : spec.allocator() == null ? "" : escape(spec.allocator()),
                f == null || Double.isNaN(f.bytesPerTransaction()) ? "" : n(f.bytesPerTransaction()),
                f == null || Double.isNaN(f.lockEntriesPerTransaction()) ? "" : n(f.lockEntriesPerTransaction()),
                f == null || Double.isNaN(f.contendedPerTransaction()) ? "" : n(f.contendedPerTransaction()));
    }

    /**
     * The header of the {@code --compare} rows, one per test, size and path:
     * {@code size} is the swept size in bytes ({@link SizeTable#sizeLabel}); {@code ci_half_width} is in the
     * test's unit; {@code ratio_*} are the first path's figure over this path's, per pair (empty on the first
     * path's row); {@code status} is {@code ok}, {@code not applicable: why}, or the failure; {@code busy_cores} and
     * the flow columns ({@code flows} to {@code packets_received}, the path's flows and lookups) as above.
     */
    public static final String COMPARE_HEADER = "test,size,path,unit,runs,median,mean,ci_level,ci_half_width,"
            + "ci_width_percent,ci_met,ratio_median,ratio_min,ratio_max,values,status,busy_cores,"
            + "flows,udp,flows_seen,setup_s,lookups_per_packet,socket_lookups_per_packet,route_lookups_per_packet,"
            + "demux_hits_per_packet,demux_misses_per_packet,packets_received,"
            + "threads,allocator,bytes_per_transaction,lock_entries_per_transaction,contended_lock_entries_per_transaction";

    /**
     * The header of a friends comparison ({@link FriendsTable}), one row per test and size with the text
     * table's columns: {@code size} as above; {@code base}, {@code unix}, {@code friends}, {@code kernel_tcp},
     * {@code kernel_af_unix} the path's median in the test's unit, each followed by its {@code _ci_met};
     * {@code friends_base_percent} and {@code friends_unix_percent} the median of the per-pair ratios
     * FRIENDS/BASE and FRIENDS/UNIX in percent, with their {@code _min} and {@code _max}; empty where the
     * table shows {@code -}; {@code not_applicable} why paths could not run the test ({@code path: why},
     * separated by {@code ; }); {@code status} {@code ok} or the failure; {@code busy_cores} as above.
     */
    public static final String FRIENDS_HEADER = "test,size,unit," + String.join(",", FriendsTable.columns())
            + ",status,busy_cores";

    /** Prints the {@code --compare} header and rows ({@link #FRIENDS_HEADER} for a friends comparison). */
    public void print(CompareResult result) {
        if (result.plan().friendsTable()) {
            printFriends(result);
            return;
        }
        out.println(COMPARE_HEADER);
        for (Measurement m : result.measurements()) {
            for (int k = 0; k < m.lanes().size(); k++) {
                Measurement.LaneResult lane = m.lanes().get(k);
                Series s = lane.series();
                ConfidenceInterval ci = s == null ? null : s.interval(m.confidence());
                String status = lane.notApplicable() != null ? "not applicable: " + lane.notApplicable()
                        : m.failure() != null ? m.failure() : lane.measured() ? "ok" : "not run";
                out.println(String.join(",",
                        m.spec().kind().name(),
                        escape(SizeTable.sizeLabel(m)),
                        escape(lane.label()),
                        escape(m.spec().kind().unit().label()),
                        Integer.toString(s == null ? 0 : s.runs().size()),
                        lane.measured() ? n(s.median()) : "",
                        ci == null ? "" : n(ci.mean()),
                        ci == null ? "" : Integer.toString(m.confidence().levelPercent()),
                        ci == null ? "" : n(ci.halfWidth()),
                        ci == null ? "" : n(ci.widthPercent()),
                        Boolean.toString(ci != null && m.confidence().isMet(ci)),
                        n(m.ratioMedian(k)),
                        n(m.ratioMin(k)),
                        n(m.ratioMax(k)),
                        s == null ? "" : s.values().stream().map(CsvReport::n).collect(Collectors.joining(";")),
                        escape(status),
                        Integer.toString(busyCores),
                        flowColumns(m.spec(), FlowSummary.of(s))));
            }
        }
    }

    private void printFriends(CompareResult result) {
        out.println(FRIENDS_HEADER);
        for (Measurement m : result.measurements()) {
            List<String> row = new ArrayList<>(List.of(m.spec().kind().name(), escape(SizeTable.sizeLabel(m)),
                    escape(m.spec().kind().unit().label())));
            for (Object v : FriendsTable.values(m).values()) {
                row.add(v == null ? "" : v instanceof Double d ? n(d) : escape(v.toString()));
            }
            row.add(escape(m.failure() == null ? "ok" : m.failure()));
            row.add(Integer.toString(busyCores));
            out.println(String.join(",", row));
        }
    }

    static String n(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return "";
        return String.format(Locale.ROOT, "%.4f", v);
    }

    /** Quotes a field when it holds a comma, quote or line break. */
    static String escape(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) return s;
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
