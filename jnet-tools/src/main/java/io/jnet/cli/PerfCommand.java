package io.jnet.cli;

import io.jnet.perf.Confidence;
import io.jnet.perf.BusyCores;
import io.jnet.perf.ChildJvmLane;
import io.jnet.perf.CsvReport;
import io.jnet.perf.FriendsTable;
import io.jnet.perf.Iterations;
import io.jnet.perf.JsonReport;
import io.jnet.perf.LaneOpener;
import io.jnet.perf.NetperfArgs;
import io.jnet.perf.CompareResult;
import io.jnet.perf.Measurement;
import io.jnet.perf.PathRegistry;
import io.jnet.perf.PerfPlan;
import io.jnet.perf.PerfSuite;
import io.jnet.perf.ProgressMeter;
import io.jnet.perf.SizeTable;
import io.jnet.perf.Sizes;
import io.jnet.perf.SocketSettings;
import io.jnet.perf.StackChoice;
import io.jnet.perf.SuiteResult;
import io.jnet.perf.TestKind;
import io.jnet.perf.TestSpec;
import io.jnet.perf.TextReport;
import io.jnet.perf.UdpMode;
import io.jnet.perf.Warmup;
import io.jnet.stack.Sysctls;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jnet perf}: netperf's TCP tests on jnet and on the host kernel, in alternating pairs, with the
 * figures side by side. Without {@code -t} it runs the default suite.
 */
@Command(name = "perf", mixinStandardHelpOptions = true, versionProvider = Version.Provider.class, sortOptions = false,
        description = {
            "Measure jnet against the host kernel with netperf's TCP and UDP tests.",
            "",
            "Each test runs on jnet and on the kernel (JDK NIO over 127.0.0.1)",
            "alternately: a warm-up on each (--warmup), then measured pairs (-i) whose",
            "order rotates. It prints netperf's table with each stack's median, then",
            "the median and min..max of the per-pair ratio jnet/kernel. Client and",
            "server are two threads of one JVM. Test-specific options (-m -M -r -s",
            "-S -D) may also follow '--' as with netperf.",
            "",
            "Each path runs in a JVM of its own, started once with this one's java,",
            "class path and JVM options and kept for every test and size, as netperf",
            "runs each test in a process of its own: the JIT compiles each path's",
            "code for that path alone, so a path's figure does not depend on the",
            "others measured with it. --same-jvm runs all paths in this JVM.",
            "",
            "--compare PATHS measures several paths side by side and prints one table",
            "per test: a row per size (--sizes or --sweep), a column per path, then",
            "p1, p2, ...: the first path's figure over each other path's, as medians",
            "of per-pair ratios. Paths: jnet:loopback, jnet:friends (jnet:loopback",
            "with net.ipv4.tcp_friends=1, which wins over a --sysctl of it; the",
            "value given applies to the other jnet paths), jnet:veth, jnet:routed",
            "(client - router with ip_forward=1 - server, two veth pairs), kernel:tcp",
            "(JDK SocketChannel over 127.0.0.1), kernel:unix (AF_UNIX stream",
            "sockets) and jnet:unix (jnet's local stream sockets); the unix paths",
            "run the TCP tests only, no -D: such cells show n/a. Aliases: base =",
            "jnet:loopback, friends = jnet:friends, unix = jnet:unix (jnet's local",
            "stream sockets). The size sets -m and -M",
            "(unless -M is given) of the stream tests and -r size,size of the",
            "others; UDP tests skip sizes above 65507.",
            "",
            "Naming friends with base and/or unix (--compare base,unix,friends) prints",
            "the TCP friends patch's table instead, columns in this order:",
            "  BASE, UNIX, FRIENDS  medians of jnet:loopback, jnet:unix, jnet:friends",
            "  FRIENDS/BASE         median of per-pair ratios FRIENDS/BASE, percent",
            "  FRIENDS/UNIX         median of per-pair ratios FRIENDS/UNIX, percent",
            "  KERNEL_TCP           kernel:tcp, added to the comparison for reference",
            "  KERNEL_AF_UNIX       kernel:unix, added to the comparison for reference",
            "'-' where a path cannot run the test or was not named; '*' marks a",
            "median whose confidence interval misses -I. Without -t it runs the TCP",
            "tests of the suite (TCP_STREAM, TCP_MAERTS, TCP_SENDFILE, TCP_RR,",
            "TCP_CRR); UDP tests are refused. CSV, JSON and --plot carry the same",
            "columns. Full ids (--compare jnet:friends,jnet:loopback) give a column",
            "per path, without the kernel's.",
            "",
            "A progress line (test, path, pair, elapsed of the estimated total) is",
            "redrawn on stderr when it is a terminal; -v prints one line per run",
            "instead, -q nothing. It never goes to stdout.",
            "",
            "Tests and units:",
            "  TCP_STREAM    client writes -m bytes per call for -l s, server reads -M;",
            "                10^6 bits/s received",
            "  TCP_MAERTS    the reverse (server sends); 10^6 bits/s received",
            "  TCP_SENDFILE  TCP_STREAM sending a temporary file with sendfile(2),",
            "                -m bytes per call; 10^6 bits/s received",
            "  UDP_STREAM    client sends -m-byte datagrams (default 1472, at most",
            "                65507) for -l s; the send line and the receive line in",
            "                10^6 bits/s with messages sent, refused and received; the",
            "                receiver's rate is the figure compared",
            "  TCP_RR        one connection; request of REQ bytes, whole response of",
            "                RESP bytes; transactions/s, latency (min, p10,",
            "                p50, mean, p99, max) in usec",
            "  TCP_CRR       connect, request, response, close per transaction;",
            "                transactions/s, latency in usec",
            "  UDP_RR        TCP_RR with one datagram each way; transactions/s, latency",
            "                in usec; a lost datagram ends the run with an error after",
            "                2 s without a response",
            "  STREAM_STREAM netperf's AF_UNIX names: TCP_STREAM and TCP_RR over local",
            "  STREAM_RR     stream sockets, jnet:unix against kernel:unix (--stack",
            "                picks one; --compare takes these two paths only)",
            "",
            "Without -t: the default suite, every test but UDP_RR with -l 1 and 3",
            "pairs each (under a minute).",
            ""},
        footer = {"",
            "Examples:",
            "  jnet perf                                  default suite",
            "  jnet perf -t TCP_STREAM -l 3 -m 16K",
            "  jnet perf -t TCP_RR -i 10,5 -I 95,2 -- -r 64,1024 -D",
            "  jnet perf -t TCP_CRR --path veth --json",
            "  jnet perf -t UDP_STREAM -m 64 -- -S 4M",
            "  jnet perf -t TCP_RR --compare jnet:loopback,kernel:tcp,kernel:unix --sizes 1,1K,64K",
            "  jnet perf -t TCP_RR --compare base,unix,friends --sizes 1,64,1K,16K,64K,1M",
            "  jnet perf -t TCP_STREAM --compare jnet:loopback,kernel:tcp --sweep -l 0.5 -i 3",
            "  jnet perf -t TCP_RR --busy-cores 1         with one core kept busy",
            "  jnet perf -t TCP_RR --path veth --flows 100000      100,000 connections",
            "  jnet perf -t TCP_RR --flows 1000 --threads 2 --allocator heap",
            "  jnet perf -t UDP_STREAM --path veth --udp unconnected --flows 1000000",
            "  jnet perf -t STREAM_RR -- -r 64,64         jnet:unix vs kernel:unix",
            "",
            "Exit codes: 0 all tests ran, 1 a test failed, 2 bad usage."})
public final class PerfCommand implements Callable<Integer> {
    /** Shortest -l: shorter runs measure timer and start-up noise, not the stack. */
    static final double MIN_LENGTH_SECONDS = 0.1;


    @Spec
    CommandSpec spec;

    @Option(names = {"-t", "--test"}, paramLabel = "TEST",
            description = "Test to run: TCP_STREAM, TCP_MAERTS, TCP_SENDFILE, UDP_STREAM, TCP_RR, TCP_CRR, UDP_RR; or "
                    + "netperf's AF_UNIX names STREAM_STREAM and STREAM_RR (TCP_STREAM and TCP_RR over jnet:unix and "
                    + "kernel:unix). Default: the suite (all but UDP_RR).")
    String test;

    @Option(names = {"-l", "--length"}, paramLabel = "SECS",
            description = "Length of each run in seconds, 0.1 to 86400 (default ${DEFAULT-VALUE}; netperf's is 10).",
            defaultValue = "1.0")
    double lengthSeconds;

    @Option(names = "-i", paramLabel = "MAX[,MIN]",
            description = "Most and fewest measured pairs, each clipped to the range 3 to 30; MAX must not be below MIN "
                    + "(default 5 for one test, 3 for the suite). Past MIN, pairs continue up to MAX while a confidence "
                    + "interval is wider than -I asks.")
    String iterations;

    @Option(names = "-I", paramLabel = "LEVEL[,WIDTH]",
            description = "Confidence level (95 or 99 percent) and widest acceptable interval in percent of the mean "
                    + "(default 99,5: 99%% sure the mean is within 2.5%% either side). A wider interval prints "
                    + "netperf's warning for a single test given -i or -I, one line per test otherwise.")
    String confidence;

    @Mixin
    TestOptions testOptions = new TestOptions();

    @Option(names = "--path", paramLabel = "loopback|veth", defaultValue = "loopback",
            description = "jnet topology: one namespace over lo (127.0.0.1), or two namespaces joined by a veth pair "
                    + "(10.0.0.1/24 -> 10.0.0.2/24). The kernel always uses 127.0.0.1. Default: ${DEFAULT-VALUE}.")
    String path;

    @Option(names = "--flows", paramLabel = "N", defaultValue = "1",
            description = "Spread TCP_RR, UDP_RR or UDP_STREAM over N distinct 4-tuples, used round-robin: N TCP "
                    + "connections or N connected UDP socket pairs (1 to 100000), or N source address/port pairs with "
                    + "--udp unconnected (1 to 1000000). Opened before the timed part. Default ${DEFAULT-VALUE}.")
    int flows;

    @Option(names = "--threads", paramLabel = "T", defaultValue = "1",
            description = "TCP_RR with --flows N: drive the N connections from T client threads, each round-robin over "
                    + "its N/T connections, served by T server threads (1 to N). Reports bytes allocated and allocator "
                    + "lock entries per transaction. Default ${DEFAULT-VALUE}.")
    int threads;

    @Option(names = "--allocator", paramLabel = "NAME",
            description = "Packet allocator of the jnet namespaces the run creates, set before any traffic: one of "
                    + "the names io.jnet.buffer.PacketAllocators knows (pool, heap, ...). Default: what a namespace "
                    + "gets (the jnet.allocator property, else pool).")
    String allocator;

    @Option(names = "--udp", paramLabel = "netperf|connected|unconnected", defaultValue = "netperf",
            description = "How the UDP tests use sockets: netperf (default: client socket connected, server socket not; "
                    + "one flow), connected (a socket pair per flow, each end connected to the other), unconnected "
                    + "(one server socket, not connected, receiving frames that a generator writes into a veth of the "
                    + "server's namespace from --flows source pairs in 10.128.0.0/10; jnet:veth only, i.e. --path veth).")
    String udpMode;

    @Option(names = "--stack", paramLabel = "both|jnet|kernel", defaultValue = "both",
            description = "Stacks to measure: jnet alone, the kernel alone, or both side by side (default ${DEFAULT-VALUE}).")
    String stack;

    @Option(names = "--compare", paramLabel = "PATHS",
            description = "Compare these paths, comma-separated, first path first: jnet:loopback, jnet:friends, jnet:veth, "
                    + "jnet:routed, kernel:tcp, kernel:unix, jnet:unix, or the aliases base, friends, unix (jnet:unix). Prints one table per test "
                    + "with a row per size and the first path's figure over each other's; friends with base and/or unix "
                    + "prints the friends patch's table (BASE UNIX FRIENDS FRIENDS/BASE FRIENDS/UNIX KERNEL_TCP "
                    + "KERNEL_AF_UNIX), adding kernel:tcp and kernel:unix. Replaces --path and --stack.")
    String compare;

    @Option(names = "--sizes", paramLabel = "LIST",
            description = "Sizes in bytes for the --compare table, e.g. 1,64,1K,64K (suffixes as -m). Without --compare "
                    + "the jnet path and kernel:tcp are compared.")
    String sizes;

    @Option(names = "--sweep", description = "Sizes 1, 2, 4, ... 1M bytes (21 rows); see --sizes.")
    boolean sweep;

    @Option(names = "--plot", paramLabel = "FILE.png|FILE.svg",
            description = "Also draw the --compare/--sizes/--sweep figures against message size (log scale), one line "
                    + "per path, to FILE (PNG or SVG by its extension); with several tests, one file per test named "
                    + "FILE-TEST.png.")
    java.nio.file.Path plot;

    @Option(names = "--warmup", paramLabel = "SECS",
            description = "Warm-up budget per path before the first measured pair: short runs until the rate stops "
                    + "rising, at most SECS for a path's first test and SECS/4 for each later one (default "
                    + "${DEFAULT-VALUE}; 0: no warm-up).", defaultValue = "1.0")
    double warmupSeconds;

    @Option(names = "--sysctl", paramLabel = "NAME=VALUE",
            description = "Set a sysctl in the jnet namespaces before the test, e.g. net.ipv4.tcp_timestamps=0; "
                    + "names and values are checked before any test runs; jnet:friends keeps net.ipv4.tcp_friends=1 "
                    + "whatever is given (a note says so). Repeatable.")
    List<String> sysctls = new ArrayList<>();

    @Option(names = "--same-jvm",
            description = "Run every path in this JVM instead of each in a JVM of its own; the JIT then compiles the "
                    + "code the paths share for all of them together, and a path's figure depends on the others.")
    boolean sameJvm;

    @Option(names = "--busy-cores", paramLabel = "N", defaultValue = "0",
            description = "Keeps N cores busy with spinning processes for the whole run; reproduces a loaded machine "
                    + "(0 to the number of cores, default ${DEFAULT-VALUE}). The reports say how many.")
    int busyCores;

    @Option(names = {"-v", "--verbose"},
            description = "Also print every run's figure and the confidence intervals; progress one line per run.")
    boolean verbose;

    @Option(names = {"-q", "--quiet"}, description = "No progress line and no estimate on stderr.")
    boolean quiet;

    @ArgGroup(exclusive = true)
    Format format;

    /** Machine-readable output choice. */
    static final class Format {
        @Option(names = "--json", description = "Print one JSON document instead of the tables.")
        boolean json;

        @Option(names = "--csv",
                description = "Print CSV rows (one per test and stack, or per test, size and path) instead of the tables.")
        boolean csv;
    }

    @Parameters(paramLabel = "TEST-OPTIONS", arity = "0..*", hidden = true,
            description = "netperf style: test-specific options (-m -M -r -s -S -D) after '--'.")
    List<String> afterDashes = new ArrayList<>();

    private final PrintStream out;
    private final PrintStream err;
    private final PathRegistry registry = PathRegistry.standard();
    /** Sizes the last {@link #plan()} clipped to fit a suite's UDP test, one note each. */
    private final List<String> clipNotes = new ArrayList<>();
    /** The paths netperf's AF_UNIX test names ({@link TestKind#unixAlias}) run on: candidate, reference. */
    static final List<String> UNIX_PATHS = List.of(PathRegistry.JNET_UNIX, PathRegistry.KERNEL_UNIX);
    /** What the last {@link #plan()} made of an AF_UNIX test name, for stderr; null for other tests. */
    private String aliasNote;

    /** A command printing to {@code out} (results) and {@code err} (progress, errors). */
    public PerfCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        PerfPlan plan = plan();
        boolean machine = format != null && (format.json || format.csv);
        PerfSuite estimator = new PerfSuite(registry, io.jnet.perf.Progress.NONE);
        double expected = estimator.estimateSeconds(plan, plan.iterations().min());
        double most = estimator.estimateSeconds(plan, plan.iterations().max());
        ProgressMeter meter = new ProgressMeter(err, progressMode(), expected, System::nanoTime);
        if (!quiet) {
            err.println(estimateLine(plan, expected, most));
        }
        for (String note : ignoredOptionNotes(plan)) err.println(note);
        for (String note : clipNotes) err.println(note);
        if (aliasNote != null) err.println(aliasNote);
        boolean ok;
        try (BusyCores busy = BusyCores.start(busyCores)) {
            if (!machine && busy.count() > 0) {
                out.println(busy.description());
                out.println();
            }
            PerfSuite suite = new PerfSuite(registry, meter, sameJvm ? LaneOpener.inProcess() : ChildJvmLane.opener());
            if (plan.compare()) {
                SizeTable table = machine ? null : new SizeTable(out);
                List<Measurement> group = new ArrayList<>();
                CompareResult result = suite.compare(plan, m -> {
                    if (table == null) return;
                    if (!group.isEmpty() && group.getFirst().spec().kind() != m.spec().kind()) {
                        meter.clear();
                        table.printTable(plan, group);
                        group.clear();
                    }
                    group.add(m);
                });
                meter.clear();
                if (format != null && format.json) new JsonReport(out, busyCores).print(result);
                else if (format != null && format.csv) new CsvReport(out, busyCores).print(result);
                else {
                    if (!group.isEmpty()) table.printTable(plan, group);
                    for (String n : result.notes()) out.println("Note: " + n);
                }
                ok = result.succeeded();
                if (plot != null) ok &= writePlot(result);
            } else {
                TextReport text = machine ? null : new TextReport(out, verbose, warningStyle());
                SuiteResult result = suite.run(plan, c -> {
                    if (text == null) return;
                    meter.clear();
                    text.printTest(c);
                });
                meter.clear();
                if (format != null && format.json) new JsonReport(out, busyCores).print(result);
                else if (format != null && format.csv) new CsvReport(out, busyCores).print(result);
                else text.printSummary(result);
                ok = result.succeeded();
            }
        } catch (IOException e) {
            err.println("jnet perf: cannot start the --busy-cores processes: " + e.getMessage());
            return Main.EXIT_FAILURE;
        }
        out.flush();
        return ok ? Main.EXIT_OK : Main.EXIT_FAILURE;
    }

    /**
     * The estimate on stderr: the runs' total, the most with {@code -i max} pairs, and with {@code --flows} above
     * 1 that opening the flows before each run comes on top (the estimate counts the runs' length only).
     */
    static String estimateLine(PerfPlan plan, double expected, double most) {
        int flows = plan.tests().stream().mapToInt(TestSpec::flows).max().orElse(1);
        return "estimated total " + ProgressMeter.duration(expected)
                + (most > expected ? " (up to " + ProgressMeter.duration(most) + " if every test needs "
                        + plan.iterations().max() + " pairs)" : "")
                + (flows > 1 ? ", plus flow setup: the " + flows + " flows are opened before each run" : "");
    }

    /** Writes the {@code --plot} file(s); false (and a message on stderr) when that fails. */
    private boolean writePlot(CompareResult result) {
        try {
            List<java.nio.file.Path> files = io.jnet.perf.plot.SizePlot.write(plot, io.jnet.perf.CompareCharts.of(result));
            if (!quiet) for (java.nio.file.Path f : files) err.println("plot written to " + f);
            return true;
        } catch (IOException e) {
            err.println("jnet perf: --plot: " + OutputFiles.describe(plot, e));
            return false;
        } catch (RuntimeException e) {
            err.println("jnet perf: --plot: cannot write " + plot + ": " + e);
            return false;
        }
    }

    /**
     * {@code -q}: nothing; {@code -v}: one line per run; otherwise the line redrawn in place when stderr is
     * a terminal, nothing when it is not (a log or a pipe).
     */
    ProgressMeter.Mode progressMode() {
        if (quiet) return ProgressMeter.Mode.OFF;
        if (verbose) return ProgressMeter.Mode.LINES;
        boolean terminal = System.console() != null && System.console().isTerminal();
        return terminal ? ProgressMeter.Mode.REDRAW : ProgressMeter.Mode.OFF;
    }

    /**
     * Turns the options into a plan.
     *
     * @throws CommandLine.ParameterException for any bad value (exit code 2)
     */
    PerfPlan plan() {
        String stray = strayArgument();
        if (stray != null) throw new CommandLine.ParameterException(spec.commandLine(), "unexpected argument: " + stray);
        try {
            if (!afterDashes.isEmpty()) {
                TestOptions extra = new TestOptions();
                new CommandLine(extra).parseArgs(afterDashes.toArray(String[]::new));
                testOptions.overrideWith(extra);
            }
            if (!(lengthSeconds >= MIN_LENGTH_SECONDS) || lengthSeconds > 86_400) {
                throw new IllegalArgumentException("-l must be at least " + MIN_LENGTH_SECONDS
                        + " and at most 86400 seconds: " + lengthSeconds);
            }
            try {
                BusyCores.checkCount(busyCores);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--busy-cores: " + e.getMessage(), e);
            }
            Duration length = Duration.ofNanos(Math.round(lengthSeconds * 1e9));
            boolean friends = compare != null && FriendsTable.asks(registry, compare);
            TestKind unixAlias = test == null ? null : TestKind.unixAlias(test);
            List<TestKind> kinds = test == null ? (friends ? FriendsTable.TESTS : PerfPlan.DEFAULT_SUITE)
                    : List.of(unixAlias != null ? unixAlias : TestKind.parse(test));
            if (friends && kinds.getFirst().isUdp()) {
                throw new IllegalArgumentException("--compare " + compare + " asks for the friends table, which is for "
                        + "TCP tests (net.ipv4.tcp_friends pairs TCP connections): " + kinds.getFirst()
                        + " is a UDP test; list full ids for a column per path");
            }
            clipNotes.clear();
            List<TestSpec> tests = new ArrayList<>();
            for (TestKind k : kinds) tests.add(spec(TestSpec.defaults(k, length)));
            UdpMode udp = UdpMode.parse(udpMode);
            if (flows != 1 || udp != UdpMode.NETPERF) {
                if (test == null) {
                    throw new IllegalArgumentException("--flows and --udp apply to one test: give -t TCP_RR, UDP_RR or UDP_STREAM");
                }
                String bad = TestSpec.flowsProblem(kinds.getFirst(), flows, udp);
                if (bad != null) throw new IllegalArgumentException(bad);
                tests.replaceAll(t -> t.withFlows(flows, udp));
            }
            if (threads != 1) {
                if (test == null) {
                    throw new IllegalArgumentException("--threads applies to one test: give -t TCP_RR with --flows N");
                }
                String bad = TestSpec.threadsProblem(kinds.getFirst(), flows, threads);
                if (bad != null) throw new IllegalArgumentException(bad);
                tests.replaceAll(t -> t.withThreads(threads));
            }
            if (allocator != null) {
                if (!io.jnet.buffer.PacketAllocators.names().contains(allocator)) {
                    throw new IllegalArgumentException("--allocator " + allocator + ": one of "
                            + String.join(", ", io.jnet.buffer.PacketAllocators.names()));
                }
                tests.replaceAll(t -> t.withAllocator(allocator));
            }
            Iterations defaults = test == null ? PerfPlan.SUITE_ITERATIONS : PerfPlan.SINGLE_TEST_ITERATIONS;
            Iterations its = iterations == null ? defaults : parseIterations(iterations, defaults);
            Confidence conf = confidence == null ? Confidence.DEFAULT : Confidence.parse(confidence, Confidence.DEFAULT);
            Warmup warm = new Warmup(warmupSeconds);
            if (sweep && sizes != null) throw new IllegalArgumentException("--sizes and --sweep exclude each other");
            List<Integer> sizeList = sweep ? Sizes.sweep() : sizes == null ? List.of() : Sizes.parse(sizes);
            boolean comparing = compare != null || !sizeList.isEmpty();
            if (plot != null) {
                if (!comparing) throw new IllegalArgumentException("--plot draws figures against size: it needs --compare, --sizes or --sweep");
                io.jnet.perf.plot.SizePlot.Format.of(plot); // the extension, checked before any test runs
                // and the directory, so that a mistyped path fails now rather than after the whole run
                try {
                    OutputFiles.checkWritable(plot);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--plot: " + e.getMessage(), e);
                }
            }
            String topology = path.trim().toLowerCase(java.util.Locale.ROOT);
            if (!topology.equals("loopback") && !topology.equals("veth")) {
                throw new IllegalArgumentException("unknown path '" + path + "' (expected loopback or veth)");
            }
            List<String> paths;
            String alias = unixAlias == null ? null : test.trim().toUpperCase(java.util.Locale.ROOT);
            aliasNote = null;
            if (compare != null) {
                if (matched("--path") || matched("--stack")) {
                    throw new IllegalArgumentException("--compare names the paths itself; --path and --stack do not apply");
                }
                paths = friends ? FriendsTable.paths(registry, compare)
                        : registry.parseList(compare).stream().map(PathRegistry.Entry::id).toList();
                if (alias != null) {
                    for (String p : paths) {
                        if (!UNIX_PATHS.contains(p)) {
                            throw new IllegalArgumentException(alias + " runs over AF_UNIX stream sockets: --compare takes "
                                    + String.join(" and ", UNIX_PATHS) + " only, not " + p + " (" + unixAlias
                                    + " runs on any path)");
                        }
                    }
                    aliasNote = "(" + alias + ": " + unixAlias + " over " + String.join(", ", paths) + ")";
                }
            } else if (alias != null) {
                // netperf's AF_UNIX tests: jnet's local sockets against the kernel's AF_UNIX, as jnet:loopback
                // against kernel:tcp for the TCP names
                if (Boolean.TRUE.equals(testOptions.noDelay)) {
                    throw new IllegalArgumentException(alias + " runs over AF_UNIX stream sockets: "
                            + PathRegistry.unixNotApplicable(tests.getFirst()));
                }
                if (matched("--path")) {
                    throw new IllegalArgumentException("--path does not apply to " + alias + ": it runs over "
                            + String.join(" and ", UNIX_PATHS));
                }
                paths = switch (StackChoice.parse(stack)) {
                    case BOTH -> UNIX_PATHS;
                    case JNET -> List.of(PathRegistry.JNET_UNIX);
                    case KERNEL -> List.of(PathRegistry.KERNEL_UNIX);
                };
                topology = "unix";
                aliasNote = "(" + alias + ": " + unixAlias + " over " + String.join(" against ", paths) + ")";
            } else {
                String jnet = "jnet:" + topology;
                paths = switch (StackChoice.parse(stack)) {
                    case BOTH -> List.of(jnet, PathRegistry.KERNEL_TCP);
                    case JNET -> List.of(jnet);
                    case KERNEL -> List.of(PathRegistry.KERNEL_TCP);
                };
            }
            if (udp == UdpMode.UNCONNECTED) checkGeneratorPaths(paths, tests.getFirst());
            List<String> planNotes = new ArrayList<>();
            List<PerfPlan.Cell> cells = new ArrayList<>();
            for (TestSpec t : tests) {
                if (sizeList.isEmpty()) {
                    cells.add(new PerfPlan.Cell(t, -1));
                    continue;
                }
                List<Integer> skipped = new ArrayList<>();
                for (int size : sizeList) {
                    if (t.kind().isUdp() && size > TestSpec.MAX_DATAGRAM) skipped.add(size);
                    else cells.add(new PerfPlan.Cell(t.withMessageSize(size, testOptions.recvSize != null), size));
                }
                if (!skipped.isEmpty()) {
                    planNotes.add(t.kind() + " skips sizes above " + TestSpec.MAX_DATAGRAM + " bytes (" + skipped.stream()
                            .map(String::valueOf).collect(java.util.stream.Collectors.joining(", "))
                            + "): one datagram carries at most " + TestSpec.MAX_DATAGRAM + " bytes");
                }
            }
            if (cells.isEmpty()) throw new IllegalArgumentException("no size fits " + kinds.getFirst() + ": " + planNotes.getFirst());
            if (sameJvm && paths.size() > 1) {
                planNotes.add("--same-jvm: all paths measured in one JVM, whose JIT compiles their shared code for all of them");
            }
            return new PerfPlan(cells, paths, topology, parseSysctls(sysctls), its, conf, warm, comparing, planNotes, friends);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        } catch (CommandLine.ParameterException e) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "after '--' only test-specific options (-m -M -r -s -S -D) are allowed: " + e.getMessage(), e);
        }
    }

    /**
     * Unconnected UDP runs on jnet:veth alone (the frame generator injects through a jnet veth into the server's
     * namespace): another jnet path would not measure its own way, and a plan where no path can run it would
     * run nothing. The kernel next to jnet:veth shows n/a with the reason.
     *
     * @throws IllegalArgumentException naming the path that cannot run it
     */
    private void checkGeneratorPaths(List<String> paths, TestSpec t) {
        for (String p : paths) {
            PathRegistry.Entry e = registry.get(p);
            String na = e.notApplicableTo(t);
            if (na == null) continue;
            if (!e.stack().equals(io.jnet.perf.KernelPaths.STACK)) throw new IllegalArgumentException(p + ": " + na
                    + (compare != null ? "; name " + PathRegistry.JNET_VETH + " instead" : "; use --path veth"));
            if (paths.size() == 1) {
                throw new IllegalArgumentException("--udp unconnected runs on jnet paths only (the frame generator injects "
                        + "through a jnet veth), not on " + p + ": use --path veth with --stack jnet or both");
            }
        }
    }

    /** True when {@code option} was given on the command line (not just defaulted). */
    private boolean matched(String option) {
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        return parsed != null && parsed.hasMatchedOption(option);
    }

    /** -i with the option named in errors and a note on stderr when netperf's 3..30 clip changed a value. */
    private Iterations parseIterations(String text, Iterations defaults) {
        try {
            return Iterations.parse(text, defaults, err::println);
        } catch (IllegalArgumentException e) {
            String m = e.getMessage();
            throw new IllegalArgumentException(m.startsWith("-i") ? m : "-i " + text + ": " + m, e);
        }
    }

    /**
     * The first positional argument given before any {@code --} (picocli collects them with those after
     * it), or null: only test-specific options may come as positionals, and only after {@code --}.
     */
    private String strayArgument() {
        if (afterDashes.isEmpty()) return null;
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        List<String> args = parsed == null ? List.of() : parsed.originalArgs();
        int dashes = args.indexOf("--");
        int afterDashCount = dashes < 0 ? 0 : args.size() - dashes - 1;
        return afterDashes.size() > afterDashCount ? afterDashes.getFirst() : null;
    }

    /**
     * netperf's full warning block for a single test run with explicit {@code -i} or {@code -I}; one line
     * per test otherwise (the default suite's three pairs rarely meet 99%,+/-2.5%).
     */
    TextReport.WarningStyle warningStyle() {
        return test != null && (iterations != null || confidence != null)
                ? TextReport.WarningStyle.NETPERF_BLOCK : TextReport.WarningStyle.ONE_LINE;
    }

    /**
     * One note per test-specific option the chosen test does not use, e.g. {@code (-m ignored by TCP_RR)}:
     * -m and -M size the stream tests' writes and reads (UDP_STREAM reads whole datagrams, so no -M), -r
     * sizes the RR tests' messages, -D is a TCP option. The default suite runs every kind, so nothing is
     * ignored there.
     */
    List<String> ignoredOptionNotes(PerfPlan plan) {
        if (sweep || sizes != null) {
            List<String> notes = new ArrayList<>();
            String by = sweep ? "--sweep" : "--sizes";
            if (testOptions.sendSize != null) notes.add("(-m ignored: " + by + " sets the message size)");
            if (testOptions.requestResponse != null) notes.add("(-r ignored: " + by + " sets request and response sizes)");
            return notes;
        }
        if (test == null) return List.of();
        TestKind kind = plan.tests().getFirst().kind();
        List<String> notes = new ArrayList<>();
        if (kind.isStream()) {
            if (testOptions.requestResponse != null) notes.add("(-r ignored by " + kind + ")");
            if (kind == TestKind.UDP_STREAM && testOptions.recvSize != null) notes.add("(-M ignored by " + kind + ")");
        } else {
            if (testOptions.sendSize != null) notes.add("(-m ignored by " + kind + ")");
            if (testOptions.recvSize != null) notes.add("(-M ignored by " + kind + ")");
        }
        if (kind.isUdp() && testOptions.noDelay != null) notes.add("(-D ignored by " + kind + ")");
        return notes;
    }

    private TestSpec spec(TestSpec base) {
        TestOptions o = testOptions;
        boolean noDelay = Boolean.TRUE.equals(o.noDelay);
        int send = o.sendSize == null ? base.sendSize() : NetperfArgs.bufferSize("-m", o.sendSize);
        int recv = o.recvSize == null ? base.recvSize() : NetperfArgs.bufferSize("-M", o.recvSize);
        int[] rr = o.requestResponse == null
                ? new int[] {base.requestSize(), base.responseSize()}
                : NetperfArgs.requestResponse(o.requestResponse, base.requestSize(), base.responseSize());
        if (test == null && base.kind().isUdp()) {
            // in the suite, sizes meant for the TCP tests are clipped for the UDP test rather than failing it
            send = clipToDatagram(base.kind(), "-m", send);
            rr[0] = clipToDatagram(base.kind(), "-r request", rr[0]);
            rr[1] = clipToDatagram(base.kind(), "-r response", rr[1]);
        }
        SocketSettings local = o.localBuffers == null
                ? new SocketSettings(SocketSettings.SYSTEM_DEFAULT, SocketSettings.SYSTEM_DEFAULT, noDelay)
                : NetperfArgs.socketBuffers(o.localBuffers, noDelay);
        SocketSettings remote = o.remoteBuffers == null
                ? new SocketSettings(SocketSettings.SYSTEM_DEFAULT, SocketSettings.SYSTEM_DEFAULT, noDelay)
                : NetperfArgs.socketBuffers(o.remoteBuffers, noDelay);
        return new TestSpec(base.kind(), base.duration(), send, recv, rr[0], rr[1], local, remote);
    }

    /** {@code size} capped at one datagram, with a note when that changed it and the test uses it. */
    private int clipToDatagram(TestKind kind, String option, int size) {
        if (size <= TestSpec.MAX_DATAGRAM) return size;
        boolean used = kind == TestKind.UDP_STREAM ? option.equals("-m") : option.startsWith("-r");
        if (used) {
            clipNotes.add("(" + option + " " + size + " clipped to " + TestSpec.MAX_DATAGRAM + " for " + kind
                    + ": one datagram carries at most " + TestSpec.MAX_DATAGRAM + " bytes)");
        }
        return TestSpec.MAX_DATAGRAM;
    }

    /**
     * Parses and checks the {@code --sysctl} items by setting them on a throwaway {@link Sysctls}, so an
     * unknown name or a bad value is a usage error before any test runs, not a failure after the header.
     *
     * @throws IllegalArgumentException for a malformed item, an unknown name or a value out of range
     */
    static Map<String, String> parseSysctls(List<String> items) {
        Map<String, String> m = new LinkedHashMap<>();
        Sysctls check = new Sysctls();
        for (String item : items) {
            int eq = item.indexOf('=');
            if (eq <= 0 || eq == item.length() - 1) {
                throw new IllegalArgumentException("--sysctl expects NAME=VALUE, e.g. net.ipv4.tcp_timestamps=0: " + item);
            }
            String name = item.substring(0, eq).trim();
            String value = item.substring(eq + 1).trim();
            try {
                check.set(name, value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--sysctl " + item + ": " + e.getMessage(), e);
            }
            m.put(name, value);
        }
        return m;
    }
}
