package io.jnet.perf;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The command line that starts another JVM like this one: the same {@code java} binary, class path and JVM
 * options ({@code -Xmx}, {@code --enable-native-access}, {@code -XX:...}, {@code -D...}).
 *
 * @param java      the {@code java} binary's path
 * @param classPath the class path, as {@code java.class.path}
 * @param options   the JVM options, in order
 */
record JvmCommand(String java, String classPath, List<String> options) {

    JvmCommand {
        Objects.requireNonNull(java, "java");
        Objects.requireNonNull(classPath, "classPath");
        options = List.copyOf(options);
    }

    /**
     * This JVM's command: {@link ProcessHandle.Info#command()} (or {@code java.home}'s {@code bin/java}),
     * {@code java.class.path}, and the input arguments of the runtime bean without a debugger agent
     * ({@code -agentlib:jdwp}, {@code -Xrunjdwp}), whose fixed port a second JVM could not listen on.
     */
    static JvmCommand current() {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> options = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(o -> !o.startsWith("-agentlib:jdwp") && !o.startsWith("-Xrunjdwp")).toList();
        return new JvmCommand(java, System.getProperty("java.class.path", ""), options);
    }

    /** The full command: {@code java OPTIONS -cp CLASSPATH MAIN ARGS}. */
    List<String> command(String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(options);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    /**
     * A process builder for {@link #command}, in this process's environment without {@code JAVA_TOOL_OPTIONS}
     * and {@code JDK_JAVA_OPTIONS}: their options are among this JVM's input arguments already, and would
     * otherwise be given twice (an agent loaded twice).
     */
    ProcessBuilder processBuilder(String mainClass, List<String> args) {
        ProcessBuilder pb = new ProcessBuilder(command(mainClass, args));
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        return pb;
    }
}
