package io.jnet.perf;

import java.util.List;

/**
 * The outcome of a {@link PerfPlan}.
 *
 * @param plan        what was asked
 * @param comparisons one per test, in order
 * @param notes       suite-wide remarks (a stack not available, sysctls ignored by the kernel reference)
 */
public record SuiteResult(PerfPlan plan, List<Comparison> comparisons, List<String> notes) {

    public SuiteResult {
        comparisons = List.copyOf(comparisons);
        notes = List.copyOf(notes);
    }

    /** True when every test completed. */
    public boolean succeeded() {
        return comparisons.stream().allMatch(Comparison::succeeded);
    }
}
