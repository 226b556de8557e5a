package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** UDP_STREAM on jnet (loopback and veth) and on the kernel: counts that add up, loss, the reports. */
@Timeout(60)
class UdpStreamRunTest extends ThreePathsRunTest {

    private static final Duration SHORT = Duration.ofMillis(200);

    /** The figures of a run that must hold on any stack. */
    private static void assertConsistent(RunResult r, TestSpec spec, String what) {
        DatagramCounts d = r.datagrams();
        assertThat(d).as(what).isNotNull();
        assertThat(d.sent()).as(what).isPositive();
        assertThat(d.received()).as(what + ": received").isPositive().isLessThanOrEqualTo(d.sent());
        assertThat(r.bytesSent()).as(what).isEqualTo(d.sent() * spec.sendSize());
        assertThat(r.bytesReceived()).as(what).isEqualTo(d.received() * spec.sendSize());
        assertThat(d.sendElapsedSeconds()).as(what).isGreaterThanOrEqualTo(0.19);
        assertThat(r.elapsedSeconds()).as(what + ": the receiver ends after the sender")
                .isGreaterThanOrEqualTo(d.sendElapsedSeconds() - 0.001);
        assertThat(r.value()).as(what).isPositive().isEqualTo(r.bytesReceived() * 8.0 / r.elapsedSeconds() / 1e6);
        assertThat(r.sendValue()).as(what).isPositive();
        assertThat(r.sizes().localSend()).as(what + ": client SO_SNDBUF").isPositive();
        assertThat(r.sizes().remoteRecv()).as(what + ": server SO_RCVBUF").isPositive();
        assertThat(r.transactions()).isZero();
        assertThat(r.latencyNanos()).isNull();
    }

    @Test
    void everyStackCountsWhatWasSentAndWhatArrivedAt64And1472Bytes() throws Exception {
        for (PerfPath path : paths()) {
            for (int size : new int[] {64, 1472}) {
                TestSpec spec = RunReports.spec(TestKind.UDP_STREAM, SHORT, size, 1, 1);
                RunResult r = PerfTest.of(TestKind.UDP_STREAM).run(path, spec);
                assertConsistent(r, spec, path.description() + ", -m " + size);
            }
        }
    }

    @Test
    void socketBufferOptionsReachTheUdpSocketsOfBothStacks() throws Exception {
        SocketSettings local = new SocketSettings(32768, 32768, false);
        SocketSettings remote = new SocketSettings(65536, 65536, false);
        TestSpec spec = new TestSpec(TestKind.UDP_STREAM, SHORT, 1472, TestSpec.DEFAULT_RECV_SIZE, 1, 1, local, remote);
        for (PerfPath path : List.of(jnet, kernel)) {
            RunResult r = PerfTest.of(TestKind.UDP_STREAM).run(path, spec);
            // Linux doubles the value set for bookkeeping overhead and reports the doubled size; jnet does the same
            assertThat(r.sizes()).as(path.stack()).isEqualTo(new SocketSizes(65536, 65536, 131072, 131072));
            assertConsistent(r, spec, path.stack() + " with -s 32K -S 64K");
        }
    }

    @Test
    void datagramsLargerThanTheVethMtuArriveReassembled() throws Exception {
        TestSpec spec = RunReports.spec(TestKind.UDP_STREAM, SHORT, 8000, 1, 1);
        assertConsistent(PerfTest.of(TestKind.UDP_STREAM).run(jnetVeth, spec), spec, "8000-byte datagrams over veth");
        TestSpec max = RunReports.spec(TestKind.UDP_STREAM, SHORT, TestSpec.MAX_DATAGRAM, 1, 1);
        assertConsistent(PerfTest.of(TestKind.UDP_STREAM).run(jnet, max), max, "65507-byte datagrams over lo");
    }

    @Test
    void lossOnThePathShowsInTheReceiveCountAndRateNotInTheSendCount() throws Exception {
        InMemoryPath lossy = new InMemoryPath("fake");
        lossy.dropEvery = 10;
        TestSpec spec = RunReports.spec(TestKind.UDP_STREAM, SHORT, 100, 1, 1);
        RunResult r = PerfTest.of(TestKind.UDP_STREAM).run(lossy, spec);
        assertConsistent(r, spec, "a path that drops every tenth datagram");
        DatagramCounts d = r.datagrams();
        assertThat(d.lost()).as("at least the tenth of those sent that the path dropped").isGreaterThanOrEqualTo(d.sent() / 10 - 1);
        assertThat(d.sendErrors()).isZero();
        assertThat(r.value()).isLessThan(r.sendValue() * r.elapsedSeconds() / d.sendElapsedSeconds());
    }

    @Test
    void aStackWithoutUdpIsUnavailableNotFailed() {
        InMemoryPath missing = new InMemoryPath("fake", Long.MAX_VALUE, true);
        TestSpec spec = RunReports.spec(TestKind.UDP_STREAM, SHORT, 100, 1, 1);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PerfTest.of(TestKind.UDP_STREAM).run(missing, spec))
                .isInstanceOf(StackUnavailableException.class).hasMessageContaining("UDP not yet built");
    }

    @Test
    void theComparisonReportsTheSendAndReceiveLinesOfBothStacks() {
        RunReports.Rendered r = RunReports.compare(RunReports.spec(TestKind.UDP_STREAM, Duration.ofMillis(100), 1472, 1, 1),
                jnet, kernel);
        RunReports.assertShape(r, TestKind.UDP_STREAM);
        for (Series s : r.comparison().measured()) {
            DatagramSummary d = DatagramSummary.of(s);
            assertThat(d.received()).isPositive().isLessThanOrEqualTo(d.sent());
            assertThat(d.lossPercent()).isBetween(0.0, 100.0);
        }
        assertThat(r.text()).contains("UDP UNIDIRECTIONAL SEND TEST").contains("Okay     Errors   Throughput")
                .containsPattern("\\d+ +1472 +0\\.\\d\\d +\\d+ +\\d+ +\\d+\\.\\d\\d +jnet\\R\\d+ +0\\.\\d\\d +\\d+ +\\d+\\.\\d\\d\\R")
                .containsPattern("Datagrams lost \\(all measured runs\\): jnet \\d+ of \\d+ \\(\\d+\\.\\d\\d%\\), kernel \\d+ of \\d+");
        assertThat(r.csv().get(1)).containsPattern(",ok,\\d+\\.\\d{4},\\d+,\\d+,\\d+,0,1,netperf,");
        assertThat(r.json()).contains("\"udp_stream\":{\"send_median\":").contains("\"loss_percent\":");
    }
}
