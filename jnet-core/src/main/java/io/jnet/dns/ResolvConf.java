package io.jnet.dns;

import io.jnet.wire.Ipv4;
import java.io.IOException;
import java.net.Inet4Address;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The stub resolver's configuration, the subset of resolv.conf(5) that {@link DnsResolver} uses, with glibc's
 * defaults and limits (resolv/res_init.c, resolv.h):
 *
 * <ul>
 * <li>{@code nameserver ADDRESS}: up to 3 (MAXNS) IPv4 servers, queried in order; more lines are left out. An
 * IPv6 server is left out too (jnet has no IPv6 yet). Without any, {@link DnsResolver} sends nothing: glibc would
 * then ask 127.0.0.1, but a jnet namespace runs no server of its own.</li>
 * <li>{@code search DOMAIN...} and {@code domain DOMAIN}: the search list; the last of these lines wins, as in
 * glibc (a {@code domain} line is a search list of one). glibc since 2.26 has no limit on the domains; nor has
 * this.</li>
 * <li>{@code options}: {@code ndots:n} (default 1, at most 15), {@code timeout:n} (seconds to wait for one server's
 * answer, default 5, at most 30), {@code attempts:n} (rounds over all servers, default 2, at most 5),
 * {@code rotate} (start each query at the next server). A value above the maximum is capped, as glibc does; a value
 * that is not a number reads as 0, as glibc's atoi does; a timeout or attempts of 0 is raised to 1 (glibc waits at
 * least 1 s per server anyway, and with 0 attempts would never send). Other options are left out.</li>
 * </ul>
 *
 * <p>Lines starting with {@code #} or {@code ;} are comments. glibc ignores lines it does not understand without a
 * word; {@link #parse} leaves out the same lines and lists each in {@link #ignored} with the reason: unknown
 * keywords (including {@code sortlist}, which jnet does not implement), unknown options, unparsable or IPv6
 * server addresses, servers beyond the third, a keyword without a value. The environment variables
 * {@code LOCALDOMAIN} and {@code RES_OPTIONS} have no counterpart.
 *
 * @param nameservers the servers, at most 3, in order
 * @param search the search list, in order
 * @param ndots names with at least this many dots are tried as given before the search list (0..15)
 * @param timeoutSeconds how long to wait for one server's answer to one query, seconds (1..30)
 * @param attempts how many times each server is asked before giving up (1..5)
 * @param rotate start each query at the next server in turn
 * @param ignored the lines {@link #parse} left out, with the reason of each
 */
public record ResolvConf(List<Inet4Address> nameservers, List<String> search, int ndots, int timeoutSeconds,
        int attempts, boolean rotate, List<IgnoredLine> ignored) {

    /** MAXNS in resolv.h. */
    public static final int MAX_NAMESERVERS = 3;
    /** RES_MAXNDOTS. */
    public static final int MAX_NDOTS = 15;
    /** RES_MAXRETRANS, seconds. */
    public static final int MAX_TIMEOUT = 30;
    /** RES_MAXRETRY. */
    public static final int MAX_ATTEMPTS = 5;
    /** The defaults of resolv.conf(5): ndots 1, RES_TIMEOUT 5 s, RES_DFLRETRY 2. */
    public static final int DEFAULT_NDOTS = 1, DEFAULT_TIMEOUT = 5, DEFAULT_ATTEMPTS = 2;

    /** No servers, no search list, the defaults. */
    public static final ResolvConf EMPTY = new ResolvConf(List.of(), List.of(), DEFAULT_NDOTS, DEFAULT_TIMEOUT,
            DEFAULT_ATTEMPTS, false, List.of());

    public ResolvConf {
        nameservers = List.copyOf(nameservers);
        search = List.copyOf(search);
        ignored = List.copyOf(ignored);
        if (nameservers.size() > MAX_NAMESERVERS) throw new IllegalArgumentException("more than 3 name servers: " + nameservers);
        if (ndots < 0 || ndots > MAX_NDOTS) throw new IllegalArgumentException("ndots outside 0..15: " + ndots);
        if (timeoutSeconds < 1 || timeoutSeconds > MAX_TIMEOUT) throw new IllegalArgumentException("timeout outside 1..30 s: " + timeoutSeconds);
        if (attempts < 1 || attempts > MAX_ATTEMPTS) throw new IllegalArgumentException("attempts outside 1..5: " + attempts);
    }

    /** The defaults with these servers (dotted quads). */
    public static ResolvConf ofNameservers(String... addresses) {
        List<Inet4Address> list = new ArrayList<>();
        for (String a : addresses) list.add(Ipv4.toInet(Ipv4.parseAddress(a)));
        return EMPTY.withNameservers(list);
    }

    public ResolvConf withNameservers(List<Inet4Address> servers) {
        return new ResolvConf(servers, search, ndots, timeoutSeconds, attempts, rotate, ignored);
    }

    public ResolvConf withSearch(String... domains) {
        return new ResolvConf(nameservers, List.of(domains), ndots, timeoutSeconds, attempts, rotate, ignored);
    }

    public ResolvConf withNdots(int n) {
        return new ResolvConf(nameservers, search, n, timeoutSeconds, attempts, rotate, ignored);
    }

    public ResolvConf withTimeout(int seconds) {
        return new ResolvConf(nameservers, search, ndots, seconds, attempts, rotate, ignored);
    }

    public ResolvConf withAttempts(int n) {
        return new ResolvConf(nameservers, search, ndots, timeoutSeconds, n, rotate, ignored);
    }

    public ResolvConf withRotate(boolean on) {
        return new ResolvConf(nameservers, search, ndots, timeoutSeconds, attempts, on, ignored);
    }

    /** {@link #timeoutSeconds} as a duration. */
    public Duration timeout() { return Duration.ofSeconds(timeoutSeconds); }

    /** Reads and {@link #parse parses} a resolv.conf(5) file. */
    public static ResolvConf load(Path file) throws IOException {
        return parse(Files.readString(file));
    }

    /**
     * Parses resolv.conf(5) text; never throws for its content: lines it cannot use are listed in
     * {@link #ignored}.
     */
    public static ResolvConf parse(String text) {
        Objects.requireNonNull(text, "text");
        List<Inet4Address> servers = new ArrayList<>();
        List<String> search = List.of();
        int ndots = DEFAULT_NDOTS, timeout = DEFAULT_TIMEOUT, attempts = DEFAULT_ATTEMPTS;
        boolean rotate = false;
        List<IgnoredLine> ignored = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String content = line.strip();
            if (content.isEmpty() || content.startsWith("#") || content.startsWith(";")) continue;
            String[] words = content.split("[ \t]+");
            int n = i + 1;
            switch (words[0]) {
                case "nameserver" -> {
                    if (words.length < 2) {
                        ignored.add(new IgnoredLine(n, line, "nameserver without an address"));
                    } else if (words[1].indexOf(':') >= 0) {
                        ignored.add(new IgnoredLine(n, line, "IPv6 name server (jnet has no IPv6 yet)"));
                    } else if (servers.size() == MAX_NAMESERVERS) {
                        ignored.add(new IgnoredLine(n, line, "more than " + MAX_NAMESERVERS + " name servers (MAXNS)"));
                    } else {
                        try {
                            servers.add(Ipv4.toInet(Ipv4.parseAddress(words[1])));
                        } catch (IllegalArgumentException e) {
                            ignored.add(new IgnoredLine(n, line, "not an address: " + words[1]));
                        }
                    }
                }
                case "domain" -> {
                    if (words.length < 2) ignored.add(new IgnoredLine(n, line, "domain without a name"));
                    else search = List.of(stripDot(words[1]));
                }
                case "search" -> {
                    if (words.length < 2) {
                        ignored.add(new IgnoredLine(n, line, "search without a domain"));
                    } else {
                        List<String> s = new ArrayList<>();
                        for (int w = 1; w < words.length; w++) s.add(stripDot(words[w]));
                        search = s;
                    }
                }
                case "options" -> {
                    for (int w = 1; w < words.length; w++) {
                        String o = words[w];
                        if (o.startsWith("ndots:")) ndots = Math.min(atoi(o, 6, n, line, ignored), MAX_NDOTS);
                        else if (o.startsWith("timeout:")) timeout = Math.max(1, Math.min(atoi(o, 8, n, line, ignored), MAX_TIMEOUT));
                        else if (o.startsWith("attempts:")) attempts = Math.max(1, Math.min(atoi(o, 9, n, line, ignored), MAX_ATTEMPTS));
                        else if (o.equals("rotate")) rotate = true;
                        else ignored.add(new IgnoredLine(n, line, "option not supported: " + o));
                    }
                }
                default -> ignored.add(new IgnoredLine(n, line, "keyword not supported: " + words[0]));
            }
        }
        return new ResolvConf(servers, search, ndots, timeout, attempts, rotate, ignored);
    }

    private static String stripDot(String d) {
        return d.length() > 1 && d.endsWith(".") ? d.substring(0, d.length() - 1) : d;
    }

    /** glibc's atoi of the option value: leading digits, 0 without any (noted in {@code ignored}). */
    private static int atoi(String option, int from, int n, String line, List<IgnoredLine> ignored) {
        int v = 0, i = from;
        while (i < option.length() && Character.isDigit(option.charAt(i)) && v < 1000) v = v * 10 + (option.charAt(i++) - '0');
        if (i == from) ignored.add(new IgnoredLine(n, line, "value of " + option + " is not a number: read as 0, as glibc's atoi"));
        return v;
    }

    /** The configuration as resolv.conf(5) text (without the ignored lines). */
    public String toText() {
        StringBuilder sb = new StringBuilder();
        for (Inet4Address a : nameservers) sb.append("nameserver ").append(a.getHostAddress()).append('\n');
        if (!search.isEmpty()) sb.append("search ").append(String.join(" ", search)).append('\n');
        sb.append("options ndots:").append(ndots).append(" timeout:").append(timeoutSeconds).append(" attempts:").append(attempts);
        if (rotate) sb.append(" rotate");
        return sb.append('\n').toString();
    }
}
