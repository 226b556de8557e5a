package io.jnet.perf;

import java.util.List;

/**
 * The outcome of a {@code --compare} plan: one {@link Measurement} per test and size, lanes in the plan's
 * path order.
 *
 * @param plan         what was asked
 * @param measurements one per cell, in order
 * @param notes        run-wide remarks (sizes skipped, a path not available, sysctls not applied)
 */
public record CompareResult(PerfPlan plan, List<Measurement> measurements, List<String> notes) {

    public CompareResult {
        measurements = List.copyOf(measurements);
        notes = List.copyOf(notes);
    }

    /** True when every measurement completed. */
    public boolean succeeded() {
        return measurements.stream().allMatch(Measurement::succeeded);
    }
}
