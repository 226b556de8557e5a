package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** UDP_RR on jnet (loopback and veth) and on the kernel: transactions, latency, a lost datagram, the reports. */
@Timeout(60)
class UdpRequestResponseRunTest extends ThreePathsRunTest {

    private static final Duration SHORT = Duration.ofMillis(200);

    @Test
    void everyStackCompletesTransactionsAndTimesEach() throws Exception {
        for (PerfPath path : paths()) {
            for (int[] rr : new int[][] {{1, 1}, {64, 1472}, {8000, 100}}) {
                TestSpec spec = RunReports.spec(TestKind.UDP_RR, SHORT, 1, rr[0], rr[1]);
                RunResult r = PerfTest.of(TestKind.UDP_RR).run(path, spec);
                String what = path.description() + ", -r " + rr[0] + "," + rr[1];
                assertThat(r.kind()).isEqualTo(TestKind.UDP_RR);
                assertThat(r.elapsedSeconds()).as(what).isGreaterThanOrEqualTo(0.19);
                assertThat(r.transactions()).as(what).isPositive();
                assertThat(r.value()).as(what).isEqualTo(r.transactions() / r.elapsedSeconds());
                assertThat(r.bytesSent()).as(what).isEqualTo(r.transactions() * (rr[0] + rr[1])).isEqualTo(r.bytesReceived());
                assertThat(r.latencyNanos().getTotalCount()).as(what).isEqualTo(r.transactions());
                assertThat(r.latencyNanos().getMinValue()).as(what).isPositive();
                assertThat(r.sizes().localSend()).as(what).isPositive();
                assertThat(r.sizes().remoteRecv()).as(what).isPositive();
                assertThat(r.datagrams()).isNull();
            }
        }
    }

    @Test
    void aLostDatagramEndsTheRunWithAClearErrorInsteadOfHanging() {
        InMemoryPath lossy = new InMemoryPath("fake");
        lossy.dropEvery = 101; // request 51 is datagram 101
        TestSpec spec = RunReports.spec(TestKind.UDP_RR, Duration.ofSeconds(20), 1, 1, 1);
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> new UdpRequestResponseTest(Duration.ofMillis(300)).run(lossy, spec))
                .isInstanceOf(PerfException.class)
                .hasMessageContaining("client: no response to request 51 within 0.3 s")
                .hasMessageContaining("datagram was lost");
        assertThat(System.nanoTime() - t0).as("ends long before the 20 s run would").isLessThan(10_000_000_000L);
    }

    @Test
    void aLostResponseIsCaughtTooAndTheWatchStaysQuietOtherwise() throws Exception {
        InMemoryPath lossy = new InMemoryPath("fake");
        lossy.dropEvery = 100; // response 50 is datagram 100
        TestSpec spec = RunReports.spec(TestKind.UDP_RR, Duration.ofSeconds(20), 1, 1, 1);
        assertThatThrownBy(() -> new UdpRequestResponseTest(Duration.ofMillis(300)).run(lossy, spec))
                .isInstanceOf(PerfException.class).hasMessageContaining("no response to request 50 within");
        RunResult fine = new UdpRequestResponseTest(Duration.ofMillis(300))
                .run(new InMemoryPath("fake"), RunReports.spec(TestKind.UDP_RR, Duration.ofMillis(500), 1, 1, 1));
        assertThat(fine.transactions()).isPositive();
    }

    @Test
    void theComparisonReportsRatesAndLatencyOfBothStacks() {
        RunReports.Rendered r = RunReports.compare(RunReports.spec(TestKind.UDP_RR, Duration.ofMillis(100), 1, 1, 1),
                jnet, kernel);
        RunReports.assertShape(r, TestKind.UDP_RR);
        assertThat(r.text()).contains("UDP REQUEST/RESPONSE TEST").contains("Transaction latency (usec, all measured runs)")
                .containsPattern("\\d+ +\\d+ +1 +1 +0\\.\\d\\d +\\d+\\.\\d\\d +jnet");
        for (Series s : r.comparison().measured()) {
            LatencySummary l = s.latencySummary();
            assertThat(l.min()).isPositive().isLessThanOrEqualTo(l.p50());
            assertThat(l.p50()).isLessThanOrEqualTo(l.max());
        }
        assertThat(r.json()).contains("\"latency_us\":{\"min\":");
        assertThat(r.csv().get(1)).contains(",ok,,,,,0,1,netperf,");
    }
}
