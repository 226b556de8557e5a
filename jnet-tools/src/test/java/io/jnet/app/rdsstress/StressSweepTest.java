package io.jnet.app.rdsstress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.perf.plot.SizeChart;
import java.util.List;
import org.junit.jupiter.api.Test;

class StressSweepTest {
    static StressResult result(double tx, double rtt, boolean ok) {
        StressLine med = new StressLine(1, tx, tx, 1, 1, rtt + 1, rtt * 2);
        StressLine avg = new StressLine(1, tx + 5, tx, 1, 1, rtt, rtt * 2);
        List<String> problems = ok ? List.of() : List.of("something failed");
        List<PairResult> pairs = List.of(new PairResult("a", "b", "requests", 10, 10, 0, 0, 0, 0));
        return new StressResult("active", List.of(med), avg, med, 10, rtt, rtt, pairs, problems);
    }

    @Test
    void configurationsSetTheSeedsSysctls() {
        assertThat(StressSweep.Configuration.of("defaults").sysctls()).isEmpty();
        assertThat(StressSweep.Configuration.of("pinned").sysctls())
                .containsEntry("net.rds.tcp.rds_tcp_sndbuf", "131072").containsEntry("net.rds.tcp.rds_tcp_rcvbuf", "131072")
                .hasSize(2);
        assertThat(StressSweep.Configuration.of("no-msg-more").sysctls()).containsExactlyEntriesOf(
                java.util.Map.of("net.rds.tcp.jnet_msg_more", "0"));
        assertThat(StressSweep.Configuration.of("pinned-no-msg-more").sysctls()).hasSize(3);
        assertThatThrownBy(() -> StressSweep.Configuration.of("fast")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fast").hasMessageContaining("pinned");
    }

    @Test
    void tableHasARowPerSizeAndAColumnPerConfigurationWithMediansAndMeanRtt() {
        StressSweep.Configuration d = StressSweep.Configuration.of("defaults");
        StressSweep.Configuration p = StressSweep.Configuration.of("pinned");
        StressSweep sw = new StressSweep(List.of(64, 1024), List.of(d, p));
        sw.add(64, d, result(1000, 50, true));
        sw.add(64, p, result(900, 60, true));
        sw.add(1024, d, result(800, 70.25, false));
        String t = sw.table();
        assertThat(t).contains("messages/s (median of the per-second tx/s)").contains("rtt us (mean over every request)");
        assertThat(t.lines().filter(l -> l.trim().startsWith("64 ")).toList())
                .containsExactly(String.format("%10d %20s %20s", 64, "1000", "900"), String.format("%10d %20s %20s", 64, "50.0", "60.0"));
        assertThat(t).contains(String.format("%10d %20s %20s", 1024, "800*", "-"))
                .contains(String.format("%10d %20s %20s", 1024, "70.3*", "-"))
                .contains("* the run's verdict failed");
    }

    @Test
    void chartsDrawBothFiguresWithGapsForMissingRuns() {
        StressSweep.Configuration d = StressSweep.Configuration.of("defaults");
        StressSweep.Configuration m = StressSweep.Configuration.of("no-msg-more");
        StressSweep sw = new StressSweep(List.of(64, 1024), List.of(d, m));
        sw.add(64, d, result(1000, 50, true));
        List<SizeChart> charts = sw.charts("rds-stress");
        assertThat(charts).extracting(SizeChart::test).containsExactly("rds-stress messages", "rds-stress rtt");
        assertThat(charts.get(0).lines()).extracting(io.jnet.perf.plot.Line::path).containsExactly("defaults", "no-msg-more");
        assertThat(charts.get(0).lines().get(0).drawnPoints()).hasSize(1);
        assertThat(charts.get(0).lines().get(0).drawnPoints().get(0).value()).isEqualTo(1000);
        assertThat(charts.get(1).lines().get(0).drawnPoints().get(0).value()).isEqualTo(50);
        assertThat(charts.get(0).lines().get(1).drawnPoints()).isEmpty();
    }

    @Test
    void eachRoundStartsOneConfigurationLaterSoEachIsFirstOncePerKRounds() {
        StressSweep.Configuration d = StressSweep.Configuration.of("defaults");
        StressSweep.Configuration p = StressSweep.Configuration.of("pinned");
        StressSweep.Configuration m = StressSweep.Configuration.of("no-msg-more");
        StressSweep sw = new StressSweep(List.of(64), List.of(d, p, m), 4);
        assertThat(sw.order(0)).containsExactly(d, p, m);
        assertThat(sw.order(1)).containsExactly(p, m, d);
        assertThat(sw.order(2)).containsExactly(m, d, p);
        assertThat(sw.order(3)).containsExactly(d, p, m);
        assertThatThrownBy(() -> new StressSweep(List.of(64), List.of(d), 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> sw.add(64, d, 4, result(1, 1, true))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theMedianIsTheMiddleValueOrTheMeanOfTheTwoMiddleOnes() {
        assertThat(StressSweep.median(new double[] {3822, 4492, 4341})).isEqualTo(4341);
        assertThat(StressSweep.median(new double[] {10, 40, 20, 30})).isEqualTo(25);
        assertThat(StressSweep.median(new double[] {7})).isEqualTo(7);
    }

    @Test
    void aCellIsTheMedianOverItsRoundsAndThePerRoundBlockListsEachRound() {
        StressSweep.Configuration d = StressSweep.Configuration.of("defaults");
        StressSweep.Configuration p = StressSweep.Configuration.of("pinned");
        StressSweep sw = new StressSweep(List.of(64, 1024), List.of(d, p), 3);
        sw.add(64, d, 0, result(3822, 60, true));
        sw.add(64, d, 1, result(4492, 50, true));
        sw.add(64, d, 2, result(4421, 40, true));
        sw.add(64, p, 0, result(900, 10, true));
        sw.add(64, p, 1, result(1000, 30, false));
        sw.add(64, p, 2, result(800, 20, true));
        sw.add(1024, d, 1, result(500, 5, true));
        assertThat(sw.cell(64, d)).isEqualTo(new StressSweep.Cell(4421, 50, true));
        assertThat(sw.cell(64, p)).isEqualTo(new StressSweep.Cell(900, 20, false));
        assertThat(sw.cell(1024, d)).isEqualTo(new StressSweep.Cell(500, 5, true));
        assertThat(sw.cell(1024, p)).isNull();
        assertThat(sw.runs(1024, d)).containsExactly(null, new StressSweep.Cell(500, 5, true), null);

        String t = sw.table();
        assertThat(t).contains("messages/s (median of the per-second tx/s, median of 3 rounds)")
                .contains("rtt us (mean over every request, median of 3 rounds)")
                .contains("messages/s per round (median [round 1 .. 3])")
                .contains(String.format("%10d %20s %20s", 64, "4421", "900*"))
                .contains(String.format("%10d %20s %20s", 64, "50.0", "20.0*"))
                .contains(String.format("%10d %21s %20s", 64, "4421 [3822 4492 4421]", "900* [900 1000* 800]"))
                .contains(String.format("%10d %21s %20s", 1024, "500 [- 500 -]", "- [- - -]"))
                .contains("* the run's verdict failed");
        List<String> blocks = List.of(t.split("\n\n"));
        assertThat(blocks).hasSize(4); // three figures and the footnote
        for (String b : blocks.subList(0, 3)) assertThat(b.lines().filter(l -> l.matches(" +(64|1024) .*"))).hasSize(2);

        SizeChart rate = sw.charts("rds-stress").get(0);
        assertThat(rate.lines().get(0).drawnPoints()).extracting(io.jnet.perf.plot.Point::value).containsExactly(4421.0, 500.0);
    }

    @Test
    void oneRoundHasNoPerRoundBlock() {
        StressSweep.Configuration d = StressSweep.Configuration.of("defaults");
        StressSweep sw = new StressSweep(List.of(64), List.of(d));
        sw.add(64, d, result(1000, 50, true));
        assertThat(sw.table()).doesNotContain("per round").doesNotContain("rounds").doesNotContain("[");
    }
}
