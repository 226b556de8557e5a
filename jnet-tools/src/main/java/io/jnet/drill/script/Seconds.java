package io.jnet.drill.script;

/** Script times: seconds as written ({@code 0.100}, {@code 2}) to and from microseconds. */
final class Seconds {
    private Seconds() {}

    /** The largest time a script may write, in microseconds (about 292 000 years). */
    static final long MAX_MICROS = Long.MAX_VALUE / 2;

    /**
     * Microseconds of a decimal number of seconds ({@code 0.1}, {@code .25}, {@code 3}), exactly: digits past the
     * sixth decimal are dropped (packetdrill multiplies a double by 1e6 and truncates, which can land one microsecond
     * lower, e.g. 1.001 s as 1000999 us).
     *
     * @return the microseconds, or -1 for a negative time, or -2 for one beyond {@link #MAX_MICROS}
     */
    static long toMicros(String decimal) {
        if (decimal.startsWith("-")) return -1;
        int dot = decimal.indexOf('.');
        String whole = dot < 0 ? decimal : decimal.substring(0, dot);
        String frac = dot < 0 ? "" : decimal.substring(dot + 1);
        whole = whole.replaceFirst("^0+(?=.)", "");
        if (whole.isEmpty()) whole = "0";
        if (whole.length() > 12) return -2;
        long micros = Long.parseLong(whole) * 1_000_000L;
        String six = (frac + "000000").substring(0, 6);
        micros += Long.parseLong(six);
        return micros > MAX_MICROS ? -2 : micros;
    }

    /** Microseconds as seconds the way scripts write them: {@code 0}, {@code 2}, {@code 0.100}, {@code 0.00025} (trailing zeros dropped, but at least three decimals). */
    static String format(long micros) {
        long whole = micros / 1_000_000L;
        long frac = Math.abs(micros % 1_000_000L);
        if (frac == 0) return Long.toString(whole);
        String f = String.format("%06d", frac);
        int end = f.length();
        while (end > 1 && f.charAt(end - 1) == '0' && end > 3) end--;
        return (micros < 0 && whole == 0 ? "-" : "") + whole + "." + f.substring(0, end);
    }
}
