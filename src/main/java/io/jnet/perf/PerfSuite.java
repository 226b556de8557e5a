package io.jnet.perf;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Runs a {@link PerfPlan}: opens one path per stack, runs each test as a {@link Comparison} (jnet as the
 * candidate, the kernel as the reference), closes the paths.
 *
 * <p>When jnet is asked for alongside the kernel but cannot run (its path factory is not in the build, or
 * the stack throws {@link UnsupportedOperationException}), the kernel runs alone and a note says so; asked
 * for alone, that is a failure.
 */
public final class PerfSuite {

    private final Optional<PerfPathFactory> candidate;
    private final PerfPathFactory reference;
    private final Consumer<String> progress;

    /**
     * @param candidate the stack under test (jnet), empty when not in the build
     * @param reference the reference stack (the kernel)
     * @param progress  receives a line per run as it finishes
     */
    public PerfSuite(Optional<PerfPathFactory> candidate, PerfPathFactory reference, Consumer<String> progress) {
        this.candidate = candidate;
        this.reference = reference;
        this.progress = progress;
    }

    /** A suite over jnet (if built) and the kernel. */
    public static PerfSuite standard(Consumer<String> progress) {
        return new PerfSuite(Stacks.jnet(), Stacks.kernel(), progress);
    }

    /** Runs every test of the plan; never throws for a failing test (see {@link Comparison#failure()}). */
    public SuiteResult run(PerfPlan plan) {
        return run(plan, c -> {});
    }

    /**
     * Runs every test of the plan, handing each finished test to {@code testDone} (so that a report can
     * print it at once); never throws for a failing test.
     */
    public SuiteResult run(PerfPlan plan, Consumer<Comparison> testDone) {
        List<String> notes = new ArrayList<>();
        List<Comparison> out = new ArrayList<>();
        PerfPath a = null;
        PerfPath b = null;
        String unavailable = null;
        String setupFailure = null;
        try {
            if (plan.stacks() != StackChoice.KERNEL) {
                if (candidate.isEmpty()) {
                    unavailable = "jnet not available: " + Stacks.JNET_FACTORY + " is not part of this build";
                } else {
                    try {
                        a = candidate.get().open(plan.path());
                    } catch (UnsupportedOperationException | LinkageError e) {
                        unavailable = candidate.get().stack() + " not available: " + e.getMessage();
                    } catch (IOException | RuntimeException e) {
                        setupFailure = candidate.get().stack() + " " + plan.path().kind().optionName()
                                + " path could not be set up: " + PeerRun.describe(e);
                    }
                }
            }
            if (plan.stacks() != StackChoice.JNET) {
                try {
                    b = reference.open(plan.path());
                } catch (IOException | RuntimeException e) {
                    setupFailure = reference.stack() + " path could not be set up: " + PeerRun.describe(e);
                }
                if (!plan.path().sysctls().isEmpty()) {
                    notes.add("sysctls apply to jnet namespaces only; the " + reference.stack() + " reference runs with the host's");
                }
            }
            if (plan.stacks() == StackChoice.JNET && a == null && setupFailure == null) setupFailure = unavailable;
            if (setupFailure != null) {
                for (TestSpec spec : plan.tests()) {
                    Comparison c = new Comparison(spec, plan.path().kind(), plan.confidence(), null, null, List.of(), setupFailure);
                    out.add(c);
                    testDone.accept(c);
                }
                return new SuiteResult(plan, out, notes);
            }
            if (a == null && unavailable != null) notes.add(unavailable + "; measuring the " + reference.stack() + " reference alone");
            ComparisonRunner runner = new ComparisonRunner(plan.iterations(), plan.confidence(), progress);
            for (TestSpec spec : plan.tests()) {
                Comparison c = runner.run(spec, plan.path().kind(), a, b, null);
                out.add(c);
                testDone.accept(c);
                if (a != null && c.candidate() == null) {
                    // the stack turned out unusable: stop opening sockets on it for the remaining tests
                    a.close();
                    a = null;
                    notes.addAll(c.notes());
                }
            }
            return new SuiteResult(plan, out, notes);
        } finally {
            if (a != null) a.close();
            if (b != null) b.close();
        }
    }
}
