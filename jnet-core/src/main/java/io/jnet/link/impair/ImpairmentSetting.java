package io.jnet.link.impair;

/** The per-direction keys of the configuration text, in the order they are printed. */
enum ImpairmentSetting {
    LOSS("loss"),
    DUP("dup"),
    CORRUPT("corrupt"),
    REORDER("reorder"),
    REORDER_GAP("reorder-gap"),
    REORDER_DELAY("reorder-delay"),
    DELAY("delay"),
    JITTER("jitter"),
    RATE("rate"),
    LIMIT("limit");

    final String key;

    ImpairmentSetting(String key) { this.key = key; }

    static ImpairmentSetting byKey(String key) {
        for (ImpairmentSetting s : values()) if (s.key.equals(key)) return s;
        return null;
    }

    /** Parses {@code text} and stores it into {@code b}; throws IllegalArgumentException for a bad value. */
    void parseInto(ImpairmentConfigParser.DirectionBuilder b, String text) {
        switch (this) {
            case LOSS -> b.loss = ConfigText.parseProbability(key, text);
            case DUP -> b.duplicate = ConfigText.parseProbability(key, text);
            case CORRUPT -> b.corrupt = ConfigText.parseProbability(key, text);
            case REORDER -> b.reorder = ConfigText.parseProbability(key, text);
            case REORDER_GAP -> b.reorderGap = (int) ConfigText.parseLong(key, text, 0, 1_000_000);
            case REORDER_DELAY -> b.reorderDelayNanos = ConfigText.parseNanos(key, text);
            case DELAY -> b.delayNanos = ConfigText.parseNanos(key, text);
            case JITTER -> b.jitterNanos = ConfigText.parseNanos(key, text);
            case RATE -> b.rateBitsPerSecond = ConfigText.parseRate(key, text);
            case LIMIT -> b.limit = (int) ConfigText.parseLong(key, text, 1, 1_000_000);
        }
    }

    /** The value of this setting in {@code c}, printed so that {@link #parseInto} reads it back exactly. */
    String format(DirectionConfig c) {
        return switch (this) {
            case LOSS -> ConfigText.formatProbability(c.loss());
            case DUP -> ConfigText.formatProbability(c.duplicate());
            case CORRUPT -> ConfigText.formatProbability(c.corrupt());
            case REORDER -> ConfigText.formatProbability(c.reorder());
            case REORDER_GAP -> Integer.toString(c.reorderGap());
            case REORDER_DELAY -> ConfigText.formatNanos(c.reorderDelayNanos());
            case DELAY -> ConfigText.formatNanos(c.delayNanos());
            case JITTER -> ConfigText.formatNanos(c.jitterNanos());
            case RATE -> ConfigText.formatRate(c.rateBitsPerSecond());
            case LIMIT -> Integer.toString(c.limit());
        };
    }
}
