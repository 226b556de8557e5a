package io.jnet.link.impair;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/** Reads the text form of {@link ImpairmentConfig} (see there). */
final class ImpairmentConfigParser {
    private static final String KEYS =
            "loss, dup, corrupt, reorder, reorder-gap, reorder-delay, delay, jitter, rate, limit, seed, log";

    private ImpairmentConfigParser() {}

    /** Mutable per-direction values while parsing. */
    static final class DirectionBuilder {
        double loss, duplicate, corrupt, reorder;
        int reorderGap = DirectionConfig.DEFAULT_REORDER_GAP;
        long reorderDelayNanos, delayNanos, jitterNanos, rateBitsPerSecond;
        int limit = DirectionConfig.DEFAULT_LIMIT;

        DirectionConfig build(String direction) {
            try {
                return new DirectionConfig(loss, duplicate, corrupt, reorder, reorderGap, reorderDelayNanos, delayNanos,
                        jitterNanos, rateBitsPerSecond, limit);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("bad " + direction + " impairments: " + e.getMessage(), e);
            }
        }
    }

    static ImpairmentConfig parse(String text) {
        if (text == null) throw new IllegalArgumentException("impairment specification is null");
        String[] items = text.strip().isEmpty() ? new String[0] : text.split(",", -1);
        // unprefixed values first, then prefixed ones override them whatever the order in the text
        String[] both = new String[ImpairmentSetting.values().length];
        String[] egress = new String[both.length];
        String[] ingress = new String[both.length];
        Long seed = null;
        Integer log = null;
        Set<String> seen = new HashSet<>();
        for (String raw : items) {
            String item = raw.strip();
            if (item.isEmpty()) throw new IllegalArgumentException("empty item in impairment specification '" + text + "'");
            int eq = item.indexOf('=');
            if (eq <= 0 || eq == item.length() - 1) {
                throw new IllegalArgumentException("impairment item '" + item + "' is not key=value (keys: " + KEYS + ")");
            }
            String fullKey = item.substring(0, eq).strip().toLowerCase(java.util.Locale.ROOT);
            String value = item.substring(eq + 1).strip();
            if (!seen.add(fullKey)) throw new IllegalArgumentException("impairment '" + fullKey + "' given twice");
            String[] target = both;
            String key = fullKey;
            if (fullKey.startsWith("egress.")) { target = egress; key = fullKey.substring(7); }
            else if (fullKey.startsWith("ingress.")) { target = ingress; key = fullKey.substring(8); }
            if (key.equals("seed") || key.equals("log")) {
                if (target != both) throw new IllegalArgumentException("'" + key + "' applies to the whole device; drop the '" + fullKey.substring(0, fullKey.indexOf('.') + 1) + "' prefix");
                if (key.equals("seed")) seed = ConfigText.parseLong(key, value, Long.MIN_VALUE, Long.MAX_VALUE);
                else log = (int) ConfigText.parseLong(key, value, 0, ImpairmentConfig.MAX_LOG_CAPACITY);
                continue;
            }
            ImpairmentSetting s = ImpairmentSetting.byKey(key);
            if (s == null) throw new IllegalArgumentException("unknown impairment '" + fullKey + "' (keys: " + KEYS + ", optionally prefixed egress. or ingress.)");
            s.parseInto(new DirectionBuilder(), value); // validate the value now, naming the item as written
            target[s.ordinal()] = value;
        }
        DirectionConfig e = build(both, egress, "egress");
        DirectionConfig i = build(both, ingress, "ingress");
        return new ImpairmentConfig(e, i, seed != null ? seed : ThreadLocalRandom.current().nextLong(),
                log != null ? log : ImpairmentConfig.DEFAULT_LOG_CAPACITY);
    }

    private static DirectionConfig build(String[] both, String[] own, String direction) {
        DirectionBuilder b = new DirectionBuilder();
        for (ImpairmentSetting s : EnumSet.allOf(ImpairmentSetting.class)) {
            String v = own[s.ordinal()] != null ? own[s.ordinal()] : both[s.ordinal()];
            if (v != null) s.parseInto(b, v);
        }
        return b.build(direction);
    }
}
