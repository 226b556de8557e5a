package io.jnet.perf;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs a {@link PerfPlan}: opens a lane per path of the plan from a {@link PathRegistry} ({@link LaneOpener}:
 * in this JVM, or each in a JVM of its own), measures every cell on all of them with one
 * {@link ComparisonRunner}, closes the lanes. A lane is opened once for the whole plan, so that its path and
 * its JIT serve every test and size.
 *
 * <p>A path whose stack cannot run at all (its opener throws {@link UnsupportedOperationException}) is left
 * out with a note while another path remains; alone, that fails every test. A path that fails to set up
 * fails every test.
 */
public final class PerfSuite {

    private final PathRegistry registry;
    private final Progress progress;
    private final LaneOpener lanes;

    /**
     * A suite whose paths run in this JVM ({@link LaneOpener#inProcess()}).
     *
     * @param registry where the plan's path ids are looked up
     * @param progress hears of every run
     */
    public PerfSuite(PathRegistry registry, Progress progress) {
        this(registry, progress, LaneOpener.inProcess());
    }

    /**
     * @param registry where the plan's path ids are looked up
     * @param progress hears of every run
     * @param lanes    opens each path's lane ({@link ChildJvmLane#opener()} for a JVM per path)
     */
    public PerfSuite(PathRegistry registry, Progress progress, LaneOpener lanes) {
        this.registry = registry;
        this.progress = progress;
        this.lanes = lanes;
    }

    /** A suite over the paths of {@link PathRegistry#standard()}. */
    public static PerfSuite standard(Progress progress) {
        return new PerfSuite(PathRegistry.standard(), progress);
    }

    /** The estimated wall time of {@code plan} in seconds with {@code pairs} pairs per cell. */
    public double estimateSeconds(PerfPlan plan, int pairs) {
        List<PathRegistry.Entry> entries = plan.paths().stream().map(registry::get).toList();
        return plan.estimateSeconds(pairs, c -> (int) entries.stream().filter(e -> e.notApplicableTo(c.spec()) == null).count());
    }

    /** Runs a two-stack plan; never throws for a failing test (see {@link Comparison#failure()}). */
    public SuiteResult run(PerfPlan plan) {
        return run(plan, c -> {});
    }

    /**
     * Runs a two-stack plan (one or two paths: candidate first), handing each finished test to
     * {@code testDone} so that a report can print it at once; never throws for a failing test.
     */
    public SuiteResult run(PerfPlan plan, Consumer<Comparison> testDone) {
        List<Comparison> out = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        boolean hasCandidate = plan.paths().size() == 2 || !registry.get(plan.paths().getFirst()).stack().equals(KernelPaths.STACK);
        runCells(plan, notes, (cell, m) -> {
            Comparison c = toComparison(plan, m, hasCandidate);
            out.add(c);
            testDone.accept(c);
        }, true);
        notes.addAll(plan.notes());
        return new SuiteResult(plan, out, notes);
    }

    /** Runs a {@code --compare} plan, handing each finished cell to {@code cellDone}; never throws for a failing test. */
    public CompareResult compare(PerfPlan plan, Consumer<Measurement> cellDone) {
        List<Measurement> out = new ArrayList<>();
        List<String> notes = new ArrayList<>(plan.notes());
        runCells(plan, notes, (cell, m) -> {
            out.add(m);
            cellDone.accept(m);
        }, false);
        return new CompareResult(plan, out, notes);
    }

    private static Comparison toComparison(PerfPlan plan, Measurement m, boolean hasCandidate) {
        List<Measurement.LaneResult> lanes = m.lanes();
        Series candidate = hasCandidate ? lanes.getFirst().series() : null;
        Series reference = lanes.size() == 2 ? lanes.get(1).series() : hasCandidate ? null : lanes.getFirst().series();
        List<String> notes = new ArrayList<>(m.notes());
        for (Measurement.LaneResult l : lanes) {
            // the same reason --compare prints under its table for an n/a cell
            if (l.notApplicable() != null) notes.add("n/a: " + l.label() + ": " + l.notApplicable());
        }
        return new Comparison(m.spec(), plan.pathName(), m.confidence(), candidate, reference, notes, m.failure());
    }

    private interface CellDone {
        void accept(PerfPlan.Cell cell, Measurement m);
    }

    private void runCells(PerfPlan plan, List<String> notes, CellDone done, boolean stackLabels) {
        List<PathRegistry.Entry> entries = plan.paths().stream().map(registry::get).toList();
        List<LaneRunner> opened = new ArrayList<>();
        List<String> unavailable = new ArrayList<>();
        String setupFailure = null;
        try {
            for (PathRegistry.Entry e : entries) {
                LaneRunner p = null;
                try {
                    p = lanes.open(e, plan.sysctls());
                } catch (UnsupportedOperationException | LinkageError ex) {
                    unavailable.add(e.stack() + " not available: " + ex.getMessage());
                } catch (IOException | PerfException | RuntimeException ex) {
                    if (setupFailure == null) setupFailure = e.id() + " path could not be set up: " + PeerRun.describe(ex);
                }
                opened.add(p);
            }
            if (!plan.sysctls().isEmpty()) {
                List<String> host = entries.stream().filter(e -> !e.appliesSysctls()).map(PathRegistry.Entry::id).toList();
                if (!host.isEmpty()) {
                    notes.add("sysctls apply to jnet namespaces only; " + String.join(", ", host) + " run with the host's");
                }
                notes.addAll(overrideNotes(entries, plan.sysctls()));
                String forwarding = PathRegistry.routerForwardingNote(plan.paths(), plan.sysctls());
                if (forwarding != null) notes.add(forwarding);
            }
            if (setupFailure == null && opened.stream().allMatch(p -> p == null)) setupFailure = String.join("; ", unavailable);
            if (setupFailure != null) {
                for (PerfPlan.Cell cell : plan.cells()) done.accept(cell, failed(plan, cell, entries, setupFailure, stackLabels));
                return;
            }
            for (String u : unavailable) {
                notes.add(u + "; measuring " + (entries.size() == 2 ? "the reference alone" : "the other paths"));
            }
            ComparisonRunner runner = new ComparisonRunner(plan.iterations(), plan.confidence(), plan.warmup(), progress);
            for (PerfPlan.Cell cell : plan.cells()) {
                List<ComparisonRunner.Lane> lanes = new ArrayList<>();
                for (int i = 0; i < entries.size(); i++) {
                    PathRegistry.Entry e = entries.get(i);
                    String label = stackLabels ? e.stack() : e.id();
                    LaneRunner p = opened.get(i);
                    String na = p == null ? unavailableReason(e, unavailable) : e.notApplicableTo(cell.spec());
                    lanes.add(na == null ? new ComparisonRunner.Lane(label, p) : new ComparisonRunner.Lane(label, null, na));
                }
                Measurement m;
                if (lanes.stream().allMatch(l -> l.notApplicable() != null)) {
                    m = new Measurement(cell.spec(), cell.size(), plan.confidence(),
                            lanes.stream().map(l -> new Measurement.LaneResult(l.label(), null, l.notApplicable())).toList(),
                            List.of(), null);
                } else {
                    m = runner.measure(cell.spec(), cell.size(), lanes);
                }
                done.accept(cell, m);
                for (int i = 0; i < entries.size(); i++) {
                    Measurement.LaneResult r = m.lanes().get(i);
                    boolean dropped = m.notes().stream().anyMatch(n -> n.startsWith(r.label() + " not available"));
                    if (opened.get(i) != null && r.series() == null && dropped) {
                        // the stack turned out unusable: stop opening sockets on it for the remaining tests
                        opened.get(i).close();
                        opened.set(i, null);
                        unavailable.add(entries.get(i).stack() + " not available");
                        notes.addAll(m.notes());
                    }
                }
            }
        } finally {
            for (LaneRunner p : opened) {
                if (p != null) p.close();
            }
        }
    }

    /**
     * One note per path that sets a sysctl the user also gave ({@link PathRegistry.Entry#ownSysctls}): the
     * path's value wins there, the user's reaches the other jnet paths of the run.
     */
    static List<String> overrideNotes(List<PathRegistry.Entry> entries, java.util.Map<String, String> sysctls) {
        List<String> notes = new ArrayList<>();
        for (PathRegistry.Entry e : entries) {
            List<String> overridden = e.overriddenSysctls(sysctls);
            if (overridden.isEmpty()) continue;
            String own = e.ownSysctls().entrySet().stream().map(s -> s.getKey() + "=" + s.getValue())
                    .collect(java.util.stream.Collectors.joining(", "));
            List<String> others = entries.stream().filter(o -> o != e && o.appliesSysctls()).map(PathRegistry.Entry::id).toList();
            notes.add(e.id() + " runs with " + own + ", which defines it, whatever --sysctl says; --sysctl "
                    + String.join(", ", overridden) + (others.isEmpty() ? " reaches no other path of this run"
                            : " applies to " + String.join(", ", others)));
        }
        return notes;
    }

    private static String unavailableReason(PathRegistry.Entry e, List<String> unavailable) {
        return unavailable.stream().filter(u -> u.startsWith(e.stack() + " ")).findFirst().orElse(e.stack() + " not available");
    }

    private static Measurement failed(PerfPlan plan, PerfPlan.Cell cell, List<PathRegistry.Entry> entries, String why,
            boolean stackLabels) {
        List<Measurement.LaneResult> lanes = entries.stream()
                .map(e -> new Measurement.LaneResult(stackLabels ? e.stack() : e.id(), null, null)).toList();
        return new Measurement(cell.spec(), cell.size(), plan.confidence(), lanes, List.of(), why);
    }
}
