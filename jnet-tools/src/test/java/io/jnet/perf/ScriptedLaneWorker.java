package io.jnet.perf;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * A lane worker for {@link ChildJvmLaneTest}: {@link LaneWorker#serve} with a scripted path and test, in a JVM
 * of its own. Arguments: {@code SOCKET MODE}, where MODE is how opening the path goes: {@code ok} (an
 * {@link InMemoryPath}), {@code unavailable} (UnsupportedOperationException), {@code broken} (IOException),
 * or {@code exit} (the JVM exits with status 3 before it connects). A run's request size picks what it does:
 * 1 returns {@link Fixtures#run} with 1234 transactions/s, 2 throws a PerfException, 3 a
 * StackUnavailableException, 4 halts the JVM with status 7, 5 never returns.
 */
final class ScriptedLaneWorker {

    private ScriptedLaneWorker() {}

    public static void main(String[] args) throws IOException {
        String mode = args[1];
        if (mode.equals("exit")) System.exit(3);
        PathRegistry.Opener opener = sysctls -> switch (mode) {
            case "ok" -> new InMemoryPath("scripted");
            case "unavailable" -> throw new UnsupportedOperationException("scripted stack not built");
            case "broken" -> throw new IOException("scripted set-up failure");
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        };
        LaneWorker.serve(Path.of(args[0]), opener, Map.of(), kind -> (path, spec) -> switch (spec.requestSize()) {
            case 1 -> Fixtures.run(path.stack(), spec.kind(), 1234);
            case 2 -> throw new PerfException("scripted failure");
            case 3 -> throw new StackUnavailableException("scripted stack gone", null);
            case 4 -> {
                Runtime.getRuntime().halt(7);
                throw new AssertionError("halted");
            }
            default -> {
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new PerfException("woken");
            }
        });
        System.exit(0);
    }
}
