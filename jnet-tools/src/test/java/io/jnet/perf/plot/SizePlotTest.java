package io.jnet.perf.plot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.Color;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartRenderingInfo;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.data.xy.XYSeriesCollection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SizePlotTest {

    @TempDir
    Path dir;

    /** Three paths over 64 B .. 1 MiB; the veth line has a failed size and one that does not apply. */
    private static SizeChart stream() {
        List<Point> jnet = new ArrayList<>();
        List<Point> kernel = new ArrayList<>();
        List<Point> veth = new ArrayList<>();
        for (int k = 6; k <= 20; k += 2) {
            long size = 1L << k;
            jnet.add(new Point(size, 100 + 20 * k));
            kernel.add(new Point(size, 300 + 40 * k));
            veth.add(new Point(size, k == 10 ? Double.NaN : k == 20 ? Double.POSITIVE_INFINITY : 50 + 10 * k));
        }
        return new SizeChart("TCP_STREAM", "10^6 bits/s",
                List.of(new Line("jnet-loopback", jnet), new Line("kernel", kernel), new Line("jnet-veth", veth)));
    }

    private static SizeChart rr() {
        return new SizeChart("TCP_RR", "transactions/s", List.of(
                new Line("jnet", List.of(new Point(1, 20_000), new Point(1024, 15_000), new Point(65536, 4_000))),
                new Line("kernel", List.of(new Point(1, 40_000), new Point(1024, 35_000), new Point(65536, 9_000)))));
    }

    @Test
    void chartHasOneSeriesPerPathWithTheDrawnPointsAndLabelledAxes() {
        JFreeChart chart = SizePlot.chart(stream());
        XYSeriesCollection data = (XYSeriesCollection) chart.getXYPlot().getDataset();
        assertThat(data.getSeriesCount()).isEqualTo(3);
        assertThat(List.of(data.getSeriesKey(0), data.getSeriesKey(1), data.getSeriesKey(2)))
                .containsExactly("jnet-loopback", "kernel", "jnet-veth");
        assertThat(data.getSeries(0).getItemCount()).isEqualTo(8);
        assertThat(data.getSeries(2).getItemCount()).as("NaN and infinity skipped").isEqualTo(6);
        assertThat(data.getSeries(2).indexOf(1024.0)).isNegative();
        assertThat(data.getSeries(1).getY(data.getSeries(1).indexOf(4096.0)).doubleValue()).isEqualTo(300 + 40 * 12);
        assertThat(chart.getTitle().getText()).isEqualTo("TCP_STREAM");
        assertThat(chart.getXYPlot().getRangeAxis().getLabel()).isEqualTo("10^6 bits/s");
        LogAxis x = (LogAxis) chart.getXYPlot().getDomainAxis();
        assertThat(x.getBase()).isEqualTo(2.0);
        assertThat(x.getNumberFormatOverride().format(64)).isEqualTo("64 B");
        assertThat(x.getNumberFormatOverride().format(16384)).isEqualTo("16 KiB");
        assertThat(x.getNumberFormatOverride().format(1 << 20)).isEqualTo("1 MiB");
        assertThat(SizePlot.seriesPaint(chart, 0)).isNotEqualTo(SizePlot.seriesPaint(chart, 1))
                .isNotEqualTo(SizePlot.seriesPaint(chart, 2));
    }

    @Test
    void byteLabels() {
        assertThat(ByteSizeFormat.label(1)).isEqualTo("1 B");
        assertThat(ByteSizeFormat.label(1023)).isEqualTo("1023 B");
        assertThat(ByteSizeFormat.label(1536)).isEqualTo("1.5 KiB");
        assertThat(ByteSizeFormat.label(65536)).isEqualTo("64 KiB");
        assertThat(ByteSizeFormat.label(4L << 30)).isEqualTo("4 GiB");
    }

    @Test
    void pngDecodesAndShowsEveryLineInTheDataArea() throws IOException {
        Path file = dir.resolve("stream.png");
        SizePlot.write(file, stream());
        BufferedImage image = ImageIO.read(file.toFile());
        assertThat(image).as("decodes").isNotNull();
        assertThat(image.getWidth()).isEqualTo(SizePlot.WIDTH);
        assertThat(image.getHeight()).isEqualTo(SizePlot.HEIGHT);

        JFreeChart chart = SizePlot.chart(stream());
        ChartRenderingInfo info = new ChartRenderingInfo();
        SizePlot.render(chart, info);
        Rectangle2D area = info.getPlotInfo().getDataArea();
        for (int i = 0; i < 3; i++) {
            Color c = (Color) SizePlot.seriesPaint(chart, i);
            assertThat(count(image, area, c)).as("pixels of line %d (%s) in the data area", i, c).isGreaterThan(50);
        }
        assertThat(count(image, area, SizePlot.PALETTE.get(3))).as("no fourth line").isZero();
    }

    @Test
    void svgHasOnePathPerLineAndNamesThePaths() throws IOException {
        Path file = dir.resolve("rr.SVG");
        SizePlot.write(file, rr());
        String svg = Files.readString(file);
        assertThat(svg.startsWith("<?xml")).as("XML declaration").isTrue();
        assertThat(svg.strip().endsWith("</svg>")).as("closed svg element").isTrue();
        // title and legend are <text>; axis labels are glyph outlines
        for (String text : List.of(">TCP_RR<", ">jnet<", ">kernel<")) assertThat(svg.contains(text)).as(text).isTrue();
        JFreeChart chart = SizePlot.chart(rr());
        for (int i = 0; i < 2; i++) {
            Color c = (Color) SizePlot.seriesPaint(chart, i);
            String stroke = "stroke-width:2.5;stroke:rgb(" + c.getRed() + "," + c.getGreen() + "," + c.getBlue() + ")";
            // a line through the three points is one path of two segments (the legend's sample has one)
            Matcher m = Pattern.compile("<g style='" + Pattern.quote(stroke) + "[^>]*><path d='M[-0-9.,]+L[-0-9.,]+L[-0-9.,]+'/>")
                    .matcher(svg);
            int lines = 0;
            while (m.find()) lines++;
            assertThat(lines).as("paths through line %d's points in its colour", i).isEqualTo(1);
        }
        assertThat(svg.contains("stroke-width:2.5;stroke:rgb(31,119,180)")).as("a line's stroke as the pattern expects").isTrue();
    }

    @Test
    void severalChartsGoToOneFileEachNamedByTest() throws IOException {
        Path file = dir.resolve("sweep.png");
        List<Path> written = SizePlot.write(file, List.of(stream(), rr()));
        assertThat(written).containsExactly(dir.resolve("sweep-TCP_STREAM.png"), dir.resolve("sweep-TCP_RR.png"));
        for (Path p : written) assertThat(ImageIO.read(p.toFile())).isNotNull();
        assertThat(file).doesNotExist();

        assertThat(SizePlot.write(dir.resolve("one.svg"), List.of(rr()))).containsExactly(dir.resolve("one.svg"));
        assertThat(SizePlot.fileFor(Path.of("a/b.c.svg"), "X/Y")).isEqualTo(Path.of("a/b.c-X_Y.svg"));
    }

    @Test
    void badExtensionIsRefusedBeforeWriting() {
        for (String name : List.of("out.jpg", "out", "png", "out.png.txt", ".svg")) {
            Path file = dir.resolve(name);
            assertThatThrownBy(() -> SizePlot.write(file, rr()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("must end in .png or .svg").hasMessageContaining(name);
            assertThat(file).doesNotExist();
        }
        assertThatThrownBy(() -> SizePlot.write(dir.resolve("x.gif"), List.of(rr(), stream())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("x.gif");
        assertThat(SizePlot.Format.of(Path.of("A.PNG"))).isEqualTo(SizePlot.Format.PNG);
    }

    @Test
    void badDataIsRefused() {
        assertThatThrownBy(() -> new Point(0, 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> new Line("p", List.of(new Point(8, 1), new Point(8, 2))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("two points at 8 bytes");
        Line l = new Line("p", List.of(new Point(8, 1)));
        assertThatThrownBy(() -> new SizeChart("T", "u", List.of(l, l))).hasMessageContaining("two lines for p");
        assertThatThrownBy(() -> new SizeChart("T", "u", List.of())).hasMessageContaining("no lines");
        assertThatThrownBy(() -> new SizeChart("T", " ", List.of(l))).hasMessageContaining("unit");
        assertThatThrownBy(() -> SizePlot.write(dir.resolve("a.png"), List.of(rr(), rr())))
                .hasMessageContaining("a-TCP_RR.png");
    }

    @Test
    void aSinglePointAndALineWithNothingDrawnStillRender() throws IOException {
        SizeChart sparse = new SizeChart("UDP_RR", "transactions/s", List.of(
                new Line("jnet", List.of(new Point(64, 1000))),
                new Line("kernel", List.of(new Point(64, Double.NaN)))));
        Path file = dir.resolve("sparse.png");
        SizePlot.write(file, sparse);
        assertThat(ImageIO.read(file.toFile())).isNotNull();
        XYSeriesCollection data = (XYSeriesCollection) SizePlot.chart(sparse).getXYPlot().getDataset();
        assertThat(data.getSeriesCount()).isEqualTo(2);
        assertThat(data.getSeries(1).getItemCount()).isZero();
    }

    /** Pixels of exactly colour {@code c} inside {@code area}. */
    private static int count(BufferedImage image, Rectangle2D area, Color c) {
        int n = 0;
        int rgb = c.getRGB() & 0xffffff;
        for (int y = (int) area.getMinY(); y < (int) area.getMaxY(); y++) {
            for (int x = (int) area.getMinX(); x < (int) area.getMaxX(); x++) {
                if ((image.getRGB(x, y) & 0xffffff) == rgb) n++;
            }
        }
        return n;
    }
}
