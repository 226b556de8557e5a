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
}
