package io.jnet.perf.plot;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One path's figures against message size: one line of a {@link SizeChart}, named in its legend.
 *
 * @param path   the path's name as the legend shows it, e.g. {@code jnet-loopback} or {@code kernel}; not blank
 * @param points the measurements, in any order (drawn in order of size); at most one per size
 */
public record Line(String path, List<Point> points) {

    /** @throws IllegalArgumentException for a blank name or two points of the same size */
    public Line {
        Objects.requireNonNull(path, "path");
        if (path.isBlank()) throw new IllegalArgumentException("a line needs a path name");
        points = List.copyOf(points);
        Set<Long> sizes = new HashSet<>();
        for (Point p : points) {
            if (!sizes.add(p.sizeBytes())) {
                throw new IllegalArgumentException("line " + path + " has two points at " + p.sizeBytes() + " bytes");
            }
        }
    }

    /** The points that are drawn (finite values), in the given order. */
    public List<Point> drawnPoints() {
        return points.stream().filter(Point::drawn).toList();
    }
}
