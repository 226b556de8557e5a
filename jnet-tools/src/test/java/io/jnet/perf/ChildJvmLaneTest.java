package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ChildJvmLaneTest {

    private static final Duration SLACK = Duration.ofSeconds(30);

    /** A TCP_RR spec whose request size tells {@link ScriptedLaneWorker} what to do. */
    private static TestSpec spec(int action) {
        return TestSpec.defaults(TestKind.TCP_RR, Duration.ofMillis(100)).withMessageSize(action, false);
    }

    private static ChildJvmLane start(String mode, Duration slack) throws IOException, PerfException {
        return ChildJvmLane.start(JvmCommand.current(), ScriptedLaneWorker.class.getName(), List.of(mode),
                "fake:lane", SLACK, slack);
    }

    @Test
    void specsGoToAJvmOfItsOwnAndResultsComeBack() throws Exception {
        try (ChildJvmLane lane = start("ok", SLACK)) {
            assertThat(lane.process().pid()).isNotEqualTo(ProcessHandle.current().pid());
            assertThat(lane.description()).isEqualTo("in-memory pipes");
            for (int i = 0; i < 3; i++) {
                RunResult r = lane.run(spec(1));
                assertThat(r.kind()).isEqualTo(TestKind.TCP_RR);
                assertThat(r.stack()).isEqualTo("scripted");
                assertThat(r.value()).isEqualTo(1234.0);
                assertThat(r.sizes()).isEqualTo(new SocketSizes(16384, 131072, 16384, 131072));
                assertThat(r.latencyNanos().getTotalCount()).isEqualTo(2);
                assertThat(r.latencyNanos()).isEqualTo(Fixtures.run("scripted", TestKind.TCP_RR, 1234).latencyNanos());
            }
        }
    }

    @Test
    void errorsComeBackAsTheyWereThrownAndTheLaneGoesOn() throws Exception {
        try (ChildJvmLane lane = start("ok", SLACK)) {
            assertThatThrownBy(() -> lane.run(spec(2)))
                    .isExactlyInstanceOf(PerfException.class).hasMessage("scripted failure");
            assertThatThrownBy(() -> lane.run(spec(3)))
                    .isExactlyInstanceOf(StackUnavailableException.class).hasMessage("scripted stack gone");
            assertThat(lane.run(spec(1)).value()).isEqualTo(1234.0);
        }
    }

    @Test
    void aWorkerThatExitsDuringARunIsAPerfExceptionWithItsExitStatus() throws Exception {
        try (ChildJvmLane lane = start("ok", SLACK)) {
            assertThat(lane.lost()).isNull();
            assertThatThrownBy(() -> lane.run(spec(4))).isExactlyInstanceOf(PerfException.class)
                    .hasMessageContaining("ended the connection before answering the TCP_RR run")
                    .hasMessageContaining("exited with status 7");
            assertThat(lane.lost()).as("later measurements leave the lane out").contains("exited with status 7");
            // the lane is gone: later runs fail at once with the same error
            assertThatThrownBy(() -> lane.run(spec(1))).isExactlyInstanceOf(PerfException.class)
                    .hasMessageContaining("exited with status 7");
        }
    }

    @Test
    void aWorkerThatDoesNotAnswerIsKilled() throws Exception {
        try (ChildJvmLane lane = start("ok", Duration.ofSeconds(1))) {
            ProcessHandle worker = lane.process();
            assertThatThrownBy(() -> lane.run(spec(5))).isExactlyInstanceOf(PerfException.class)
                    .hasMessageContaining("gave no answer to the TCP_RR run within 2.1 s")
                    .hasMessageContaining("killed (exit status ");
            assertThat(worker.isAlive()).isFalse();
        }
    }

    @Test
    void aWorkerThatExitsBeforeConnectingIsAPerfExceptionWithItsExitStatus() {
        assertThatThrownBy(() -> start("exit", SLACK)).isExactlyInstanceOf(PerfException.class)
                .hasMessageContaining("exited with status 3 before it connected");
    }

    @Test
    void openingFailuresComeBackAsInOneJvm() {
        assertThatThrownBy(() -> start("unavailable", SLACK))
                .isExactlyInstanceOf(UnsupportedOperationException.class).hasMessage("scripted stack not built");
        assertThatThrownBy(() -> start("broken", SLACK))
                .isExactlyInstanceOf(PerfException.class).hasMessage("IOException: scripted set-up failure");
    }

    @Test
    void closeEndsTheWorker() throws Exception {
        ChildJvmLane lane = start("ok", SLACK);
        ProcessHandle worker = lane.process();
        lane.close();
        assertThat(worker.isAlive()).isFalse();
        lane.close();
        assertThatThrownBy(() -> lane.run(spec(1))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theWorkerGetsThePathIdAndTheSysctlsInOrder() {
        Map<String, String> sysctls = new LinkedHashMap<>();
        sysctls.put("net.ipv4.tcp_rmem", "4096 131072 6291456");
        sysctls.put("net.ipv4.tcp_friends", "1");
        List<String> args = ChildJvmLane.workerArgs("jnet:friends", sysctls);
        assertThat(args).containsExactly("jnet:friends", "net.ipv4.tcp_rmem=4096 131072 6291456", "net.ipv4.tcp_friends=1");
        assertThat(LaneWorker.sysctls(args.subList(1, args.size()))).containsExactlyEntriesOf(sysctls);
        assertThatThrownBy(() -> LaneWorker.sysctls(List.of("novalue"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theProtocolCarriesResultsAndReadsNoOtherClasses() throws Exception {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        ObjectOutputStream out = LaneProtocol.output(buf);
        RunResult udp = Fixtures.udpStream("jnet", 64, new long[] {10}, new long[] {9}).runs().getFirst();
        LaneProtocol.send(out, new LaneProtocol.Ran(udp));
        LaneProtocol.send(out, spec(1));
        LaneProtocol.send(out, new ArrayList<>(List.of("x")));
        ObjectInputStream in = LaneProtocol.input(new ByteArrayInputStream(buf.toByteArray()));
        assertThat(in.readObject()).isEqualTo(new LaneProtocol.Ran(udp));
        assertThat(in.readObject()).isEqualTo(spec(1));
        assertThatThrownBy(in::readObject).isInstanceOf(InvalidClassException.class);
    }
}
