package io.jnet.bench;

import io.jnet.tcp.SackScoreboardBench;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The sender's SACK scoreboard under a hostile ACK (the SACK Panic family: blocks beyond SND.NXT, far below
 * SND.UNA, empty, and one with edges inside segments spanning a quarter of the queue, all of it SACKed already)
 * against {@code segments} sent segments with four holes ({@link SackScoreboardBench}). A scan of the queue per block
 * would cost O(segments); the scoreboard's tree costs O(log segments) per block. Run with {@code -prof gc}: an ACK
 * allocates nothing.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SackScoreboardBenchmark {
    @Param({"1000", "10000", "100000"})
    public int segments;

    private SackScoreboardBench board;

    @Setup
    public void setup() {
        board = new SackScoreboardBench(segments);
    }

    /** One ACK with four hostile SACK blocks. */
    @Benchmark
    public int hostileAck() {
        return board.hostileAck();
    }
}
