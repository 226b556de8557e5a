package io.jnet.app.rdsstress;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The active and passive sides over {@link FakeRds} (no transport underneath): a clean run passes with traffic
 * in every second, and each fault the verdict exists for (a lost, duplicated, reordered or corrupted message,
 * a missing peer) makes it fail, naming the pair.
 */
class StressEngineTest {
    static final InetAddress A = CommandAddresses.A;
    static final InetAddress B = CommandAddresses.B;

    static StressConfig config(int tasks, int depth, boolean oneWay) {
        return new StressConfig(200, 64, tasks, depth, 1, oneWay, 4000, false, Duration.ofSeconds(2), Duration.ofSeconds(3));
    }

    static StressResult run(FakeRds net, StressConfig c) throws Exception {
        List<StressLine> seen = new ArrayList<>();
        try (StressPassive p = new StressPassive(c, net::open, B, 212992);
             StressActive a = new StressActive(c, net::open, A, B, 212992)) {
            p.start();
            StressResult r = a.run((line, tasks) -> seen.add(line));
            assertThat(seen).isEqualTo(r.lines());
            assertThat(p.problems()).isEmpty();
            return r;
        }
    }

    @Test
    void aCleanRunPassesWithEveryPairCheckedAndTrafficEverySecond() throws Exception {
        StressResult r = run(new FakeRds(), config(3, 4, false));
        assertThat(r.problems()).isEmpty();
        assertThat(r.pairs()).hasSize(6).allMatch(PairResult::ok);
        assertThat(r.ok()).isTrue();
        assertThat(r.verdictLine()).startsWith("verdict: PASS: 6 pairs, ").contains(" 0 lost, 0 duplicated, 0 reordered, 0 corrupt");
        assertThat(r.lines()).hasSize(1);
        StressLine l = r.lines().getFirst();
        assertThat(l.tasks()).isEqualTo(3);
        assertThat(l.txPerSec()).isPositive();
        assertThat(l.rxPerSec()).isPositive();
        assertThat(l.kibOutPerSec()).as("requests are 200 bytes").isCloseTo(l.txPerSec() * 200 / 1024, org.assertj.core.data.Percentage.withPercentage(1));
        assertThat(l.rttMeanUs()).isPositive();
        assertThat(r.rttCount()).isPositive();
        PairResult req = r.pairs().getFirst();
        assertThat(req.sender()).isEqualTo("192.0.2.1:4000");
        assertThat(req.receiver()).isEqualTo("192.0.2.2:4000");
        assertThat(req.sent()).isEqualTo(req.received()).isPositive();
    }

    @Test
    void oneWaySendsRequestsOnly() throws Exception {
        StressResult r = run(new FakeRds(), config(2, 1, true));
        assertThat(r.ok()).as(r.verdictLine() + " " + r.problems()).isTrue();
        assertThat(r.pairs()).hasSize(2).allMatch(p -> p.what().equals("requests"));
        assertThat(r.lines().getFirst().rxPerSec()).isZero();
        assertThat(r.lines().getFirst().txPerSec()).isPositive();
        assertThat(r.rttCount()).isZero();
    }

    /** Drops, repeats, swaps or damages the first message of {@code type} numbered {@code seq} sent to port 4001. */
    static FakeRds faulty(byte type, long seq, String fault) {
        AtomicBoolean done = new AtomicBoolean();
        byte[][] held = new byte[1][];
        return new FakeRds((from, to, m) -> {
            boolean hit = m.length >= StressMessage.HEADER_BYTES && StressMessage.type(m) == type
                    && (to.getPort() == 4001 || from.getPort() == 4001 && type == StressMessage.ACK);
            if (held[0] != null && hit) {
                byte[] h = held[0];
                held[0] = null;
                return new byte[][] {m, h};
            }
            if (!hit || StressMessage.seq(m) != seq || !done.compareAndSet(false, true)) return new byte[][] {m};
            return switch (fault) {
                case "drop" -> new byte[0][];
                case "dup" -> new byte[][] {m, m.clone()};
                case "hold" -> {
                    held[0] = m;
                    yield new byte[0][];
                }
                case "corrupt" -> {
                    m[m.length - 1] ^= 0x40;
                    yield new byte[][] {m};
                }
                default -> throw new IllegalArgumentException(fault);
            };
        });
    }

    static PairResult pair(StressResult r, String what, int port) {
        return r.pairs().stream().filter(p -> p.what().equals(what)
                && (p.receiver().endsWith(":" + port))).findFirst().orElseThrow();
    }

    @Test
    void aLostRequestFailsTheVerdict() throws Exception {
        StressResult r = run(faulty(StressMessage.REQUEST, 5, "drop"), config(2, 4, false));
        assertThat(r.ok()).isFalse();
        PairResult p = pair(r, "requests", 4001);
        assertThat(p.lost()).isEqualTo(1);
        assertThat(p.reordered()).as("the next one came early").isEqualTo(1);
        assertThat(p.describe()).contains("192.0.2.1:4001 -> 192.0.2.2:4001 requests").endsWith("FAIL");
        assertThat(pair(r, "requests", 4000).ok()).isTrue();
        assertThat(r.verdictLine()).startsWith("verdict: FAIL").contains("1 lost");
    }

    @Test
    void aDuplicatedAckFailsTheVerdict() throws Exception {
        StressResult r = run(faulty(StressMessage.ACK, 3, "dup"), config(2, 4, false));
        assertThat(r.ok()).isFalse();
        PairResult p = pair(r, "acks", 4001);
        assertThat(p.duplicated()).isEqualTo(1);
        assertThat(p.lost()).isZero();
        assertThat(r.duplicated()).isEqualTo(1);
    }

    @Test
    void reorderedRequestsFailTheVerdict() throws Exception {
        StressResult r = run(faulty(StressMessage.REQUEST, 3, "hold"), config(2, 4, false));
        assertThat(r.ok()).isFalse();
        PairResult p = pair(r, "requests", 4001);
        assertThat(p.reordered()).isPositive();
        assertThat(p.lost()).isZero();
        assertThat(p.duplicated()).isZero();
    }

    @Test
    void aCorruptedRequestFailsTheVerdict() throws Exception {
        StressResult r = run(faulty(StressMessage.REQUEST, 7, "corrupt"), config(2, 8, false));
        assertThat(r.ok()).isFalse();
        PairResult p = pair(r, "requests", 4001);
        assertThat(p.corrupt()).isEqualTo(1);
        assertThat(p.lost()).as("a corrupt message does not count as received").isEqualTo(1);
    }

    @Test
    void aMissingEndAckIsAProblemAndTheAcksThatCameAreStillChecked() throws Exception {
        FakeRds net = new FakeRds((from, to, m) -> StressMessage.type(m) == StressMessage.END_ACK && to.getPort() == 4001
                ? new byte[0][] : new byte[][] {m});
        StressResult r = run(net, config(2, 2, false));
        assertThat(r.ok()).isFalse();
        assertThat(r.problems()).singleElement().asString()
                .startsWith("task 1: no END_ACK from 192.0.2.2:4001 within ").contains(" s after the end (")
                .contains(" KiB of requests and acks outstanding then)");
        PairResult acks = pair(r, "acks", 4001);
        assertThat(acks.sent()).isEqualTo(-1);
        assertThat(acks.received()).isPositive();
        assertThat(acks.describe()).contains("sent unknown (no END_ACK)").endsWith("FAIL");
        assertThat(r.pairs()).as("task 1's requests: the passive side's count never came").hasSize(3);
    }

    @Test
    void theDrainWaitScalesWithWhatIsOutstandingAtTheRateObserved() {
        Duration floor = Duration.ofSeconds(10);
        assertThat(StressActive.drainWait(floor, 0, 1e6)).isEqualTo(floor);
        assertThat(StressActive.drainWait(floor, 1_000_000, 1e6)).as("1 s of work: the floor").isEqualTo(floor);
        // -q 1M -d 256 -t 16: 4 GiB outstanding at 200 MiB/s is 20.48 s of work
        long outstanding = 16L * 256 * (1 << 20);
        assertThat(StressActive.drainWait(floor, outstanding, 200.0 * (1 << 20)))
                .isEqualTo(Duration.ofMillis(2 * 20_480 + 1_000));
        assertThat(StressActive.drainWait(floor, outstanding, 0)).as("no rate seen").isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void aSlowDrainOfADeepQueueIsWaitedForNotFailed() throws Exception {
        // acks leave the passive side at most every 2 ms: 1000 requests in flight take 2 s to drain, more than the
        // 1 s floor, yet nothing is lost
        FakeRds net = new FakeRds((from, to, m) -> {
            if (m.length >= StressMessage.HEADER_BYTES && StressMessage.type(m) == StressMessage.ACK) {
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return new byte[][] {m};
        });
        StressConfig c = new StressConfig(200, 64, 1, 1000, 1, false, 4000, false, Duration.ofSeconds(2), Duration.ofSeconds(1));
        StressResult r = run(net, c);
        assertThat(r.problems()).isEmpty();
        assertThat(r.ok()).as(r.verdictLine()).isTrue();
    }

    @Test
    void aRestartedPeerIsReportedAsSuchNotAsLostOrDuplicatedMessages() throws Exception {
        FakeRds net = new FakeRds();
        StressConfig c = new StressConfig(200, 64, 1, 64, 2, false, 4000, false, Duration.ofSeconds(2), Duration.ofSeconds(2));
        StressPassive first = new StressPassive(c, net::open, B, 212992);
        StressPassive[] second = new StressPassive[1];
        try (StressActive a = new StressActive(c, net::open, A, B, 212992)) {
            first.start();
            StressResult r = a.run((line, tasks) -> {
                if (second[0] == null) { // after the first second: the passive side restarts
                    first.close();
                    try {
                        second[0] = new StressPassive(c, net::open, B, 212992);
                    } catch (java.io.IOException e) {
                        throw new IllegalStateException(e);
                    }
                    second[0].start();
                }
            });
            assertThat(r.lost()).as(r.pairs().toString()).isZero();
            assertThat(r.duplicated()).isZero();
            assertThat(r.reordered()).isZero();
            assertThat(r.pairs()).allMatch(PairResult::ok);
            assertThat(r.problems()).singleElement().asString()
                    .startsWith("task 0: peer 192.0.2.2:4000 restarted at ")
                    .contains("requests unanswered by a peer that restarted, not counted as lost");
            assertThat(r.verdictLine()).startsWith("verdict: FAIL").contains("0 lost, 0 duplicated, 0 reordered");
        } finally {
            if (second[0] != null) second[0].close();
        }
    }

    @Test
    void withoutAPassiveSideTheActiveSideSaysSo() throws Exception {
        FakeRds net = new FakeRds();
        StressConfig c = new StressConfig(100, 100, 2, 1, 1, false, 4000, false, Duration.ofSeconds(1), Duration.ofSeconds(1));
        try (StressActive a = new StressActive(c, net::open, A, B, 212992)) {
            StressResult r = a.run((l, t) -> { });
            assertThat(r.ok()).isFalse();
            assertThat(r.problems()).hasSize(2).first().asString()
                    .contains("task 0: no answer from 192.0.2.2:4000 within 1 s").contains("-t 2 and -p 4000");
            assertThat(r.lines()).isEmpty();
        }
    }

    @Test
    void aPassiveSideWithMoreTasksIsDoneWhenTheActiveTasksAre() throws Exception {
        FakeRds net = new FakeRds();
        StressConfig active = config(2, 2, false);
        StressConfig passive = config(4, 1, false);
        try (StressPassive p = new StressPassive(passive, net::open, B, 212992);
             StressActive a = new StressActive(active, net::open, A, B, 212992)) {
            p.start();
            assertThat(p.done()).as("nothing heard yet").isFalse();
            StressResult r = a.run((l, t) -> { });
            assertThat(r.ok()).as(r.verdictLine() + r.problems()).isTrue();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!(p.done() && p.byes()) && System.nanoTime() < deadline) Thread.sleep(5);
            assertThat(p.done()).isTrue();
            assertThat(p.byes()).isTrue();
            assertThat(p.idleTasks()).containsExactly(2, 3);
            StressResult pr = p.result(new StressMeter(p.counters()));
            assertThat(pr.problems()).isEmpty();
            assertThat(pr.pairs()).hasSize(2).allMatch(PairResult::ok);
        }
    }

    @Test
    void aSecondSocketOnTheSamePortIsABindError() throws Exception {
        FakeRds net = new FakeRds();
        StressConfig c = config(1, 1, false);
        try (StressPassive p = new StressPassive(c, net::open, B, 212992)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new StressPassive(c, net::open, B, 212992))
                    .hasMessageContaining("cannot bind an RDS socket to 192.0.2.2:4000");
        }
    }

    /** The tests' addresses. */
    static final class CommandAddresses {
        static final InetAddress A = new InetSocketAddress("192.0.2.1", 0).getAddress();
        static final InetAddress B = new InetSocketAddress("192.0.2.2", 0).getAddress();
    }
}
