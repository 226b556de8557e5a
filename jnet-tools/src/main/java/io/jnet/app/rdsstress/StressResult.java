package io.jnet.app.rdsstress;

import java.util.List;

/**
 * The outcome of one side's run.
 *
 * @param role     "active" or "passive"
 * @param lines    one per second of the timed part
 * @param average  the summary's averages ({@link StressMeter#average})
 * @param median   the summary's medians ({@link StressMeter#median})
 * @param rttCount round trips measured
 * @param rttP50Us median round trip over the run, microseconds (NaN for none)
 * @param rttMaxUs longest round trip, microseconds (NaN for none)
 * @param pairs    every (sender, receiver) direction checked
 * @param problems what went wrong besides the pairs' counts (no answer, an error), one line each
 */
public record StressResult(String role, List<StressLine> lines, StressLine average, StressLine median, long rttCount,
                           double rttP50Us, double rttMaxUs, List<PairResult> pairs, List<String> problems) {

    public StressResult {
        lines = List.copyOf(lines);
        pairs = List.copyOf(pairs);
        problems = List.copyOf(problems);
    }

    /** True when nothing went wrong, some pair was checked, and every pair is {@link PairResult#ok()}. */
    public boolean ok() {
        return problems.isEmpty() && !pairs.isEmpty() && pairs.stream().allMatch(PairResult::ok);
    }

    public long messagesChecked() { return pairs.stream().mapToLong(PairResult::received).sum(); }

    public long lost() { return pairs.stream().mapToLong(PairResult::lost).sum(); }

    public long duplicated() { return pairs.stream().mapToLong(PairResult::duplicated).sum(); }

    public long reordered() { return pairs.stream().mapToLong(PairResult::reordered).sum(); }

    public long corrupt() { return pairs.stream().mapToLong(PairResult::corrupt).sum(); }

    /**
     * The verdict line, e.g. {@code verdict: PASS: 32 pairs, 81234 messages checked: 0 lost, 0 duplicated,
     * 0 reordered, 0 corrupt}.
     */
    public String verdictLine() {
        return "verdict: " + (ok() ? "PASS" : "FAIL") + ": " + pairs.size() + " pairs, " + messagesChecked()
                + " messages checked: " + lost() + " lost, " + duplicated() + " duplicated, " + reordered()
                + " reordered, " + corrupt() + " corrupt" + (problems.isEmpty() ? "" : "; " + problems.size()
                + " problem" + (problems.size() == 1 ? "" : "s"));
    }
}
