package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The byte-stream tests over jnet's local stream sockets ({@code jnet:unix}) and the kernel's AF_UNIX
 * ({@code kernel:unix}), opened from the standard registry as the command line opens them: the plumbing, not
 * speed.
 */
@Timeout(60)
class UnixPathsRunTest {

    private static final Duration SHORT = Duration.ofMillis(200);
    private static PathRegistry.Entry jnetEntry;
    private static PerfPath jnetUnix;
    private static PerfPath kernelUnix;

    @BeforeAll
    static void open() throws Exception {
        PathRegistry registry = PathRegistry.standard();
        jnetEntry = registry.get(PathRegistry.JNET_UNIX);
        jnetUnix = jnetEntry.open(Map.of("net.core.busy_read", "0"));
        kernelUnix = registry.get(PathRegistry.KERNEL_UNIX).open(Map.of());
    }

    @AfterAll
    static void close() {
        jnetUnix.close();
        kernelUnix.close();
    }

    @ParameterizedTest
    @EnumSource(value = TestKind.class, names = {"TCP_STREAM", "TCP_MAERTS", "TCP_SENDFILE", "TCP_RR", "TCP_CRR"})
    void everyByteStreamTestRunsOverBothUnixPaths(TestKind kind) throws Exception {
        TestSpec spec = RunReports.spec(kind, SHORT, kind.isStream() ? 16384 : 64, 64, 200);
        assertThat(jnetEntry.notApplicableTo(spec)).isNull();
        for (PerfPath path : List.of(jnetUnix, kernelUnix)) {
            String what = kind + " on " + path.description();
            RunResult r = PerfTest.of(kind).run(path, spec);
            assertThat(r.kind()).isEqualTo(kind);
            assertThat(r.stack()).isEqualTo(path.stack());
            assertThat(r.elapsedSeconds()).as(what).isGreaterThanOrEqualTo(0.19);
            assertThat(r.value()).as(what).isPositive();
            assertThat(r.bytesReceived()).as(what).isEqualTo(r.bytesSent());
            if (kind.isStream()) {
                assertThat(r.bytesSent()).as(what).isPositive();
                assertThat(r.bytesSent() % spec.sendSize()).as(what + ": whole messages").isZero();
            } else {
                assertThat(r.transactions()).as(what).isPositive();
                assertThat(r.bytesSent()).isEqualTo(r.transactions() * (spec.requestSize() + spec.responseSize()));
                assertThat(r.latencyNanos().getTotalCount()).isEqualTo(r.transactions());
            }
        }
    }

    @Test
    void udpAndNoDelayAreNotApplicableAndSocketBuffersAreSet() throws Exception {
        assertThat(jnetEntry.notApplicableTo(TestSpec.defaults(TestKind.UDP_STREAM, SHORT))).contains("UDP");
        assertThat(jnetEntry.notApplicableTo(TestSpec.defaults(TestKind.UDP_RR, SHORT))).contains("UDP");
        SocketSettings noDelay = new SocketSettings(-1, -1, true);
        assertThat(jnetEntry.notApplicableTo(new TestSpec(TestKind.TCP_RR, SHORT, 1, 1, 1, 1, noDelay, noDelay)))
                .contains("TCP_NODELAY");
        assertThat(jnetEntry.stack()).isEqualTo("jnet");
        assertThat(jnetEntry.appliesSysctls()).isTrue();
        assertThatThrownBy(() -> jnetUnix.bindDatagram(SocketSettings.defaults()))
                .isInstanceOf(UnsupportedOperationException.class);

        TestSpec plain = TestSpec.defaults(TestKind.TCP_RR, SHORT);
        assertThat(PerfTest.of(TestKind.TCP_RR).run(jnetUnix, plain).sizes())
                .as("net.core.wmem_default and rmem_default").isEqualTo(new SocketSizes(212992, 212992, 212992, 212992));
        SocketSettings local = new SocketSettings(32768, 32768, false);
        SocketSettings remote = new SocketSettings(65536, 65536, false);
        TestSpec sized = new TestSpec(TestKind.TCP_RR, SHORT, 1, 1, 1, 1, local, remote);
        // doubled as Linux's SO_SNDBUF/SO_RCVBUF, which kernel:unix reports the same way
        SocketSizes expected = new SocketSizes(65536, 65536, 131072, 131072);
        assertThat(PerfTest.of(TestKind.TCP_RR).run(jnetUnix, sized).sizes()).isEqualTo(expected);
        assertThat(PerfTest.of(TestKind.TCP_RR).run(kernelUnix, sized).sizes()).isEqualTo(expected);
    }

    @Test
    void theComparisonRunnerMeasuresJnetUnixAgainstKernelUnix() {
        ComparisonRunner runner = new ComparisonRunner(Iterations.exactly(3), Confidence.DEFAULT, new Warmup(0.2), Progress.NONE);
        for (TestKind k : List.of(TestKind.TCP_STREAM, TestKind.TCP_RR)) {
            TestSpec spec = TestSpec.defaults(k, SHORT).withMessageSize(k.isStream() ? 16384 : 64, false);
            Measurement m = runner.measure(spec, -1, List.of(new ComparisonRunner.Lane(PathRegistry.JNET_UNIX, jnetUnix),
                    new ComparisonRunner.Lane(PathRegistry.KERNEL_UNIX, kernelUnix)));
            assertThat(m.failure()).as(k.name()).isNull();
            for (Measurement.LaneResult lane : m.lanes()) {
                assertThat(lane.series().values()).as(k + " " + lane.label()).hasSize(3).allSatisfy(v -> assertThat(v).isPositive());
            }
        }
    }
}
