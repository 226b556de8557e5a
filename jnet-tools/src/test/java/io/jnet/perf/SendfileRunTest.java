package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** TCP_SENDFILE on jnet (loopback and veth) and on the kernel: what moved, the send ring, the reports. */
@Timeout(60)
class SendfileRunTest extends ThreePathsRunTest {

    private static final Duration SHORT = Duration.ofMillis(200);

    @Test
    void everyStackSendsTheFileAndTheReceiverGetsEveryByte() throws Exception {
        for (PerfPath path : paths()) {
            for (int size : new int[] {65536, 1000}) {
                TestSpec spec = RunReports.spec(TestKind.TCP_SENDFILE, SHORT, size, 1, 1);
                RunResult r = PerfTest.of(TestKind.TCP_SENDFILE).run(path, spec);
                String what = path.description() + ", -m " + size;
                assertThat(r.kind()).isEqualTo(TestKind.TCP_SENDFILE);
                assertThat(r.stack()).isEqualTo(path.stack());
                assertThat(r.elapsedSeconds()).as(what).isGreaterThanOrEqualTo(0.19);
                assertThat(r.bytesSent()).as(what).isPositive().isEqualTo(r.bytesReceived());
                assertThat(r.bytesSent() % size).as(what + ": whole sendfile calls").isZero();
                assertThat(r.value()).as(what).isPositive();
                assertThat(r.sizes().localSend()).as(what).isPositive();
                assertThat(r.sizes().remoteRecv()).as(what).isPositive();
                assertThat(r.transactions()).isZero();
                assertThat(r.latencyNanos()).isNull();
            }
        }
    }

    @Test
    void theSendRingFileIsClosedAndGoneAfterTheRun() throws Exception {
        Path fds = Path.of("/proc/self/fd");
        assumeThat(Files.isDirectory(fds)).as("/proc/self/fd (Linux) lists open files").isTrue();
        PerfTest.of(TestKind.TCP_SENDFILE).run(jnet, RunReports.spec(TestKind.TCP_SENDFILE, SHORT, 65536, 1, 1));
        assertThat(openRingFiles(fds)).isEmpty();
        try (Stream<Path> tmp = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            List<Path> left = tmp.filter(p -> p.getFileName().toString().startsWith("jnet-perf-sendfile"))
                    .filter(p -> p.toFile().lastModified() >= System.currentTimeMillis() - 60_000).toList();
            assertThat(left).as("ring files of this minute").isEmpty();
        }
    }

    private static List<String> openRingFiles(Path fds) throws IOException {
        try (Stream<Path> s = Files.list(fds)) {
            return s.map(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString();
                } catch (IOException e) {
                    return ""; // closed while listing
                }
            }).filter(t -> t.contains("jnet-perf-sendfile")).toList();
        }
    }

    @Test
    void theRingIsNetperfsSendWidthOfFilledSlots() throws Exception {
        assertThat(SendfileTest.ringWidth(16384, 65536)).as("netperf: at least 2").isEqualTo(2);
        assertThat(SendfileTest.ringWidth(262144, 65536)).as("SO_SNDBUF / -m + 1").isEqualTo(5);
        assertThat(SendfileTest.ringWidth(-1, 1000)).isEqualTo(2);
        assertThat(SendfileTest.ringWidth(1 << 30, 1 << 20)).as("capped at 256 MiB").isEqualTo(256);
        assertThat(SendfileTest.ringWidth(1 << 20, 1 << 30)).as("one slot at least").isEqualTo(1);
        try (FileChannel ring = SendfileTest.sendRing(1000, 3)) {
            assertThat(ring.size()).isEqualTo(3000);
            ByteBuffer slot = ByteBuffer.allocate(1000);
            ByteBuffer expected = IoLoops.patterned(1000);
            for (int i = 0; i < 3; i++) {
                slot.clear();
                ring.read(slot, i * 1000L);
                assertThat(slot.flip()).as("slot %d", i).isEqualTo(expected.rewind());
            }
        }
    }

    @Test
    void theComparisonReportsThroughputOfBothStacks() {
        RunReports.Rendered r = RunReports.compare(RunReports.spec(TestKind.TCP_SENDFILE, Duration.ofMillis(100), 65536, 1, 1),
                jnet, kernel);
        RunReports.assertShape(r, TestKind.TCP_SENDFILE);
        assertThat(r.text()).contains("Recv     Send     Send").contains("10^6bits/sec  Stack")
                .containsPattern("\\d+ +\\d+ +65536 +0\\.\\d\\d +\\d+\\.\\d\\d +jnet");
        assertThat(r.csv().get(1)).contains(",ok,,,,,0,1,netperf,");
    }
}
