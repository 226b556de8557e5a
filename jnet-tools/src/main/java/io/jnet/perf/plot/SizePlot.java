package io.jnet.perf.plot;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Paint;
import java.awt.Rectangle;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartRenderingInfo;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

/**
 * Writes size charts ({@link SizeChart}): a figure (10^6 bits/s, transactions/s...) against message size,
 * one line with markers per path, the x axis logarithmic in base 2 with ticks at powers of two labelled
 * {@code B}/{@code KiB}/{@code MiB}, the y axis from zero labelled with the unit, the test as title and the
 * paths in a legend below. Points whose value is NaN or infinite (size not applicable, run failed) are left
 * out; a line with none left stays in the legend.
 *
 * <p>The format follows the file's extension, case-insensitively: {@code .png} (a {@value #WIDTH}x{@value #HEIGHT}
 * PNG) or {@code .svg} (SVG 1.1 from JFreeSVG, UTF-8, each line one stroked {@code <path>}, title and
 * legend as {@code <text>}, axis labels as outlines).
 * Several charts go to one file each (see {@link #write(Path, List)}), not stacked subplots: each test
 * keeps its own unit and size range and stays readable.
 *
 * <p>Rendering needs no display: the class sets {@code java.awt.headless=true} unless it was set.
 */
public final class SizePlot {

    /** Image width in pixels (PNG) or user units (SVG). */
    public static final int WIDTH = 900;
    /** Image height in pixels (PNG) or user units (SVG). */
    public static final int HEIGHT = 560;

    /** Line colours, in series order (repeated past the eighth line). */
    static final List<Color> PALETTE = List.of(
            new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
            new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf));

    static {
        if (System.getProperty("java.awt.headless") == null) System.setProperty("java.awt.headless", "true");
    }

    private SizePlot() {}

    /** An output format, chosen by file extension. */
    public enum Format {
        PNG, SVG;

        /**
         * The format of {@code file} by its extension.
         *
         * @throws IllegalArgumentException when the name ends in neither {@code .png} nor {@code .svg}
         */
        public static Format of(Path file) {
            String name = String.valueOf(Objects.requireNonNull(file, "file").getFileName()).toLowerCase(Locale.ROOT);
            if (name.endsWith(".png") && name.length() > 4) return PNG;
            if (name.endsWith(".svg") && name.length() > 4) return SVG;
            throw new IllegalArgumentException("plot file must end in .png or .svg: " + file);
        }

        /** The extension with its dot, lower case. */
        String extension() {
            return "." + name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Writes {@code chart} to exactly {@code file}, replacing it.
     *
     * @throws IllegalArgumentException for an extension other than {@code .png} or {@code .svg}
     * @throws IOException when the file cannot be written (e.g. its folder does not exist)
     */
    public static void write(Path file, SizeChart chart) throws IOException {
        Format format = Format.of(file);
        JFreeChart c = chart(Objects.requireNonNull(chart, "chart"));
        switch (format) {
            case PNG -> writePng(file, c);
            case SVG -> writeSvg(file, c);
        }
    }

    /**
     * Writes each chart to its own file: one chart to {@code file} itself, several to {@code FILE-TEST.EXT}
     * beside it (e.g. {@code out.png} gives {@code out-TCP_STREAM.png} and {@code out-TCP_RR.png}; characters
     * other than letters, digits, {@code .}, {@code _} and {@code -} in the test name become {@code _}).
     *
     * @return the files written, in the order of {@code charts}
     * @throws IllegalArgumentException for an extension other than {@code .png} or {@code .svg}, no charts, or
     *                                  two charts that would share a file
     * @throws IOException when a file cannot be written
     */
    public static List<Path> write(Path file, List<SizeChart> charts) throws IOException {
        Format.of(file);
        if (charts.isEmpty()) throw new IllegalArgumentException("no charts to write to " + file);
        List<Path> files = new ArrayList<>();
        if (charts.size() == 1) {
            files.add(file);
        } else {
            Set<Path> seen = new HashSet<>();
            for (SizeChart c : charts) {
                Path f = fileFor(file, c.test());
                if (!seen.add(f)) throw new IllegalArgumentException("two charts would be written to " + f);
                files.add(f);
            }
        }
        for (int i = 0; i < charts.size(); i++) write(files.get(i), charts.get(i));
        return List.copyOf(files);
    }

    /**
     * {@code file} with {@code -TEST} before its extension, e.g. {@code out.svg} and {@code TCP_RR} give
     * {@code out-TCP_RR.svg}.
     *
     * @throws IllegalArgumentException for an extension other than {@code .png} or {@code .svg}
     */
    public static Path fileFor(Path file, String test) {
        Format.of(file);
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String suffix = "-" + test.replaceAll("[^A-Za-z0-9._-]", "_");
        return file.resolveSibling(name.substring(0, dot) + suffix + name.substring(dot));
    }

    /**
     * The chart object: an {@link XYPlot} over an {@link XYSeriesCollection} with one series per line, keyed by
     * path name, in line order, holding the drawn points (size in bytes, value).
     */
    static JFreeChart chart(SizeChart data) {
        XYSeriesCollection dataset = new XYSeriesCollection();
        for (Line line : data.lines()) {
            XYSeries series = new XYSeries(line.path(), true, false);
            for (Point p : line.drawnPoints()) series.add(p.sizeBytes(), p.value());
            dataset.addSeries(series);
        }

        LogAxis x = new LogAxis("message size");
        x.setBase(2);
        x.setNumberFormatOverride(new ByteSizeFormat());
        x.setMinorTickMarksVisible(false);
        sizeRange(x, data);

        NumberAxis y = new NumberAxis(data.unit());
        y.setAutoRangeIncludesZero(true);

        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        renderer.setDrawSeriesLineAsPath(true); // one stroked path per line, not one segment per pair of points
        for (int i = 0; i < data.lines().size(); i++) {
            renderer.setSeriesPaint(i, PALETTE.get(i % PALETTE.size()));
            renderer.setSeriesStroke(i, new BasicStroke(2.5f));
        }

        XYPlot plot = new XYPlot(dataset, x, y, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xdddddd));
        plot.setRangeGridlinePaint(new Color(0xdddddd));
        plot.setDomainGridlineStroke(new BasicStroke(1f));
        plot.setRangeGridlineStroke(new BasicStroke(1f));
        plot.setOutlinePaint(Color.GRAY);

        JFreeChart chart = new JFreeChart(data.test(), new Font(Font.SANS_SERIF, Font.BOLD, 16), plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        chart.setPadding(new RectangleInsets(4, 4, 4, 24)); // room for the last size label
        chart.setAntiAlias(true);
        chart.setTextAntiAlias(RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        LegendTitle legend = chart.getLegend();
        legend.setPosition(RectangleEdge.BOTTOM);
        legend.setFrame(org.jfree.chart.block.BlockBorder.NONE);
        return chart;
    }

    /** Most labelled ticks on the size axis: more would overlap at {@link #WIDTH}. */
    static final int MAX_SIZE_TICKS = 14;

    /**
     * Sets the size axis to the drawn sizes, 0.4 of a power of two beyond each end (at least one power of
     * two either side of a single size), with ticks at powers of two: every one, or every second, third...
     * so that at most {@link #MAX_SIZE_TICKS} are labelled. JFreeChart's own choice measures labels without
     * the byte format and lets them overlap.
     */
    private static void sizeRange(LogAxis x, SizeChart data) {
        long min = Long.MAX_VALUE;
        long max = 0;
        for (Line l : data.lines()) {
            for (Point p : l.drawnPoints()) {
                min = Math.min(min, p.sizeBytes());
                max = Math.max(max, p.sizeBytes());
            }
        }
        if (max == 0) {
            min = 1;
            max = 1024;
        }
        double lo = Math.log(min) / Math.log(2);
        double hi = Math.log(max) / Math.log(2);
        double margin = hi - lo < 1 ? 1 : 0.4;
        lo = lo - margin;
        hi = hi + margin;
        x.setRange(Math.pow(2, lo), Math.pow(2, hi));
        int powers = (int) Math.floor(hi) - (int) Math.ceil(lo) + 1;
        int step = Math.max(1, (powers + MAX_SIZE_TICKS - 1) / MAX_SIZE_TICKS);
        x.setTickUnit(new NumberTickUnit(step));
    }

    /** The colour of the {@code index}th line. */
    static Paint seriesPaint(JFreeChart chart, int index) {
        return chart.getXYPlot().getRenderer().getSeriesPaint(index);
    }

    /** Renders {@code chart} at {@link #WIDTH}x{@link #HEIGHT}, filling {@code info} (data area, entities) if given. */
    static BufferedImage render(JFreeChart chart, ChartRenderingInfo info) {
        return chart.createBufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB, info);
    }

    private static void writePng(Path file, JFreeChart chart) throws IOException {
        BufferedImage image = render(chart, null);
        try (OutputStream out = Files.newOutputStream(file)) {
            if (!ImageIO.write(image, "png", out)) throw new IOException("no PNG writer in this JDK");
        }
    }

    private static void writeSvg(Path file, JFreeChart chart) throws IOException {
        SVGGraphics2D g2 = new SVGGraphics2D(WIDTH, HEIGHT);
        chart.draw(g2, new Rectangle(0, 0, WIDTH, HEIGHT));
        Files.writeString(file, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + g2.getSVGElement() + "\n");
    }
}
