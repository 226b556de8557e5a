package io.jnet.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a main class in a child JVM: this JVM's {@code java} ({@code java.home}), its class path
 * ({@code java.class.path}, so test classes are there too), the given JVM options and arguments, standard input
 * from {@code /dev/null}, standard output and error collected (in temporary files, so a chatty child never
 * blocks on a full pipe). The child gets exactly the options given: {@code JAVA_TOOL_OPTIONS},
 * {@code JDK_JAVA_OPTIONS} and {@code _JAVA_OPTIONS} are removed from its environment (an agent they name, such
 * as a debugger's, would otherwise hold a kernel socket in the child and print to its standard error). For what must not happen in the shared test JVM: JVM-wide hooks such as
 * {@code Socket.setSocketImplFactory}, system properties read once, {@code System.exit}.
 *
 * <pre>{@code
 * CommandResult r = ChildJvm.run(MyMain.class, List.of("--enable-native-access=ALL-UNNAMED", "-Dx=y"),
 *         List.of("arg"), Duration.ofSeconds(60));
 * assertThat(r.ok()).as(r.describe()).isTrue();
 * }</pre>
 */
public final class ChildJvm {
    private ChildJvm() {}

    /** The {@code java} launcher of the running JVM. */
    public static Path javaLauncher() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /**
     * The command line {@link #run} starts: launcher, {@code jvmOptions}, {@code -cp} with this JVM's class path,
     * the main class's name, {@code args}.
     */
    public static List<String> command(Class<?> mainClass, List<String> jvmOptions, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaLauncher().toString());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass.getName());
        cmd.addAll(args);
        return cmd;
    }

    /**
     * Runs {@code mainClass} to completion, or kills it (and its descendants) once {@code timeout} has passed.
     *
     * @param mainClass  a class with {@code public static void main(String[])}
     * @param jvmOptions options before the class path, e.g. {@code --enable-native-access=ALL-UNNAMED}, {@code -Dk=v}
     * @param args       the program's arguments
     * @param timeout    the longest the child may run
     * @return exit status (-1 when killed at the timeout), standard output and error (UTF-8)
     * @throws IOException          when the child cannot be started or its output not read
     * @throws InterruptedException when this thread is interrupted while waiting (the child is killed)
     */
    public static CommandResult run(Class<?> mainClass, List<String> jvmOptions, List<String> args, Duration timeout)
            throws IOException, InterruptedException {
        return run(List.of(), mainClass, jvmOptions, args, timeout);
    }

    /**
     * {@link #run(Class, List, List, Duration)} under a wrapper command, e.g. {@code ip netns exec NAME} to run the
     * child in a Linux network namespace.
     *
     * @param wrapper the words before the {@code java} launcher (empty for none)
     */
    public static CommandResult run(List<String> wrapper, Class<?> mainClass, List<String> jvmOptions, List<String> args,
            Duration timeout) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.addAll(command(mainClass, jvmOptions, args));
        Path out = Files.createTempFile("jnet-child", ".out");
        Path err = Files.createTempFile("jnet-child", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().keySet().removeAll(List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"));
            Process p = pb
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            boolean finished;
            try {
                finished = p.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                kill(p);
                throw e;
            }
            if (!finished) kill(p);
            return new CommandResult(List.copyOf(cmd), finished ? p.exitValue() : -1,
                    Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8), !finished);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static void kill(Process p) throws InterruptedException {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
    }
}
