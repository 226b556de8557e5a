package io.jnet.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code jnet version}: prints the jnet version, the Java runtime and the OS. */
@Command(name = "version", mixinStandardHelpOptions = true,
        description = "Print the jnet version, the Java runtime and the operating system.")
public final class VersionCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        for (String line : Version.lines()) spec.commandLine().getOut().println(line);
        spec.commandLine().getOut().flush();
        return Main.EXIT_OK;
    }
}
