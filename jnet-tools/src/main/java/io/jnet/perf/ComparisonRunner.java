package io.jnet.perf;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Runs one test on N paths ("lanes") in pairs whose order rotates, A B C, B C A, C A B, ..., so that drift
 * in the machine (frequency scaling, other load) and the position within a pair hit every path alike. The
 * two-stack mode is N = 2 (A B, B A, ...).
 *
 * <p>Before the first pair each path warms up ({@link Warmup}): short unmeasured runs until its rate stops
 * rising or its budget is spent; the first test a path runs under this runner gets the full budget, later
 * ones a quarter. Then at least {@code min} measured pairs, continuing up to {@code max} while any path's
 * confidence interval is wider than asked (netperf's {@code -i}/{@code -I} loop).
 *
 * <p>A path whose stack turns out not to be available ({@link StackUnavailableException}) is dropped with a
 * note while another path still runs; alone, that is a failure. Any other failure stops the measurement and
 * is recorded. A lane marked not applicable does not run.
 *
 * <p>Each run goes through the lane's {@link LaneRunner}: in this JVM ({@link InProcessLane}) or in a JVM of
 * the lane's own ({@link ChildJvmLane}); the runner does not care which.
 */
public final class ComparisonRunner {

    /**
     * One path of a measurement.
     *
     * @param label         what reports and progress call it
     * @param runner        runs the tests on the path, or null when {@code notApplicable} is given
     * @param notApplicable why the path cannot run this test, or null
     */
    public record Lane(String label, LaneRunner runner, String notApplicable) {

        /** A lane that runs on {@code runner}. */
        public Lane(String label, LaneRunner runner) {
            this(label, runner, null);
        }

        /** A lane that runs the real tests on {@code path} in this JVM ({@link InProcessLane}). */
        public Lane(String label, PerfPath path) {
            this(label, new InProcessLane(path), null);
        }

        public Lane {
            if (runner == null && notApplicable == null) throw new IllegalArgumentException("lane " + label + " has no path");
        }
    }

    private final Iterations iterations;
    private final Confidence confidence;
    private final Warmup warmup;
    private final Progress progress;
    /** Lanes that ran a warm-up under this runner: later tests get a quarter of the budget. */
    private final Set<LaneRunner> warmed = Collections.newSetFromMap(new IdentityHashMap<>());

    /**
     * @param iterations how many pairs
     * @param confidence when to stop early past {@code iterations.min()}
     * @param warmup     the warm-up budget
     * @param progress   hears of every run
     */
    public ComparisonRunner(Iterations iterations, Confidence confidence, Warmup warmup, Progress progress) {
        this.iterations = iterations;
        this.confidence = confidence;
        this.warmup = warmup;
        this.progress = progress;
    }

    /**
     * The two-stack comparison: candidate (jnet) and reference (kernel), either of which may be absent.
     *
     * @param path        the path name reports show ({@code loopback})
     * @param candidate   the stack under test, or null to run the reference alone
     * @param reference   the reference stack, or null to run the candidate alone
     * @param unavailable why the candidate is missing when it is null (shown as a note), or null
     */
    public Comparison run(TestSpec spec, String path, PerfPath candidate, PerfPath reference, String unavailable) {
        return run(spec, path, candidate == null ? null : new Lane(candidate.stack(), candidate),
                reference == null ? null : new Lane(reference.stack(), reference), unavailable);
    }

    /**
     * As {@link #run(TestSpec, String, PerfPath, PerfPath, String)}, with lanes (labelled with their stacks).
     *
     * @throws IllegalArgumentException when both lanes are null
     */
    public Comparison run(TestSpec spec, String path, Lane candidate, Lane reference, String unavailable) {
        if (candidate == null && reference == null) throw new IllegalArgumentException("no path to run on");
        List<Lane> lanes = new ArrayList<>();
        if (candidate != null) lanes.add(candidate);
        if (reference != null) lanes.add(reference);
        Measurement m = measure(spec, -1, lanes);
        List<String> notes = new ArrayList<>();
        if (candidate == null && unavailable != null) notes.add(unavailable);
        notes.addAll(m.notes());
        Series a = candidate == null ? null : m.lanes().getFirst().series();
        Series b = reference == null ? null : m.lanes().getLast().series();
        return new Comparison(spec, path, confidence, a, b, notes, m.failure());
    }

    /**
     * Measures {@code spec} on every lane.
     *
     * @param size the swept size for reports and progress, or -1
     */
    public Measurement measure(TestSpec spec, int size, List<Lane> lanes) {
        List<String> notes = new ArrayList<>();
        List<State> states = lanes.stream().map(State::new).toList();
        List<State> live = new ArrayList<>(states.stream().filter(s -> s.lane.notApplicable() == null).toList());
        boolean anyLost = false;
        for (State s : List.copyOf(live)) {
            String lost = s.lane.runner().lost();
            if (lost == null) continue;
            anyLost = true;
            // lost in an earlier measurement, which failed then: the other lanes still run here
            live.remove(s);
            s.dropped = true;
            notes.add(s.lane.label() + " not measured: " + lost);
        }
        if (live.isEmpty() && !anyLost) throw new IllegalArgumentException("no lane can run " + spec.kind());
        String failure = live.isEmpty() ? "no lane left to measure " + spec.kind() : null;
        if (!live.isEmpty()) try {
            for (State s : List.copyOf(live)) warmUp(spec, size, s, live, notes);
            for (int pair = 1; pair <= iterations.max() && !live.isEmpty(); pair++) {
                List<State> order = new ArrayList<>(live);
                Collections.rotate(order, -((pair - 1) % order.size()));
                for (State s : order) {
                    if (!live.contains(s)) continue;
                    RunResult r = runOnce(spec, size, s, pair, live, notes);
                    if (r != null) s.runs.add(r);
                }
                if (pair >= iterations.min() && live.stream().allMatch(this::confident)) break;
            }
        } catch (PerfException e) {
            failure = e.getMessage();
        }
        List<Measurement.LaneResult> results = new ArrayList<>();
        for (State s : states) {
            Series series = s.dropped && s.runs.isEmpty() || s.lane.notApplicable() != null ? null
                    : new Series(s.lane.label(), s.lane.runner().description(), s.warmup, s.runs);
            results.add(new Measurement.LaneResult(s.lane.label(), series, s.lane.notApplicable()));
        }
        return new Measurement(spec, size, confidence, results, notes, failure);
    }

    /** Short runs until the rate stops rising or the budget is spent; the last one is kept as the warm-up. */
    private void warmUp(TestSpec spec, int size, State s, List<State> live, List<String> notes) throws PerfException {
        double budget = warmup.budgetSeconds(warmed.add(s.lane.runner()));
        if (budget <= 0) return;
        TestSpec shortSpec = spec.withDuration(java.time.Duration.ofNanos(
                Math.round(Warmup.runSeconds(budget, spec.durationSeconds()) * 1e9)));
        long deadline = 0;
        double best = 0;
        for (int n = 1; ; n++) {
            RunResult r = runOnce(shortSpec, size, s, 0, live, notes);
            if (r == null) return;
            s.warmup = r;
            boolean rising = Warmup.rising(r.value(), best);
            best = Math.max(best, r.value());
            // the budget runs from the end of the first run: in a lane's own JVM that run loads and interprets
            // everything, and alone it could spend the whole budget
            if (n == 1) deadline = System.nanoTime() + Math.round(budget * 1e9);
            else if (System.nanoTime() >= deadline || !rising) return;
        }
    }

    /** One run; null when the lane was dropped as not available. */
    private RunResult runOnce(TestSpec spec, int size, State s, int pair, List<State> live, List<String> notes)
            throws PerfException {
        String label = pair == 0 ? "warm-up" : "pair " + pair;
        Progress.Run run = new Progress.Run(spec.kind(), size, s.lane.label(), pair, iterations.max(),
                pair > iterations.min(), spec.durationSeconds(), live.size() == 1);
        progress.starting(run);
        RunResult r;
        try {
            r = s.lane.runner().run(spec);
        } catch (StackUnavailableException e) {
            String why = s.lane.label() + " not available: " + e.getMessage();
            progress.failed(run, "not available");
            if (live.size() == 1) throw new PerfException(why, e);
            live.remove(s);
            s.dropped = true;
            notes.add(why);
            return null;
        } catch (PerfException e) {
            progress.failed(run, e.getMessage());
            throw new PerfException(spec.kind() + " " + s.lane.label() + " " + label + ": " + e.getMessage(), e);
        }
        progress.finished(run, r.value());
        return r;
    }

    private boolean confident(State s) {
        if (s.runs.size() < 2) return false;
        return confidence.isMet(ConfidenceInterval.of(s.runs.stream().map(RunResult::value).toList(), confidence.level()));
    }

    /** One lane's state during the measurement. */
    private static final class State {
        final Lane lane;
        final List<RunResult> runs = new ArrayList<>();
        RunResult warmup;
        boolean dropped;

        State(Lane lane) { this.lane = lane; }
    }
}
