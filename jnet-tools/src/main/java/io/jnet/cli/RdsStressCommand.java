package io.jnet.cli;

import io.jnet.app.rdsstress.StressActive;
import io.jnet.app.rdsstress.StressConfig;
import io.jnet.app.rdsstress.StressLine;
import io.jnet.app.rdsstress.StressMeter;
import io.jnet.app.rdsstress.StressPassive;
import io.jnet.app.rdsstress.StressReport;
import io.jnet.app.rdsstress.StressMessage;
import io.jnet.app.rdsstress.StressResult;
import io.jnet.app.rdsstress.StressSweep;
import io.jnet.link.vxlan.VxlanDevice;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.Sysctls;
import io.jnet.topology.Topology;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code jnet rds-stress}: rds-stress(1) over jnet's RDS sockets, both ends in this JVM (two namespaces joined by
 * a veth pair) or one end per JVM over a VXLAN tunnel.
 */
@Command(name = "rds-stress", mixinStandardHelpOptions = true, versionProvider = Version.Provider.class,
        sortOptions = false,
        description = {
            "Exchange messages over RDS sockets, as rds-stress(1), and check them.",
            "",
            "Each of -t tasks has one RDS socket on each side, bound to port -p + task;",
            "the active side keeps -d requests of -q bytes in flight to its peer task",
            "and the passive side answers each with an ack of -a bytes. Every message",
            "carries a sequence number and a CRC32C, and each direction of each",
            "(sender, receiver) pair is checked: at the end a verdict line says whether",
            "any message was lost, duplicated, reordered or corrupted (exit code 1 if",
            "so). Each socket's SO_SNDBUF and SO_RCVBUF hold -d messages of the larger",
            "size (at least net.core.wmem_default; net.core.wmem_max and rmem_max are",
            "raised to that unless given with --rds-sysctl).",
            "",
            "Without addresses both sides run in this JVM: namespaces rds-active",
            "(192.0.2.1/24) and rds-passive (192.0.2.2/24) joined by a veth pair.",
            "With --local, one side runs here in a namespace on a VXLAN device whose",
            "UDP socket talks to the other JVM's (--vxlan-peer): the passive side",
            "(--passive) answers one run and exits; the active side runs -T seconds.",
            "",
            "Output: the column heads, then a line per second:",
            "  tsks       tasks",
            "  tx/s rx/s  messages sent and received per second by this side",
            "  tx+rx K/s  KiB (1024 bytes) of payload per second, both ways",
            "  mbi K/s    KiB per second received; mbo K/s: sent",
            "  rtt us     mean round trip of the requests acked in that second",
            "  p99 us     their 99th percentile (HdrHistogram, 3 digits)",
            "then the summary: avg (rate columns averaged over the seconds; rtt over",
            "every request) and med (medians of the per-second lines), the verdict,",
            "the failing pairs (all with -v) and any problem.",
            "The passive side (--passive) counts its seconds from the first request",
            "it gets to the last END, so it may print one line fewer than the active",
            "side: its first second starts later and its last one is cut by END.",
            ""},
        footer = {"",
            "Examples:",
            "  jnet rds-stress -q 100000 -a 256 -t 16 -d 16 -T 5",
            "  jnet rds-stress -t 4 -d 8 --rds-sysctl net.rds.tcp.jnet_msg_more=0 --csv",
            "  jnet rds-stress -t 4 -d 4 -T 3 --sizes 64,4K,64K,1M \\",
            "      --compare defaults,pinned,no-msg-more --plot rds.png",
            "  two JVMs over VXLAN on 127.0.0.1, the passive side first:",
            "  jnet rds-stress --passive --local 192.0.2.2/24 --vxlan-port 4790 \\",
            "      --vxlan-peer 127.0.0.1:4789 -t 4",
            "  jnet rds-stress --local 192.0.2.1/24 --remote 192.0.2.2 --vxlan-port 4789 \\",
            "      --vxlan-peer 127.0.0.1:4790 -t 4 -d 8 -T 5",
            "",
            "Exit codes: 0 every message checked, 1 a message lost, duplicated,",
            "reordered or corrupt, or the run failed, 2 bad usage."})
public final class RdsStressCommand implements Callable<Integer> {
    /** The in-JVM topology's addresses (TEST-NET-1, RFC 5737). */
    static final String ACTIVE_CIDR = "192.0.2.1/24";
    static final String PASSIVE_CIDR = "192.0.2.2/24";
    /** How long the passive side waits for the active side's BYE after the last END_ACK. */
    static final Duration BYE_WAIT = Duration.ofSeconds(3);

    @Spec
    CommandSpec spec;

    @Option(names = {"-q", "--req-bytes"}, paramLabel = "BYTES", defaultValue = "1024", converter = SizeConverter.class,
            description = "Bytes per request, 40 (the header) to 1M; suffixes K and M (1024-based). Default ${DEFAULT-VALUE}.")
    int reqBytes;

    @Option(names = {"-a", "--ack-bytes"}, paramLabel = "BYTES", defaultValue = "1024", converter = SizeConverter.class,
            description = "Bytes per ack, 40 to 1M. Default ${DEFAULT-VALUE}.")
    int ackBytes;

    @Option(names = {"-t", "--tasks"}, paramLabel = "N", defaultValue = "1",
            description = "Tasks, 1 to 1024: one RDS socket each on each side. Default ${DEFAULT-VALUE}.")
    int tasks;

    @Option(names = {"-d", "--depth"}, paramLabel = "N", defaultValue = "1",
            description = "Requests each task keeps in flight without ack, 1 to 65536. Default ${DEFAULT-VALUE}.")
    int depth;

    @Option(names = {"-T", "--time"}, paramLabel = "SECS", defaultValue = "10",
            description = "Seconds of traffic, 1 to 86400 (the active side). Default ${DEFAULT-VALUE}.")
    int seconds;

    @Option(names = {"-o", "--one-way"},
            description = "Requests only: the passive side sends no acks (no rtt; -d does not bound the sends).")
    boolean oneWay;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", defaultValue = "4000",
            description = "First RDS port; task i uses PORT+i on both sides. Default ${DEFAULT-VALUE}.")
    int port;

    @Option(names = {"-v", "--verbose"}, description = "Also print each task's figures every second (task, tx/s, rx/s, tx+rx K/s, mbi K/s, mbo K/s, rtt us), "
                    + "every pair's result, and the namespaces' non-zero RDS counters at the end (as rds-info -c) with their TCP "
                    + "retransmission, timeout and drop counters (as nstat).")
    boolean verbose;

    @Option(names = "--rds-sysctl", paramLabel = "NAME=VALUE",
            description = "Set a sysctl in this run's namespaces before any socket opens, e.g. "
                    + "net.rds.tcp.rds_tcp_sndbuf=131072 or net.rds.tcp.jnet_msg_more=0 (any name jnet knows). Repeatable.")
    List<String> sysctls = new ArrayList<>();

    @Option(names = "--sizes", paramLabel = "LIST", split = ",", converter = SizeConverter.class,
            description = "A sweep: one run of -T seconds per request size (e.g. 64,1K,64K,1M; at least "
                    + StressMessage.HEADER_BYTES + "), each under every --compare configuration, both sides in this JVM; "
                    + "prints a table of messages/s and rtt per size and configuration at the end. See --warmup and --rounds.")
    List<Integer> sweepSizes;

    @Option(names = "--compare", paramLabel = "LIST", split = ",",
            description = "Configurations a sweep compares, side by side (runs alternate, see --rounds): defaults, pinned "
                    + "(net.rds.tcp.rds_tcp_sndbuf and rds_tcp_rcvbuf 131072), no-msg-more (net.rds.tcp.jnet_msg_more=0), "
                    + "pinned-no-msg-more. Default: defaults. Applied on top of --rds-sysctl. Needs --sizes.")
    List<String> compare;

    @Option(names = "--warmup", paramLabel = "SECS", defaultValue = "3",
            description = "A sweep first runs every --compare configuration once at the first size, these seconds "
                    + "split evenly among them (at least 1 s each), not measured, so that no configuration is "
                    + "measured on code the JIT is still compiling; 0 for none. Default ${DEFAULT-VALUE}.")
    int warmupSeconds;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "1",
            description = "A sweep runs every configuration N times per size, 1 to 1000: round r starts at the "
                    + "(r mod k)th of the k configurations and goes round, so each comes first once per k rounds. "
                    + "The table gives the median over the rounds of each figure and, for N > 1, each round's "
                    + "messages/s. Default ${DEFAULT-VALUE}.")
    int rounds;

    @Option(names = "--plot", paramLabel = "FILE.png|FILE.svg",
            description = "With a sweep, also draw messages/s and rtt against the request size, a line per "
                    + "configuration: FILE-rds-stress_messages.EXT and FILE-rds-stress_rtt.EXT. Needs --sizes; the "
                    + "folder must be writable before the first run.")
    java.nio.file.Path plot;

    @Option(names = "--passive", description = "Run the answering side (needs --local and --vxlan-peer).")
    boolean passive;

    @Option(names = "--local", paramLabel = "ADDR[/LEN]",
            description = "This side's address on the VXLAN device, e.g. 192.0.2.1/24 (default prefix /24).")
    String local;

    @Option(names = "--remote", paramLabel = "ADDR", description = "The passive side's address (active side).")
    String remote;

    @Option(names = "--vxlan-peer", paramLabel = "HOST:PORT",
            description = "The other JVM's VXLAN UDP socket, e.g. 127.0.0.1:4790.")
    String vxlanPeer;

    @Option(names = "--vxlan-port", paramLabel = "PORT", defaultValue = "" + io.jnet.wire.Vxlan.UDP_PORT,
            description = "UDP port of this JVM's VXLAN socket, bound to 127.0.0.1 when the peer is a loopback "
                    + "address, else to all addresses. Default ${DEFAULT-VALUE}.")
    int vxlanPort;

    @Option(names = "--vni", paramLabel = "N", defaultValue = "42",
            description = "VXLAN network identifier, 0 to 16777215; both sides must agree. Default ${DEFAULT-VALUE}.")
    int vni;

    @Option(names = "--wait", paramLabel = "SECS",
            description = "Active: how long to wait for the passive side's first answer (default 30). Passive: how "
                    + "long to wait for the active side's first request (default: no limit), and, once traffic began, "
                    + "how long without any message from the active side ends the run with exit code 1 (default 10).")
    Integer waitSeconds;

    @ArgGroup(exclusive = true)
    Format format;

    /** Machine-readable output choice. */
    static final class Format {
        @Option(names = "--json", description = "Print one JSON document at the end instead of the text report.")
        boolean json;

        @Option(names = "--csv", description = "Print CSV rows (one per second, then avg and med) instead of the text report.")
        boolean csv;
    }

    private final PrintStream out;
    private final PrintStream err;
    /** The namespaces' non-zero RDS counters at the end of the run, for -v. */
    private final List<String> rdsCounters = new ArrayList<>();

    public RdsStressCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** The checked options. */
    record Plan(StressConfig config, Map<String, String> sysctls, VxlanSide vxlan, StressReport.Format format) {}

    /** The VXLAN mode's options. */
    record VxlanSide(boolean passive, String localCidr, InetAddress local, InetAddress remote, InetSocketAddress peer,
                 InetSocketAddress bind, int vni) {}

    /**
     * Turns the options into a plan.
     *
     * @throws CommandLine.ParameterException for any bad value (exit code 2)
     */
    Plan plan() {
        try {
            Duration helloWait = Duration.ofSeconds(waitSeconds == null ? 30 : waitSeconds);
            if (waitSeconds != null && (waitSeconds < 1 || waitSeconds > 86_400)) {
                throw new IllegalArgumentException("--wait must be 1 to 86400 seconds: " + waitSeconds);
            }
            StressConfig config = new StressConfig(reqBytes, ackBytes, tasks, depth, seconds, oneWay, port, verbose,
                    helloWait, Duration.ofSeconds(10));
            Map<String, String> s = parseSysctls(sysctls);
            VxlanSide v = vxlan();
            StressReport.Format f = format == null ? StressReport.Format.TEXT
                    : format.json ? StressReport.Format.JSON : StressReport.Format.CSV;
            return new Plan(config, s, v, f);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    private VxlanSide vxlan() {
        boolean any = passive || local != null || remote != null || vxlanPeer != null || matched("--vxlan-port")
                || matched("--vni");
        if (!any) return null;
        if (local == null || vxlanPeer == null) {
            throw new IllegalArgumentException("one side per JVM needs --local ADDR[/LEN] and --vxlan-peer HOST:PORT"
                    + (passive ? "" : ", and --remote ADDR for the active side")
                    + "; without them both sides run in this JVM over a veth pair");
        }
        if (!passive && remote == null) throw new IllegalArgumentException("the active side needs --remote ADDR (or --passive)");
        String cidr = local.contains("/") ? local : local + "/24";
        InetAddress localAddr = ipv4("--local", cidr.substring(0, cidr.indexOf('/')));
        String len = cidr.substring(cidr.indexOf('/') + 1);
        int prefix;
        try {
            prefix = Integer.parseInt(len);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--local " + local + ": bad prefix length " + len, e);
        }
        if (prefix < 1 || prefix > 32) throw new IllegalArgumentException("--local " + local + ": prefix length 1 to 32");
        InetAddress remoteAddr = remote == null ? null : ipv4("--remote", remote);
        if (remoteAddr != null && remoteAddr.equals(localAddr)) {
            throw new IllegalArgumentException("--remote " + remote + " is --local's address");
        }
        if (remoteAddr != null) {
            int mask = (int) (0xFFFFFFFFL << (32 - prefix));
            if ((io.jnet.wire.Ipv4.fromInet(remoteAddr) & mask) != (io.jnet.wire.Ipv4.fromInet(localAddr) & mask)) {
                throw new IllegalArgumentException("--remote " + remote + " is not on --local " + cidr
                        + "'s network: the two JVMs share one VXLAN segment, without a router");
            }
        }
        int colon = vxlanPeer.lastIndexOf(':');
        if (colon <= 0) throw new IllegalArgumentException("--vxlan-peer expects HOST:PORT, e.g. 127.0.0.1:4790: " + vxlanPeer);
        InetAddress peerHost = ipv4("--vxlan-peer", vxlanPeer.substring(0, colon));
        int peerPort = udpPort("--vxlan-peer", vxlanPeer.substring(colon + 1));
        udpPort("--vxlan-port", Integer.toString(vxlanPort));
        if (vni < 0 || vni > io.jnet.wire.Vxlan.MAX_VNI) throw new IllegalArgumentException("--vni must be 0 to 16777215: " + vni);
        InetAddress bindHost = peerHost.isLoopbackAddress() ? InetAddress.getLoopbackAddress() : anyAddress();
        if (peerHost.isLoopbackAddress() && peerPort == vxlanPort) {
            throw new IllegalArgumentException("--vxlan-peer " + vxlanPeer + " is this side's own --vxlan-port " + vxlanPort
                    + ": give each JVM its own port");
        }
        return new VxlanSide(passive, cidr, localAddr, remoteAddr, new InetSocketAddress(peerHost, peerPort),
                new InetSocketAddress(bindHost, vxlanPort), vni);
    }

    private static InetAddress anyAddress() {
        try {
            return InetAddress.getByAddress(new byte[4]);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A dotted IPv4 address (no name lookup). */
    static InetAddress ipv4(String option, String text) {
        String[] parts = text.trim().split("\\.", -1);
        if (parts.length != 4) throw new IllegalArgumentException(option + " expects an IPv4 address like 192.0.2.1: " + text);
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
            int v;
            try {
                v = Integer.parseInt(parts[i]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " expects an IPv4 address like 192.0.2.1: " + text, e);
            }
            if (v < 0 || v > 255) throw new IllegalArgumentException(option + " expects an IPv4 address like 192.0.2.1: " + text);
            b[i] = (byte) v;
        }
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int udpPort(String option, String text) {
        try {
            int p = Integer.parseInt(text.trim());
            if (p >= 1 && p <= 65535) return p;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + ": UDP port 1 to 65535 expected: " + text);
    }

    /** True when {@code option} was given on the command line (not just defaulted). */
    private boolean matched(String option) {
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        return parsed != null && parsed.hasMatchedOption(option);
    }

    /**
     * Checks the {@code --rds-sysctl} items on a throwaway {@link Sysctls}, so an unknown name or a bad value is a
     * usage error before anything runs.
     *
     * @throws IllegalArgumentException for a malformed item, an unknown name or a value out of range
     */
    static Map<String, String> parseSysctls(List<String> items) {
        Map<String, String> m = new LinkedHashMap<>();
        Sysctls check = new Sysctls();
        for (String item : items) {
            int eq = item.indexOf('=');
            if (eq <= 0 || eq == item.length() - 1) {
                throw new IllegalArgumentException("--rds-sysctl expects NAME=VALUE, e.g. net.rds.tcp.rds_tcp_sndbuf=131072: " + item);
            }
            String name = item.substring(0, eq).trim();
            String value = item.substring(eq + 1).trim();
            try {
                check.set(name, value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--rds-sysctl " + item + ": " + e.getMessage(), e);
            }
            m.put(name, value);
        }
        return m;
    }

    @Override
    public Integer call() throws InterruptedException {
        Plan plan = plan();
        if (sweepSizes != null || compare != null || plot != null || matched("--rounds") || matched("--warmup")) {
            return sweep(plan);
        }
        StressReport report = new StressReport(out, plan.format(), plan.config().verbose());
        try {
            StressResult r = plan.vxlan() == null ? inJvm(plan, report)
                    : plan.vxlan().passive() ? passiveSide(plan, report) : activeSide(plan, report);
            if (r == null) return Main.EXIT_FAILURE;
            report.end(r, plan.config(), plan.vxlan() == null ? "veth" : "vxlan");
            report.verboseNotes(rdsCounters);
            return r.ok() ? Main.EXIT_OK : Main.EXIT_FAILURE;
        } catch (IOException e) {
            err.println("jnet rds-stress: " + e.getMessage());
            return Main.EXIT_FAILURE;
        } catch (IllegalStateException e) {
            // e.g. "no RdsSocket support installed" from a namespace without the RDS transport
            err.println("jnet rds-stress: " + e.getMessage());
            return Main.EXIT_FAILURE;
        }
    }

    /**
     * --sizes / --compare: the plan line, the warm-up, then per size --rounds rounds of a run per configuration
     * (in {@link StressSweep#order}), then the table (and the plot).
     */
    private int sweep(Plan plan) throws InterruptedException {
        if (plan.vxlan() != null || plan.format() != StressReport.Format.TEXT) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--sizes, --compare and --plot run both sides in this JVM with the text report: drop the VXLAN and --csv/--json options");
        }
        StressSweep sw;
        try {
            if (sweepSizes == null) {
                String given = compare != null ? "--compare" : plot != null ? "--plot" : matched("--rounds") ? "--rounds" : "--warmup";
                throw new IllegalArgumentException(given + " is part of a sweep over"
                        + " request sizes: give --sizes too (e.g. --sizes " + plan.config().reqBytes() + " for this -q alone)");
            }
            List<Integer> sizes = sweepSizes;
            List<StressSweep.Configuration> configs = new ArrayList<>();
            for (String n : compare == null ? List.of("defaults") : compare) configs.add(StressSweep.Configuration.of(n.trim()));
            for (int size : sizes) withSize(plan.config(), size); // checks every size before the first run
            if (plot != null) {
                io.jnet.perf.plot.SizePlot.Format.of(plot);
                // the folder too, so that a mistyped path fails now rather than after the whole sweep
                try {
                    OutputFiles.checkWritable(plot);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--plot: " + e.getMessage(), e);
                }
            }
            if (warmupSeconds < 0 || warmupSeconds > 86_400) {
                throw new IllegalArgumentException("--warmup must be 0 to 86400 seconds: " + warmupSeconds);
            }
            if (rounds < 1 || rounds > 1000) throw new IllegalArgumentException("--rounds must be 1 to 1000: " + rounds);
            sw = new StressSweep(sizes, configs, rounds);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        boolean ok = true;
        List<Integer> warmUp = warmUpSeconds(warmupSeconds, sw.configurations().size());
        out.println(planLine(sw, warmUp, plan.config().seconds()));
        warmUp(plan, sw, warmUp);
        for (int size : sw.sizes()) {
            for (int round = 0; round < sw.rounds(); round++) {
                for (StressSweep.Configuration conf : sw.order(round)) {
                    Map<String, String> s = new LinkedHashMap<>(plan.sysctls());
                    s.putAll(conf.sysctls());
                    Plan p = new Plan(withSize(plan.config(), size), s, null, plan.format());
                    String run = "-q " + size + " " + conf.name() + (sw.rounds() > 1 ? ", round " + (round + 1) + "/" + sw.rounds() : "");
                    out.println("== " + run);
                    StressReport report = new StressReport(out, p.format(), p.config().verbose());
                    try {
                        StressResult r = inJvm(p, report);
                        report.end(r, p.config(), "veth");
                        sw.add(size, conf, round, r);
                        ok &= r.ok();
                    } catch (IOException | IllegalStateException e) {
                        err.println("jnet rds-stress: " + run + ": " + e.getMessage());
                        ok = false;
                    }
                }
            }
        }
        out.println();
        out.print(sw.table());
        if (plot != null) {
            try {
                for (java.nio.file.Path f : io.jnet.perf.plot.SizePlot.write(plot, sw.charts("rds-stress"))) {
                    err.println("plot written to " + f);
                }
            } catch (IOException | RuntimeException e) {
                err.println("jnet rds-stress: --plot: cannot write " + plot + ": " + e.getMessage());
                ok = false;
            }
        }
        return ok ? Main.EXIT_OK : Main.EXIT_FAILURE;
    }

    /**
     * Code paths one configuration uses and another does not would still be compiling (JIT) when the first of the
     * other configurations runs, which would make that run the slowest: the warm-up runs every configuration once
     * at the first size, for {@code seconds.get(i)} s under configuration i (see {@link #warmUpSeconds}), their
     * reports discarded.
     */
    private void warmUp(Plan plan, StressSweep sw, List<Integer> seconds) throws InterruptedException {
        int size = sw.sizes().getFirst();
        for (int i = 0; i < seconds.size(); i++) {
            StressSweep.Configuration conf = sw.configurations().get(i);
            Map<String, String> s = new LinkedHashMap<>(plan.sysctls());
            s.putAll(conf.sysctls());
            StressConfig c = withSize(plan.config(), size);
            c = new StressConfig(c.reqBytes(), c.ackBytes(), c.tasks(), c.depth(), seconds.get(i), c.oneWay(), c.port(),
                    false, c.helloWait(), c.drainWait());
            out.println("== warm-up: -q " + size + " " + conf.name() + ", " + seconds.get(i) + " s, not measured");
            PrintStream discard = new PrintStream(java.io.OutputStream.nullOutputStream());
            try {
                inJvm(new Plan(c, s, null, plan.format()), new StressReport(discard, plan.format(), false));
            } catch (IOException | IllegalStateException e) {
                err.println("jnet rds-stress: warm-up " + conf.name() + ": " + e.getMessage());
            }
        }
    }

    /**
     * The warm-up's seconds per configuration: {@code total} split evenly among the {@code configurations}
     * (the first {@code total mod configurations} get one second more), at least 1 s each; empty for 0.
     */
    static List<Integer> warmUpSeconds(int total, int configurations) {
        if (total <= 0) return List.of();
        List<Integer> s = new ArrayList<>(configurations);
        for (int i = 0; i < configurations; i++) s.add(Math.max(1, total / configurations + (i < total % configurations ? 1 : 0)));
        return s;
    }

    /**
     * Seconds a run takes beyond its -T: two namespaces set up, connections opened, the last requests drained
     * and the sockets closed. Measured on 2 cores: under 0.1 s with 2 tasks of 2 small requests, about 2 s with
     * 16 tasks of 16 100 000-byte requests at load average 16. For the plan's estimate only.
     */
    static final int RUN_OVERHEAD_SECONDS = 1;

    /** The sweep's plan in one line: sizes, configurations, rounds, warm-up, seconds per run, estimated time. */
    static String planLine(StressSweep sw, List<Integer> warmUp, int secondsPerRun) {
        int runs = sw.sizes().size() * sw.configurations().size() * sw.rounds();
        long total = (long) runs * (secondsPerRun + RUN_OVERHEAD_SECONDS);
        for (int w : warmUp) total += w + RUN_OVERHEAD_SECONDS;
        int warm = warmUp.stream().mapToInt(Integer::intValue).sum();
        return "== plan: sizes " + sw.sizes().stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","))
                + "; configurations " + sw.configurations().stream().map(StressSweep.Configuration::name)
                        .collect(java.util.stream.Collectors.joining(","))
                + "; " + sw.rounds() + " round" + (sw.rounds() == 1 ? "" : "s")
                + "; warm-up " + (warm == 0 ? "none" : warm + " s (" + warmUp.size() + " run" + (warmUp.size() == 1 ? "" : "s") + ")")
                + "; " + secondsPerRun + " s per run, " + runs + " run" + (runs == 1 ? "" : "s")
                + "; about " + duration(total) + " in all";
    }

    private static String duration(long seconds) {
        if (seconds < 60) return seconds + " s";
        long h = seconds / 3600, m = seconds % 3600 / 60, s = seconds % 60;
        return h > 0 ? String.format(Locale.ROOT, "%d h %02d min", h, m)
                : String.format(Locale.ROOT, "%d min %02d s", m, s);
    }

    private static StressConfig withSize(StressConfig c, int size) {
        return new StressConfig(size, c.ackBytes(), c.tasks(), c.depth(), c.seconds(), c.oneWay(), c.port(), c.verbose(),
                c.helloWait(), c.drainWait());
    }

    /** Both sides here: rds-active and rds-passive joined by a veth pair. */
    private StressResult inJvm(Plan plan, StressReport report) throws IOException, InterruptedException {
        StressConfig c = plan.config();
        try (NetNamespace a = NetNamespace.create("rds-active"); NetNamespace b = NetNamespace.create("rds-passive")) {
            Topology.link(a, b, "eth0", ACTIVE_CIDR, PASSIVE_CIDR);
            int floor = configure(a, plan);
            configure(b, plan);
            InetAddress aAddr = ipv4("", ACTIVE_CIDR.substring(0, ACTIVE_CIDR.indexOf('/')));
            InetAddress bAddr = ipv4("", PASSIVE_CIDR.substring(0, PASSIVE_CIDR.indexOf('/')));
            try (StressPassive p = new StressPassive(c, b::openRdsSocket, bAddr, floor);
                 StressActive act = new StressActive(c, a::openRdsSocket, aAddr, bAddr, floor)) {
                p.start();
                report.begin(banner(c, aAddr, bAddr, "over a veth pair in this JVM"));
                StressResult r = act.run(report::line);
                List<String> problems = new ArrayList<>(r.problems());
                problems.addAll(p.problems());
                collect(a, problems);
                collect(b, problems);
                return new StressResult(r.role(), r.lines(), r.average(), r.median(), r.rttCount(), r.rttP50Us(),
                        r.rttMaxUs(), r.pairs(), problems);
            }
        }
    }

    /** The active side here, the passive one in another JVM over VXLAN. */
    private StressResult activeSide(Plan plan, StressReport report) throws IOException, InterruptedException {
        VxlanSide v = plan.vxlan();
        try (VxlanDevice dev = device(v); NetNamespace ns = NetNamespace.create("rds-active")) {
            int floor = attach(ns, dev, v, plan);
            try (StressActive act = new StressActive(plan.config(), ns::openRdsSocket, v.local(), v.remote(), floor)) {
                report.begin(banner(plan.config(), v.local(), v.remote(), vxlanText(v)));
                StressResult r = act.run(report::line);
                List<String> problems = new ArrayList<>(r.problems());
                collect(ns, problems);
                return new StressResult(r.role(), r.lines(), r.average(), r.median(), r.rttCount(), r.rttP50Us(),
                        r.rttMaxUs(), r.pairs(), problems);
            }
        }
    }

    /** The passive side here: answers one run, printing its own lines, then exits. */
    private StressResult passiveSide(Plan plan, StressReport report) throws IOException, InterruptedException {
        VxlanSide v = plan.vxlan();
        StressConfig c = plan.config();
        try (VxlanDevice dev = device(v); NetNamespace ns = NetNamespace.create("rds-passive")) {
            int floor = attach(ns, dev, v, plan);
            try (StressPassive p = new StressPassive(c, ns::openRdsSocket, v.local(), floor)) {
                p.start();
                if (plan.format() == StressReport.Format.TEXT) {
                    out.println("jnet rds-stress: passive, " + c.tasks() + " task" + (c.tasks() == 1 ? "" : "s")
                            + " on " + v.local().getHostAddress() + " ports " + c.port() + ".." + (c.port() + c.tasks() - 1)
                            + ", " + vxlanText(v) + "; waiting for the active side");
                    out.flush();
                }
                long deadline = waitSeconds == null ? Long.MAX_VALUE
                        : System.nanoTime() + TimeUnit.SECONDS.toNanos(waitSeconds);
                while (!p.started() && !p.done()) {
                    if (System.nanoTime() - deadline > 0) {
                        err.println("jnet rds-stress: no request from the active side within " + waitSeconds + " s");
                        return null;
                    }
                    Thread.sleep(10);
                }
                report.begin(null);
                StressResult r = p.run(report::line, Duration.ofSeconds(waitSeconds == null ? 10 : waitSeconds), BYE_WAIT);
                if (!p.idleTasks().isEmpty()) {
                    err.println("jnet rds-stress: no active task talked to the passive task(s) " + p.idleTasks()
                            + " (the active side ran fewer tasks)");
                }
                List<String> problems = new ArrayList<>(r.problems());
                collect(ns, problems);
                return new StressResult(r.role(), r.lines(), r.average(), r.median(), r.rttCount(), r.rttP50Us(),
                        r.rttMaxUs(), r.pairs(), problems);
            }
        }
    }

    private static VxlanDevice device(VxlanSide v) throws IOException {
        try {
            // the MAC follows the address (locally administered 02:00 and the four address bytes), so a side that
            // restarts comes back with the MAC its peer's ARP cache holds, and traffic resumes at once
            long mac = 0x0200_0000_0000L | (io.jnet.wire.Ipv4.fromInet(v.local()) & 0xFFFFFFFFL);
            return VxlanDevice.builder("vxlan0").vni(v.vni()).macAddress(mac).localAddress(v.bind()).learning(false)
                    .remote(v.peer()).open();
        } catch (IOException e) {
            throw new IOException("cannot open the VXLAN socket on " + v.bind().getAddress().getHostAddress() + ":"
                    + v.bind().getPort() + ": " + e.getMessage(), e);
        }
    }

    private static int attach(NetNamespace ns, VxlanDevice dev, VxlanSide v, Plan plan) {
        ns.attach(dev);
        ns.addAddress(dev.name(), v.localCidr());
        return configure(ns, plan);
    }

    /**
     * Sets the --rds-sysctl values, raises net.core.wmem_max and rmem_max to the sockets' buffer size unless
     * given, and returns net.core.wmem_default (the smallest buffer the sockets ask for).
     */
    private static int configure(NetNamespace ns, Plan plan) {
        for (Map.Entry<String, String> e : plan.sysctls().entrySet()) ns.sysctl().set(e.getKey(), e.getValue());
        int floor = ns.sysctl().wmemDefault.intValue();
        int buffer = plan.config().socketBuffer(floor);
        for (String max : List.of("net.core.wmem_max", "net.core.rmem_max")) {
            if (!plan.sysctls().containsKey(max) && Integer.parseInt(ns.sysctl().get(max).trim()) < buffer) {
                ns.sysctl().set(max, Integer.toString(buffer));
            }
        }
        return floor;
    }

    /** Keeps {@code ns}'s non-zero RDS counters (as rds-info -c prints them) for -v. */
    private void keepRdsCounters(NetNamespace ns) {
        io.jnet.rds.RdsProtocol rds = io.jnet.rds.RdsProtocol.of(ns);
        if (rds == null) return;
        rdsCounters.add("RDS counters of " + ns.name() + " (non-zero), and its TCP retransmission, timeout and drop counters:");
        for (Map.Entry<String, Long> e : rds.statistics().snapshot().entrySet()) {
            if (e.getValue() != 0) rdsCounters.add(String.format(Locale.ROOT, "%32s %16d", e.getKey(), e.getValue()));
        }
        // what the TCP connection underneath went through: retransmissions, timeouts, drops (nstat names)
        for (Map.Entry<io.jnet.stack.MibCounter, Long> e : ns.mib().snapshot().entrySet()) {
            String name = e.getKey().name();
            if (e.getValue() != 0 && (name.startsWith("Tcp") || name.startsWith("TcpExt"))
                    && (name.contains("Retrans") || name.contains("Timeout") || name.contains("Drop")
                        || name.contains("Loss") || name.contains("Prune") || name.contains("Collapsed"))) {
                rdsCounters.add(String.format(Locale.ROOT, "%32s %16d", name, e.getValue()));
            }
        }
    }

    /** At the end of a run: {@code ns}'s internal errors as a problem, its RDS counters for -v. */
    private void collect(NetNamespace ns, List<String> problems) {
        keepRdsCounters(ns);
        long n = ns.internalErrors();
        if (n > 0) {
            problems.add("namespace " + ns.name() + ": " + n + " internal error" + (n == 1 ? "" : "s") + ", the last: "
                    + ns.lastInternalError());
        }
    }

    private static String vxlanText(VxlanSide v) {
        return "over VXLAN VNI " + v.vni() + " (UDP " + v.bind().getAddress().getHostAddress() + ":" + v.bind().getPort()
                + " <-> " + v.peer().getAddress().getHostAddress() + ":" + v.peer().getPort() + ")";
    }

    static String banner(StressConfig c, InetAddress from, InetAddress to, String how) {
        return String.format(Locale.ROOT, "jnet rds-stress: %d task%s, depth %d, requests %d bytes, %s, %d s; %s -> %s %s,"
                        + " ports %d..%d", c.tasks(), c.tasks() == 1 ? "" : "s", c.depth(), c.reqBytes(),
                c.oneWay() ? "one way (no acks)" : "acks " + c.ackBytes() + " bytes", c.seconds(), from.getHostAddress(),
                to.getHostAddress(), how, c.port(), c.port() + c.tasks() - 1);
    }

    /** Sizes in bytes with an optional K or M suffix (1024-based), e.g. 64K. */
    static final class SizeConverter implements CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            String v = value.trim().toUpperCase(Locale.ROOT);
            long mult = 1;
            if (v.endsWith("K")) {
                mult = 1024;
                v = v.substring(0, v.length() - 1);
            } else if (v.endsWith("M")) {
                mult = 1024 * 1024;
                v = v.substring(0, v.length() - 1);
            }
            try {
                long n = Long.parseLong(v) * mult;
                if (n < 0 || n > Integer.MAX_VALUE) throw new CommandLine.TypeConversionException("size out of range: " + value);
                return (int) n;
            } catch (NumberFormatException e) {
                throw new CommandLine.TypeConversionException("expected a size in bytes like 1024, 64K or 1M: " + value);
            }
        }
    }
}
