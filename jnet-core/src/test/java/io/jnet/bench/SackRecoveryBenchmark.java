package io.jnet.bench;

import io.jnet.tcp.SackRecoveryBench;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One duplicate ACK with four hostile SACK blocks to a connection in SACK fast recovery with {@code segments}
 * segments in flight ({@link SackRecoveryBench}): the scoreboard's tagging and the recovery's per-ACK step (RFC 6675
 * Update, SetPipe, NextSeg). A walk of the write queue per ACK would cost O(segments); the recovery's counts and
 * cursors cost O(log segments). Run with {@code -prof gc}: an ACK allocates nothing.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
public class SackRecoveryBenchmark {
    @Param({"1000", "10000", "100000"})
    public int segments;

    @Param({"quarters", "alternate"})
    public String holes;

    private SackRecoveryBench bench;

    @Setup
    public void setup() throws IOException {
        bench = new SackRecoveryBench(segments, holes);
    }

    @TearDown
    public void tearDown() throws IOException {
        bench.close();
    }

    /** One ACK with four hostile SACK blocks during recovery. */
    @Benchmark
    public int hostileAck() {
        return bench.hostileAck();
    }
}
