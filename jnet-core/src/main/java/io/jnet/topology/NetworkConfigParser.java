package io.jnet.topology;

import io.jnet.ip.IpRouteFile;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.link.tap.TapDevice;
import io.jnet.link.vxlan.VxlanDevice;
import io.jnet.wire.Ipv4;
import java.net.InetAddress;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Reads the text form of {@link NetworkConfig} (see there), one statement a line; every error names its line. */
final class NetworkConfigParser {
    /** The namespace that statements before the first {@code namespace} line belong to (Linux's init_net). */
    static final String IMPLICIT_NAMESPACE = "init";

    private static final Pattern NAMESPACE_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final String STATEMENTS =
            "namespace, default, sysctl, link, addr, route, nameserver, search, domain, options, host";

    private final String source;
    private final Map<String, List<Statement>> blocks = new LinkedHashMap<>();
    private final Map<Statement, NetworkConfig.Origin> origins = new IdentityHashMap<>();
    private String current;
    private String defaultName;
    private int defaultLine;
    private int lineNo;
    private String written;

    private NetworkConfigParser(String source) {
        this.source = source;
    }

    /** Parses {@code text} (lines separated by {@code \n}); {@code source} names it in errors, or null. */
    static NetworkConfig parse(String text, String source) {
        NetworkConfigParser p = new NetworkConfigParser(source);
        String[] all = text.split("\r?\n", -1);
        for (String line : all) {
            p.lineNo++;
            int hash = line.indexOf('#');
            String s = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (s.isEmpty()) continue;
            p.written = s.replaceAll("\\s+", " ");
            try {
                p.statement(p.written.split(" "));
            } catch (NetworkConfigException e) {
                throw e;
            } catch (IllegalArgumentException e) {
                throw p.error(e.getMessage(), e);
            }
        }
        return p.finish();
    }

    private NetworkConfigException error(String problem, Throwable cause) {
        return new NetworkConfigException(source, lineNo, written, problem, cause);
    }

    private NetworkConfig finish() {
        if (blocks.isEmpty()) throw new NetworkConfigException(source, 0, null, "no namespace in the configuration", null);
        if (defaultName != null && !blocks.containsKey(defaultName)) {
            throw new NetworkConfigException(source, defaultLine, "default " + defaultName,
                    "no namespace " + defaultName + " in the configuration", null);
        }
        List<NamespaceConfig> namespaces = new ArrayList<>();
        blocks.forEach((name, statements) -> namespaces.add(new NamespaceConfig(name, statements)));
        String def = defaultName != null ? defaultName : namespaces.getFirst().name();
        NetworkConfig config = new NetworkConfig(source, def, namespaces, origins);
        config.validate();
        return config;
    }

    private void statement(String[] t) {
        switch (t[0]) {
            case "namespace" -> {
                expectArgs(t, 2, 2, "namespace NAME");
                if (!NAMESPACE_NAME.matcher(t[1]).matches()) {
                    throw new IllegalArgumentException("bad namespace name (1..64 of A-Z a-z 0-9 _ . -): " + t[1]);
                }
                current = t[1];
                blocks.computeIfAbsent(current, n -> new ArrayList<>());
            }
            case "default" -> {
                expectArgs(t, 2, 2, "default NAME");
                if (defaultName != null) throw new IllegalArgumentException("default given twice (first on line " + defaultLine + ")");
                defaultName = t[1];
                defaultLine = lineNo;
            }
            case "sysctl" -> add(sysctl(t));
            case "link" -> add(link(t));
            case "addr", "address" -> add(addr(t));
            case "route" -> {
                if (t.length < 2 || !t[1].equals("add")) throw new IllegalArgumentException("expected route add ROUTE");
                if (t.length < 3) throw new IllegalArgumentException("missing destination");
                add(new Statement.RouteAdd(IpRouteFile.parseSpec(String.join(" ", Arrays.copyOfRange(t, 2, t.length)))));
            }
            case "nameserver" -> {
                expectArgs(t, 2, 2, "nameserver ADDR");
                checkIpLiteral(t[1]);
                add(new Statement.ResolvConfLine(written));
            }
            case "domain" -> {
                expectArgs(t, 2, 2, "domain NAME");
                add(new Statement.ResolvConfLine(written));
            }
            case "search", "options" -> {
                expectArgs(t, 2, Integer.MAX_VALUE, t[0] + " VALUE...");
                add(new Statement.ResolvConfLine(written));
            }
            case "host" -> {
                expectArgs(t, 3, Integer.MAX_VALUE, "host ADDR NAME [ALIAS...]");
                checkIpLiteral(t[1]);
                add(new Statement.Host(t[1], List.of(t).subList(2, t.length)));
            }
            default -> throw new IllegalArgumentException("unknown statement '" + t[0] + "' (statements: " + STATEMENTS + ")");
        }
    }

    private void add(Statement s) {
        if (current == null) {
            current = IMPLICIT_NAMESPACE;
            blocks.computeIfAbsent(current, n -> new ArrayList<>());
        }
        blocks.get(current).add(s);
        origins.put(s, new NetworkConfig.Origin(lineNo, written));
    }

    private static void expectArgs(String[] t, int min, int max, String usage) {
        if (t.length < min || t.length > max) throw new IllegalArgumentException("expected " + usage);
    }

    private Statement.Sysctl sysctl(String[] t) {
        // sysctl [-w] KEY=VALUE, blanks allowed around '=' and inside vector values
        int from = t.length > 1 && t[1].equals("-w") ? 2 : 1;
        String rest = String.join(" ", Arrays.copyOfRange(t, from, t.length));
        int eq = rest.indexOf('=');
        if (eq < 0) throw new IllegalArgumentException("expected sysctl KEY=VALUE");
        String key = rest.substring(0, eq).strip();
        String value = rest.substring(eq + 1).strip();
        if (key.isEmpty() || key.contains(" ")) throw new IllegalArgumentException("expected sysctl KEY=VALUE");
        if (value.isEmpty()) throw new IllegalArgumentException("missing value of " + key);
        if (key.startsWith("/proc/sys/")) key = key.substring("/proc/sys/".length());
        return new Statement.Sysctl(key.replace('/', '.'), value);
    }

    private Statement link(String[] t) {
        if (t.length < 3) throw new IllegalArgumentException("expected link add NAME type TYPE ... or link set DEV ...");
        int i = 2;
        if (t[i].equals("dev") || t[i].equals("name")) i++;
        if (i >= t.length) throw new IllegalArgumentException("missing device name");
        String name = t[i++];
        checkDeviceName(name);
        return switch (t[1]) {
            case "add" -> linkAdd(name, t, i);
            case "set" -> linkSet(name, t, i);
            default -> throw new IllegalArgumentException("expected link add or link set, not link " + t[1]);
        };
    }

    private Statement linkAdd(String name, String[] t, int i) {
        if (i + 1 >= t.length || !t[i].equals("type")) throw new IllegalArgumentException("expected type tap, vxlan or veth after " + name);
        String type = t[i + 1];
        Options o = new Options(t, i + 2);
        return switch (type) {
            case "tap" -> {
                int mtu = 0;
                Path pcap = null;
                while (o.more()) {
                    switch (o.key()) {
                        case "mtu" -> mtu = o.intValue(TapDevice.MIN_MTU, TapDevice.MAX_MTU);
                        case "pcap" -> pcap = o.path();
                        default -> throw o.unknown("mtu, pcap");
                    }
                }
                if (name.contains("%")) throw new IllegalArgumentException("a TAP name in a configuration is literal (no %d): " + name);
                TapDevice.builder(name); // Linux's dev_valid_name
                yield new Statement.Tap(name, mtu, pcap);
            }
            case "vxlan" -> {
                int vni = -1, dstPort = Statement.Vxlan.DEFAULT_PORT, localPort = 0, mtu = 0;
                InetAddress remote = null, local = null;
                boolean learning = true;
                Path pcap = null;
                while (o.more()) {
                    switch (o.key()) {
                        case "id", "vni" -> vni = o.intValue(0, 16777215);
                        case "remote" -> remote = o.ipv4();
                        case "local" -> local = o.ipv4();
                        case "dstport" -> dstPort = o.intValue(1, 65535);
                        case "localport" -> localPort = o.intValue(1, 65535);
                        case "mtu" -> mtu = o.intValue(68, 65536);
                        case "learning" -> learning = true;
                        case "nolearning" -> learning = false;
                        case "pcap" -> pcap = o.path();
                        default -> throw o.unknown("id, remote, local, dstport, localport, mtu, learning, nolearning, pcap");
                    }
                }
                if (vni < 0) throw new IllegalArgumentException("missing id VNI");
                VxlanDevice.builder(name).vni(vni); // the device's own checks
                yield new Statement.Vxlan(name, vni, remote, local, dstPort, localPort, mtu, learning, pcap);
            }
            case "veth" -> {
                String peer = null, netns = null;
                int mtu = 0;
                Path pcap = null;
                while (o.more()) {
                    switch (o.key()) {
                        case "peer" -> {
                            String v = o.value();
                            if (v.equals("name")) v = o.value();
                            checkDeviceName(v);
                            peer = v;
                        }
                        case "netns" -> netns = o.value();
                        case "mtu" -> mtu = o.intValue(68, 65536);
                        case "pcap" -> pcap = o.path();
                        default -> throw o.unknown("peer, netns, mtu, pcap");
                    }
                }
                if (peer == null) throw new IllegalArgumentException("missing peer NAME");
                yield new Statement.Veth(name, peer, netns, mtu, pcap);
            }
            default -> throw new IllegalArgumentException("unknown link type " + type + " (types: tap, vxlan, veth)");
        };
    }

    private Statement linkSet(String dev, String[] t, int i) {
        Options o = new Options(t, i);
        int mtu = 0;
        ImpairmentConfig impair = null;
        if (!o.more()) throw new IllegalArgumentException("expected mtu N or impair SPEC after " + dev);
        while (o.more()) {
            switch (o.key()) {
                case "mtu" -> mtu = o.intValue(68, 65536);
                case "impair" -> impair = ImpairmentConfig.parse(o.value());
                default -> throw o.unknown("mtu, impair");
            }
        }
        return new Statement.LinkSet(dev, mtu, impair);
    }

    private Statement addr(String[] t) {
        if (t.length < 2 || !t[1].equals("add")) throw new IllegalArgumentException("expected addr add ADDR/LEN dev DEV");
        String cidr = null, dev = null;
        for (int i = 2; i < t.length; i++) {
            if (t[i].equals("dev")) {
                if (++i >= t.length) throw new IllegalArgumentException("missing value after dev");
                dev = t[i];
            } else if (cidr == null) {
                cidr = canonicalCidr(t[i]);
            } else {
                throw new IllegalArgumentException("unexpected " + t[i] + " (expected addr add ADDR/LEN dev DEV)");
            }
        }
        if (cidr == null) throw new IllegalArgumentException("missing address");
        if (dev == null) throw new IllegalArgumentException("missing dev");
        return new Statement.AddrAdd(cidr, dev);
    }

    /** {@code ADDR/LEN} or {@code ADDR} (a /32) as {@code a.b.c.d/len}. */
    private static String canonicalCidr(String s) {
        int slash = s.indexOf('/');
        int addr = Ipv4.parseAddress(slash < 0 ? s : s.substring(0, slash));
        int len = 32;
        if (slash >= 0) {
            String l = s.substring(slash + 1);
            if (!l.matches("\\d{1,2}") || Integer.parseInt(l) > 32) throw new IllegalArgumentException("bad prefix length: " + s);
            len = Integer.parseInt(l);
        }
        return Ipv4.addressToString(addr) + "/" + len;
    }

    static void checkDeviceName(String name) {
        // Linux dev_valid_name: 1..15 bytes, not . or .., no '/', ':' or blanks
        if (name.isEmpty() || name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 15
                || name.equals(".") || name.equals("..") || !name.chars().allMatch(c -> c > ' ' && c < 0x7f && c != '/' && c != ':')) {
            throw new IllegalArgumentException("bad device name (Linux dev_valid_name: 1..15 bytes, no '/', ':' or blanks): " + name);
        }
    }

    private static void checkIpLiteral(String s) {
        if (s.indexOf(':') >= 0) {
            InetAddress.ofLiteral(s); // IllegalArgumentException when not an IPv6 literal
        } else {
            Ipv4.parseAddress(s);
        }
    }

    /** KEY VALUE pairs and flags after the fixed words of a statement. */
    private static final class Options {
        private final String[] t;
        private int i;
        private String key;

        Options(String[] t, int from) {
            this.t = t;
            this.i = from;
        }

        boolean more() { return i < t.length; }

        String key() { return key = t[i++]; }

        String value() {
            if (i >= t.length) throw new IllegalArgumentException("missing value after " + key);
            return t[i++];
        }

        int intValue(int min, int max) {
            String v = value();
            long n;
            try {
                if (v.length() > 10 || !v.matches("\\d+")) throw new NumberFormatException();
                n = Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad " + key + " " + v + " (a number " + min + ".." + max + ")");
            }
            if (n < min || n > max) throw new IllegalArgumentException(key + " " + v + " outside " + min + ".." + max);
            return (int) n;
        }

        InetAddress ipv4() {
            return Ipv4.toInet(Ipv4.parseAddress(value()));
        }

        Path path() {
            String v = value();
            try {
                return Path.of(v);
            } catch (InvalidPathException e) {
                throw new IllegalArgumentException("bad file name " + v + ": " + e.getMessage());
            }
        }

        IllegalArgumentException unknown(String known) {
            return new IllegalArgumentException("unknown option " + key + " (options: " + known + ")");
        }
    }
}
