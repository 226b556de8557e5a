package io.jnet.dns;

import io.jnet.wire.Dns;
import io.jnet.wire.Ipv4;
import java.io.IOException;
import java.net.Inet4Address;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A namespace's static host table, the counterpart of {@code /etc/hosts} (hosts(5)) or, per Linux network
 * namespace, {@code /etc/netns/NAME/hosts}: IPv4 addresses with a canonical name and aliases. {@link NameService}
 * consults it before DNS, as glibc does with {@code hosts: files dns} in nsswitch.conf(5).
 *
 * <p>The text format is hosts(5)'s: one entry per line, the address, the canonical name, then aliases, separated by
 * blanks (spaces or tabs); text from a {@code #} to the end of the line is a comment. As glibc's
 * {@code files} source: names are matched ASCII case-insensitively; a name on several lines gets the addresses of
 * all of them, in file order ({@link #lookupByName}); an address on several lines maps back to the canonical name
 * of the first ({@link #lookupByAddress}). IPv6 lines (an address with a {@code ':'}, such as {@code ::1 localhost})
 * are well-formed and left out without complaint, since jnet has no IPv6 yet ({@link #ipv6LinesSkipped}); a line
 * whose address is neither, or that has no name, is left out and reported as an {@link IgnoredLine} (glibc skips
 * it silently).
 *
 * <p>A new table holds {@code 127.0.0.1 localhost}, as Debian's default {@code /etc/hosts}. Thread-safe: readers see
 * the table before or after a change, never half of one.
 */
public final class HostsTable {

    /**
     * One line of the table.
     *
     * @param address the IPv4 address
     * @param canonicalName the first name of the line
     * @param aliases the other names, in order
     */
    public record Entry(Inet4Address address, String canonicalName, List<String> aliases) {
        public Entry {
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(canonicalName, "canonicalName");
            aliases = List.copyOf(aliases);
        }

        /** Whether {@code name} is this entry's canonical name or one of its aliases (ASCII case-insensitive). */
        public boolean hasName(String name) {
            if (Dns.sameName(canonicalName, name)) return true;
            for (String a : aliases) if (Dns.sameName(a, name)) return true;
            return false;
        }

        @Override
        public String toString() {
            return address.getHostAddress() + " " + canonicalName + (aliases.isEmpty() ? "" : " " + String.join(" ", aliases));
        }
    }

    private volatile List<Entry> entries;
    private volatile int ipv6Skipped;

    /** A table holding {@code 127.0.0.1 localhost}. */
    public HostsTable() {
        entries = List.of(new Entry(Ipv4.toInet(0x7F000001), "localhost", List.of()));
    }

    /** The entries, in order. */
    public List<Entry> entries() { return entries; }

    /** IPv6 lines left out by the last {@link #load}/{@link #addAll}. */
    public int ipv6LinesSkipped() { return ipv6Skipped; }

    /**
     * Adds a line at the end, as appending {@code address canonicalName aliases...} to the file.
     *
     * @param address a dotted quad, e.g. {@code "192.0.2.10"}
     * @return this table
     * @throws IllegalArgumentException for an address that is not a dotted quad, or a name that is empty or holds
     *     blanks or {@code '#'}
     */
    public HostsTable add(String address, String canonicalName, String... aliases) {
        Entry e = new Entry(Ipv4.toInet(Ipv4.parseAddress(address)), checkName(canonicalName), checkNames(aliases));
        synchronized (this) {
            List<Entry> next = new ArrayList<>(entries);
            next.add(e);
            entries = Collections.unmodifiableList(next);
        }
        return this;
    }

    private static String checkName(String n) {
        if (n == null || n.isEmpty() || n.chars().anyMatch(c -> c <= ' ' || c == '#')) {
            throw new IllegalArgumentException("bad host name for the hosts table: '" + n + "'");
        }
        return n;
    }

    private static List<String> checkNames(String... names) {
        List<String> out = new ArrayList<>(names.length);
        for (String n : names) out.add(checkName(n));
        return out;
    }

    /** Removes every entry, {@code localhost} included. */
    public synchronized void clear() {
        entries = List.of();
        ipv6Skipped = 0;
    }

    /**
     * Replaces the table with the entries of a hosts(5) file.
     *
     * @return the lines left out, with the reason of each (IPv6 lines are not among them)
     * @throws IOException when the file cannot be read (the table is then unchanged)
     */
    public List<IgnoredLine> load(Path file) throws IOException {
        String text = Files.readString(file);
        synchronized (this) {
            entries = List.of();
            return addAll(text);
        }
    }

    /**
     * Appends the entries of hosts(5) text.
     *
     * @return the lines left out, with the reason of each (IPv6 lines are not among them)
     */
    public synchronized List<IgnoredLine> addAll(String text) {
        List<Entry> next = new ArrayList<>(entries);
        List<IgnoredLine> ignored = new ArrayList<>();
        int v6 = 0;
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int hash = line.indexOf('#');
            String content = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (content.isEmpty()) continue;
            String[] words = content.split("[ \t]+");
            if (words[0].indexOf(':') >= 0) {
                v6++;
                continue;
            }
            int address;
            try {
                address = Ipv4.parseAddress(words[0]);
            } catch (IllegalArgumentException notAddress) {
                ignored.add(new IgnoredLine(i + 1, line, "not an IPv4 or IPv6 address: " + words[0]));
                continue;
            }
            if (words.length < 2) {
                ignored.add(new IgnoredLine(i + 1, line, "no host name after the address"));
                continue;
            }
            next.add(new Entry(Ipv4.toInet(address), words[1], List.of(words).subList(2, words.length)));
        }
        entries = Collections.unmodifiableList(next);
        ipv6Skipped = v6;
        return List.copyOf(ignored);
    }

    /**
     * The addresses of every entry that has {@code name} as canonical name or alias (ASCII case-insensitive, a
     * trailing dot ignored), in table order without repeats; empty when there is none.
     */
    public List<Inet4Address> lookupByName(String name) {
        List<Inet4Address> out = new ArrayList<>(2);
        for (Entry e : entries) {
            if (e.hasName(name) && !out.contains(e.address)) out.add(e.address);
        }
        return out;
    }

    /** The canonical name of the first entry for {@code address}, if any. */
    public Optional<String> lookupByAddress(Inet4Address address) {
        for (Entry e : entries) if (e.address.equals(address)) return Optional.of(e.canonicalName);
        return Optional.empty();
    }

    /** The table in hosts(5) text, one entry per line. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Entry e : entries) sb.append(e).append('\n');
        return sb.toString();
    }
}
