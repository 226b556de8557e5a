package io.jnet.ip;

import io.jnet.stack.Interface;
import io.jnet.wire.Ipv4;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads IPv4 routes written in {@code ip route} syntax (iproute2's {@code ip route show} output, or
 * the arguments of {@code ip route add}), one route a line:
 * <pre>
 * # comment
 * default via 198.51.100.1 dev veth0
 * 192.0.2.0/24 via 198.51.100.1 dev veth0 metric 100 src 192.0.2.5
 * 10.0.0.0/8 dev tap0 proto kernel scope link
 * 203.0.113.7 dev tap0              (no length: a /32, as in iproute2)
 * </pre>
 * Blank lines and text after {@code #} are skipped. Accepted: an optional leading {@code unicast};
 * {@code via [inet] ADDR}; {@code dev NAME} (required: resolved through the function given, which
 * returns null for an unknown name); {@code metric}, {@code priority} or {@code preference} N
 * (0..2^31-1); {@code src ADDR}; {@code table main}/{@code 254}; {@code proto}, {@code scope} with a
 * value and the flags {@code onlink}, {@code linkdown}, which are read and ignored (a gateway must still be
 * inside a connected route of its device, or loading fails with "Nexthop has invalid gateway"). Every other type
 * ({@code blackhole}, {@code unreachable}, {@code prohibit}, {@code local}, ...), another table, a
 * prefix with host bits set (iproute2: "Invalid prefix for given prefix length"), an unknown device
 * or keyword throws IllegalArgumentException whose message starts with {@code SOURCE:LINE:}.
 */
public final class IpRouteFile {
    private IpRouteFile() {}

    private static final Set<String> OTHER_TYPES =
            Set.of("blackhole", "unreachable", "prohibit", "local", "broadcast", "throw", "nat", "anycast", "multicast");

    /** The routes of {@code file}, in file order; errors name the file and line. */
    public static List<Route> load(Path file, Function<String, Interface> devices) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return parse(in, file.toString(), devices);
        }
    }

    /** The routes of {@code text}, in order; errors are named {@code <string>:LINE}. */
    public static List<Route> parse(String text, Function<String, Interface> devices) {
        try {
            return parse(new StringReader(text), "<string>", devices);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringReader does not throw
        }
    }

    /** The routes read from {@code in}; {@code source} names it in error messages. */
    public static List<Route> parse(Reader in, String source, Function<String, Interface> devices) throws IOException {
        BufferedReader r = in instanceof BufferedReader b ? b : new BufferedReader(in);
        List<Route> out = new ArrayList<>();
        int lineNo = 0;
        for (String line; (line = r.readLine()) != null; ) {
            lineNo++;
            int hash = line.indexOf('#');
            String s = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (s.isEmpty()) continue;
            try {
                out.add(parseLine(s, devices));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(source + ":" + lineNo + ": " + e.getMessage() + ": " + s, e);
            }
        }
        return out;
    }

    private static Route parseLine(String s, Function<String, Interface> devices) {
        Spec spec = parseSpec(s);
        if (spec.dev() == null) throw new IllegalArgumentException("missing dev");
        Interface itf = devices.apply(spec.dev());
        if (itf == null) throw new IllegalArgumentException("no such device: " + spec.dev());
        return spec.toRoute(itf);
    }

    /**
     * A route as written, before its device is looked up: what {@code ip route add} takes.
     *
     * @param prefix destination network (host bits clear), IPv4 in an int (network byte order as a number)
     * @param prefixLength 0..32 (0 for {@code default})
     * @param gateway the {@code via} address, 0 for none (a directly connected route)
     * @param dev the {@code dev} name, or null when the line gives none
     * @param preferredSource the {@code src} address, 0 for none
     * @param metric {@code metric} (also {@code priority}, {@code preference}), 0..2^31-1
     */
    public record Spec(int prefix, int prefixLength, int gateway, String dev, int preferredSource, int metric) {
        /** The route on {@code itf}. */
        public Route toRoute(Interface itf) { return new Route(prefix, prefixLength, gateway, itf, preferredSource, metric); }

        /** The canonical {@code ip route} form, e.g. {@code default via 192.0.2.1 dev tap0}; {@link #parseSpec} reads it back. */
        @Override
        public String toString() {
            StringBuilder b = new StringBuilder(prefixLength == 0 && prefix == 0 ? "default"
                    : Ipv4.addressToString(prefix) + "/" + prefixLength);
            if (gateway != 0) b.append(" via ").append(Ipv4.addressToString(gateway));
            if (dev != null) b.append(" dev ").append(dev);
            if (preferredSource != 0) b.append(" src ").append(Ipv4.addressToString(preferredSource));
            if (metric != 0) b.append(" metric ").append(metric);
            return b.toString();
        }
    }

    /**
     * Parses one route in the syntax of the class comment without looking up its device: {@code dev} may be
     * missing (null in the result), as {@code ip route add ... via GW} allows.
     *
     * @throws IllegalArgumentException for anything the class comment refuses, naming the problem
     */
    public static Spec parseSpec(String s) {
        String[] t = s.strip().split("\\s+");
        int i = 0;
        if (t[i].isEmpty()) throw new IllegalArgumentException("missing destination");
        if (t[i].equals("unicast")) i++;
        else if (OTHER_TYPES.contains(t[i])) throw new IllegalArgumentException(t[i] + " routes are not supported");
        if (i >= t.length) throw new IllegalArgumentException("missing destination");
        int[] d = parseDestination(t[i++]);
        int prefix = d[0], len = d[1];
        int gateway = 0, src = 0, metric = 0;
        String dev = null;
        while (i < t.length) {
            String k = t[i++];
            switch (k) {
                case "onlink", "linkdown" -> {}
                case "via", "dev", "metric", "priority", "preference", "src", "table", "proto", "scope" -> {
                    if (i >= t.length) throw new IllegalArgumentException("missing value after " + k);
                    String v = t[i++];
                    switch (k) {
                        case "via" -> {
                            if (v.equals("inet")) {
                                if (i >= t.length) throw new IllegalArgumentException("missing value after via inet");
                                v = t[i++];
                            }
                            gateway = Ipv4.parseAddress(v);
                        }
                        case "dev" -> dev = v;
                        case "metric", "priority", "preference" -> metric = parseInt(v, 0, Integer.MAX_VALUE, k);
                        case "src" -> src = Ipv4.parseAddress(v);
                        case "table" -> {
                            if (!v.equals("main") && !v.equals("254")) throw new IllegalArgumentException("only table main is supported, not " + v);
                        }
                        default -> {} // proto, scope: informational
                    }
                }
                default -> throw new IllegalArgumentException("unknown keyword " + k);
            }
        }
        return new Spec(prefix, len, gateway, dev, src, metric);
    }

    /**
     * The destination of {@code ip route add}: {@code default} (0.0.0.0/0), {@code ADDR/LEN} or
     * {@code ADDR} (a /32), as {prefix, length}. Throws IllegalArgumentException for a bad address or
     * length, and for host bits set beyond the length (iproute2: "Invalid prefix for given prefix length").
     */
    public static int[] parseDestination(String dst) {
        if (dst.equals("default")) return new int[] {0, 0};
        int slash = dst.indexOf('/');
        int prefix = Ipv4.parseAddress(slash < 0 ? dst : dst.substring(0, slash));
        int len = slash < 0 ? 32 : parseInt(dst.substring(slash + 1), 0, 32, "prefix length");
        if ((prefix & ~Ipv4.prefixMask(len)) != 0) throw new IllegalArgumentException("invalid prefix for given prefix length");
        return new int[] {prefix, len};
    }

    private static int parseInt(String v, int min, int max, String what) {
        long n;
        try {
            if (v.isEmpty() || v.length() > 10 || v.charAt(0) == '+' || v.charAt(0) == '-') throw new NumberFormatException();
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad " + what + " " + v);
        }
        if (n < min || n > max) throw new IllegalArgumentException("bad " + what + " " + v);
        return (int) n;
    }
}
