package io.jnet.app;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Map;

/** Maps the host of an {@link HttpUrl} to an address; pluggable so that fetches need no DNS. */
@FunctionalInterface
public interface HostResolver {

    /**
     * Resolves {@code host} (lowercase name, IPv4 literal, or IPv6 literal without brackets).
     *
     * @throws UnknownHostException if the host cannot be resolved
     */
    InetAddress resolve(String host) throws UnknownHostException;

    /**
     * Accepts only address literals: IPv4 in strict dotted-decimal ({@code 10.0.0.1}; no leading zeros,
     * no shortened forms) and IPv6 literals. Names throw UnknownHostException. Never does a lookup.
     */
    static HostResolver literalsOnly() {
        return HostResolver::literal;
    }

    /** Address literals, then the names in {@code table} (keys compared lowercase); nothing else. */
    static HostResolver fixed(Map<String, InetAddress> table) {
        Map<String, InetAddress> copy = Map.copyOf(table);
        return host -> {
            InetAddress address = copy.get(host.toLowerCase(Locale.ROOT));
            return address != null ? address : literal(host);
        };
    }

    /** The JDK's resolver ({@link InetAddress#getByName}): the host's own DNS configuration. */
    static HostResolver system() {
        return InetAddress::getByName;
    }

    /** Parses an address literal; see {@link #literalsOnly()}. */
    private static InetAddress literal(String host) throws UnknownHostException {
        if (host.indexOf(':') >= 0) {
            try {
                return Inet6Address.ofLiteral(host);
            } catch (IllegalArgumentException e) {
                throw new UnknownHostException("bad IPv6 literal '" + host + "'");
            }
        }
        String[] parts = host.split("\\.", -1);
        byte[] bytes = new byte[4];
        boolean ok = parts.length == 4;
        for (int i = 0; ok && i < 4; i++) {
            String p = parts[i];
            ok = !p.isEmpty() && p.length() <= 3 && p.chars().allMatch(c -> c >= '0' && c <= '9')
                    && !(p.length() > 1 && p.charAt(0) == '0');
            if (ok) {
                int v = Integer.parseInt(p);
                ok = v <= 255;
                bytes[i] = (byte) v;
            }
        }
        if (!ok) {
            throw new UnknownHostException("'" + host + "' is not an IPv4 address literal and names are not"
                    + " resolved here; use an address such as 10.0.0.1");
        }
        return Inet4Address.getByAddress(host, bytes);
    }
}
