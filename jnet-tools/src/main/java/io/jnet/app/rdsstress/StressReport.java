package io.jnet.app.rdsstress;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * rds-stress's report in one of three formats.
 *
 * <p>Text: the column heads, a line per second as it is measured ({@link StressLine#HEADER}), then a rule, the
 * summary's {@code avg} line (mean of each rate column; rtt over every request of the run) and {@code med} line
 * (median of each column), the verdict, the pairs that failed (every pair with -v) and the problems.
 *
 * <p>CSV: a header row {@code row,tsks,tx_per_s,rx_per_s,txrx_kib_per_s,mbi_kib_per_s,mbo_kib_per_s,rtt_us,
 * p99_us,lost,duplicated,reordered,corrupt,verdict}, a row per second ({@code row} 1, 2, ...; the verdict columns
 * empty), then the rows {@code avg} and {@code med} with the verdict columns (PASS or FAIL). Empty cells for rtts
 * not measured.
 *
 * <p>JSON: one document at the end: {@code {"command":"rds-stress","role":...,"config":{...},"lines":[{...}],
 * "average":{...},"median":{...},"rtt_us":{"count","p50","max"},"verdict":{"ok","lost","duplicated","reordered",
 * "corrupt","messages_checked","pairs":[{...}]},"problems":[...]}}}; rates per second, KiB of 1024 bytes,
 * {@code null} for rtts not measured.
 */
public final class StressReport {
    /** The report formats. */
    public enum Format { TEXT, CSV, JSON }

    static final String CSV_HEADER = "row,tsks,tx_per_s,rx_per_s,txrx_kib_per_s,mbi_kib_per_s,mbo_kib_per_s,rtt_us,"
            + "p99_us,lost,duplicated,reordered,corrupt,verdict";

    private final PrintStream out;
    private final Format format;
    private final boolean verbose;
    private int rows;

    public StressReport(PrintStream out, Format format, boolean verbose) {
        this.out = out;
        this.format = format;
        this.verbose = verbose;
    }

    /** Before the first line: the column heads (text, CSV); {@code banner} first in text. */
    public void begin(String banner) {
        switch (format) {
            case TEXT -> {
                if (banner != null) out.println(banner);
                out.println(StressLine.HEADER);
            }
            case CSV -> out.println(CSV_HEADER);
            case JSON -> { }
        }
        out.flush();
    }

    /** One second's line, and with -v its per-task lines (text only). */
    public void line(StressLine line, List<String> taskLines) {
        rows++;
        switch (format) {
            case TEXT -> {
                out.println(line.format());
                for (String t : taskLines) out.println(t);
            }
            case CSV -> out.println(rows + "," + csv(line) + ",,,,,");
            case JSON -> { }
        }
        out.flush();
    }

    /** The summary and verdict; {@code config} describes the run in JSON. */
    public void end(StressResult r, StressConfig config, String mode) {
        switch (format) {
            case TEXT -> text(r);
            case CSV -> {
                String v = r.lost() + "," + r.duplicated() + "," + r.reordered() + "," + r.corrupt() + ","
                        + (r.ok() ? "PASS" : "FAIL");
                out.println("avg," + csv(r.average()) + "," + v);
                out.println("med," + csv(r.median()) + "," + v);
            }
            case JSON -> out.println(json(r, config, mode));
        }
        out.flush();
    }

    private void text(StressResult r) {
        out.println("-".repeat(StressLine.HEADER.length()));
        out.println(r.average().format() + "  avg");
        out.println(r.median().format() + "  med");
        if (r.rttCount() > 0) {
            out.println(String.format(Locale.ROOT, "rtt: %d requests, mean %.2f us, p50 %.2f us, p99 %.2f us, max %.2f us",
                    r.rttCount(), r.average().rttMeanUs(), r.rttP50Us(), r.average().rttP99Us(), r.rttMaxUs()));
        }
        out.println(r.verdictLine());
        for (PairResult p : r.pairs()) if (verbose || !p.ok()) out.println("  " + p.describe());
        for (String p : r.problems()) out.println("  problem: " + p);
    }

    /** Lines printed after the verdict in text with -v only (e.g. the namespaces' RDS counters). */
    public void verboseNotes(List<String> lines) {
        if (format != Format.TEXT || !verbose) return;
        for (String l : lines) out.println(l);
        out.flush();
    }

    static String csv(StressLine l) {
        return String.format(Locale.ROOT, "%d,%.1f,%.1f,%.2f,%.2f,%.2f,%s,%s", l.tasks(), l.txPerSec(), l.rxPerSec(),
                l.kibPerSec(), l.kibInPerSec(), l.kibOutPerSec(), num(l.rttMeanUs(), ""), num(l.rttP99Us(), ""));
    }

    private static String num(double v, String none) {
        return Double.isNaN(v) ? none : String.format(Locale.ROOT, "%.2f", v);
    }

    static String json(StressResult r, StressConfig c, String mode) {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"command\":\"rds-stress\",\"role\":").append(str(r.role())).append(",\"mode\":").append(str(mode));
        sb.append(",\"config\":{\"req_bytes\":").append(c.reqBytes()).append(",\"ack_bytes\":").append(c.ackBytes())
                .append(",\"tasks\":").append(c.tasks()).append(",\"depth\":").append(c.depth())
                .append(",\"seconds\":").append(c.seconds()).append(",\"one_way\":").append(c.oneWay())
                .append(",\"port\":").append(c.port()).append('}');
        sb.append(",\"lines\":[");
        for (int i = 0; i < r.lines().size(); i++) {
            if (i > 0) sb.append(',');
            line(sb, r.lines().get(i));
        }
        sb.append("],\"average\":");
        line(sb, r.average());
        sb.append(",\"median\":");
        line(sb, r.median());
        sb.append(",\"rtt_us\":{\"count\":").append(r.rttCount()).append(",\"p50\":").append(num(r.rttP50Us(), "null"))
                .append(",\"max\":").append(num(r.rttMaxUs(), "null")).append('}');
        sb.append(",\"verdict\":{\"ok\":").append(r.ok()).append(",\"messages_checked\":").append(r.messagesChecked())
                .append(",\"lost\":").append(r.lost()).append(",\"duplicated\":").append(r.duplicated())
                .append(",\"reordered\":").append(r.reordered()).append(",\"corrupt\":").append(r.corrupt())
                .append(",\"pairs\":[");
        for (int i = 0; i < r.pairs().size(); i++) {
            PairResult p = r.pairs().get(i);
            if (i > 0) sb.append(',');
            sb.append("{\"sender\":").append(str(p.sender())).append(",\"receiver\":").append(str(p.receiver()))
                    .append(",\"what\":").append(str(p.what())).append(",\"sent\":").append(p.sent())
                    .append(",\"received\":").append(p.received()).append(",\"lost\":").append(p.lost())
                    .append(",\"duplicated\":").append(p.duplicated()).append(",\"reordered\":").append(p.reordered())
                    .append(",\"corrupt\":").append(p.corrupt()).append(",\"ok\":").append(p.ok()).append('}');
        }
        sb.append("]},\"problems\":[");
        for (int i = 0; i < r.problems().size(); i++) {
            if (i > 0) sb.append(',');
            sb.append(str(r.problems().get(i)));
        }
        return sb.append("]}").toString();
    }

    private static void line(StringBuilder sb, StressLine l) {
        sb.append(String.format(Locale.ROOT, "{\"tsks\":%d,\"tx_per_s\":%.1f,\"rx_per_s\":%.1f,\"txrx_kib_per_s\":%.2f,"
                        + "\"mbi_kib_per_s\":%.2f,\"mbo_kib_per_s\":%.2f,\"rtt_us\":%s,\"p99_us\":%s}", l.tasks(),
                l.txPerSec(), l.rxPerSec(), l.kibPerSec(), l.kibInPerSec(), l.kibOutPerSec(), num(l.rttMeanUs(), "null"),
                num(l.rttP99Us(), "null")));
    }

    static String str(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                default -> {
                    if (ch < 0x20) sb.append(String.format("\\u%04x", (int) ch));
                    else sb.append(ch);
                }
            }
        }
        return sb.append('"').toString();
    }
}
