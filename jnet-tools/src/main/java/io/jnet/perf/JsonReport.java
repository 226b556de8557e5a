package io.jnet.perf;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The machine-readable report as one JSON document:
 * <pre>
 * {"results": [{"test": "TCP_RR", "path": "loopback", "unit": "Trans/s", "length_s": 1.0,
 *   "send_size": 65536, "recv_size": 131072, "request_size": 1, "response_size": 1,
 *   "stacks": [{"stack": "jnet", "role": "candidate", "description": "...", "median": 1234.5,
 *               "elapsed_s_median": 1.0, "values": [...], "warmup": 1200.1,
 *               "ci": {"level": 99, "mean": ..., "half_width": ..., "width_percent": ..., "met": true}, "ci_met": true,
 *               "latency_us": {"min": ..., "p10": ..., "p50": ..., "mean": ..., "p99": ..., "max": ...},
 *               "socket_sizes": {"local_send": ..., "local_recv": ..., "remote_send": ..., "remote_recv": ...},
 *               "udp_stream": {"send_median": ..., "send_elapsed_s_median": ..., "send_values": [...],
 *                              "messages_sent": ..., "send_errors": ..., "messages_received": ..., "loss_percent": ...}}, ...],
 *   "ratio": {"median": 0.8, "min": 0.7, "max": 0.9, "values": [...]},
 *   "notes": [...], "failure": null}],
 *  "busy_cores": 0, "notes": [...], "succeeded": true}
 * </pre>
 * Figures use the test's unit; numbers that do not exist (no pairs, no latencies) are {@code null}.
 * {@code ci_met} is false when the interval is wider than {@code -I} asks or there are fewer than two runs
 * ({@code ci} is then null).
 * {@code udp_stream} is only there for UDP_STREAM, whose {@code median} and {@code values} are the receiver's
 * rate: it holds netperf's send line (the sender's rate, median and per run, and its time) and the datagram
 * counts over all measured runs. {@code busy_cores} is the number of cores kept busy by spinning processes
 * during the run ({@code --busy-cores}, {@link BusyCores}).
 */
public final class JsonReport {

    private final PrintStream out;
    private final int busyCores;

    /** A report of a run without busy cores. */
    public JsonReport(PrintStream out) {
        this(out, 0);
    }

    /** A report of a run during which {@code busyCores} cores were kept busy ({@link BusyCores}). */
    public JsonReport(PrintStream out, int busyCores) {
        this.out = out;
        this.busyCores = busyCores;
    }

    /** Prints the document followed by a newline. */
    public void print(SuiteResult result) {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"results\":[");
        boolean first = true;
        for (Comparison c : result.comparisons()) {
            if (!first) sb.append(',');
            first = false;
            comparison(sb, c);
        }
        sb.append("],\"busy_cores\":").append(busyCores);
        sb.append(",\"notes\":");
        strings(sb, result.notes());
        sb.append(",\"succeeded\":").append(result.succeeded()).append('}');
        out.println(sb);
    }

    /**
     * Prints the {@code --compare} document:
     * <pre>
     * {"mode": "compare", "paths": ["jnet:loopback", "kernel:tcp"], "results": [
     *   {"test": "TCP_RR", "size": "1024", "unit": "Trans/s", "length_s": 1.0,
     *    "paths": [{"path": "jnet:loopback", "runs": 3, "median": ..., "values": [...],
     *               "ci": {"level": 99, "mean": ..., "half_width": ..., "width_percent": ...}, "ci_met": true,
     *               "ratio": null, "not_applicable": null}, ...],
     *    "notes": [...], "failure": null}, ...],
     *  "busy_cores": 0, "notes": [...], "succeeded": true}
     * </pre>
     * {@code ratio} ({@code median}, {@code min}, {@code max}, {@code values}) is the first path's figure over
     * this path's per pair, null on the first path; {@code not_applicable} says why a path did not run.
     *
     * <p>A friends comparison ({@link FriendsTable}; its first path is {@code jnet:friends}) adds
     * {@code "layout": "friends"} and {@code "columns": {"base": "jnet:loopback", "unix": null, ...}} (each
     * path column's id, null when not compared) after {@code paths}, and to each result a {@code "table"}
     * object after {@code paths} with the columns of the text table and of {@link CsvReport#FRIENDS_HEADER}
     * ({@link FriendsTable#values}; null where the table shows {@code -}).
     */
    public void print(CompareResult result) {
        StringBuilder sb = new StringBuilder("{\"mode\":\"compare\",\"paths\":");
        strings(sb, result.plan().paths());
        boolean friends = result.plan().friendsTable();
        if (friends) {
            sb.append(",\"layout\":\"friends\",\"columns\":{");
            boolean firstColumn = true;
            for (FriendsTable.PathColumn c : FriendsTable.PathColumn.values()) {
                if (!firstColumn) sb.append(',');
                firstColumn = false;
                sb.append(quote(c.key())).append(':')
                        .append(result.plan().paths().contains(c.id()) ? quote(c.id()) : "null");
            }
            sb.append('}');
        }
        sb.append(",\"results\":[");
        boolean first = true;
        for (Measurement m : result.measurements()) {
            if (!first) sb.append(',');
            first = false;
            sb.append('{');
            field(sb, "test", m.spec().kind().name()).append(',');
            field(sb, "size", SizeTable.sizeLabel(m)).append(',');
            field(sb, "unit", m.spec().kind().unit().label()).append(',');
            sb.append("\"length_s\":").append(number(m.spec().durationSeconds())).append(",\"paths\":[");
            for (int k = 0; k < m.lanes().size(); k++) {
                Measurement.LaneResult lane = m.lanes().get(k);
                Series s = lane.series();
                ConfidenceInterval ci = s == null ? null : s.interval(m.confidence());
                if (k > 0) sb.append(',');
                sb.append('{');
                field(sb, "path", lane.label()).append(',');
                sb.append("\"runs\":").append(s == null ? 0 : s.runs().size());
                sb.append(",\"median\":").append(lane.measured() ? number(s.median()) : "null");
                sb.append(",\"values\":");
                numbers(sb, s == null ? List.of() : s.values());
                sb.append(",\"ci\":");
                if (ci == null) {
                    sb.append("null");
                } else {
                    sb.append("{\"level\":").append(m.confidence().levelPercent())
                            .append(",\"mean\":").append(number(ci.mean()))
                            .append(",\"half_width\":").append(number(ci.halfWidth()))
                            .append(",\"width_percent\":").append(number(ci.widthPercent())).append('}');
                }
                sb.append(",\"ci_met\":").append(ci != null && m.confidence().isMet(ci));
                sb.append(",\"ratio\":");
                if (k == 0) {
                    sb.append("null");
                } else {
                    sb.append("{\"median\":").append(number(m.ratioMedian(k)))
                            .append(",\"min\":").append(number(m.ratioMin(k)))
                            .append(",\"max\":").append(number(m.ratioMax(k)))
                            .append(",\"values\":");
                    numbers(sb, m.ratios(k));
                    sb.append('}');
                }
                sb.append(",\"not_applicable\":").append(lane.notApplicable() == null ? "null" : quote(lane.notApplicable()));
                flows(sb, FlowSummary.of(s));
                sb.append('}');
            }
            sb.append(']');
            if (friends) {
                sb.append(",\"table\":{");
                boolean firstValue = true;
                for (java.util.Map.Entry<String, Object> v : FriendsTable.values(m).entrySet()) {
                    if (!firstValue) sb.append(',');
                    firstValue = false;
                    sb.append(quote(v.getKey())).append(':').append(value(v.getValue()));
                }
                sb.append('}');
            }
            sb.append(",\"notes\":");
            strings(sb, m.notes());
            sb.append(",\"failure\":").append(m.failure() == null ? "null" : quote(m.failure())).append('}');
        }
        sb.append("],\"busy_cores\":").append(busyCores);
        sb.append(",\"notes\":");
        strings(sb, result.notes());
        sb.append(",\"succeeded\":").append(result.succeeded()).append('}');
        out.println(sb);
    }

    private static void comparison(StringBuilder sb, Comparison c) {
        TestSpec s = c.spec();
        sb.append('{');
        field(sb, "test", s.kind().name()).append(',');
        field(sb, "path", c.path()).append(',');
        field(sb, "unit", s.kind().unit().label()).append(',');
        sb.append("\"length_s\":").append(number(s.durationSeconds())).append(',');
        sb.append("\"send_size\":").append(s.sendSize()).append(',');
        sb.append("\"recv_size\":").append(s.recvSize()).append(',');
        sb.append("\"request_size\":").append(s.requestSize()).append(',');
        sb.append("\"flows\":").append(s.flows()).append(',');
        field(sb, "udp", s.udp().label()).append(',');
        sb.append("\"response_size\":").append(s.responseSize()).append(',');
        sb.append("\"confidence\":{\"level\":").append(c.confidence().levelPercent())
                .append(",\"width_percent\":").append(number(c.confidence().widthPercent())).append("},");
        sb.append("\"stacks\":[");
        boolean first = true;
        for (Series series : c.measured()) {
            if (!first) sb.append(',');
            first = false;
            series(sb, series, series == c.candidate() ? "candidate" : "reference", c.confidence());
        }
        sb.append("],\"ratio\":{\"median\":").append(number(c.ratioMedian()))
                .append(",\"min\":").append(number(c.ratioMin()))
                .append(",\"max\":").append(number(c.ratioMax()))
                .append(",\"values\":");
        numbers(sb, c.ratios());
        sb.append("},\"notes\":");
        strings(sb, c.notes());
        sb.append(",\"failure\":").append(c.failure() == null ? "null" : quote(c.failure()));
        sb.append('}');
    }

    private static void series(StringBuilder sb, Series s, String role, Confidence confidence) {
        sb.append('{');
        field(sb, "stack", s.stack()).append(',');
        field(sb, "role", role).append(',');
        field(sb, "description", s.description()).append(',');
        sb.append("\"median\":").append(number(s.median())).append(',');
        sb.append("\"elapsed_s_median\":").append(number(s.medianElapsedSeconds())).append(',');
        sb.append("\"values\":");
        numbers(sb, s.values());
        sb.append(",\"warmup\":").append(s.warmup() == null ? "null" : number(s.warmup().value()));
        ConfidenceInterval ci = s.interval(confidence);
        sb.append(",\"ci\":");
        if (ci == null) {
            sb.append("null");
        } else {
            sb.append("{\"level\":").append(confidence.levelPercent())
                    .append(",\"mean\":").append(number(ci.mean()))
                    .append(",\"half_width\":").append(number(ci.halfWidth()))
                    .append(",\"width_percent\":").append(number(ci.widthPercent()))
                    .append(",\"met\":").append(confidence.isMet(ci)).append('}');
        }
        sb.append(",\"ci_met\":").append(ci != null && confidence.isMet(ci));
        LatencySummary l = s.latencySummary();
        sb.append(",\"latency_us\":");
        if (l == null) {
            sb.append("null");
        } else {
            sb.append("{\"min\":").append(number(l.min()))
                    .append(",\"p10\":").append(number(l.p10()))
                    .append(",\"p50\":").append(number(l.p50()))
                    .append(",\"mean\":").append(number(l.mean()))
                    .append(",\"p99\":").append(number(l.p99()))
                    .append(",\"max\":").append(number(l.max())).append('}');
        }
        SocketSizes z = s.sizes();
        sb.append(",\"socket_sizes\":{\"local_send\":").append(z.localSend())
                .append(",\"local_recv\":").append(z.localRecv())
                .append(",\"remote_send\":").append(z.remoteSend())
                .append(",\"remote_recv\":").append(z.remoteRecv()).append('}');
        DatagramSummary d = DatagramSummary.of(s);
        if (d != null) {
            sb.append(",\"udp_stream\":{\"send_median\":").append(number(d.sendMedian()))
                    .append(",\"send_elapsed_s_median\":").append(number(d.sendElapsedMedian()))
                    .append(",\"send_values\":");
            numbers(sb, s.runs().stream().map(RunResult::sendValue).toList());
            sb.append(",\"messages_sent\":").append(d.sent())
                    .append(",\"send_errors\":").append(d.errors())
                    .append(",\"messages_received\":").append(d.received())
                    .append(",\"loss_percent\":").append(number(d.lossPercent())).append('}');
        }
        flows(sb, FlowSummary.of(s));
        sb.append('}');
    }

    /**
     * The series' {@code flows} object ({@link FlowSummary}): flows, flows seen, setup time and the lookup
     * counts, {@code lookups} null on a stack without counters; then {@code threads}, {@code allocator} (null on
     * the kernel) and {@code allocation} (summed over the runs: transactions, heap bytes, allocator lock entries
     * and contended ones, and each per transaction; null when not counted, lock entries null on the kernel);
     * nothing when the series has no runs.
     */
    private static void flows(StringBuilder sb, FlowSummary f) {
        if (f == null) return;
        sb.append(",\"flows\":{\"flows\":").append(f.flows())
                .append(",\"flows_seen\":").append(f.flowsSeen() < 0 ? "null" : Long.toString(f.flowsSeen()))
                .append(",\"setup_s\":").append(number(f.setupSeconds()));
        LookupCounts lk = f.lookups();
        if (lk == null || lk.packets() <= 0) {
            sb.append(",\"lookups\":null");
        } else {
            sb.append(",\"lookups\":{\"packets_received\":").append(lk.packets())
                    .append(",\"socket_lookups\":").append(lk.socketLookups())
                    .append(",\"route_lookups\":").append(lk.routeLookups())
                    .append(",\"early_demux_hits\":").append(lk.hits())
                    .append(",\"early_demux_misses\":").append(lk.misses())
                    .append(",\"lookups_per_packet\":").append(number(lk.lookupsPerPacket()))
                    .append(",\"socket_lookups_per_packet\":").append(number(lk.socketPerPacket()))
                    .append(",\"route_lookups_per_packet\":").append(number(lk.routePerPacket()))
                    .append(",\"demux_hits_per_packet\":").append(number(lk.hitsPerPacket()))
                    .append(",\"demux_misses_per_packet\":").append(number(lk.missesPerPacket())).append('}');
        }
        sb.append(",\"threads\":").append(f.threads())
                .append(",\"allocator\":").append(f.allocator() == null ? "null" : quote(f.allocator()));
        AllocationCounts a = f.allocation();
        if (a == null) {
            sb.append(",\"allocation\":null}");
        } else {
            sb.append(",\"allocation\":{\"transactions\":").append(f.transactions())
                    .append(",\"allocated_bytes\":").append(count(a.allocatedBytes()))
                    .append(",\"lock_entries\":").append(count(a.lockEntries()))
                    .append(",\"contended_lock_entries\":").append(count(a.contended()))
                    .append(",\"bytes_per_transaction\":").append(number(f.bytesPerTransaction()))
                    .append(",\"lock_entries_per_transaction\":").append(number(f.lockEntriesPerTransaction()))
                    .append(",\"contended_lock_entries_per_transaction\":").append(number(f.contendedPerTransaction()))
                    .append("}}");
        }
    }

    /** A count, or null when it was not counted (negative). */
    private static String count(long n) { return n < 0 ? "null" : Long.toString(n); }

    static StringBuilder field(StringBuilder sb, String name, String value) {
        return sb.append(quote(name)).append(':').append(quote(value));
    }

    static void numbers(StringBuilder sb, List<Double> values) {
        sb.append('[');
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) sb.append(',');
            sb.append(number(values.get(i)));
        }
        sb.append(']');
    }

    static void strings(StringBuilder sb, List<String> values) {
        sb.append('[');
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) sb.append(',');
            sb.append(quote(values.get(i)));
        }
        sb.append(']');
    }

    /** A number, boolean or string as JSON; {@code null} for null. */
    private static String value(Object v) {
        if (v == null) return "null";
        if (v instanceof Double d) return number(d);
        if (v instanceof Boolean b) return b.toString();
        return quote(v.toString());
    }

    /** A JSON number, or {@code null} for NaN and infinities (which JSON cannot hold). */
    static String number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return "null";
        if (v == Math.rint(v) && Math.abs(v) < 1e15) return String.format(Locale.ROOT, "%.1f", v);
        return Double.toString(v);
    }

    /** A JSON string literal with RFC 8259 escapes. */
    static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (ch < 0x20) sb.append(String.format("\\u%04x", (int) ch));
                    else sb.append(ch);
                }
            }
        }
        return sb.append('"').toString();
    }
}
