package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Each test type once over the kernel (NIO) path and over the in-memory fake: the plumbing, not speed. */
@Timeout(30)
class PerfTestRunsTest {

    private static final Duration SHORT = Duration.ofMillis(200);
    private static PerfPath kernel;

    @BeforeAll
    static void open() {
        kernel = KernelPaths.tcp();
    }

    @AfterAll
    static void close() {
        kernel.close();
    }

    @ParameterizedTest
    @EnumSource(TestKind.class)
    void eachTestRunsOverTheKernel(TestKind kind) throws Exception {
        TestSpec spec = TestSpec.defaults(kind, SHORT);
        RunResult r = PerfTest.of(kind).run(kernel, spec);
        assertResult(r, spec, "kernel");
        assertThat(r.sizes().localSend()).isPositive();
        assertThat(r.sizes().remoteRecv()).isPositive();
    }

    @ParameterizedTest
    @EnumSource(TestKind.class)
    void eachTestRunsOverTheFake(TestKind kind) throws Exception {
        TestSpec spec = new TestSpec(kind, SHORT, 1000, 777, 3, 5000, SocketSettings.defaults(), SocketSettings.defaults());
        InMemoryPath fake = new InMemoryPath("fake");
        RunResult r = PerfTest.of(kind).run(fake, spec);
        assertResult(r, spec, "fake");
        assertThat(r.sizes()).isEqualTo(new SocketSizes(65536, 65536, 65536, 65536));
        int expectedConnections = kind == TestKind.TCP_CRR ? (int) r.transactions() + 1 : kind.isUdp() ? 0 : 1;
        assertThat(fake.connections.get()).isEqualTo(expectedConnections);
    }

    private static void assertResult(RunResult r, TestSpec spec, String stack) {
        assertThat(r.stack()).isEqualTo(stack);
        assertThat(r.kind()).isEqualTo(spec.kind());
        assertThat(r.elapsedSeconds()).isGreaterThanOrEqualTo(0.19);
        assertThat(r.value()).isPositive();
        if (spec.kind() == TestKind.UDP_STREAM) {
            // no flow control: the receiver may get fewer than were sent, never more
            DatagramCounts d = r.datagrams();
            assertThat(d.sent()).isPositive();
            assertThat(d.received()).isPositive().isLessThanOrEqualTo(d.sent());
            assertThat(r.bytesSent()).isEqualTo(d.sent() * spec.sendSize());
            assertThat(r.bytesReceived()).isEqualTo(d.received() * spec.sendSize());
            assertThat(d.sendElapsedSeconds()).isGreaterThanOrEqualTo(0.19);
            assertThat(r.sendValue()).isPositive();
            assertThat(r.transactions()).isZero();
            assertThat(r.latencyNanos()).isNull();
            return;
        }
        assertThat(r.datagrams()).isNull();
        assertThat(r.bytesReceived()).isEqualTo(r.bytesSent());
        if (spec.kind().isStream()) {
            assertThat(r.bytesSent()).isPositive().isEqualTo(r.bytesSent() / spec.sendSize() * spec.sendSize());
            assertThat(r.transactions()).isZero();
            assertThat(r.latencyNanos()).isNull();
        } else {
            assertThat(r.transactions()).isPositive();
            assertThat(r.bytesSent()).isEqualTo(r.transactions() * (spec.requestSize() + spec.responseSize()));
            assertThat(r.latencyNanos().getTotalCount()).isEqualTo(r.transactions());
            assertThat(r.latencyNanos().getMinValue()).isPositive();
        }
    }

    @Test
    void socketOptionsReachTheKernelSockets() throws Exception {
        SocketSettings local = new SocketSettings(32768, 32768, true);
        SocketSettings remote = new SocketSettings(65536, 65536, true);
        TestSpec spec = new TestSpec(TestKind.TCP_RR, SHORT, 1, 1, 1, 1, local, remote);
        RunResult r = PerfTest.of(TestKind.TCP_RR).run(kernel, spec);
        // Linux doubles the value set for bookkeeping overhead and reports the doubled size
        assertThat(r.sizes()).isEqualTo(new SocketSizes(65536, 65536, 131072, 131072));
    }

    @Test
    void aServerFailureIsReportedWithoutHanging() {
        InMemoryPath failing = new InMemoryPath("fake", 10_000, false);
        TestSpec spec = TestSpec.defaults(TestKind.TCP_STREAM, Duration.ofSeconds(5));
        assertThatThrownBy(() -> PerfTest.of(TestKind.TCP_STREAM).run(failing, spec))
                .isInstanceOf(PerfException.class)
                .hasMessageContaining("server")
                .hasMessageContaining("injected failure");
    }

    @Test
    void anUnavailableStackIsToldApartFromAFailure() {
        InMemoryPath missing = new InMemoryPath("fake", Long.MAX_VALUE, true);
        TestSpec spec = TestSpec.defaults(TestKind.TCP_RR, SHORT);
        assertThatThrownBy(() -> PerfTest.of(TestKind.TCP_RR).run(missing, spec))
                .isInstanceOf(StackUnavailableException.class)
                .hasMessageContaining("not yet built");
    }
}
