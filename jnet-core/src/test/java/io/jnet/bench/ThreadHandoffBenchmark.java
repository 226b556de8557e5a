package io.jnet.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

/**
 * The floor under any two-thread request/response in a JVM: one thread hands a token to another and
 * sleeps until it comes back, with {@link LockSupport#park}/{@link LockSupport#unpark} and no network
 * stack at all. TCP_RR between a client and a server thread pays this hand-off once per transaction on
 * jnet's paths (the kernel's pays its futex equivalent), so its rate cannot exceed this one.
 * The {@code roundTrip:ping} score is round trips per second (the group's own score adds the two threads'
 * calls, so it counts each round trip twice).
 */
@State(Scope.Group)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ThreadHandoffBenchmark {
    /** Whose turn: 0 the pinger's, 1 the ponger's. */
    private volatile int turn;
    private volatile Thread pinger;
    private volatile Thread ponger;

    /** Hands the token over and sleeps until it is back; one call is one round trip. */
    @Benchmark
    @Group("roundTrip")
    @GroupThreads(1)
    public void ping(Control control) {
        if (pinger == null) pinger = Thread.currentThread();
        turn = 1;
        LockSupport.unpark(ponger);
        awaitTurn(0, control);
    }

    /** Waits for the token and hands it back. */
    @Benchmark
    @Group("roundTrip")
    @GroupThreads(1)
    public void pong(Control control) {
        if (ponger == null) ponger = Thread.currentThread();
        if (!awaitTurn(1, control)) return;
        turn = 0;
        LockSupport.unpark(pinger);
    }

    /** Parks until it is {@code who}'s turn; false when the measurement stopped first (no deadlock at its end). */
    private boolean awaitTurn(int who, Control control) {
        while (turn != who) {
            if (control.stopMeasurement) return false;
            LockSupport.parkNanos(1_000_000);
        }
        return true;
    }
}
