package io.jnet.perf;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * UDP_STREAM's counts over the measured runs of one stack: the medians per run that netperf's two lines
 * show (the receive rate itself is {@link Series#median()}), and totals for the loss.
 *
 * @param sendMedian        median send rate in 10^6 bits/s ({@link RunResult#sendValue()})
 * @param sendElapsedMedian median sender time in seconds
 * @param sentMedian        median datagrams sent per run
 * @param errorsMedian      median send errors per run
 * @param receivedMedian    median datagrams received per run
 * @param sent              datagrams sent, all measured runs together
 * @param errors            send errors, all measured runs together
 * @param received          datagrams received, all measured runs together
 */
public record DatagramSummary(double sendMedian, double sendElapsedMedian, double sentMedian, double errorsMedian,
        double receivedMedian, long sent, long errors, long received) {

    /** The summary of {@code s}'s measured runs, or null when they carry no datagram counts (not UDP_STREAM). */
    public static DatagramSummary of(Series s) {
        List<RunResult> runs = s.runs().stream().filter(r -> r.datagrams() != null).toList();
        if (runs.isEmpty()) return null;
        long sent = 0;
        long errors = 0;
        long received = 0;
        for (RunResult r : runs) {
            sent += r.datagrams().sent();
            errors += r.datagrams().sendErrors();
            received += r.datagrams().received();
        }
        return new DatagramSummary(median(runs, RunResult::sendValue),
                median(runs, r -> r.datagrams().sendElapsedSeconds()), median(runs, r -> r.datagrams().sent()),
                median(runs, r -> r.datagrams().sendErrors()), median(runs, r -> r.datagrams().received()),
                sent, errors, received);
    }

    /** Datagrams sent but not received, all measured runs together. */
    public long lost() { return sent - received; }

    /** {@link #lost()} in percent of those sent; NaN when none was sent. */
    public double lossPercent() {
        return sent == 0 ? Double.NaN : 100.0 * lost() / sent;
    }

    private static double median(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
        return Stats.median(runs.stream().map(r -> f.applyAsDouble(r)).toList());
    }
}
