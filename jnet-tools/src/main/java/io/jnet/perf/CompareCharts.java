package io.jnet.perf;

import io.jnet.perf.plot.Line;
import io.jnet.perf.plot.Point;
import io.jnet.perf.plot.SizeChart;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a {@code --compare} result into {@link SizeChart}s for {@link io.jnet.perf.plot.SizePlot}: one chart
 * per test, one line per path, one point per size at the path's median (the figure the table prints). A
 * path that did not run at a size (not applicable, failed) has no point there. A friends comparison
 * ({@link FriendsTable}) draws the table's paths in its column order, named by heading and id, e.g.
 * {@code BASE (jnet:loopback)}.
 */
public final class CompareCharts {

    private CompareCharts() {}

    /** The charts of {@code result}, in the order the tests ran. */
    public static List<SizeChart> of(CompareResult result) {
        Map<TestKind, List<Measurement>> byTest = new LinkedHashMap<>();
        for (Measurement m : result.measurements()) byTest.computeIfAbsent(m.spec().kind(), k -> new ArrayList<>()).add(m);
        List<SizeChart> charts = new ArrayList<>();
        for (Map.Entry<TestKind, List<Measurement>> e : byTest.entrySet()) {
            Map<String, List<Point>> lines = new LinkedHashMap<>();
            for (Measurement m : e.getValue()) {
                long size = sizeOf(m);
                for (Measurement.LaneResult lane : m.lanes()) {
                    List<Point> points = lines.computeIfAbsent(lane.label(), k -> new ArrayList<>());
                    if (lane.measured()) points.add(new Point(size, lane.series().median()));
                }
            }
            List<Line> out = new ArrayList<>();
            if (result.plan().friendsTable()) {
                for (FriendsTable.PathColumn c : FriendsTable.PathColumn.values()) {
                    List<Point> points = lines.get(c.id());
                    if (points != null) out.add(new Line(c.heading() + " (" + c.id() + ")", points));
                }
            } else {
                lines.forEach((path, points) -> out.add(new Line(path, points)));
            }
            TestKind kind = e.getKey();
            charts.add(new SizeChart(kind.name(), kind.unit().label(), out));
        }
        return charts;
    }

    /** The swept size in bytes, or the spec's message size outside a sweep. */
    private static long sizeOf(Measurement m) {
        if (m.size() >= 0) return m.size();
        TestSpec s = m.spec();
        return s.kind().isStream() ? s.sendSize() : s.requestSize();
    }
}
