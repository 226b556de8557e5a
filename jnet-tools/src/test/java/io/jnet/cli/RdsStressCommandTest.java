package io.jnet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.app.rdsstress.StressReport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** {@code jnet rds-stress}'s options: defaults, rds-stress's names, the VXLAN set, and usage errors (exit 2). */
@Timeout(60)
class RdsStressCommandTest {
    private final ByteArrayOutputStream outBuf = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBuf = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBuf, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBuf, true, StandardCharsets.UTF_8);

    private int run(String... args) {
        return Main.run(out, err, args);
    }

    private String err() { return errBuf.toString(StandardCharsets.UTF_8); }

    private RdsStressCommand.Plan plan(String... args) {
        RdsStressCommand cmd = new RdsStressCommand(out, err);
        new CommandLine(cmd).parseArgs(args);
        return cmd.plan();
    }

    @Test
    void defaultsAreRdsStresssOnesWithBothSidesHere() {
        RdsStressCommand.Plan p = plan();
        assertThat(p.config().reqBytes()).isEqualTo(1024);
        assertThat(p.config().ackBytes()).isEqualTo(1024);
        assertThat(p.config().tasks()).isEqualTo(1);
        assertThat(p.config().depth()).isEqualTo(1);
        assertThat(p.config().seconds()).isEqualTo(10);
        assertThat(p.config().port()).isEqualTo(4000);
        assertThat(p.config().oneWay()).isFalse();
        assertThat(p.vxlan()).as("in this JVM").isNull();
        assertThat(p.format()).isEqualTo(StressReport.Format.TEXT);
        assertThat(p.sysctls()).isEmpty();
    }

    @Test
    void shortAndLongNamesAsRdsStress() {
        RdsStressCommand.Plan p = plan("-q", "100000", "-a", "256", "-t", "16", "-d", "16", "-T", "5", "-o", "-v", "-p", "5000");
        assertThat(p.config()).extracting("reqBytes", "ackBytes", "tasks", "depth", "seconds", "oneWay", "verbose", "port")
                .containsExactly(100000, 256, 16, 16, 5, true, true, 5000);
        RdsStressCommand.Plan q = plan("--req-bytes", "64K", "--ack-bytes", "1M", "--tasks", "2", "--depth", "3",
                "--time", "1", "--one-way", "--port", "6000", "--json");
        assertThat(q.config()).extracting("reqBytes", "ackBytes", "tasks", "depth", "seconds", "oneWay", "port")
                .containsExactly(65536, 1 << 20, 2, 3, 1, true, 6000);
        assertThat(q.format()).isEqualTo(StressReport.Format.JSON);
        assertThat(plan("--csv").format()).isEqualTo(StressReport.Format.CSV);
    }

    @Test
    void vxlanOptionsForEachSide() {
        RdsStressCommand.Plan a = plan("--local", "192.0.2.1", "--remote", "192.0.2.2", "--vxlan-peer", "127.0.0.1:4790");
        assertThat(a.vxlan().passive()).isFalse();
        assertThat(a.vxlan().localCidr()).isEqualTo("192.0.2.1/24");
        assertThat(a.vxlan().remote().getHostAddress()).isEqualTo("192.0.2.2");
        assertThat(a.vxlan().bind().toString()).isEqualTo("localhost/127.0.0.1:4789");
        assertThat(a.vxlan().peer().getPort()).isEqualTo(4790);
        assertThat(a.vxlan().vni()).isEqualTo(42);
        RdsStressCommand.Plan p = plan("--passive", "--local", "10.9.0.2/16", "--vxlan-port", "4790",
                "--vxlan-peer", "127.0.0.1:4789", "--vni", "7");
        assertThat(p.vxlan().passive()).isTrue();
        assertThat(p.vxlan().localCidr()).isEqualTo("10.9.0.2/16");
        assertThat(p.vxlan().remote()).isNull();
        assertThat(p.vxlan().bind().getPort()).isEqualTo(4790);
        assertThat(p.vxlan().vni()).isEqualTo(7);
    }

    private void usageError(String expected, String... args) {
        errBuf.reset();
        String[] all = new String[args.length + 1];
        all[0] = "rds-stress";
        System.arraycopy(args, 0, all, 1, args.length);
        assertThat(run(all)).as(String.join(" ", args)).isEqualTo(2);
        assertThat(err()).startsWith("jnet rds-stress: ").contains(expected).contains("Run 'jnet rds-stress --help'");
    }

    @Test
    void badValuesAreUsageErrors() {
        usageError("-q/--req-bytes must be 40 to 1048576: 10 (each message carries a 40-byte header", "-q", "10");
        usageError("-a/--ack-bytes must be 40 to 1048576: 2097152", "-a", "2M");
        usageError("-t/--tasks must be 1 to 1024: 0", "-t", "0");
        usageError("-d/--depth must be 1 to 65536: 0", "-d", "0");
        usageError("-T/--time must be 1 to 86400: 0", "-T", "0");
        usageError("-p 65535 with -t 2 needs ports up to 65536", "-p", "65535", "-t", "2");
        usageError("expected a size in bytes like 1024, 64K or 1M: lots", "-q", "lots");
        usageError("--rds-sysctl expects NAME=VALUE", "--rds-sysctl", "net.rds.tcp.rds_tcp_sndbuf");
        usageError("--rds-sysctl net.no.such=1: ", "--rds-sysctl", "net.no.such=1");
        usageError("mutually exclusive", "--csv", "--json");
        usageError("needs --local ADDR[/LEN] and --vxlan-peer HOST:PORT", "--passive");
        usageError("the active side needs --remote ADDR", "--local", "192.0.2.1", "--vxlan-peer", "127.0.0.1:4790");
        usageError("--remote expects an IPv4 address like 192.0.2.1: host", "--local", "192.0.2.1", "--remote", "host",
                "--vxlan-peer", "127.0.0.1:4790");
        usageError("--vxlan-peer expects HOST:PORT", "--local", "192.0.2.1", "--remote", "192.0.2.2", "--vxlan-peer", "4790");
        usageError("is this side's own --vxlan-port 4789", "--local", "192.0.2.1", "--remote", "192.0.2.2",
                "--vxlan-peer", "127.0.0.1:4789");
        usageError("--vni must be 0 to 16777215", "--passive", "--local", "192.0.2.1", "--vxlan-peer", "127.0.0.1:1",
                "--vni", "16777216");
        usageError("--compare is part of a sweep over request sizes: give --sizes too", "--compare", "defaults,pinned");
        usageError("--plot is part of a sweep over request sizes: give --sizes too", "--plot", "x.png");
        usageError("--rounds is part of a sweep over request sizes: give --sizes too", "--rounds", "3");
        usageError("--warmup is part of a sweep over request sizes: give --sizes too", "--warmup", "0");
        usageError("--rounds must be 1 to 1000: 0", "--sizes", "64", "--rounds", "0");
        usageError("--warmup must be 0 to 86400 seconds: -1", "--sizes", "64", "--warmup", "-1");
        usageError("--plot: cannot write /no/such/dir/rds.png: no such directory", "--sizes", "64", "--plot",
                "/no/such/dir/rds.png");
        usageError("--remote 192.0.2.1 is --local's address", "--local", "192.0.2.1", "--remote", "192.0.2.1",
                "--vxlan-peer", "127.0.0.1:4790");
    }

    @Test
    void theWarmUpSplitsItsSecondsAmongTheConfigurationsAtLeastOneEach() {
        assertThat(RdsStressCommand.warmUpSeconds(3, 1)).containsExactly(3);
        assertThat(RdsStressCommand.warmUpSeconds(3, 2)).containsExactly(2, 1);
        assertThat(RdsStressCommand.warmUpSeconds(6, 3)).containsExactly(2, 2, 2);
        assertThat(RdsStressCommand.warmUpSeconds(1, 4)).containsExactly(1, 1, 1, 1);
        assertThat(RdsStressCommand.warmUpSeconds(0, 4)).isEmpty();
    }

    @Test
    void thePlanLineGivesSizesConfigurationsRoundsWarmUpAndTheEstimatedTime() {
        var sw = new io.jnet.app.rdsstress.StressSweep(java.util.List.of(64, 4096),
                java.util.List.of(io.jnet.app.rdsstress.StressSweep.Configuration.of("defaults"),
                        io.jnet.app.rdsstress.StressSweep.Configuration.of("pinned")), 3);
        int per = 5 + RdsStressCommand.RUN_OVERHEAD_SECONDS;
        long total = 12L * per + 3 + 2L * RdsStressCommand.RUN_OVERHEAD_SECONDS;
        assertThat(RdsStressCommand.planLine(sw, RdsStressCommand.warmUpSeconds(3, 2), 5)).isEqualTo(
                "== plan: sizes 64,4096; configurations defaults,pinned; 3 rounds; warm-up 3 s (2 runs); 5 s per run, "
                        + "12 runs; about " + total / 60 + " min " + String.format("%02d", total % 60) + " s in all");
        var one = new io.jnet.app.rdsstress.StressSweep(java.util.List.of(64),
                java.util.List.of(io.jnet.app.rdsstress.StressSweep.Configuration.of("defaults")), 1);
        assertThat(RdsStressCommand.planLine(one, java.util.List.of(), 1)).isEqualTo(
                "== plan: sizes 64; configurations defaults; 1 round; warm-up none; 1 s per run, 1 run; about "
                        + (1 + RdsStressCommand.RUN_OVERHEAD_SECONDS) + " s in all");
    }

    @Test
    void helpListsTheOptionsAndTheColumns() {
        assertThat(run("rds-stress", "--help")).isZero();
        String help = outBuf.toString(StandardCharsets.UTF_8);
        assertThat(help).contains("-q, --req-bytes=BYTES").contains("-a, --ack-bytes=BYTES").contains("-t, --tasks=N")
                .contains("-d, --depth=N").contains("-T, --time=SECS").contains("-o, --one-way").contains("-p, --port=PORT")
                .contains("--rds-sysctl=NAME=VALUE").contains("--passive").contains("--vxlan-peer=HOST:PORT")
                .contains("--json").contains("--csv").contains("--warmup=SECS").contains("--rounds=N").contains("mbi K/s").contains("p99 us");
        outBuf.reset();
        assertThat(run("help")).isEqualTo(0);
        assertThat(outBuf.toString(StandardCharsets.UTF_8)).contains("rds-stress");
    }
}
