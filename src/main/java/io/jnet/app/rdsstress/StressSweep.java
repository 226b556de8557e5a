package io.jnet.app.rdsstress;

import io.jnet.perf.plot.Line;
import io.jnet.perf.plot.Point;
import io.jnet.perf.plot.SizeChart;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of an rds-stress sweep: for each request size (rows) and configuration (columns), the median of
 * the per-second request rates (tx/s of the active side, messages per second) and the mean round trip over every
 * request of the run (microseconds). Runs are added as they finish; {@link #table} prints both figures as text
 * and {@link #charts} draws them against the request size for {@link io.jnet.perf.plot.SizePlot}.
 */
public final class StressSweep {
    /**
     * A named set of sysctls a sweep compares: {@code defaults} (none), {@code pinned} (rds_tcp_sndbuf and
     * rds_tcp_rcvbuf 131072, the 128 KiB Linux pinned before 4.4), {@code no-msg-more}
     * (net.rds.tcp.jnet_msg_more=0), {@code pinned-no-msg-more} (both).
     */
    public record Configuration(String name, Map<String, String> sysctls) {
        public static final List<String> NAMES = List.of("defaults", "pinned", "no-msg-more", "pinned-no-msg-more");

        /** @throws IllegalArgumentException for a name not in {@link #NAMES} */
        public static Configuration of(String name) {
            Map<String, String> s = new LinkedHashMap<>();
            switch (name) {
                case "defaults" -> { }
                case "pinned" -> pin(s);
                case "no-msg-more" -> s.put("net.rds.tcp.jnet_msg_more", "0");
                case "pinned-no-msg-more" -> {
                    pin(s);
                    s.put("net.rds.tcp.jnet_msg_more", "0");
                }
                default -> throw new IllegalArgumentException("unknown configuration " + name + " (known: "
                        + String.join(", ", NAMES) + ")");
            }
            return new Configuration(name, Map.copyOf(s));
        }

        private static void pin(Map<String, String> s) {
            s.put("net.rds.tcp.rds_tcp_sndbuf", "131072");
            s.put("net.rds.tcp.rds_tcp_rcvbuf", "131072");
        }
    }

    /** One run's figures: messages/s (median per-second tx/s), mean rtt in microseconds, and its verdict. */
    public record Cell(double txPerSec, double rttMeanUs, boolean ok) {}

    private final List<Integer> sizes;
    private final List<Configuration> configurations;
    private final Map<String, Cell> cells = new LinkedHashMap<>();

    public StressSweep(List<Integer> sizes, List<Configuration> configurations) {
        if (sizes.isEmpty() || configurations.isEmpty()) throw new IllegalArgumentException("a sweep needs sizes and configurations");
        this.sizes = List.copyOf(sizes);
        this.configurations = List.copyOf(configurations);
    }

    public List<Integer> sizes() { return sizes; }

    public List<Configuration> configurations() { return configurations; }

    /** Records the run of {@code size} bytes under {@code configuration}. */
    public void add(int size, Configuration configuration, StressResult r) {
        cells.put(key(size, configuration), new Cell(r.median().txPerSec(), r.average().rttMeanUs(), r.ok()));
    }

    /** The cell of a run, or null when it has not run. */
    public Cell cell(int size, Configuration configuration) { return cells.get(key(size, configuration)); }

    private static String key(int size, Configuration c) { return size + "/" + c.name(); }

    /** Both figures as text: a block per figure, a row per size, a column per configuration; "-" for a missing run. */
    public String table() {
        StringBuilder b = new StringBuilder();
        block(b, "messages/s (median of the per-second tx/s)", true);
        b.append('\n');
        block(b, "rtt us (mean over every request)", false);
        boolean failed = cells.values().stream().anyMatch(c -> !c.ok());
        if (failed) b.append("\n* the run's verdict failed (see its report above)\n");
        return b.toString();
    }

    private void block(StringBuilder b, String title, boolean rate) {
        b.append(title).append('\n');
        b.append(String.format(Locale.ROOT, "%10s", "req bytes"));
        for (Configuration c : configurations) b.append(String.format(Locale.ROOT, " %20s", c.name()));
        b.append('\n');
        for (int size : sizes) {
            b.append(String.format(Locale.ROOT, "%10d", size));
            for (Configuration c : configurations) {
                Cell cell = cell(size, c);
                String v = cell == null ? "-" : String.format(Locale.ROOT, rate ? "%.0f" : "%.1f",
                        rate ? cell.txPerSec() : cell.rttMeanUs()) + (cell.ok() ? "" : "*");
                b.append(String.format(Locale.ROOT, " %20s", v));
            }
            b.append('\n');
        }
    }

    /**
     * Two charts for SizePlot, titled {@code TITLE messages} (messages/s) and {@code TITLE rtt} (microseconds),
     * against the request size, a line per configuration; a run missing is a gap.
     */
    public List<SizeChart> charts(String title) {
        List<Line> rate = new ArrayList<>();
        List<Line> rtt = new ArrayList<>();
        for (Configuration c : configurations) {
            List<Point> rp = new ArrayList<>();
            List<Point> tp = new ArrayList<>();
            for (int size : sizes) {
                Cell cell = cell(size, c);
                rp.add(new Point(size, cell == null ? Double.NaN : cell.txPerSec()));
                tp.add(new Point(size, cell == null ? Double.NaN : cell.rttMeanUs()));
            }
            rate.add(new Line(c.name(), rp));
            rtt.add(new Line(c.name(), tp));
        }
        return List.of(new SizeChart(title + " messages", "messages/s", rate),
                new SizeChart(title + " rtt", "rtt us", rtt));
    }
}
