package io.jnet.app.rdsstress;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The per-second line, the summary (averages, medians) and the three output formats. */
class StressReportTest {
    static final StressLine L1 = new StressLine(16, 1000, 1000, 256, 97_656.25, 812.5, 1500);
    static final StressLine L2 = new StressLine(16, 3000, 2000, 512, 292_968.75, 1000, 2000);
    static final StressLine L3 = new StressLine(16, 2000, 3000, 768, 195_312.5, 600, Double.NaN);
    static final StressConfig CONFIG = new StressConfig(100_000, 256, 16, 16, 3, false, 4000, false,
            Duration.ofSeconds(30), Duration.ofSeconds(10));

    @Test
    void theLineIsAlignedUnderTheHeader() {
        assertThat(StressLine.HEADER)
                .isEqualTo(" tsks      tx/s      rx/s   tx+rx K/s     mbi K/s     mbo K/s     rtt us     p99 us");
        assertThat(L1.format())
                .isEqualTo("   16      1000      1000    97912.25      256.00    97656.25     812.50    1500.00");
        assertThat(L1.format()).hasSameSizeAs(StressLine.HEADER);
        assertThat(L3.format()).endsWith("     600.00          -");
    }

    @Test
    void theSummaryAveragesTheRatesTakesRttOverAllRequestsAndMediansEachColumn() {
        Histogram all = new Histogram(1, TaskCounters.MAX_RTT_NANOS, 3);
        all.recordValue(100_000);
        all.recordValue(300_000);
        StressLine avg = StressMeter.average(List.of(L1, L2, L3), all);
        assertThat(avg.txPerSec()).isEqualTo(2000);
        assertThat(avg.rxPerSec()).isEqualTo(2000);
        assertThat(avg.kibInPerSec()).isEqualTo(512);
        assertThat(avg.rttMeanUs()).isCloseTo(200, org.assertj.core.data.Offset.offset(0.5));
        assertThat(avg.rttP99Us()).isCloseTo(300, org.assertj.core.data.Offset.offset(0.5));
        StressLine med = StressMeter.median(List.of(L1, L2, L3));
        assertThat(med.txPerSec()).isEqualTo(2000);
        assertThat(med.kibOutPerSec()).isEqualTo(195_312.5);
        assertThat(med.rttMeanUs()).isEqualTo(812.5);
        assertThat(med.rttP99Us()).as("NaN left out; mean of the middle two").isEqualTo(1750);
        assertThat(StressMeter.median(new double[0])).isNaN();
    }

    static StressResult result(boolean ok) {
        List<PairResult> pairs = List.of(
                PairResult.of("192.0.2.1:4000", "192.0.2.2:4000", "requests", 10, ok ? 10 : 9, 0, ok ? 0 : 1, 0),
                PairResult.of("192.0.2.2:4000", "192.0.2.1:4000", "acks", 10, 10, 0, 0, 0));
        return new StressResult("active", List.of(L1, L2, L3), StressMeter.average(List.of(L1, L2, L3),
                new Histogram(1, TaskCounters.MAX_RTT_NANOS, 3)), StressMeter.median(List.of(L1, L2, L3)), 0,
                Double.NaN, Double.NaN, pairs, List.of());
    }

    static String print(StressReport.Format f, boolean verbose, StressResult r) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        StressReport report = new StressReport(out, f, verbose);
        report.begin("banner");
        for (StressLine l : r.lines()) report.line(l, List.of());
        report.end(r, CONFIG, "veth");
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void textHasHeaderLinesSummaryAndVerdict() {
        String text = print(StressReport.Format.TEXT, false, result(true));
        List<String> lines = text.lines().toList();
        assertThat(lines.get(0)).isEqualTo("banner");
        assertThat(lines.get(1)).isEqualTo(StressLine.HEADER);
        assertThat(lines.get(2)).isEqualTo(L1.format());
        assertThat(lines.get(5)).matches("-+").hasSameSizeAs(StressLine.HEADER);
        assertThat(lines.get(6)).endsWith("  avg").startsWith("   16      2000      2000");
        assertThat(lines.get(7)).endsWith("  med");
        assertThat(lines.get(8)).isEqualTo("verdict: PASS: 2 pairs, 20 messages checked: 0 lost, 0 duplicated, 0 reordered, 0 corrupt");
        assertThat(lines).hasSize(9);
    }

    @Test
    void aFailedPairIsListedUnderTheVerdict() {
        String text = print(StressReport.Format.TEXT, false, result(false));
        assertThat(text).contains("verdict: FAIL: 2 pairs, 19 messages checked: 1 lost, 0 duplicated, 1 reordered, 0 corrupt")
                .contains("  192.0.2.1:4000 -> 192.0.2.2:4000 requests: sent 10 received 9 lost 1 duplicated 0 reordered 1 corrupt 0  FAIL")
                .doesNotContain("acks: sent");
        assertThat(print(StressReport.Format.TEXT, true, result(false))).contains("acks: sent 10 received 10");
    }

    @Test
    void csvHasARowPerSecondThenAvgAndMedWithTheVerdict() {
        List<String> rows = print(StressReport.Format.CSV, false, result(true)).lines().toList();
        assertThat(rows.getFirst()).isEqualTo(StressReport.CSV_HEADER);
        assertThat(rows.get(1)).isEqualTo("1,16,1000.0,1000.0,97912.25,256.00,97656.25,812.50,1500.00,,,,,");
        assertThat(rows.get(3)).isEqualTo("3,16,2000.0,3000.0,196080.50,768.00,195312.50,600.00,,,,,,");
        assertThat(rows.get(4)).startsWith("avg,16,2000.0,2000.0,").endsWith(",0,0,0,0,PASS");
        assertThat(rows.get(5)).startsWith("med,16,").endsWith(",PASS");
        assertThat(rows).hasSize(6);
        for (String row : rows) assertThat(row.split(",", -1)).hasSize(14);
    }

    @Test
    void jsonIsOneDocumentWithLinesSummaryAndVerdict() {
        String json = print(StressReport.Format.JSON, false, result(false)).strip();
        assertThat(json.lines()).hasSize(1);
        assertThat(json).startsWith("{\"command\":\"rds-stress\",\"role\":\"active\",\"mode\":\"veth\",\"config\":{\"req_bytes\":100000,")
                .contains("\"lines\":[{\"tsks\":16,\"tx_per_s\":1000.0,")
                .contains("\"p99_us\":null}")
                .contains("\"verdict\":{\"ok\":false,\"messages_checked\":19,\"lost\":1,")
                .contains("{\"sender\":\"192.0.2.1:4000\",\"receiver\":\"192.0.2.2:4000\",\"what\":\"requests\",\"sent\":10,")
                .endsWith("\"problems\":[]}");
    }
}
