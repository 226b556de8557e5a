package io.jnet.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/** {@code jnet serve}: Serve files over HTTP on the jnet stack. Not available in this build: says so and exits with 2. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve files over HTTP on the jnet stack.", "Not available yet in this build."})
public final class ServeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Unmatched
    List<String> args;

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("jnet serve: not available yet");
        spec.commandLine().getErr().flush();
        return Main.EXIT_USAGE;
    }
}
