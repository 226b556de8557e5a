package io.jnet.perf;

/**
 * netperf's {@code -I level,width}: the confidence level (95 or 99 percent) and the widest acceptable
 * interval as a percentage of the mean (the full width: 5 means ±2.5%).
 *
 * @param levelPercent 95 or 99
 * @param widthPercent greater than 0
 */
public record Confidence(int levelPercent, double widthPercent) {

    /** netperf's default when confidence intervals are on: {@code -I 99,5}. */
    public static final Confidence DEFAULT = new Confidence(99, 5);

    /** Checks the values; netperf supports only the 95% and 99% levels. */
    public Confidence {
        if (levelPercent != 95 && levelPercent != 99) {
            throw new IllegalArgumentException("only 95% and 99% confidence levels are supported, not " + levelPercent);
        }
        if (!(widthPercent > 0) || Double.isInfinite(widthPercent)) {
            throw new IllegalArgumentException("confidence interval width must be a positive percentage: " + widthPercent);
        }
    }

    /** The level as a fraction, 0.95 or 0.99. */
    public double level() { return levelPercent / 100.0; }

    /**
     * Parses {@code level,width}; a missing half keeps {@code current}'s. A single value without a comma
     * sets only the level ({@code -I 95} keeps the width), as netperf documents {@code -I lvl[,intvl]}.
     *
     * @throws IllegalArgumentException for a level other than 95 or 99, or a bad width
     */
    public static Confidence parse(String s, Confidence current) {
        NetperfArgs.Pair p = s.contains(",") ? NetperfArgs.pair(s) : new NetperfArgs.Pair(s.trim(), null);
        int level = current.levelPercent();
        double width = current.widthPercent();
        try {
            if (p.first() != null) level = Integer.parseInt(p.first());
            if (p.second() != null) width = Double.parseDouble(p.second());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected -I level,width such as 99,5: '" + s + "'", e);
        }
        return new Confidence(level, width);
    }

    /** True when {@code ci} is no wider than asked. */
    public boolean isMet(ConfidenceInterval ci) {
        return ci.widthPercent() <= widthPercent;
    }
}
