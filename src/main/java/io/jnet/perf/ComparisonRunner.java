package io.jnet.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs one test on a candidate path and a reference path alternately, A B A B, so that drift in the
 * machine (frequency scaling, other load) hits both alike: one warm-up run of each (not counted), then at
 * least {@code min} measured pairs, continuing up to {@code max} pairs while either stack's confidence
 * interval is wider than asked (netperf's {@code -i}/{@code -I} loop).
 *
 * <p>If the candidate's stack turns out not to be available ({@link StackUnavailableException}) while a
 * reference is there, the reference runs alone and a note says why. Any other failure stops the comparison and is recorded.
 */
public final class ComparisonRunner {

    private final Iterations iterations;
    private final Confidence confidence;
    private final Consumer<String> progress;
    private final Function<TestKind, PerfTest> tests;

    /**
     * @param iterations how many pairs
     * @param confidence when to stop early past {@code iterations.min()}
     * @param progress   receives one short line per run as it finishes (for a terminal); may ignore them
     */
    public ComparisonRunner(Iterations iterations, Confidence confidence, Consumer<String> progress) {
        this(iterations, confidence, progress, PerfTest::of);
    }

    /** As above, with the test implementations supplied (tests script results with it). */
    ComparisonRunner(Iterations iterations, Confidence confidence, Consumer<String> progress,
            Function<TestKind, PerfTest> tests) {
        this.iterations = iterations;
        this.confidence = confidence;
        this.progress = progress;
        this.tests = tests;
    }

    /**
     * Runs the comparison.
     *
     * @param candidate the stack under test, or null to run the reference alone
     * @param reference the reference stack, or null to run the candidate alone
     * @param unavailable why the candidate is missing when it is null (shown as a note), or null
     */
    public Comparison run(TestSpec spec, PathKind kind, PerfPath candidate, PerfPath reference, String unavailable) {
        if (candidate == null && reference == null) throw new IllegalArgumentException("no path to run on");
        PerfTest test = tests.apply(spec.kind());
        List<String> notes = new ArrayList<>();
        if (candidate == null && unavailable != null) notes.add(unavailable);
        Lane a = candidate == null ? null : new Lane(candidate, reference != null);
        Lane b = reference == null ? null : new Lane(reference, false);
        String failure = null;
        try {
            for (int pair = 0; pair <= iterations.max(); pair++) {
                if (a != null && !a.dropped) runOnce(test, spec, a, pair, notes);
                if (b != null) runOnce(test, spec, b, pair, notes);
                if (pair >= iterations.min() && confident(a) && confident(b)) break;
            }
        } catch (PerfException e) {
            failure = e.getMessage();
        }
        return new Comparison(spec, kind, confidence, series(a), series(b), notes, failure);
    }

    private void runOnce(PerfTest test, TestSpec spec, Lane lane, int pair, List<String> notes) throws PerfException {
        String label = pair == 0 ? "warm-up" : "pair " + pair;
        RunResult r;
        try {
            r = test.run(lane.path, spec);
        } catch (StackUnavailableException e) {
            if (!lane.optional) {
                throw new PerfException(lane.path.stack() + " not available: " + e.getMessage(), e);
            }
            lane.dropped = true;
            notes.add(lane.path.stack() + " not available: " + e.getMessage());
            progress.accept(spec.kind() + " " + lane.path.stack() + " " + label + ": not available");
            return;
        } catch (PerfException e) {
            throw new PerfException(spec.kind() + " " + lane.path.stack() + " " + label + ": " + e.getMessage(), e);
        }
        if (pair == 0) lane.warmup = r;
        else lane.runs.add(r);
        progress.accept(String.format("%s %s %s: %.2f %s", spec.kind(), lane.path.stack(), label, r.value(),
                spec.kind().unit().label()));
    }

    private boolean confident(Lane lane) {
        if (lane == null || lane.dropped) return true;
        if (lane.runs.size() < 2) return false;
        return confidence.isMet(ConfidenceInterval.of(lane.runs.stream().map(RunResult::value).toList(),
                confidence.level()));
    }

    private static Series series(Lane lane) {
        if (lane == null || (lane.dropped && lane.runs.isEmpty())) return null;
        return new Series(lane.path.stack(), lane.path.description(), lane.warmup, lane.runs);
    }

    /** One stack's state during the comparison. */
    private static final class Lane {
        final PerfPath path;
        /** True when the comparison goes on without this stack if it is not available. */
        final boolean optional;
        final List<RunResult> runs = new ArrayList<>();
        RunResult warmup;
        boolean dropped;

        Lane(PerfPath path, boolean optional) {
            this.path = path;
            this.optional = optional;
        }
    }
}
