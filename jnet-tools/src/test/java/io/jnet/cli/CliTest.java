package io.jnet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.perf.Confidence;
import io.jnet.perf.Iterations;
import io.jnet.perf.PerfPlan;
import io.jnet.perf.SocketSettings;
import io.jnet.perf.TestKind;
import io.jnet.perf.TestSpec;
import io.jnet.perf.TextReport;
import io.jnet.perf.Warmup;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

@Timeout(60)
class CliTest {

    private final ByteArrayOutputStream outBuf = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBuf = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBuf, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBuf, true, StandardCharsets.UTF_8);

    private int run(String... args) {
        return Main.run(out, err, args);
    }

    private String out() { return outBuf.toString(StandardCharsets.UTF_8); }

    private String err() { return errBuf.toString(StandardCharsets.UTF_8); }

    /** Parses perf options without running anything. */
    private PerfCommand parsed(String... args) {
        PerfCommand cmd = new PerfCommand(out, err);
        new CommandLine(cmd).parseArgs(args);
        return cmd;
    }

    /** The plan of perf options, without running anything. */
    private PerfPlan plan(String... args) {
        return parsed(args).plan();
    }

    @Test
    void noArgumentsPrintsUsageAndExitsTwo() {
        assertThat(run()).isEqualTo(2);
        assertThat(err()).contains("Usage: jnet").contains("perf").contains("serve").contains("fetch").contains("version");
    }

    @Test
    void versionPrintsTheVersion() {
        assertThat(run("version")).isZero();
        assertThat(out()).startsWith("jnet 0.1.0-SNAPSHOT").contains("Java ");
        assertThat(run("--version")).isZero();
    }

    @Test
    void helpForPerfNamesUnitsAndOptions() {
        assertThat(run("help", "perf")).isZero();
        assertThat(out()).contains("-t, --test=TEST").contains("-l, --length=SECS").contains("10^6 bits/s")
                .contains("transactions/s").contains("-I=LEVEL[,WIDTH]").contains("--json").contains("Exit codes");
        outBuf.reset();
        assertThat(run("perf", "--help")).isZero();
        assertThat(out()).contains("-r=REQ[,RESP]").contains("TCP_SENDFILE").contains("UDP_STREAM").contains("UDP_RR")
                .contains("sendfile(2)").contains("default 1472")
                .contains("--compare base,unix,friends --sizes 1,64,1K,16K,64K,1M")
                .contains("FRIENDS/BASE         median of per-pair ratios FRIENDS/BASE, percent")
                .contains("KERNEL_AF_UNIX       kernel:unix, added to the comparison for reference");
    }

    @Test
    void serveAndFetchRejectBadOptionsBeforeTouchingAnyDevice() {
        assertThat(run("serve", "--port", "8080")).isEqualTo(2);
        assertThat(err()).contains("Unknown option").contains("'--port'");
        errBuf.reset();
        assertThat(run("serve", "--address", "192.0.2.2")).isEqualTo(2);
        assertThat(err()).contains("--address").contains("prefix length");
        errBuf.reset();
        assertThat(run("serve", "--port-http", "70000")).isEqualTo(2);
        assertThat(err()).contains("http port must be 0..65535");
        errBuf.reset();
        assertThat(run("serve", "--sysctl", "net.ipv4.tcp_frto=7")).isEqualTo(2);
        assertThat(err()).contains("--sysctl net.ipv4.tcp_frto=7");
        errBuf.reset();
        assertThat(run("serve", "--sysctl", "net.ipv4.no_such=1")).isEqualTo(2);
        assertThat(err()).contains("--sysctl net.ipv4.no_such=1");
        errBuf.reset();
        assertThat(run("fetch")).isEqualTo(2);
        assertThat(err()).contains("Missing required parameter: 'URL'");
        errBuf.reset();
        assertThat(run("fetch", "--mtu", "10", "http://192.0.2.1/")).isEqualTo(2);
        assertThat(err()).contains("--mtu must be 68..65535");
        errBuf.reset();
        assertThat(run("fetch", "ftp://192.0.2.1/")).isEqualTo(2);
        errBuf.reset();
        assertThat(run("fetch", "--connect-timeout", "0", "http://192.0.2.1/")).isEqualTo(2);
        assertThat(err()).contains("--connect-timeout must be between 0 and 86400 seconds");
    }

    @Test
    void fetchRefusesUrlsItCannotReachBeforeOpeningTheTap() {
        assertThat(run("fetch", "--tap", "jnetbad0", "http://[::1]/")).isEqualTo(2);
        assertThat(err()).contains("bad URL 'http://[::1]/'").contains("IPv4 only").contains("192.0.2.1")
                .doesNotContain("Exception");
        errBuf.reset();
        assertThat(run("fetch", "--tap", "jnetbad0", "http://localhost/")).isEqualTo(2);
        assertThat(err()).contains("'localhost' is not an IPv4 address").contains("http://192.0.2.1/")
                .doesNotContain("10.0.0.1");
        errBuf.reset();
        assertThat(run("fetch", "--tap", "jnetbad0", "--address", "10.7.0.9/16", "http://localhost/")).isEqualTo(2);
        assertThat(err()).contains("10.7.0.0/16").contains("http://10.7.0.1/");
        errBuf.reset();
        assertThat(run("fetch", "--tap", "jnetbad0", "http://198.51.100.1/")).isEqualTo(2);
        assertThat(err()).contains("no route to 198.51.100.1: fetch reaches only hosts on the TAP's subnet (192.0.2.0/24)");
        errBuf.reset();
        assertThat(run("fetch", "--tap", "jnetbad0", "-o", "/nonexistent/x.bin", "http://192.0.2.1/")).isEqualTo(2);
        assertThat(err()).contains("cannot write /nonexistent/x.bin: no such directory /nonexistent")
                .doesNotContain("Exception");
    }

    @Test
    void serveChecksTheTapNameAndCaptureFileBeforeOpeningAnything() {
        assertThat(run("serve", "--tap", "thisnameiswaytoolongforlinux")).isEqualTo(2);
        assertThat(err()).contains("--tap: interface name longer than 15 bytes").doesNotContain("Exception");
        errBuf.reset();
        assertThat(run("serve", "--tap", "bad/name")).isEqualTo(2);
        assertThat(err()).contains("--tap: invalid character");
        errBuf.reset();
        assertThat(run("serve", "--tap", "jnetbad0", "--pcap", "/nonexistent/dir/x.pcap")).isEqualTo(2);
        assertThat(err()).contains("--pcap: cannot write /nonexistent/dir/x.pcap: no such directory /nonexistent/dir")
                .doesNotContain("TAP").doesNotContain("CAP_NET_ADMIN");
    }

    @Test
    void fetchTimeoutsAreGivenInSeconds() {
        assertThat(FetchCommand.formatSeconds(3)).isEqualTo("3 s");
        assertThat(FetchCommand.formatSeconds(2.5)).isEqualTo("2.5 s");
        assertThat(FetchCommand.formatSeconds(300)).isEqualTo("300 s");
    }

    @Test
    void serveSuggestsANetnsNamedAfterTheTap() {
        assertThat(ServeCommand.suggestedNetns("jnet0")).isEqualTo("jnet-jnet0");
    }

    @Test
    void serveAndFetchHelpDescribeTheTapSetUp() {
        assertThat(run("serve", "--help")).isZero();
        assertThat(out()).contains("--tap=NAME").contains("--address=CIDR").contains("--pcap=FILE")
                .contains("--port-http=PORT").contains("--echo=PORT").contains("--discard=PORT").contains("192.0.2.2/24");
        assertThat(out()).contains("root (CAP_NET_ADMIN)").contains("jnet-TAP")
                .contains("GET /bytes/N").contains("(i * 0x9E3779B97F4A7C15 mod 2^64) >>> 56")
                .contains("PUT, POST").contains("SHA-256");
        outBuf.reset();
        assertThat(run("fetch", "--help")).isZero();
        assertThat(out()).contains("--out=FILE").contains("ip tuntap add dev jnet0 mode tap").contains("URL")
                .contains("root (CAP_NET_ADMIN)");
        assertThat(out().lines()).anyMatch(l -> l.contains("run 'ip netns exec NS jnet fetch URL' there."));
        assertThat(out().lines()).as("no line of the description is wrapped").allMatch(l -> l.length() <= 80);
    }

    @Test
    void usageErrorsExitTwo() {
        assertThat(run("perf", "-t", "TCP_FOO")).isEqualTo(2);
        assertThat(err()).contains("unknown test 'TCP_FOO'");
        assertThat(run("perf", "-I", "90,5")).isEqualTo(2);
        assertThat(err()).contains("95% and 99%");
        assertThat(run("perf", "--json", "--csv")).isEqualTo(2);
        assertThat(run("perf", "-l", "0")).isEqualTo(2);
        assertThat(run("perf", "-m", "lots")).isEqualTo(2);
        assertThat(run("perf", "--path", "wifi")).isEqualTo(2);
        assertThat(run("perf", "--sysctl", "novalue")).isEqualTo(2);
        assertThat(run("perf", "-t", "TCP_RR", "--", "-l", "3")).isEqualTo(2);
        assertThat(err()).contains("after '--' only test-specific options");
        assertThat(run("nosuchcommand")).isEqualTo(2);
    }

    @Test
    void badFlowsAreUsageErrors() {
        assertThat(run("perf", "-t", "TCP_RR", "--flows", "0")).isEqualTo(2);
        assertThat(err()).contains("--flows must be at least 1: 0");
        assertThat(run("perf", "-t", "TCP_RR", "--flows", "-3")).isEqualTo(2);
        assertThat(run("perf", "-t", "TCP_RR", "--flows", "100001")).isEqualTo(2);
        assertThat(err()).contains("above the limit of 100000");
        assertThat(run("perf", "-t", "UDP_STREAM", "--udp", "unconnected", "--flows", "1000001")).isEqualTo(2);
        assertThat(err()).contains("above the limit of 1000000");
        assertThat(run("perf", "-t", "TCP_STREAM", "--flows", "2")).isEqualTo(2);
        assertThat(err()).contains("only TCP_RR, UDP_RR and UDP_STREAM");
        assertThat(run("perf", "-t", "UDP_RR", "--flows", "2")).isEqualTo(2);
        assertThat(err()).contains("needs --udp connected");
        assertThat(run("perf", "--flows", "2")).isEqualTo(2);
        assertThat(err()).contains("apply to one test");
        assertThat(run("perf", "-t", "UDP_RR", "--udp", "half")).isEqualTo(2);
        assertThat(err()).contains("--udp expects netperf, connected or unconnected");
    }

    @Test
    void unconnectedUdpRunsOnJnetVethOnly() {
        assertThat(run("perf", "-t", "UDP_RR", "--udp", "unconnected", "--stack", "kernel", "-l", "0.2", "-i", "3,3"))
                .isEqualTo(2);
        assertThat(err()).contains("--udp unconnected runs on jnet paths only").contains("kernel:tcp");
        assertThat(out()).doesNotContain("measured runs");
        errBuf.reset();
        assertThat(run("perf", "-t", "UDP_STREAM", "--udp", "unconnected", "--path", "loopback")).isEqualTo(2);
        assertThat(err()).contains("jnet:loopback: --udp unconnected measures jnet:veth only").contains("--path veth");
        errBuf.reset();
        assertThat(run("perf", "-t", "UDP_STREAM", "--udp", "unconnected", "--compare", "jnet:routed,jnet:veth")).isEqualTo(2);
        assertThat(err()).contains("jnet:routed: ").contains("do not cross jnet:routed's router");
        assertThat(plan("-t", "UDP_RR", "--udp", "unconnected", "--path", "veth").paths())
                .containsExactly("jnet:veth", "kernel:tcp");
        assertThat(plan("-t", "UDP_RR", "--udp", "unconnected", "--compare", "jnet:veth,kernel:tcp").paths())
                .containsExactly("jnet:veth", "kernel:tcp");
    }

    @Test
    void badThreadsAndAllocatorsAreUsageErrors() {
        assertThat(run("perf", "-t", "TCP_RR", "--flows", "8", "--threads", "0")).isEqualTo(2);
        assertThat(err()).contains("--threads must be at least 1: 0");
        errBuf.reset();
        assertThat(run("perf", "-t", "TCP_RR", "--flows", "2", "--threads", "3")).isEqualTo(2);
        assertThat(err()).contains("--threads 3 is above --flows 2");
        errBuf.reset();
        assertThat(run("perf", "-t", "TCP_RR", "--threads", "2")).isEqualTo(2);
        assertThat(err()).contains("above --flows 1");
        errBuf.reset();
        assertThat(run("perf", "-t", "UDP_RR", "--udp", "connected", "--flows", "4", "--threads", "2")).isEqualTo(2);
        assertThat(err()).contains("only TCP_RR spreads its flows over several threads, not UDP_RR");
        errBuf.reset();
        assertThat(run("perf", "--threads", "2")).isEqualTo(2);
        assertThat(err()).contains("--threads applies to one test");
        errBuf.reset();
        assertThat(run("perf", "-t", "TCP_RR", "--allocator", "slab")).isEqualTo(2);
        assertThat(err()).contains("--allocator slab: one of " + String.join(", ", io.jnet.buffer.PacketAllocators.names()));
    }

    @Test
    void threadsAndAllocatorReachTheSpec() {
        TestSpec t = plan("-t", "TCP_RR", "--path", "veth", "--flows", "8", "--threads", "2", "--allocator", "heap")
                .tests().getFirst();
        assertThat(t.flows()).isEqualTo(8);
        assertThat(t.threads()).isEqualTo(2);
        assertThat(t.allocator()).isEqualTo("heap");
        TestSpec d = plan("-t", "TCP_RR").tests().getFirst();
        assertThat(d.threads()).isEqualTo(1);
        assertThat(d.allocator()).isNull();
    }

    @Test
    void tcpRrOverThreadsReportsAllocationPerTransaction() {
        int rc = run("perf", "-t", "TCP_RR", "--flows", "8", "--threads", "2", "--allocator", "heap", "-l", "0.1",
                "-i", "3", "--stack", "jnet", "--path", "veth");
        assertThat(rc).as(err()).isZero();
        assertThat(out()).contains("jnet: 8 flows over 2 client and 2 server threads (8 seen by the server)")
                .contains("0.00 allocator lock entries (0.0000 contended), allocator heap");
    }

    @Test
    void theEstimateSaysFlowSetupComesOnTop() {
        assertThat(PerfCommand.estimateLine(plan("-t", "TCP_RR", "--path", "veth", "--flows", "100000"), 16, 16))
                .isEqualTo("estimated total 0:16, plus flow setup: the 100000 flows are opened before each run");
        assertThat(PerfCommand.estimateLine(plan("-t", "TCP_RR"), 16, 20))
                .isEqualTo("estimated total 0:16 (up to 0:20 if every test needs 5 pairs)");
    }

    @Test
    void flowsAndUdpModeReachTheSpec() {
        TestSpec t = plan("-t", "UDP_STREAM", "--path", "veth", "--udp", "unconnected", "--flows", "1000000").tests().getFirst();
        assertThat(t.flows()).isEqualTo(1_000_000);
        assertThat(t.udp()).isEqualTo(io.jnet.perf.UdpMode.UNCONNECTED);
        assertThat(plan("-t", "TCP_RR").tests().getFirst().flows()).isEqualTo(1);
    }

    @Test
    void defaultsGiveTheSuite() {
        PerfPlan p = plan();
        assertThat(p.tests()).extracting(TestSpec::kind).containsExactlyElementsOf(PerfPlan.DEFAULT_SUITE);
        assertThat(PerfPlan.DEFAULT_SUITE).contains(TestKind.TCP_SENDFILE, TestKind.UDP_STREAM).doesNotContain(TestKind.UDP_RR);
        assertThat(p.iterations()).isEqualTo(PerfPlan.SUITE_ITERATIONS);
        assertThat(p.confidence()).isEqualTo(Confidence.DEFAULT);
        assertThat(p.paths()).containsExactly("jnet:loopback", "kernel:tcp");
        assertThat(p.pathName()).isEqualTo("loopback");
        assertThat(p.compare()).isFalse();
        assertThat(p.warmup()).isEqualTo(Warmup.DEFAULT);
        TestSpec s = p.tests().getFirst();
        assertThat(s.duration()).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.sendSize()).isEqualTo(65536);
        assertThat(s.requestSize()).isEqualTo(1);
        assertThat(s.responseSize()).isEqualTo(1);
        assertThat(s.local()).isEqualTo(SocketSettings.defaults());
        TestSpec udp = p.tests().stream().filter(t -> t.kind() == TestKind.UDP_STREAM).findFirst().orElseThrow();
        assertThat(udp.sendSize()).as("UDP_STREAM's -m default: one Ethernet frame's payload").isEqualTo(1472);
    }

    @Test
    void udpSizesAreCheckedForASingleTestAndClippedInTheSuite() {
        assertThat(plan("-t", "udp_stream").tests().getFirst().sendSize()).isEqualTo(1472);
        assertThat(plan("-t", "UDP_STREAM", "-m", "64").tests().getFirst().sendSize()).isEqualTo(64);
        assertThat(plan("-t", "UDP_RR", "-r", "64,1472").tests().getFirst().responseSize()).isEqualTo(1472);
        assertThat(run("perf", "-t", "UDP_STREAM", "-m", "64K")).isEqualTo(2);
        assertThat(err()).contains("UDP_STREAM: -m 65536 bytes does not fit one datagram (at most 65507 bytes");
        errBuf.reset();
        assertThat(run("perf", "-t", "UDP_RR", "-r", "1,70000")).isEqualTo(2);
        assertThat(err()).contains("UDP_RR: -r response 70000 bytes does not fit one datagram");
        PerfCommand suite = parsed("-m", "64K", "-r", "100K");
        PerfPlan p = suite.plan();
        assertThat(p.tests()).filteredOn(t -> t.kind() == TestKind.UDP_STREAM).singleElement()
                .satisfies(t -> assertThat(t.sendSize()).isEqualTo(65507));
        assertThat(p.tests()).filteredOn(t -> t.kind() == TestKind.TCP_STREAM).singleElement()
                .satisfies(t -> assertThat(t.sendSize()).isEqualTo(65536));
        assertThat(p.tests()).filteredOn(t -> t.kind() == TestKind.TCP_RR).singleElement()
                .satisfies(t -> assertThat(t.requestSize()).isEqualTo(102400));
    }

    @Test
    void optionsReachThePlan() {
        PerfPlan p = plan("-t", "tcp_rr", "-l", "2.5", "-i", "50,1", "-I", "95,2", "-r", "64,1K", "-s", "32K",
                "-S", "16K,64K", "-D", "--path", "veth", "--stack", "kernel", "--sysctl", "net.ipv4.tcp_timestamps=0");
        assertThat(p.tests()).singleElement().satisfies(s -> {
            assertThat(s.kind()).isEqualTo(TestKind.TCP_RR);
            assertThat(s.duration()).isEqualTo(Duration.ofMillis(2500));
            assertThat(s.requestSize()).isEqualTo(64);
            assertThat(s.responseSize()).isEqualTo(1024);
            assertThat(s.local()).isEqualTo(new SocketSettings(32768, 32768, true));
            assertThat(s.remote()).isEqualTo(new SocketSettings(16384, 65536, true));
        });
        assertThat(p.iterations()).isEqualTo(new Iterations(30, 3));
        assertThat(p.confidence()).isEqualTo(new Confidence(95, 2));
        assertThat(p.pathName()).isEqualTo("veth");
        assertThat(p.sysctls()).containsEntry("net.ipv4.tcp_timestamps", "0");
        assertThat(p.paths()).containsExactly("kernel:tcp");
        assertThat(plan("--path", "veth").paths()).containsExactly("jnet:veth", "kernel:tcp");
        assertThat(plan("--path", "veth", "--stack", "jnet").paths()).containsExactly("jnet:veth");
    }

    @Test
    void singleTestDefaultsToFivePairsAndNetperfStyleDashDashWorks() {
        PerfPlan p = plan("-t", "TCP_STREAM", "-m", "1K", "--", "-m", "16K", "-M", "8k", "-D");
        assertThat(p.iterations()).isEqualTo(PerfPlan.SINGLE_TEST_ITERATIONS);
        TestSpec s = p.tests().getFirst();
        assertThat(s.sendSize()).isEqualTo(16384);
        assertThat(s.recvSize()).isEqualTo(8000);
        assertThat(s.local().noDelay()).isTrue();
        assertThat(s.remote().noDelay()).isTrue();
    }

    @Test
    void iterationsAreClippedLikeNetperf() {
        assertThat(plan("-t", "TCP_RR", "-i", "1").iterations()).isEqualTo(new Iterations(3, 3));
        assertThat(plan("-t", "TCP_RR", "-i", "40").iterations()).isEqualTo(new Iterations(30, 30));
        assertThat(plan("-t", "TCP_RR", "-i", "8,3").iterations()).isEqualTo(new Iterations(8, 3));
    }

    @Test
    void maxIterationsBelowMinIsAUsageError() {
        assertThat(run("perf", "-t", "TCP_RR", "-i", "3,5")).isEqualTo(2);
        assertThat(err()).contains("MAX (3) must not be below MIN (5)");
        assertThat(out()).isEmpty();
    }

    @Test
    void sysctlsAreCheckedBeforeAnyTestRuns() {
        assertThat(run("perf", "--sysctl", "foo=bar")).isEqualTo(2);
        assertThat(err()).contains("--sysctl foo=bar: unknown sysctl: foo");
        errBuf.reset();
        assertThat(run("perf", "--sysctl", "net.ipv4.tcp_timestamps=7")).isEqualTo(2);
        assertThat(err()).contains("net.ipv4.tcp_timestamps: 7 is outside 0..2");
        errBuf.reset();
        assertThat(run("perf", "--sysctl", "net.ipv4.tcp_rmem=4096 x 6291456")).isEqualTo(2);
        assertThat(err()).contains("not a number");
        assertThat(out()).as("nothing ran").isEmpty();
        assertThat(plan("--sysctl", "/proc/sys/net/ipv4/tcp_timestamps=0").sysctls())
                .containsEntry("/proc/sys/net/ipv4/tcp_timestamps", "0");
    }

    @Test
    void strayPositionalArgumentIsNamedAsSuch() {
        assertThat(run("perf", "extra")).isEqualTo(2);
        assertThat(err()).contains("unexpected argument: extra").doesNotContain("after '--'");
        errBuf.reset();
        assertThat(run("perf", "extra", "--", "-D")).isEqualTo(2);
        assertThat(err()).contains("unexpected argument: extra");
        errBuf.reset();
        assertThat(run("perf", "-t", "TCP_RR", "--", "extra")).isEqualTo(2);
        assertThat(err()).contains("after '--' only test-specific options");
    }

    @Test
    void unknownCommandListsTheCommands() {
        assertThat(run("bogus")).isEqualTo(2);
        assertThat(err()).contains("unknown command 'bogus'").contains("perf, rds-stress, serve, fetch, drill, version, help")
                .doesNotContain("Unmatched argument");
    }

    @Test
    void optionsTheTestDoesNotUseAreNoted() {
        PerfCommand rr = parsed("-t", "TCP_RR", "-m", "1K", "-M", "2K", "-r", "64");
        assertThat(rr.ignoredOptionNotes(rr.plan())).containsExactly("(-m ignored by TCP_RR)", "(-M ignored by TCP_RR)");
        PerfCommand stream = parsed("-t", "TCP_STREAM", "-m", "1K", "--", "-r", "64");
        assertThat(stream.ignoredOptionNotes(stream.plan())).containsExactly("(-r ignored by TCP_STREAM)");
        PerfCommand suite = parsed("-m", "1K", "-r", "64");
        assertThat(suite.ignoredOptionNotes(suite.plan())).isEmpty();
        PerfCommand udp = parsed("-t", "UDP_STREAM", "-m", "64", "-M", "1K", "-r", "8", "-D");
        assertThat(udp.ignoredOptionNotes(udp.plan()))
                .containsExactly("(-r ignored by UDP_STREAM)", "(-M ignored by UDP_STREAM)", "(-D ignored by UDP_STREAM)");
        PerfCommand udpRr = parsed("-t", "UDP_RR", "-m", "64");
        assertThat(udpRr.ignoredOptionNotes(udpRr.plan())).containsExactly("(-m ignored by UDP_RR)");
        PerfCommand sendfile = parsed("-t", "TCP_SENDFILE", "-m", "16K", "-M", "8K", "-D");
        assertThat(sendfile.ignoredOptionNotes(sendfile.plan())).isEmpty();
    }

    @Test
    void netperfWarningBlocksOnlyForASingleTestWithExplicitIterationsOrConfidence() {
        assertThat(parsed().warningStyle()).isEqualTo(TextReport.WarningStyle.ONE_LINE);
        assertThat(parsed("-i", "10").warningStyle()).isEqualTo(TextReport.WarningStyle.ONE_LINE);
        assertThat(parsed("-t", "TCP_RR").warningStyle()).isEqualTo(TextReport.WarningStyle.ONE_LINE);
        assertThat(parsed("-t", "TCP_RR", "-i", "10").warningStyle()).isEqualTo(TextReport.WarningStyle.NETPERF_BLOCK);
        assertThat(parsed("-t", "TCP_RR", "-I", "95,5").warningStyle()).isEqualTo(TextReport.WarningStyle.NETPERF_BLOCK);
    }

    @Test
    void perfHelpHasNoStaleAvailabilityText() {
        assertThat(run("perf", "--help")).isZero();
        assertThat(out()).doesNotContain("not yet available").contains("both side by side");
    }

    @Test
    void perfRunsOneTestAgainstTheKernelAndPrintsJson() {
        int rc = run("perf", "-t", "TCP_RR", "-l", "0.1", "-i", "3", "--stack", "kernel", "--json");
        assertThat(rc).as(err()).isZero();
        assertThat(out()).startsWith("{\"results\":[{\"test\":\"TCP_RR\"").contains("\"stack\":\"kernel\"")
                .contains("\"succeeded\":true");
    }

    @Test
    void perfCompareMeasuresEachPathInAJvmOfItsOwnOrAllInThisOneWithSameJvm() {
        assertThat(parsed("-t", "TCP_RR").sameJvm).isFalse();
        // a row of the size table: the size, both paths' medians (each with '*' or a blank), p1 in percent
        String row = "\\n +1 +\\d+\\.\\d\\d[ *] +\\d+\\.\\d\\d[ *] +\\d+%\\n";
        List<String> args = List.of("perf", "-t", "TCP_RR", "--compare", "jnet:friends,jnet:loopback", "-l", "0.1",
                "-i", "3", "--warmup", "0", "-q");
        for (List<String> extra : List.of(List.<String>of(), List.of("--same-jvm"))) {
            outBuf.reset();
            List<String> all = new java.util.ArrayList<>(args);
            all.addAll(extra);
            int rc = run(all.toArray(String[]::new));
            assertThat(rc).as(extra + ": " + err()).isZero();
            assertThat(out()).as(extra.toString()).contains("jnet:friends  jnet:loopback").containsPattern(row);
            assertThat(out().contains("--same-jvm: all paths measured in one JVM")).as(extra + ": said in the output")
                    .isEqualTo(!extra.isEmpty());
        }
    }

    @Test
    void perfWithBothStacksPrintsBothRowsAsCsv() {
        int rc = run("perf", "-t", "TCP_MAERTS", "-l", "0.1", "-i", "3", "--csv");
        assertThat(rc).as(err()).isZero();
        assertThat(out().lines()).hasSize(3);
        assertThat(out().lines().toList().get(1)).startsWith("TCP_MAERTS,loopback,jnet,candidate,10^6bits/s,3,");
        assertThat(out().lines().toList().get(2)).startsWith("TCP_MAERTS,loopback,kernel,reference,10^6bits/s,3,");
    }

    @Test
    void theNewTestsRunOnBothStacksFromTheCommandLine() {
        for (String t : new String[] {"TCP_SENDFILE", "UDP_STREAM", "UDP_RR"}) {
            outBuf.reset();
            int rc = run("perf", "-t", t, "-l", "0.1", "-i", "3", "--csv");
            assertThat(rc).as(t + ": " + err()).isZero();
            List<String> rows = out().lines().toList();
            assertThat(rows).as(t).hasSize(3);
            assertThat(rows.get(1)).startsWith(t + ",loopback,jnet,candidate,");
            if (t.equals("UDP_STREAM")) assertThat(rows.get(1)).containsPattern(",ok,\\d+\\.\\d{4},\\d+,\\d+,\\d+,0,1,netperf,");
            else assertThat(rows.get(1)).contains(",ok,,,,,0,1,netperf,");
            assertThat(rows.get(2)).startsWith(t + ",loopback,kernel,reference,");
        }
        outBuf.reset();
        assertThat(run("perf", "-t", "UDP_STREAM", "-m", "64", "-l", "0.1", "-i", "3")).as(err()).isZero();
        assertThat(out()).contains("UDP UNIDIRECTIONAL SEND TEST").contains("Okay").contains("Errors").contains("Datagrams lost")
                .containsPattern("UDP_STREAM +loopback +\\d+\\.\\d\\d +\\d+\\.\\d\\d +10\\^6bits/s");
    }

    @Test
    void busyCoresAreCheckedDocumentedAndReported() {
        int cores = Runtime.getRuntime().availableProcessors();
        assertThat(run("perf", "--busy-cores", Integer.toString(cores + 1))).isEqualTo(2);
        assertThat(err()).contains("--busy-cores: busy cores must be 0 to " + cores);
        errBuf.reset();
        assertThat(run("perf", "--busy-cores", "-1")).isEqualTo(2);
        assertThat(run("perf", "--busy-cores", "lots")).isEqualTo(2);
        assertThat(plan("-t", "TCP_RR", "--busy-cores", "1").tests()).hasSize(1);
        assertThat(run("perf", "--help")).isZero();
        assertThat(out().replaceAll("\\s+", " ")).contains("--busy-cores=N Keeps N cores busy with spinning processes "
                + "for the whole run; reproduces a loaded machine");

        java.util.Set<Long> childrenBefore = ProcessHandle.current().children().map(ProcessHandle::pid)
                .collect(java.util.stream.Collectors.toSet());
        outBuf.reset();
        int rc = run("perf", "-t", "TCP_RR", "-l", "0.1", "-i", "3", "--stack", "kernel", "--busy-cores", "1");
        assertThat(rc).as(err()).isZero();
        assertThat(out()).startsWith("busy cores: 1 (spinning processes)" + System.lineSeparator());
        outBuf.reset();
        rc = run("perf", "-t", "TCP_RR", "-l", "0.1", "-i", "3", "--stack", "kernel", "--busy-cores", "1", "--json");
        assertThat(rc).as(err()).isZero();
        assertThat(out()).contains("\"busy_cores\":1,");
        assertThat(ProcessHandle.current().children().map(ProcessHandle::pid))
                .as("spinners are gone after the run").allMatch(childrenBefore::contains);
        outBuf.reset();
        assertThat(run("perf", "-t", "TCP_RR", "-l", "0.1", "-i", "3", "--stack", "kernel")).as(err()).isZero();
        assertThat(out()).as("nothing said without busy cores").doesNotContain("busy cores");
    }

    @Test
    void perfWithJnetAloneRunsOnlyJnet() {
        int rc = run("perf", "-t", "TCP_RR", "-l", "0.1", "-i", "3", "--stack", "jnet", "--csv");
        assertThat(rc).as(err()).isZero();
        assertThat(out().lines()).hasSize(2);
        assertThat(out().lines().toList().get(1)).startsWith("TCP_RR,loopback,jnet,");
    }

    @Test
    void perfTextOutputHasTheTables() {
        int rc = run("perf", "-t", "TCP_STREAM", "-l", "0.1", "-i", "3", "-v");
        assertThat(rc).as(err()).isZero();
        assertThat(out()).contains("TCP STREAM TEST").contains("Throughput").contains("Per run")
                .containsPattern("TCP_STREAM +loopback +\\d+\\.\\d\\d +\\d+\\.\\d\\d +10\\^6bits/s");
        assertThat(err()).contains("TCP_STREAM kernel pair 3");
    }

    @Test
    void subcommandsPrintTheVersionToo() {
        assertThat(run("--version")).isZero();
        String top = out();
        assertThat(top).isNotBlank();
        for (String cmd : new String[] {"perf", "serve", "fetch", "drill"}) {
            outBuf.reset();
            assertThat(run(cmd, "--version")).as(cmd).isZero();
            assertThat(out()).as(cmd).isEqualTo(top);
        }
    }

    @Test
    void runLengthAndIterationsAreCheckedAndClipsAreSaid() {
        assertThat(run("perf", "-l", "0")).isEqualTo(2);
        assertThat(err()).contains("-l must be at least 0.1 and at most 86400 seconds: 0.0");
        errBuf.reset();
        assertThat(run("perf", "-l", "0.001")).isEqualTo(2);
        errBuf.reset();
        assertThat(run("perf", "-i", ",")).isEqualTo(2);
        assertThat(err()).contains("-i ,: empty value");
        errBuf.reset();
        assertThat(plan("-t", "TCP_RR", "-i", "50").iterations().max()).isEqualTo(30);
    }

    @Test
    void compareNamesUnknownPathsAndChecksItsOptions() {
        assertThat(run("perf", "--compare", "jnet:loopback,kernel:wifi")).isEqualTo(2);
        assertThat(err()).contains("unknown path 'kernel:wifi'")
                .contains("known paths: jnet:loopback, jnet:friends, jnet:veth, jnet:routed, kernel:tcp, kernel:unix, jnet:unix");
        errBuf.reset();
        assertThat(run("perf", "--compare", "kernel:tcp", "--path", "veth")).isEqualTo(2);
        assertThat(err()).contains("--path and --stack do not apply");
        errBuf.reset();
        assertThat(run("perf", "--sizes", "1,2", "--sweep")).isEqualTo(2);
        errBuf.reset();
        assertThat(run("perf", "--sizes", "1,x")).isEqualTo(2);
        assertThat(err()).contains("not a size: 'x'");
        errBuf.reset();
        assertThat(run("perf", "--warmup", "-1")).isEqualTo(2);
        assertThat(out()).as("nothing ran").isEmpty();
    }

    @Test
    void comparePlansACellPerTestAndSizeAndSkipsUdpSizesAboveADatagram() {
        PerfPlan p = plan("-t", "TCP_STREAM", "--compare", "jnet:loopback,kernel:tcp,kernel:unix", "--sizes", "1,64K", "-M", "4K");
        assertThat(p.compare()).isTrue();
        assertThat(p.paths()).containsExactly("jnet:loopback", "kernel:tcp", "kernel:unix");
        assertThat(p.cells()).extracting(PerfPlan.Cell::size).containsExactly(1, 65536);
        assertThat(p.cells()).extracting(c -> c.spec().sendSize()).containsExactly(1, 65536);
        assertThat(p.cells()).extracting(c -> c.spec().recvSize()).containsOnly(4096);
        PerfPlan udp = plan("-t", "UDP_RR", "--compare", "kernel:tcp", "--sizes", "1,64K,128K");
        assertThat(udp.cells()).extracting(PerfPlan.Cell::size).containsExactly(1);
        assertThat(udp.notes()).singleElement().asString().contains("UDP_RR skips sizes above 65507 bytes (65536, 131072)");
        PerfPlan sweep = plan("-t", "TCP_RR", "--sweep");
        assertThat(sweep.compare()).isTrue();
        assertThat(sweep.paths()).as("--sweep alone compares jnet and the kernel").containsExactly("jnet:loopback", "kernel:tcp");
        assertThat(sweep.cells()).hasSize(21).allSatisfy(c -> assertThat(c.spec().requestSize()).isEqualTo(c.size()));
        assertThat(plan("--warmup", "0").warmup()).isEqualTo(Warmup.NONE);
    }

    @Test
    void friendsWithBaseOrUnixPlansTheFriendsTableWithTheKernelColumnsAdded() {
        PerfPlan p = plan("-t", "TCP_RR", "--compare", "base,friends", "--sizes", "1,64,1K,16K,64K,1M");
        assertThat(p.friendsTable()).isTrue();
        assertThat(p.paths()).containsExactly("jnet:friends", "jnet:loopback", "kernel:tcp", "kernel:unix");
        assertThat(p.cells()).extracting(PerfPlan.Cell::size).containsExactly(1, 64, 1024, 16384, 65536, 1 << 20);
        assertThat(plan("--compare", "FRIENDS,base,kernel:unix").tests()).extracting(TestSpec::kind)
                .as("without -t: the suite's TCP tests").containsExactly(TestKind.TCP_STREAM, TestKind.TCP_MAERTS,
                        TestKind.TCP_SENDFILE, TestKind.TCP_RR, TestKind.TCP_CRR);
        PerfPlan ids = plan("-t", "TCP_RR", "--compare", "jnet:friends,jnet:loopback");
        assertThat(ids.friendsTable()).as("full ids: a column per path").isFalse();
        assertThat(ids.paths()).containsExactly("jnet:friends", "jnet:loopback");
        assertThat(plan("-t", "TCP_RR", "--compare", "friends,kernel:tcp").friendsTable()).isFalse();
    }

    @Test
    void theFriendsTableRefusesUdpTestsAndPathsWithoutAColumn() {
        assertThat(run("perf", "-t", "UDP_STREAM", "--compare", "base,friends")).isEqualTo(2);
        assertThat(err()).contains("asks for the friends table, which is for TCP tests").contains("UDP_STREAM is a UDP test");
        errBuf.reset();
        assertThat(run("perf", "--compare", "base,friends,jnet:veth")).isEqualTo(2);
        assertThat(err()).contains("path jnet:veth has no column in the friends table");
        errBuf.reset();
        assertThat(run("perf", "--compare", "friends,jnet:friends")).isEqualTo(2);
        assertThat(err()).contains("path jnet:friends given twice");
        assertThat(out()).as("nothing ran").isEmpty();
    }

    @Test
    void friendsTableRunsAndSaysWhoseTcpFriendsWins() {
        int rc = run("perf", "-t", "TCP_RR", "--compare", "base,friends", "--sizes", "1", "-l", "0.1", "-i", "3",
                "--warmup", "0", "-q", "--sysctl", "net.ipv4.tcp_friends=0");
        assertThat(rc).as(err()).isZero();
        assertThat(out()).containsPattern("\\n +RR +BASE +UNIX +FRIENDS +FRIENDS/BASE +FRIENDS/UNIX +KERNEL_TCP +KERNEL_AF_UNIX\\n")
                .containsPattern("\\n +1 +\\d+\\.\\d\\d[ *] +- +\\d+\\.\\d\\d[ *] +\\d+% +- +\\d+\\.\\d\\d[ *] +\\d+\\.\\d\\d\\*?\\n")
                .contains("UNIX = jnet:unix (not compared: -)")
                .contains("Note: jnet:friends runs with net.ipv4.tcp_friends=1, which defines it, whatever --sysctl says; "
                        + "--sysctl net.ipv4.tcp_friends=0 applies to jnet:loopback");
    }

    @Test
    void compareRunsKernelPathsAndPrintsCsvWithProgressOnlyOnStderr() {
        int rc = run("perf", "-t", "TCP_RR", "--compare", "kernel:tcp,kernel:unix", "--sizes", "1,1K", "-l", "0.1",
                "-i", "3", "--warmup", "0.2", "--csv", "-v");
        assertThat(rc).as(err()).isZero();
        List<String> rows = out().lines().toList();
        assertThat(rows).hasSize(5);
        assertThat(rows.get(1)).startsWith("TCP_RR,1,kernel:tcp,Trans/s,3,").containsPattern(",(true|false),,,,");
        assertThat(rows.get(4)).startsWith("TCP_RR,1024,kernel:unix,Trans/s,3,").contains(",ok,0,1,netperf,");
        assertThat(out()).doesNotContain("pair").doesNotContain("estimated");
        assertThat(err()).contains("estimated total").contains("TCP_RR kernel:unix pair 3/3 size 1024: ");
    }

    @Test
    void compareTextShowsNotApplicableCellsForUdpOnUnix() {
        int rc = run("perf", "-t", "UDP_RR", "--compare", "kernel:tcp,kernel:unix", "-l", "0.1", "-i", "3", "--warmup", "0");
        assertThat(rc).as(err()).isZero();
        assertThat(out()).containsPattern("RR +kernel:tcp +kernel:unix +p1")
                .containsPattern("\\n +1 +\\d+\\.\\d\\d[ *] +n/a +-").contains("Note: n/a: kernel:unix: UDP_RR is a UDP test");
    }

    @Test
    void netperfsAfUnixNamesRunTheByteStreamTestsOnTheUnixPaths() {
        PerfPlan rr = plan("-t", "STREAM_RR", "-r", "64,64");
        assertThat(rr.tests()).singleElement().satisfies(t -> {
            assertThat(t.kind()).isEqualTo(TestKind.TCP_RR);
            assertThat(t.requestSize()).isEqualTo(64);
        });
        assertThat(rr.paths()).as("jnet's local sockets against the kernel's AF_UNIX").containsExactly("jnet:unix", "kernel:unix");
        assertThat(rr.pathName()).isEqualTo("unix");
        assertThat(rr.compare()).isFalse();
        assertThat(plan("-t", "stream_stream").tests().getFirst().kind()).isEqualTo(TestKind.TCP_STREAM);
        assertThat(plan("-t", "STREAM_STREAM", "--stack", "jnet").paths()).containsExactly("jnet:unix");
        assertThat(plan("-t", "STREAM_STREAM", "--stack", "kernel").paths()).containsExactly("kernel:unix");
        PerfPlan sized = plan("-t", "STREAM_RR", "--sizes", "1,1K");
        assertThat(sized.compare()).isTrue();
        assertThat(sized.paths()).containsExactly("jnet:unix", "kernel:unix");
        assertThat(plan("-t", "STREAM_RR", "--compare", "kernel:unix,jnet:unix").paths()).containsExactly("kernel:unix", "jnet:unix");
        assertThat(plan("-t", "TCP_RR", "--compare", "jnet:unix,kernel:tcp").paths()).as("TCP_RR runs anywhere")
                .containsExactly("jnet:unix", "kernel:tcp");

        assertThat(run("perf", "-t", "STREAM_RR", "--compare", "jnet:unix,kernel:tcp")).isEqualTo(2);
        assertThat(err()).contains("STREAM_RR runs over AF_UNIX stream sockets").contains("not kernel:tcp");
        errBuf.reset();
        assertThat(run("perf", "-t", "STREAM_STREAM", "--path", "veth")).isEqualTo(2);
        assertThat(err()).contains("--path does not apply to STREAM_STREAM");
        assertThat(run("perf", "-t", "STREAM_STREAM", "-D")).isEqualTo(2);
        assertThat(err()).contains("STREAM_STREAM runs over AF_UNIX stream sockets").contains("TCP_NODELAY");
        assertThat(run("perf", "-t", "STREAM_RR", "--stack", "jnet", "--", "-D")).isEqualTo(2);
        assertThat(err()).contains("STREAM_RR runs over AF_UNIX stream sockets");
        errBuf.reset();
        assertThat(run("perf", "-t", "UNIX_STREAM")).isEqualTo(2);
        assertThat(err()).contains("unknown test 'UNIX_STREAM'").contains("STREAM_STREAM and STREAM_RR");
    }

    @Test
    void streamRrRunsJnetUnixAgainstKernelUnix() {
        int rc = run("perf", "-t", "STREAM_RR", "-l", "0.1", "-i", "3", "--warmup", "0", "--csv");
        assertThat(rc).as(err()).isZero();
        assertThat(err()).contains("(STREAM_RR: TCP_RR over jnet:unix against kernel:unix)");
        assertThat(out()).contains("TCP_RR,unix,");
    }

    @Test
    void quietSilencesProgressAndTheEstimate() {
        int rc = run("perf", "-t", "TCP_RR", "-l", "0.1", "-i", "3", "--stack", "kernel", "-q", "-v", "--warmup", "0.2");
        assertThat(rc).as(err()).isZero();
        assertThat(err()).isEmpty();
        assertThat(out()).contains("TCP REQUEST/RESPONSE TEST").doesNotContain("estimated total");
    }

    @Test
    void plotNeedsAComparisonAndAKnownExtensionAndWritesTheFigure(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        assertThat(run("perf", "-t", "TCP_RR", "--plot", dir.resolve("rr.png").toString())).isEqualTo(2);
        assertThat(err()).contains("--plot draws figures against size");
        errBuf.reset();
        assertThat(run("perf", "-t", "TCP_RR", "--sizes", "1", "--plot", dir.resolve("rr.gif").toString())).isEqualTo(2);
        assertThat(dir.resolve("rr.gif")).doesNotExist();
        errBuf.reset();
        // a directory that does not exist fails before any test runs, saying why
        long start = System.nanoTime();
        assertThat(run("perf", "-t", "TCP_RR", "--sizes", "1", "-l", "5", "--plot",
                dir.resolve("no/such/rr.png").toString())).isEqualTo(2);
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).isLessThan(java.time.Duration.ofSeconds(5));
        assertThat(err()).contains("--plot: cannot write " + dir.resolve("no/such/rr.png") + ": no such directory "
                + dir.resolve("no/such")).doesNotContain("estimated total");
        errBuf.reset();
        java.nio.file.Path png = dir.resolve("rr.png");
        int rc = run("perf", "-t", "TCP_RR", "--compare", "kernel:tcp,kernel:unix", "--sizes", "1,1K", "-l", "0.1",
                "-i", "3", "--warmup", "0", "--plot", png.toString());
        assertThat(rc).as(err()).isZero();
        assertThat(err()).contains("plot written to " + png);
        byte[] head = java.util.Arrays.copyOf(java.nio.file.Files.readAllBytes(png), 8);
        assertThat(head).as("a PNG signature").containsExactly(0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n');
    }
}
