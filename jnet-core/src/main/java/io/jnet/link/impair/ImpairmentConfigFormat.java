package io.jnet.link.impair;

import java.util.StringJoiner;

/** Prints {@link ImpairmentConfig} and {@link DirectionConfig} in the text form {@link ImpairmentConfigParser} reads. */
final class ImpairmentConfigFormat {
    private ImpairmentConfigFormat() {}

    /** Non-default settings, equal ones unprefixed, differing ones with {@code egress.}/{@code ingress.}; then seed and log. */
    static String format(ImpairmentConfig c) {
        StringJoiner out = new StringJoiner(",");
        for (ImpairmentSetting s : ImpairmentSetting.values()) {
            String def = s.format(DirectionConfig.NONE);
            String e = s.format(c.egress());
            String i = s.format(c.ingress());
            if (e.equals(i)) {
                if (!e.equals(def)) out.add(s.key + "=" + e);
            } else {
                if (!e.equals(def)) out.add("egress." + s.key + "=" + e);
                if (!i.equals(def)) out.add("ingress." + s.key + "=" + i);
            }
        }
        out.add("seed=" + c.seed());
        if (c.logCapacity() != ImpairmentConfig.DEFAULT_LOG_CAPACITY) out.add("log=" + c.logCapacity());
        return out.toString();
    }

    /** Non-default settings of one direction, each key prefixed with {@code prefix}. */
    static String formatDirection(DirectionConfig c, String prefix) {
        StringJoiner out = new StringJoiner(",");
        for (ImpairmentSetting s : ImpairmentSetting.values()) {
            String v = s.format(c);
            if (!v.equals(s.format(DirectionConfig.NONE))) out.add(prefix + s.key + "=" + v);
        }
        return out.toString();
    }
}
