package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.stack.NetNamespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The friends patch's table (--compare base,unix,friends), its paths and jnet:friends. */
@Timeout(120)
class FriendsTableTest {

    private static final Duration ONE_SECOND = Duration.ofSeconds(1);

    /** The five paths of the table as in-memory fakes, jnet:unix among them, with the standard aliases. */
    private static PathRegistry fakes() {
        return new PathRegistry()
                .register(new PathRegistry.Entry("jnet:loopback", "jnet", "fake", true, s -> new InMemoryPath("base"), null))
                .register(new PathRegistry.Entry("jnet:friends", "jnet", "fake", true, s -> new InMemoryPath("friends"), null,
                        Map.of("net.ipv4.tcp_friends", "1")))
                .register(new PathRegistry.Entry("jnet:unix", "jnet", "fake", true, s -> new InMemoryPath("unix"), null))
                .register(new PathRegistry.Entry("jnet:veth", "jnet", "fake", true, s -> new InMemoryPath("veth"), null))
                .register(new PathRegistry.Entry("kernel:tcp", "kernel", "fake", false, s -> new InMemoryPath("ktcp"), null))
                .register(new PathRegistry.Entry("kernel:unix", "kernel", "fake", false, s -> new InMemoryPath("kunix"),
                        PathRegistry::unixNotApplicable))
                .alias("base", "jnet:loopback")
                .alias("friends", "jnet:friends")
                .alias("unix", "jnet:unix");
    }

    @Test
    void friendsWithBaseOrUnixByAliasAsksForTheTable() {
        PathRegistry r = fakes();
        assertThat(FriendsTable.asks(r, "base,unix,friends")).isTrue();
        assertThat(FriendsTable.asks(r, " FRIENDS ,base")).isTrue();
        assertThat(FriendsTable.asks(r, "unix,friends,kernel:tcp")).isTrue();
        assertThat(FriendsTable.asks(r, "friends")).isFalse();
        assertThat(FriendsTable.asks(r, "base,unix")).isFalse();
        assertThat(FriendsTable.asks(r, "jnet:friends,jnet:loopback")).as("full ids: a column per path").isFalse();
        assertThat(FriendsTable.asks(r, "friends,jnet:loopback")).isFalse();
    }

    @Test
    void theTablesPathsAreFriendsFirstThenTheNamedOnesThenTheKernelsAddedOnce() {
        PathRegistry r = fakes();
        assertThat(FriendsTable.paths(r, "base,unix,friends"))
                .containsExactly("jnet:friends", "jnet:loopback", "jnet:unix", "kernel:tcp", "kernel:unix");
        assertThat(FriendsTable.paths(r, "unix,kernel:tcp,friends"))
                .containsExactly("jnet:friends", "jnet:unix", "kernel:tcp", "kernel:unix");
        assertThat(FriendsTable.paths(r, "friends,base")).containsExactly("jnet:friends", "jnet:loopback", "kernel:tcp", "kernel:unix");
        assertThatThrownBy(() -> FriendsTable.paths(r, "base,friends,jnet:veth"))
                .hasMessageContaining("path jnet:veth has no column in the friends table")
                .hasMessageContaining("--compare jnet:friends,jnet:veth");
        assertThatThrownBy(() -> FriendsTable.paths(r, "base,friends,base")).hasMessageContaining("given twice");
    }

    /**
     * TCP_RR at 1 and 1024 bytes: at 1 every path ran; at 1024 jnet:unix could not and -D kept kernel:unix out.
     * FRIENDS 120, 150, 300 against BASE 100, 200, 100: per-pair ratios 1.2, 0.75, 3.0, median 120%
     * (the medians' ratio would be 150%); against UNIX 200, 100, 600: 0.6, 1.5, 0.5, median 60% (not 75%).
     */
    private static CompareResult result(boolean withUnix) {
        TestSpec rr = TestSpec.defaults(TestKind.TCP_RR, ONE_SECOND);
        List<Measurement.LaneResult> small = new ArrayList<>(List.of(
                lane("jnet:friends", 120, 150, 300), lane("jnet:loopback", 100, 200, 100)));
        if (withUnix) small.add(lane("jnet:unix", 200, 100, 600));
        small.addAll(List.of(lane("kernel:tcp", 90, 90, 90), lane("kernel:unix", 400, 400, 400)));
        List<Measurement.LaneResult> big = new ArrayList<>(List.of(
                lane("jnet:friends", 50, 50, 50), lane("jnet:loopback", 100, 100, 100)));
        if (withUnix) big.add(new Measurement.LaneResult("jnet:unix", null, "no such size"));
        big.addAll(List.of(lane("kernel:tcp", 80, 80, 80), new Measurement.LaneResult("kernel:unix", null, "AF_UNIX has no Nagle")));
        Measurement m1 = new Measurement(rr.withMessageSize(1, false), 1, Confidence.DEFAULT, small, List.of(), null);
        Measurement m2 = new Measurement(rr.withMessageSize(1024, false), 1024, Confidence.DEFAULT, big, List.of(), null);
        List<String> paths = small.stream().map(Measurement.LaneResult::label).toList();
        PerfPlan plan = new PerfPlan(List.of(new PerfPlan.Cell(m1.spec(), 1), new PerfPlan.Cell(m2.spec(), 1024)), paths,
                "loopback", Map.of(), Iterations.exactly(3), Confidence.DEFAULT, Warmup.DEFAULT, true, List.of(), true);
        return new CompareResult(plan, List.of(m1, m2), List.of());
    }

    private static Measurement.LaneResult lane(String id, double... values) {
        return new Measurement.LaneResult(id, Fixtures.series(id, TestKind.TCP_RR, values), null);
    }

    @Test
    void tableHasTheSeedsColumnsWithPercentagesOfPairRatiosThenTheKernels() {
        String text = ReportCapture.capture(ps -> new SizeTable(ps).print(result(true)));
        assertThat(text).contains("BASE = jnet:loopback, UNIX = jnet:unix, FRIENDS = jnet:friends (net.ipv4.tcp_friends=1)")
                .contains("FRIENDS/BASE, FRIENDS/UNIX: medians of per-pair ratios, in percent")
                .contains("KERNEL_TCP = kernel:tcp, KERNEL_AF_UNIX = kernel:unix: the host kernel, for reference");
        assertThat(text).containsPattern("\\n +RR +BASE +UNIX +FRIENDS +FRIENDS/BASE +FRIENDS/UNIX +KERNEL_TCP +KERNEL_AF_UNIX\\n");
        // medians BASE 100, UNIX 200, FRIENDS 150 (spread: '*'), kernel:tcp steady
        assertThat(text).containsPattern("\\n +1 +100\\.00\\* +200\\.00\\* +150\\.00\\* +120% +60% +90\\.00 +400\\.00\\n");
        assertThat(text).containsPattern("\\n +1024 +100\\.00 +- +50\\.00 +50% +- +80\\.00 +-\\n");
        assertThat(text).contains("Note: -: UNIX (jnet:unix): no such size")
                .contains("Note: -: KERNEL_AF_UNIX (kernel:unix): AF_UNIX has no Nagle")
                .contains("* confidence not met");
        assertThat(text).doesNotContain("n/a").doesNotContain("p1 =");
    }

    @Test
    void headingsAndFiguresLineUp() {
        List<String> lines = ReportCapture.capture(ps -> new SizeTable(ps).print(result(true))).lines().toList();
        String head = lines.stream().filter(l -> l.contains("FRIENDS/BASE  ")).findFirst().orElseThrow();
        String row = lines.get(lines.indexOf(head) + 1);
        // each heading ends where its figure ends (a confidence marker may follow the figure)
        for (String[] cell : new String[][] {{"BASE", "100.00"}, {"UNIX", "200.00"}, {"FRIENDS", "150.00"},
                {"FRIENDS/BASE", "120%"}, {"FRIENDS/UNIX", "60%"}, {"KERNEL_TCP", "90.00"}, {"KERNEL_AF_UNIX", "400.00"}}) {
            Matcher h = Pattern.compile(" " + Pattern.quote(cell[0]) + "(?= |$)").matcher(head);
            assertThat(h.find()).as(cell[0]).isTrue();
            Matcher v = Pattern.compile(" " + Pattern.quote(cell[1]) + "(?=[ *]|$)").matcher(row);
            assertThat(v.find()).as(cell[1]).isTrue();
            assertThat(v.end()).as(cell[0]).isEqualTo(h.end());
        }
    }

    @Test
    void aPathNotNamedIsADashColumn() {
        String text = ReportCapture.capture(ps -> new SizeTable(ps).print(result(false)));
        assertThat(text).contains("UNIX = jnet:unix (not compared: -)");
        assertThat(text).containsPattern("\\n +1 +100\\.00\\* +- +150\\.00\\* +120% +- +90\\.00 +400\\.00\\n");
    }

    @Test
    void csvHasTheTablesColumnsOneRowPerTestAndSize() {
        List<String> lines = ReportCapture.capture(ps -> new CsvReport(ps, 1).print(result(true))).lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.getFirst()).isEqualTo(CsvReport.FRIENDS_HEADER).isEqualTo("test,size,unit,"
                + "base,base_ci_met,unix,unix_ci_met,friends,friends_ci_met,"
                + "friends_base_percent,friends_base_percent_min,friends_base_percent_max,"
                + "friends_unix_percent,friends_unix_percent_min,friends_unix_percent_max,"
                + "kernel_tcp,kernel_tcp_ci_met,kernel_af_unix,kernel_af_unix_ci_met,not_applicable,status,busy_cores");
        assertThat(lines.get(1)).isEqualTo("TCP_RR,1,Trans/s,100.0000,false,200.0000,false,150.0000,false,"
                + "120.0000,75.0000,300.0000,60.0000,50.0000,150.0000,90.0000,true,400.0000,true,,ok,1");
        assertThat(lines.get(2)).isEqualTo("TCP_RR,1024,Trans/s,100.0000,true,,,50.0000,true,50.0000,50.0000,50.0000,,,,"
                + "80.0000,true,,,jnet:unix: no such size; kernel:unix: AF_UNIX has no Nagle,ok,1");
    }

    @Test
    void jsonCarriesTheSameColumns() {
        String json = ReportCapture.capture(ps -> new JsonReport(ps).print(result(false)));
        assertThat(json).startsWith("{\"mode\":\"compare\",\"paths\":[\"jnet:friends\",\"jnet:loopback\",\"kernel:tcp\",\"kernel:unix\"],"
                + "\"layout\":\"friends\",\"columns\":{\"base\":\"jnet:loopback\",\"unix\":null,\"friends\":\"jnet:friends\","
                + "\"kernel_tcp\":\"kernel:tcp\",\"kernel_af_unix\":\"kernel:unix\"}");
        assertThat(json).contains("\"table\":{\"base\":100.0,\"base_ci_met\":false,\"unix\":null,\"unix_ci_met\":null,"
                + "\"friends\":150.0,\"friends_ci_met\":false,\"friends_base_percent\":120.0,\"friends_base_percent_min\":75.0,"
                + "\"friends_base_percent_max\":300.0,\"friends_unix_percent\":null,\"friends_unix_percent_min\":null,"
                + "\"friends_unix_percent_max\":null,\"kernel_tcp\":90.0,\"kernel_tcp_ci_met\":true,\"kernel_af_unix\":400.0,"
                + "\"kernel_af_unix_ci_met\":true,\"not_applicable\":null}");
        assertThat(json).contains("\"not_applicable\":\"kernel:unix: AF_UNIX has no Nagle\"}");
        // the JSON table's fields are the CSV's columns
        Matcher table = Pattern.compile("\"table\":\\{([^}]*)}").matcher(json);
        assertThat(table.find()).isTrue();
        List<String> keys = Pattern.compile("\"([a-z_]+)\":").matcher(table.group(1)).results().map(m -> m.group(1)).toList();
        assertThat(keys).isEqualTo(FriendsTable.columns());
    }

    @Test
    void plotDrawsTheTablesPathsInItsColumnOrder() {
        List<io.jnet.perf.plot.SizeChart> charts = CompareCharts.of(result(true));
        assertThat(charts).singleElement().satisfies(c -> {
            assertThat(c.lines()).extracting(io.jnet.perf.plot.Line::path).containsExactly("BASE (jnet:loopback)",
                    "UNIX (jnet:unix)", "FRIENDS (jnet:friends)", "KERNEL_TCP (kernel:tcp)", "KERNEL_AF_UNIX (kernel:unix)");
            assertThat(c.lines().get(1).points()).containsExactly(new io.jnet.perf.plot.Point(1, 200.0));
            assertThat(c.lines().get(2).points()).containsExactly(new io.jnet.perf.plot.Point(1, 150.0),
                    new io.jnet.perf.plot.Point(1024, 50.0));
        });
    }

    @Test
    void aRunOnFakePathsPrintsThePercentagesOfItsOwnPairs() {
        PathRegistry r = fakes();
        List<String> paths = FriendsTable.paths(r, "base,unix,friends");
        TestSpec spec = new TestSpec(TestKind.TCP_RR, Duration.ofMillis(100), 1, 1, 1, 1,
                new SocketSettings(-1, -1, true), new SocketSettings(-1, -1, true)); // -D: kernel:unix cannot
        PerfPlan plan = new PerfPlan(List.of(new PerfPlan.Cell(spec.withMessageSize(64, false), 64)), paths, "loopback",
                Map.of(), Iterations.exactly(3), Confidence.DEFAULT, Warmup.NONE, true, List.of(), true);
        CompareResult result = new PerfSuite(r, Progress.NONE).compare(plan, m -> {});
        assertThat(result.succeeded()).isTrue();
        Measurement m = result.measurements().getFirst();
        assertThat(m.lanes()).extracting(Measurement.LaneResult::label)
                .containsExactly("jnet:friends", "jnet:loopback", "jnet:unix", "kernel:tcp", "kernel:unix");
        List<Double> friends = m.lanes().get(0).series().values();
        List<Double> base = m.lanes().get(1).series().values();
        List<Double> unix = m.lanes().get(2).series().values();
        long fb = Math.round(100 * Stats.median(List.of(friends.get(0) / base.get(0), friends.get(1) / base.get(1),
                friends.get(2) / base.get(2))));
        long fu = Math.round(100 * Stats.median(List.of(friends.get(0) / unix.get(0), friends.get(1) / unix.get(1),
                friends.get(2) / unix.get(2))));
        String text = ReportCapture.capture(ps -> new SizeTable(ps).print(result));
        assertThat(text).containsPattern("\\n +64 +[0-9.]+[ *] +[0-9.]+[ *] +[0-9.]+[ *] +" + fb + "% +" + fu + "% +[0-9.]+[ *] +-\\n")
                .contains("Note: -: KERNEL_AF_UNIX (kernel:unix): -D (TCP_NODELAY) is a TCP option");
    }

    @Test
    void jnetFriendsRunsWithTcpFriendsOnWhateverSysctlSays() throws Exception {
        PathRegistry r = PathRegistry.standard();
        Map<String, String> given = new LinkedHashMap<>();
        given.put("net/ipv4/tcp_friends", "0"); // the /proc/sys form of the name
        given.put("net.ipv4.tcp_timestamps", "0");
        try (PerfPath friends = r.get("friends").open(given); PerfPath base = r.get("base").open(given);
                PerfPath plain = r.get("jnet:friends").open(Map.of())) {
            NetNamespace f = JnetPaths.namespaces(friends).getFirst();
            assertThat(f.sysctl().get("net.ipv4.tcp_friends")).isEqualTo("1");
            assertThat(f.sysctl().get("net.ipv4.tcp_timestamps")).as("the other sysctls given still apply").isEqualTo("0");
            assertThat(friends.description()).contains("net.ipv4.tcp_timestamps=0, net.ipv4.tcp_friends=1)")
                    .containsOnlyOnce("tcp_friends");
            NetNamespace b = JnetPaths.namespaces(base).getFirst();
            assertThat(b.sysctl().get("net.ipv4.tcp_friends")).as("the value given reaches jnet:loopback").isEqualTo("0");
            assertThat(JnetPaths.namespaces(plain).getFirst().sysctl().get("net.ipv4.tcp_friends")).isEqualTo("1");
            // and it carries the tests like any jnet path
            ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, Warmup.NONE, Progress.NONE);
            Measurement m = runner.measure(TestSpec.defaults(TestKind.TCP_RR, Duration.ofMillis(100)), -1,
                    List.of(new ComparisonRunner.Lane("jnet:friends", friends)));
            assertThat(m.failure()).isNull();
            assertThat(m.lanes().getFirst().series().values()).hasSize(3).allSatisfy(v -> assertThat(v).isPositive());
        }
        try (PerfPath base = r.get("base").open(Map.of())) {
            assertThat(base.description()).doesNotContain("tcp_friends");
            assertThat(JnetPaths.namespaces(base).getFirst().sysctl().get("net.ipv4.tcp_friends")).as("Linux's default").isEqualTo("0");
        }
    }

    @Test
    void aSysctlTheFriendsPathSetsItselfIsNotedWithWhereTheGivenValueGoes() {
        PathRegistry r = PathRegistry.standard();
        PathRegistry.Entry friends = r.get("friends");
        assertThat(friends.ownSysctls()).containsExactly(Map.entry("net.ipv4.tcp_friends", "1"));
        assertThat(friends.sysctlsFor(Map.of("net.ipv4.tcp_friends", "0")))
                .containsExactly(Map.entry("net.ipv4.tcp_friends", "1"));
        assertThat(PerfSuite.overrideNotes(List.of(friends, r.get("base"), r.get("kernel:tcp")),
                Map.of("net.ipv4.tcp_friends", "0"))).containsExactly("jnet:friends runs with net.ipv4.tcp_friends=1, "
                        + "which defines it, whatever --sysctl says; --sysctl net.ipv4.tcp_friends=0 applies to jnet:loopback");
        assertThat(PerfSuite.overrideNotes(List.of(friends, r.get("kernel:tcp")), Map.of("net.ipv4.tcp_friends", "1")))
                .singleElement().asString().endsWith("--sysctl net.ipv4.tcp_friends=1 reaches no other path of this run");
        assertThat(PerfSuite.overrideNotes(List.of(friends, r.get("base")), Map.of("net.ipv4.tcp_timestamps", "0"))).isEmpty();
        assertThatThrownBy(() -> new PathRegistry.Entry("kernel:x", "kernel", "x", false, s -> null, null,
                Map.of("net.ipv4.tcp_friends", "1"))).hasMessageContaining("sets sysctls but does not apply them");
    }
}
