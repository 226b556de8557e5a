package io.jnet.perf;

import java.util.Objects;
import java.util.function.Function;

/**
 * A lane in this JVM: each run is the test of its kind ({@link PerfTest#of}) on {@code path}, server and
 * client in threads of this JVM. The lane owns the path: {@link #close()} closes it.
 */
public final class InProcessLane implements LaneRunner {

    private final PerfPath path;
    private final Function<TestKind, PerfTest> tests;

    /** A lane running the real tests on {@code path}. */
    public InProcessLane(PerfPath path) {
        this(path, PerfTest::of);
    }

    /** A lane whose tests come from {@code tests} (tests script results with it). */
    InProcessLane(PerfPath path, Function<TestKind, PerfTest> tests) {
        this.path = Objects.requireNonNull(path, "path");
        this.tests = Objects.requireNonNull(tests, "tests");
    }

    /** See {@link PerfTest#run}; first gives the path the spec's allocator ({@link PerfPath#useAllocator}). */
    @Override
    public RunResult run(TestSpec spec) throws PerfException {
        path.useAllocator(spec.allocator());
        return tests.apply(spec.kind()).run(path, spec);
    }

    @Override
    public String description() {
        return path.description();
    }

    /** Closes the path. */
    @Override
    public void close() {
        path.close();
    }
}
