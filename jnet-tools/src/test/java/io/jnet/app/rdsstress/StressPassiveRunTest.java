package io.jnet.app.rdsstress;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.RdsSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The passive side against a hand-driven active socket over {@link FakeRds}: a passive side that starts while the
 * active side is already running (it was restarted) still ends its run on the END it gets, and says it joined
 * mid-run.
 */
class StressPassiveRunTest {
    static final InetAddress A = StressEngineTest.A;
    static final InetAddress B = StressEngineTest.B;
    static final InetSocketAddress PASSIVE = new InetSocketAddress(B, 4000);

    static StressConfig config() {
        return new StressConfig(100, 64, 1, 4, 1, false, 4000, false, Duration.ofSeconds(2), Duration.ofSeconds(2));
    }

    static void send(RdsSocket s, byte type, long seq) throws Exception {
        byte[] b = new byte[100];
        StressMessage.write(b, b.length, type, (byte) 0, seq, 0, System.nanoTime(), 64);
        s.send(b, 0, b.length, PASSIVE);
    }

    static void await(java.util.function.BooleanSupplier c) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!c.getAsBoolean() && System.nanoTime() < deadline) Thread.sleep(5);
    }

    @Test
    void aPassiveSideThatJoinsMidRunEndsOnTheEndOfASenderItNeverHeardHelloFrom() throws Exception {
        FakeRds net = new FakeRds();
        try (StressPassive p = new StressPassive(config(), net::open, B, 212992);
             RdsSocket active = StressSockets.open(net::open, A, 4000, 212992)) {
            p.start();
            for (long seq = 501; seq <= 510; seq++) send(active, StressMessage.REQUEST, seq);
            send(active, StressMessage.END, 510);
            await(p::done);
            assertThat(p.done()).as("the END of a sender heard without HELLO ends the run").isTrue();
            assertThat(p.idleTasks()).isEmpty();
            StressResult r = p.result(new StressMeter(p.counters()));
            assertThat(r.pairs()).singleElement().satisfies(pr -> {
                assertThat(pr.sent()).as("counted from the first request seen").isEqualTo(10);
                assertThat(pr.received()).isEqualTo(10);
                assertThat(pr.ok()).isTrue();
            });
            assertThat(r.problems()).singleElement().asString()
                    .contains("task 0: joined mid-run: no HELLO from 192.0.2.1:4000")
                    .contains("first request seen was number 501");
        }
    }

    @Test
    void anEndAloneFromAnUnknownSenderEndsTheRunToo() throws Exception {
        FakeRds net = new FakeRds();
        try (StressPassive p = new StressPassive(config(), net::open, B, 212992);
             RdsSocket active = StressSockets.open(net::open, A, 4000, 212992)) {
            p.start();
            send(active, StressMessage.END, 42);
            await(p::done);
            assertThat(p.done()).isTrue();
            assertThat(p.midRunJoins()).singleElement().asString().contains("joined mid-run");
        }
    }

    @Test
    void anActiveSideThatStopsMidRunEndsThePassiveRunAfterTheIdleLimit() throws Exception {
        FakeRds net = new FakeRds();
        try (StressPassive p = new StressPassive(config(), net::open, B, 212992);
             RdsSocket active = StressSockets.open(net::open, A, 4000, 212992)) {
            p.start();
            send(active, StressMessage.HELLO, 0);
            for (long seq = 1; seq <= 5; seq++) send(active, StressMessage.REQUEST, seq);
            await(p::started);
            long t0 = System.nanoTime();
            java.util.concurrent.CompletableFuture<StressResult> run = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return p.run((l, t) -> { }, Duration.ofSeconds(1), Duration.ofSeconds(1));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            StressResult r = run.get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(System.nanoTime() - t0).as("ended by the idle limit, not later").isLessThan(15_000_000_000L);
            assertThat(r.ok()).isFalse();
            assertThat(r.problems().getFirst()).isEqualTo("no message from any active task for 1 s (--wait) after"
                    + " traffic began: the active side stopped before END; giving up");
            assertThat(r.problems()).contains("task 0: 1 sender(s) never sent END");
        }
    }

    @Test
    void aRunThatEndsNormallyHasNoIdleProblem() throws Exception {
        FakeRds net = new FakeRds();
        try (StressPassive p = new StressPassive(config(), net::open, B, 212992);
             RdsSocket active = StressSockets.open(net::open, A, 4000, 212992)) {
            p.start();
            send(active, StressMessage.HELLO, 0);
            for (long seq = 1; seq <= 5; seq++) send(active, StressMessage.REQUEST, seq);
            send(active, StressMessage.END, 5);
            send(active, StressMessage.BYE, 0);
            StressResult r = p.run((l, t) -> { }, Duration.ofSeconds(5), Duration.ofSeconds(1));
            assertThat(r.problems()).isEmpty();
            assertThat(r.ok()).isTrue();
        }
    }
}
