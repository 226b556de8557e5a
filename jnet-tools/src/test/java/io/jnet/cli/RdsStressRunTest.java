package io.jnet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code jnet rds-stress} end to end over jnet's RDS transport: both sides in this JVM over a veth pair, and the
 * passive side in a child JVM with the active side here, over VXLAN on 127.0.0.1.
 */
@Timeout(120)
class RdsStressRunTest {
    private final ByteArrayOutputStream outBuf = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBuf = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBuf, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBuf, true, StandardCharsets.UTF_8);

    private String out() { return outBuf.toString(StandardCharsets.UTF_8); }

    private String err() { return errBuf.toString(StandardCharsets.UTF_8); }

    /** The lines of the timed part: those under the column heads, before the rule. */
    static List<String> secondLines(String text) {
        List<String> lines = text.lines().toList();
        int head = lines.indexOf(io.jnet.app.rdsstress.StressLine.HEADER);
        assertThat(head).as(text).isNotNegative();
        List<String> out = new ArrayList<>();
        for (String l : lines.subList(head + 1, lines.size())) {
            if (l.startsWith("---")) break;
            out.add(l);
        }
        return out;
    }

    /** Columns of a line: tsks, tx/s, rx/s, tx+rx K/s, mbi K/s, mbo K/s, rtt us, p99 us. */
    static String[] columns(String line) {
        return line.trim().split("\\s+");
    }

    @Test
    void bothSidesInThisJvmPassTheVerdictWithTrafficEverySecond() {
        int rc = Main.run(out, err, "rds-stress", "-q", "2000", "-a", "100", "-t", "3", "-d", "4", "-T", "2");
        assertThat(rc).as(out() + err()).isZero();
        List<String> seconds = secondLines(out());
        assertThat(seconds).hasSize(2);
        for (String l : seconds) {
            String[] c = columns(l);
            assertThat(c).hasSize(8);
            assertThat(c[0]).isEqualTo("3");
            assertThat(Double.parseDouble(c[1])).as("tx/s in " + l).isPositive();
            assertThat(Double.parseDouble(c[2])).as("rx/s in " + l).isPositive();
            assertThat(Double.parseDouble(c[5])).as("mbo K/s in " + l).isPositive();
            assertThat(Double.parseDouble(c[6])).as("rtt us in " + l).isPositive();
        }
        assertThat(out()).containsPattern("\\n {4}3 .*  avg\\n").containsPattern("\\n {4}3 .*  med\\n")
                .containsPattern("verdict: PASS: 6 pairs, [1-9][0-9]* messages checked: 0 lost, 0 duplicated, 0 reordered, 0 corrupt");
    }

    @Test
    void oneWayInThisJvmPassesTooAndMeasuresNoRtt() {
        int rc = Main.run(out, err, "rds-stress", "-o", "-q", "500", "-t", "2", "-T", "1", "--csv");
        assertThat(rc).as(out() + err()).isZero();
        List<String> rows = out().lines().toList();
        assertThat(rows).hasSize(4);
        String[] second = rows.get(1).split(",", -1);
        assertThat(Double.parseDouble(second[2])).as("tx/s").isPositive();
        assertThat(second[3]).as("rx/s: no acks").isEqualTo("0.0");
        assertThat(second[7]).as("no rtt").isEmpty();
        assertThat(rows.get(2)).startsWith("avg,2,").endsWith(",0,0,0,0,PASS");
    }

    @Test
    void anUnknownRdsSysctlNameIsAUsageErrorButAKnownOneApplies() {
        assertThat(Main.run(out, err, "rds-stress", "-T", "1", "--rds-sysctl", "net.rds.tcp.no_such=1")).isEqualTo(2);
        errBuf.reset();
        outBuf.reset();
        int rc = Main.run(out, err, "rds-stress", "-T", "1", "-t", "2", "-d", "2", "--json",
                "--rds-sysctl", "net.rds.tcp.rds_tcp_sndbuf=131072", "--rds-sysctl", "net.ipv4.tcp_timestamps=0");
        assertThat(rc).as(out() + err()).isZero();
        assertThat(out()).contains("\"verdict\":{\"ok\":true,");
    }

    private static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            return s.getLocalPort();
        }
    }

    @Test
    void passiveInAChildJvmActiveHereOverVxlan() throws Exception {
        int activePort = freeUdpPort();
        int passivePort = freeUdpPort();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path childOut = Files.createTempFile("rds-stress-passive", ".out");
        Process child;
        try {
            child = new ProcessBuilder(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                    Main.class.getName(), "rds-stress", "--passive", "--local", "192.0.2.2/24", "--vxlan-port",
                    Integer.toString(passivePort), "--vxlan-peer", "127.0.0.1:" + activePort, "-t", "2", "--wait", "60"))
                    .redirectErrorStream(true).redirectOutput(childOut.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        } catch (IOException e) {
            Files.deleteIfExists(childOut);
            Assumptions.abort("cannot start a child JVM (" + java + "): " + e.getMessage());
            return;
        }
        try {
            int rc = Main.run(out, err, "rds-stress", "--local", "192.0.2.1/24", "--remote", "192.0.2.2",
                    "--vxlan-port", Integer.toString(activePort), "--vxlan-peer", "127.0.0.1:" + passivePort,
                    "-t", "2", "-d", "4", "-q", "3000", "-a", "200", "-T", "2", "--wait", "30");
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("the passive side exits after the run").isTrue();
            String passive = Files.readString(childOut);
            assertThat(rc).as("active:\n" + out() + err() + "\npassive:\n" + passive).isZero();
            assertThat(child.exitValue()).as(passive).isZero();
            assertThat(out()).contains("over VXLAN VNI 42 (UDP 127.0.0.1:" + activePort + " <-> 127.0.0.1:" + passivePort + ")")
                    .containsPattern("verdict: PASS: 4 pairs, [1-9][0-9]* messages checked: 0 lost");
            for (String l : secondLines(out())) assertThat(Double.parseDouble(columns(l)[2])).as(l).isPositive();
            assertThat(passive).contains("jnet rds-stress: passive, 2 tasks on 192.0.2.2 ports 4000..4001")
                    .containsPattern("verdict: PASS: 2 pairs, [1-9][0-9]* messages checked: 0 lost");
        } finally {
            if (child.isAlive()) child.destroyForcibly();
            Files.deleteIfExists(childOut);
        }
    }

    @Test
    void aSweepRunsEverySizeUnderEveryConfigurationAndDrawsBothFigures(@org.junit.jupiter.api.io.TempDir Path dir) {
        Path plot = dir.resolve("rds.png");
        int rc = Main.run(out, err, "rds-stress", "-a", "64", "-t", "2", "-d", "2", "-T", "1", "--sizes", "64,4K",
                "--compare", "defaults,pinned", "--plot", plot.toString(), "--warmup", "0");
        assertThat(rc).as(out() + err()).isZero();
        assertThat(out()).startsWith("== plan: sizes 64,4096; configurations defaults,pinned; 1 round; warm-up none; 1 s per run, 4 runs;")
                .contains("in all\n== -q 64 defaults\n").doesNotContain("warm-up:").doesNotContain("per round")
                .contains("== -q 64 defaults").contains("== -q 64 pinned").contains("== -q 4096 defaults")
                .contains("== -q 4096 pinned").contains("messages/s (median of the per-second tx/s)");
        List<String> rows = out().lines().filter(l -> l.matches(" +(64|4096) +[0-9.]+ +[0-9.]+")).toList();
        assertThat(rows).as(out()).hasSize(4); // two sizes, in the rate block and the rtt block
        for (String r : rows) {
            String[] c = columns(r);
            assertThat(Double.parseDouble(c[1])).as(r).isPositive();
            assertThat(Double.parseDouble(c[2])).as(r).isPositive();
        }
        assertThat(dir.resolve("rds-rds-stress_messages.png")).isNotEmptyFile();
        assertThat(dir.resolve("rds-rds-stress_rtt.png")).isNotEmptyFile();
    }

    @Test
    void aSweepInRoundsWarmsEveryConfigurationUpRotatesTheOrderAndTabulatesTheMedians() {
        int rc = Main.run(out, err, "rds-stress", "-a", "64", "-t", "2", "-d", "2", "-T", "1", "--sizes", "64",
                "--compare", "defaults,no-msg-more", "--rounds", "2", "--warmup", "1");
        assertThat(rc).as(out() + err()).isZero();
        List<String> heads = out().lines().filter(l -> l.startsWith("== ")).toList();
        assertThat(heads).as(out()).hasSize(7);
        assertThat(heads.getFirst()).startsWith("== plan: sizes 64; configurations defaults,no-msg-more; 2 rounds; "
                + "warm-up 2 s (2 runs); 1 s per run, 4 runs; about ");
        assertThat(heads.subList(1, 7)).containsExactly("== warm-up: -q 64 defaults, 1 s, not measured",
                "== warm-up: -q 64 no-msg-more, 1 s, not measured", "== -q 64 defaults, round 1/2",
                "== -q 64 no-msg-more, round 1/2", "== -q 64 no-msg-more, round 2/2", "== -q 64 defaults, round 2/2");
        assertThat(out()).contains("messages/s (median of the per-second tx/s, median of 2 rounds)")
                .contains("rtt us (mean over every request, median of 2 rounds)")
                .contains("messages/s per round (median [round 1 .. 2])");
        String table = out().substring(out().indexOf("messages/s (median"));
        List<String> rows = table.lines().filter(l -> l.matches(" +64 +[0-9.]+ +[0-9.]+")).toList();
        assertThat(rows).as(table).hasSize(2); // the rate block and the rtt block
        for (String r : rows) {
            assertThat(Double.parseDouble(columns(r)[1])).as(r).isPositive();
            assertThat(Double.parseDouble(columns(r)[2])).as(r).isPositive();
        }
        List<String> perRound = table.lines().filter(l -> l.matches(" +64 +[0-9]+ \\[[0-9]+ [0-9]+\\] +[0-9]+ \\[[0-9]+ [0-9]+\\]"))
                .toList();
        assertThat(perRound).as(table).hasSize(1);
        String[] c = columns(perRound.getFirst()); // 64, median, [r1, r2], median, [r1, r2]
        double r1 = Double.parseDouble(c[2].substring(1)), r2 = Double.parseDouble(c[3].substring(0, c[3].length() - 1));
        assertThat(Double.parseDouble(c[1])).as("the median of two rounds is their mean").isCloseTo((r1 + r2) / 2,
                org.assertj.core.data.Offset.offset(0.51));
    }

    @Test
    void aSweepRefusesAnUnknownConfigurationAndTheVxlanMode() {
        assertThat(Main.run(out, err, "rds-stress", "--sizes", "64", "--compare", "fastest")).isEqualTo(2);
        assertThat(err()).contains("unknown configuration fastest");
        assertThat(Main.run(out, err, "rds-stress", "--sizes", "64", "--local", "192.0.2.1/24", "--remote", "192.0.2.2",
                "--vxlan-peer", "127.0.0.1:4790")).isEqualTo(2);
        assertThat(err()).contains("run both sides in this JVM");
    }
}
