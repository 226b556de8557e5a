package io.jnet.cli;

import io.jnet.perf.BusyCores;
import io.jnet.perf.Confidence;
import io.jnet.perf.CsvReport;
import io.jnet.perf.Iterations;
import io.jnet.perf.JsonReport;
import io.jnet.perf.NetperfArgs;
import io.jnet.perf.PathConfig;
import io.jnet.perf.PathKind;
import io.jnet.perf.PerfPlan;
import io.jnet.perf.PerfSuite;
import io.jnet.perf.SocketSettings;
import io.jnet.perf.StackChoice;
import io.jnet.perf.SuiteResult;
import io.jnet.perf.TestKind;
import io.jnet.perf.TestSpec;
import io.jnet.perf.TextReport;
import io.jnet.stack.Sysctls;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
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
            "alternately: a warm-up run of each, then measured pairs (-i). It prints",
            "netperf's table with each stack's median, then the median and min..max",
            "of the per-pair ratio jnet/kernel. Client and server are two threads of",
            "this JVM. Test-specific options (-m -M -r -s -S -D) may also follow '--'",
            "as with netperf.",
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
            "  jnet perf -t TCP_RR --busy-cores 1         with one core kept busy",
            "",
            "Exit codes: 0 all tests ran, 1 a test failed, 2 bad usage."})
public final class PerfCommand implements Callable<Integer> {
    /** Shortest -l: shorter runs measure timer and start-up noise, not the stack. */
    static final double MIN_LENGTH_SECONDS = 0.1;


    @Spec
    CommandSpec spec;

    @Option(names = {"-t", "--test"}, paramLabel = "TEST",
            description = "Test to run: TCP_STREAM, TCP_MAERTS, TCP_SENDFILE, UDP_STREAM, TCP_RR, TCP_CRR, UDP_RR. "
                    + "Default: the suite (all but UDP_RR).")
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

    @Option(names = "--stack", paramLabel = "both|jnet|kernel", defaultValue = "both",
            description = "Stacks to measure: jnet alone, the kernel alone, or both side by side (default ${DEFAULT-VALUE}).")
    String stack;

    @Option(names = "--sysctl", paramLabel = "NAME=VALUE",
            description = "Set a sysctl in the jnet namespaces before the test, e.g. net.ipv4.tcp_timestamps=0; "
                    + "names and values are checked before any test runs. Repeatable.")
    List<String> sysctls = new ArrayList<>();

    @Option(names = "--busy-cores", paramLabel = "N", defaultValue = "0",
            description = "Keeps N cores busy with spinning processes for the whole run; reproduces a loaded machine "
                    + "(0 to the number of cores, default ${DEFAULT-VALUE}). The reports say how many.")
    int busyCores;

    @Option(names = {"-v", "--verbose"}, description = "Also print every run's figure, the confidence intervals and progress.")
    boolean verbose;

    @ArgGroup(exclusive = true)
    Format format;

    /** Machine-readable output choice. */
    static final class Format {
        @Option(names = "--json", description = "Print one JSON document instead of the tables.")
        boolean json;

        @Option(names = "--csv", description = "Print CSV rows (one per test and stack) instead of the tables.")
        boolean csv;
    }

    @Parameters(paramLabel = "TEST-OPTIONS", arity = "0..*", hidden = true,
            description = "netperf style: test-specific options (-m -M -r -s -S -D) after '--'.")
    List<String> afterDashes = new ArrayList<>();

    private final PrintStream out;
    private final PrintStream err;
    /** Sizes the last {@link #plan()} clipped to fit a suite's UDP test, one note each. */
    private final List<String> clipNotes = new ArrayList<>();

    /** A command printing to {@code out} (results) and {@code err} (progress, errors). */
    public PerfCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        PerfPlan plan = plan();
        boolean machine = format != null && (format.json || format.csv);
        boolean terminal = System.console() != null && System.console().isTerminal();
        Consumer<String> progress = (verbose || (!machine && terminal))
                ? line -> err.println("  " + line)
                : line -> {};
        TextReport text = machine ? null : new TextReport(out, verbose, warningStyle());
        for (String note : ignoredOptionNotes(plan)) err.println(note);
        for (String note : clipNotes) err.println(note);
        SuiteResult result;
        try (BusyCores busy = BusyCores.start(busyCores)) {
            if (text != null && busy.count() > 0) {
                out.println(busy.description());
                out.println();
            }
            result = PerfSuite.standard(progress).run(plan, c -> {
                if (text != null) text.printTest(c);
            });
        } catch (IOException e) {
            err.println("jnet perf: cannot start the --busy-cores processes: " + e.getMessage());
            return Main.EXIT_FAILURE;
        }
        if (format != null && format.json) new JsonReport(out, busyCores).print(result);
        else if (format != null && format.csv) new CsvReport(out, busyCores).print(result);
        else text.printSummary(result);
        out.flush();
        return result.succeeded() ? Main.EXIT_OK : Main.EXIT_FAILURE;
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
            List<TestKind> kinds = test == null ? PerfPlan.DEFAULT_SUITE : List.of(TestKind.parse(test));
            clipNotes.clear();
            List<TestSpec> tests = new ArrayList<>();
            for (TestKind k : kinds) tests.add(spec(TestSpec.defaults(k, length)));
            Iterations defaults = test == null ? PerfPlan.SUITE_ITERATIONS : PerfPlan.SINGLE_TEST_ITERATIONS;
            Iterations its = iterations == null ? defaults : parseIterations(iterations, defaults);
            Confidence conf = confidence == null ? Confidence.DEFAULT : Confidence.parse(confidence, Confidence.DEFAULT);
            PathConfig pathConfig = new PathConfig(PathKind.parse(path), parseSysctls(sysctls));
            return new PerfPlan(tests, pathConfig, StackChoice.parse(stack), its, conf);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        } catch (CommandLine.ParameterException e) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "after '--' only test-specific options (-m -M -r -s -S -D) are allowed: " + e.getMessage(), e);
        }
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
