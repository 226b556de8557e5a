package io.jnet.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code jnet} command line: {@code jnet perf}, {@code jnet rds-stress}, {@code jnet serve}, {@code jnet fetch},
 * {@code jnet version}, {@code jnet help [COMMAND]}.
 *
 * <p>Exit codes: 0 success, 1 a test failed or an error occurred, 2 bad usage.
 */
@Command(name = "jnet",
        mixinStandardHelpOptions = true,
        versionProvider = Version.Provider.class,
        description = "A user-space TCP/IP stack for the JVM.",
        subcommands = {PerfCommand.class, RdsStressCommand.class, ServeCommand.class, FetchCommand.class, DrillCommand.class, VersionCommand.class,
                CommandLine.HelpCommand.class},
        footer = {"", "Exit codes: 0 success, 1 a test failed or an error occurred, 2 bad usage.",
                "Run 'jnet help COMMAND' for a command's options."})
public final class Main implements Callable<Integer> {

    /** Exit code: success. */
    public static final int EXIT_OK = 0;
    /** Exit code: a test failed or an error occurred. */
    public static final int EXIT_FAILURE = 1;
    /** Exit code: bad usage. */
    public static final int EXIT_USAGE = 2;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return EXIT_USAGE;
    }

    /** Builds the command line writing to the given streams (tests capture them). */
    public static CommandLine commandLine(PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(new Main(), new Factory(out, err));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setParameterExceptionHandler(Main::usageError);
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("jnet " + cmd.getCommandName() + ": unexpected error: " + e);
            return EXIT_FAILURE;
        });
        return cl;
    }

    /**
     * Reports bad usage in one or two lines (the full usage would bury the message): the problem, picocli's
     * suggestions for a misspelled option, and where the help is. An unknown word where a command belongs
     * is reported as an unknown command with the list of commands.
     */
    private static int usageError(CommandLine.ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        String unknownCommand = unknownCommand(ex);
        if (unknownCommand != null) {
            err.println("jnet: unknown command '" + unknownCommand + "'; commands: "
                    + String.join(", ", cmd.getSubcommands().keySet()));
            err.println("Run 'jnet help' for details.");
        } else {
            String name = cmd.getCommandSpec().qualifiedName();
            err.println(name + ": " + ex.getMessage());
            CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
            err.println("Run '" + name + " --help' for the options.");
        }
        err.flush();
        return EXIT_USAGE;
    }

    /** The word given where a command belongs ({@code jnet bogus}), or null. */
    private static String unknownCommand(CommandLine.ParameterException ex) {
        if (!(ex.getCommandLine().getCommand() instanceof Main)) return null;
        if (!(ex instanceof CommandLine.UnmatchedArgumentException u) || u.getUnmatched().isEmpty()) return null;
        String first = u.getUnmatched().getFirst();
        return first.startsWith("-") ? null : first;
    }

    /** Runs {@code args} and returns the exit code. */
    public static int run(PrintStream out, PrintStream err, String... args) {
        return commandLine(out, err).execute(args);
    }

    public static void main(String[] args) {
        System.exit(run(System.out, System.err, args));
    }

    /** Creates commands that need the output streams. */
    private record Factory(PrintStream out, PrintStream err) implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> cls) throws Exception {
            if (cls == PerfCommand.class) return cls.cast(new PerfCommand(out, err));
            if (cls == RdsStressCommand.class) return cls.cast(new RdsStressCommand(out, err));
            return CommandLine.defaultFactory().create(cls);
        }
    }
}
