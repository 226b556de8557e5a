package io.jnet.perf.plot;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What one chart shows: one test's figure against message size, one {@link Line} per path.
 *
 * @param test  the test's name, the chart's title and the suffix of its file when several charts are written,
 *              e.g. {@code TCP_STREAM}; not blank
 * @param unit  the y axis label, the figure's unit, e.g. {@code 10^6 bits/s} or {@code transactions/s}; not blank
 * @param lines one per path, at least one, with distinct path names (legend order)
 */
public record SizeChart(String test, String unit, List<Line> lines) {

    /** @throws IllegalArgumentException for a blank test or unit, no lines, or two lines of one path */
    public SizeChart {
        Objects.requireNonNull(test, "test");
        Objects.requireNonNull(unit, "unit");
        if (test.isBlank()) throw new IllegalArgumentException("a chart needs a test name");
        if (unit.isBlank()) throw new IllegalArgumentException("chart " + test + " needs a unit");
        lines = List.copyOf(lines);
        if (lines.isEmpty()) throw new IllegalArgumentException("chart " + test + " has no lines");
        Set<String> paths = new HashSet<>();
        for (Line l : lines) {
            if (!paths.add(l.path())) throw new IllegalArgumentException("chart " + test + " has two lines for " + l.path());
        }
    }
}
