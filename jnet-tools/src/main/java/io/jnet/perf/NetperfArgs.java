package io.jnet.perf;

/**
 * netperf's argument conventions.
 *
 * <p>Sizes ({@link #size}): a number with an optional suffix, {@code K}/{@code M}/{@code G} for 2^10, 2^20,
 * 2^30 and {@code k}/{@code m}/{@code g} for 10^3, 10^6, 10^9 (netperf's {@code convert()}).
 *
 * <p>Pairs ({@link #pair}): {@code a,b}; a single value without a comma sets both; {@code ,b} sets only the
 * second and {@code a,} only the first (netperf's {@code break_args()}).
 */
public final class NetperfArgs {
    private NetperfArgs() {}

    /** The two halves of a pair option; either may be null when not given. */
    public record Pair(String first, String second) {}

    /**
     * Splits {@code a,b}. {@code "16K"} gives ("16K", "16K"), {@code ",4"} gives (null, "4"),
     * {@code "4,"} gives ("4", null).
     *
     * @throws IllegalArgumentException for more than one comma or an empty value
     */
    public static Pair pair(String s) {
        String t = s.trim();
        if (t.isEmpty() || t.equals(",")) throw new IllegalArgumentException("empty value");
        int comma = t.indexOf(',');
        if (comma < 0) return new Pair(t, t);
        if (t.indexOf(',', comma + 1) >= 0) throw new IllegalArgumentException("expected at most two values: " + s);
        String a = t.substring(0, comma).trim();
        String b = t.substring(comma + 1).trim();
        return new Pair(a.isEmpty() ? null : a, b.isEmpty() ? null : b);
    }

    /**
     * Parses a byte count with an optional netperf suffix: {@code 64K} = 65536, {@code 64k} = 64000.
     *
     * @throws IllegalArgumentException for a malformed, negative or overflowing size
     */
    public static long size(String s) {
        String t = s.trim();
        if (t.isEmpty()) throw new IllegalArgumentException("empty size");
        long mult = switch (t.charAt(t.length() - 1)) {
            case 'K' -> 1L << 10;
            case 'M' -> 1L << 20;
            case 'G' -> 1L << 30;
            case 'k' -> 1_000L;
            case 'm' -> 1_000_000L;
            case 'g' -> 1_000_000_000L;
            default -> 1;
        };
        String digits = mult == 1 ? t : t.substring(0, t.length() - 1);
        long n;
        try {
            n = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a size: '" + s + "' (bytes, optionally with K, M, G or k, m, g)", e);
        }
        if (n < 0) throw new IllegalArgumentException("size must not be negative: " + s);
        try {
            return Math.multiplyExact(n, mult);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("size too large: " + s, e);
        }
    }

    /**
     * A size that must fit a buffer: 1 byte up to 2^30.
     *
     * @throws IllegalArgumentException naming {@code what} when out of range
     */
    public static int bufferSize(String what, String s) {
        long v = size(s);
        if (v < 1 || v > (1L << 30)) {
            throw new IllegalArgumentException(what + " must be between 1 byte and 1G: " + s);
        }
        return (int) v;
    }

    /**
     * netperf's {@code -r req,resp}: sizes of request and response in bytes; a missing half keeps its
     * current value.
     *
     * @return {request, response}
     */
    public static int[] requestResponse(String s, int currentRequest, int currentResponse) {
        Pair p = pair(s);
        int req = p.first() == null ? currentRequest : bufferSize("request size", p.first());
        int resp = p.second() == null ? currentResponse : bufferSize("response size", p.second());
        return new int[] {req, resp};
    }

    /**
     * netperf's {@code -s send,recv} / {@code -S send,recv}: socket buffer sizes in bytes; a missing half
     * leaves that buffer at the stack default.
     */
    public static SocketSettings socketBuffers(String s, boolean noDelay) {
        Pair p = pair(s);
        int snd = p.first() == null ? SocketSettings.SYSTEM_DEFAULT : bufferSize("socket send buffer", p.first());
        int rcv = p.second() == null ? SocketSettings.SYSTEM_DEFAULT : bufferSize("socket receive buffer", p.second());
        return new SocketSettings(snd, rcv, noDelay);
    }
}
