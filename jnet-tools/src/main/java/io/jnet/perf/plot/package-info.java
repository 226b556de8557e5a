/**
 * Charts of {@code jnet perf} figures against message size, one line per path, as PNG or SVG
 * ({@link io.jnet.perf.plot.SizePlot}, drawn with JFreeChart and JFreeSVG). The data model
 * ({@link io.jnet.perf.plot.SizeChart}, {@link io.jnet.perf.plot.Line}, {@link io.jnet.perf.plot.Point}) is
 * independent of the runner's result classes: whatever measures the sizes converts its result to it.
 */
package io.jnet.perf.plot;
