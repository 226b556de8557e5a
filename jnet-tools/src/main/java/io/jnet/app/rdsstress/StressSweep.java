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
 * request of the run (microseconds). With several rounds each cell holds a run per round and gives the median
 * over the rounds of each figure; {@link #order} rotates the configurations from round to round so that none
 * is always measured first. Runs are added as they finish; {@link #table} prints the figures as text and
 * {@link #charts} draws the medians against the request size for {@link io.jnet.perf.plot.SizePlot}.
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

    /**
     * A cell's figures: messages/s (median per-second tx/s of a run) and mean rtt in microseconds, each the median
     * over the rounds that ran; {@code ok} is false when any of those runs' verdict failed.
     */
    public record Cell(double txPerSec, double rttMeanUs, boolean ok) {}

    private final List<Integer> sizes;
    private final List<Configuration> configurations;
    private final int rounds;
    /** Per cell, a run per round (null where it did not run). */
    private final Map<String, Cell[]> runs = new LinkedHashMap<>();

    /** A sweep of one round. */
    public StressSweep(List<Integer> sizes, List<Configuration> configurations) {
        this(sizes, configurations, 1);
    }

    /** @throws IllegalArgumentException without sizes or configurations, or for {@code rounds < 1} */
    public StressSweep(List<Integer> sizes, List<Configuration> configurations, int rounds) {
        if (sizes.isEmpty() || configurations.isEmpty()) throw new IllegalArgumentException("a sweep needs sizes and configurations");
        if (rounds < 1) throw new IllegalArgumentException("a sweep needs at least one round: " + rounds);
        this.sizes = List.copyOf(sizes);
        this.configurations = List.copyOf(configurations);
        this.rounds = rounds;
    }

    public List<Integer> sizes() { return sizes; }

    public List<Configuration> configurations() { return configurations; }

    public int rounds() { return rounds; }

    /**
     * The order of the configurations in round {@code round} (from 0): starting at configuration
     * {@code round mod k} of the k and going round, so that over k rounds each configuration runs first once.
     */
    public List<Configuration> order(int round) {
        int k = configurations.size();
        List<Configuration> o = new ArrayList<>(k);
        for (int i = 0; i < k; i++) o.add(configurations.get(Math.floorMod(round + i, k)));
        return o;
    }

    /** Records the run of {@code size} bytes under {@code configuration} in the first round. */
    public void add(int size, Configuration configuration, StressResult r) {
        add(size, configuration, 0, r);
    }

    /**
     * Records the run of {@code size} bytes under {@code configuration} in round {@code round} (from 0).
     *
     * @throws IllegalArgumentException for a round outside 0 to rounds - 1
     */
    public void add(int size, Configuration configuration, int round, StressResult r) {
        if (round < 0 || round >= rounds) throw new IllegalArgumentException("round " + round + " of " + rounds);
        runs.computeIfAbsent(key(size, configuration), k -> new Cell[rounds])[round] =
                new Cell(r.median().txPerSec(), r.average().rttMeanUs(), r.ok());
    }

    /** The runs of a cell, one per round in round order, null for a round that did not run. */
    public List<Cell> runs(int size, Configuration configuration) {
        Cell[] c = runs.get(key(size, configuration));
        return c == null ? java.util.Collections.nCopies(rounds, null) : java.util.Arrays.asList(c.clone());
    }

    /**
     * A cell's figures: the medians over its rounds of messages/s and of the mean rtt, marked failed when any of
     * its runs failed; null when no round ran.
     */
    public Cell cell(int size, Configuration configuration) {
        List<Cell> done = runs(size, configuration).stream().filter(java.util.Objects::nonNull).toList();
        if (done.isEmpty()) return null;
        return new Cell(median(done.stream().mapToDouble(Cell::txPerSec).toArray()),
                median(done.stream().mapToDouble(Cell::rttMeanUs).toArray()), done.stream().allMatch(Cell::ok));
    }

    /** The median of {@code values}: the middle one, or the mean of the two middle ones for an even count. */
    static double median(double[] values) {
        if (values.length == 0) throw new IllegalArgumentException("no values");
        double[] v = values.clone();
        java.util.Arrays.sort(v);
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    }

    private static String key(int size, Configuration c) { return size + "/" + c.name(); }

    /**
     * The figures as text: a block per figure (messages/s, rtt, and with more than one round messages/s per
     * round: the median then each round's figure in brackets), a row per size, a column per configuration; "-"
     * for a missing run, "*" after a figure whose run (any of its runs, for a median) failed.
     */
    public String table() {
        StringBuilder b = new StringBuilder();
        String over = rounds > 1 ? ", median of " + rounds + " rounds" : "";
        block(b, "messages/s (median of the per-second tx/s" + over + ")", (s, c) -> {
            Cell cell = cell(s, c);
            return cell == null ? "-" : rate(cell);
        });
        b.append('\n');
        block(b, "rtt us (mean over every request" + over + ")", (s, c) -> {
            Cell cell = cell(s, c);
            return cell == null ? "-" : String.format(Locale.ROOT, "%.1f", cell.rttMeanUs()) + (cell.ok() ? "" : "*");
        });
        if (rounds > 1) {
            b.append('\n');
            block(b, "messages/s per round (median [round 1 .. " + rounds + "])", (s, c) -> {
                Cell cell = cell(s, c);
                StringBuilder v = new StringBuilder(cell == null ? "-" : rate(cell)).append(" [");
                List<Cell> rs = runs(s, c);
                for (int i = 0; i < rs.size(); i++) {
                    if (i > 0) v.append(' ');
                    v.append(rs.get(i) == null ? "-" : rate(rs.get(i)));
                }
                return v.append(']').toString();
            });
        }
        boolean failed = runs.values().stream().flatMap(java.util.Arrays::stream)
                .anyMatch(c -> c != null && !c.ok());
        if (failed) b.append("\n* the run's verdict failed (see its report above)\n");
        return b.toString();
    }

    private static String rate(Cell c) {
        return String.format(Locale.ROOT, "%.0f", c.txPerSec()) + (c.ok() ? "" : "*");
    }

    private void block(StringBuilder b, String title, java.util.function.BiFunction<Integer, Configuration, String> text) {
        b.append(title).append('\n');
        List<Integer> width = new ArrayList<>();
        for (Configuration c : configurations) {
            int w = Math.max(20, c.name().length());
            for (int size : sizes) w = Math.max(w, text.apply(size, c).length());
            width.add(w);
        }
        b.append(String.format(Locale.ROOT, "%10s", "req bytes"));
        for (int i = 0; i < configurations.size(); i++) {
            b.append(' ').append(pad(configurations.get(i).name(), width.get(i)));
        }
        b.append('\n');
        for (int size : sizes) {
            b.append(String.format(Locale.ROOT, "%10d", size));
            for (int i = 0; i < configurations.size(); i++) {
                b.append(' ').append(pad(text.apply(size, configurations.get(i)), width.get(i)));
            }
            b.append('\n');
        }
    }

    private static String pad(String s, int width) {
        return " ".repeat(Math.max(0, width - s.length())) + s;
    }

    /**
     * Two charts for SizePlot, titled {@code TITLE messages} (messages/s) and {@code TITLE rtt} (microseconds),
     * against the request size, a line per configuration, the medians over the rounds; a cell with no run is a gap.
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
