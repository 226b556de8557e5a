package io.jnet.perf;

/**
 * netperf's {@code -i max,min}: how many measured iterations (here: jnet/kernel pairs) to run. At least
 * {@code min} run; more, up to {@code max}, while the confidence interval is still wider than asked.
 * As in netperf both are clipped to 3..30 and {@code max} is raised to {@code min} if lower.
 *
 * @param max most iterations, 3..30
 * @param min fewest iterations, 3..max
 */
public record Iterations(int max, int min) {

    /** netperf's lower clip. */
    public static final int FLOOR = 3;
    /** netperf's upper clip. */
    public static final int CEILING = 30;

    /** Checks the invariant; use {@link #clipped} to build from user values. */
    public Iterations {
        if (min < FLOOR || max > CEILING || min > max) {
            throw new IllegalArgumentException("iterations must satisfy 3 <= min <= max <= 30: " + max + "," + min);
        }
    }

    /** Applies netperf's rules: max raised to min, then both clipped to 3..30. */
    public static Iterations clipped(int max, int min) {
        if (max < min) max = min;
        return new Iterations(clip(max), clip(min));
    }

    /** A fixed count (clipped). */
    public static Iterations exactly(int n) {
        return clipped(n, n);
    }

    /**
     * Parses {@code max,min}; one value sets both, {@code ,min} keeps {@code current.max} and
     * {@code max,} keeps {@code current.min} (raising max to min if needed, as netperf does). Both are
     * then clipped to 3..30.
     *
     * @throws IllegalArgumentException for non-integers, or when both are given and max is below min
     *     ({@code -i 3,5}: most pairs fewer than fewest is a mistake, not something to repair silently)
     */
    public static Iterations parse(String s, Iterations current) {
        return parse(s, current, null);
    }

    /**
     * As {@link #parse(String, Iterations)}; {@code clippedNote}, when not null, receives a note when
     * netperf's 3..30 clip changed a value that was given.
     */
    public static Iterations parse(String s, Iterations current, java.util.function.Consumer<String> clippedNote) {
        NetperfArgs.Pair p = NetperfArgs.pair(s);
        int max = p.first() == null ? current.max() : parseInt(p.first());
        int min = p.second() == null ? current.min() : parseInt(p.second());
        if (p.first() != null && p.second() != null && max < min) {
            throw new IllegalArgumentException("-i MAX,MIN: MAX (" + max + ") must not be below MIN (" + min + "): '" + s + "'");
        }
        Iterations its = clipped(max, min);
        boolean changed = (p.first() != null && clip(max) != max) || (p.second() != null && clip(min) != min);
        if (changed && clippedNote != null) {
            clippedNote.accept("(-i " + s + " clipped to " + its.max() + "," + its.min() + ": netperf's range is "
                    + FLOOR + " to " + CEILING + ")");
        }
        return its;
    }

    private static int parseInt(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an iteration count: '" + s + "'", e);
        }
    }

    private static int clip(int v) {
        return Math.max(FLOOR, Math.min(CEILING, v));
    }
}
