package io.jnet.bench;

import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;

/** Runs the JMH micro-benchmarks: {@code ./bench.sh [JMH options]}, e.g. {@code ./bench.sh -prof gc}. */
public final class Bench {
    private Bench() {}

    public static void main(String[] args) throws RunnerException, CommandLineOptionException {
        new Runner(new CommandLineOptions(args.length == 0 ? new String[] {"io.jnet.bench", "-prof", "gc"} : args)).run();
    }
}
