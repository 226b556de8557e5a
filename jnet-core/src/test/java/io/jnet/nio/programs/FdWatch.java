package io.jnet.nio.programs;

import io.jnet.nio.JnetLauncher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.stream.Stream;

/**
 * Runs a program's main (through {@link JnetLauncher}, or directly with {@code --no-launcher} when an agent installed
 * jnet) while a daemon thread lists {@code /proc/self/fd} every 2 ms; prints {@code kernel-sockets N} at the end:
 * the distinct kernel sockets ({@code socket:[inode]} links) the process held at any sample, and exits with 0, or 1
 * when the program threw (its stack trace on standard error). The program itself is unchanged.
 */
public final class FdWatch {
    private FdWatch() {}

    static final Set<String> SEEN = new ConcurrentSkipListSet<>();

    static void sample() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            fds.forEach(fd -> {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:")) SEEN.add(target);
                } catch (IOException gone) {
                    // closed between the listing and the read
                }
            });
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc/self/fd", e);
        }
    }

    public static void main(String[] args) throws Throwable {
        Thread watcher = Thread.ofPlatform().daemon().name("fd-watch").start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                sample();
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        int status = 0;
        try {
            if (args.length > 0 && args[0].equals("--no-launcher")) {
                Class<?> main = Class.forName(args[1]);
                main.getMethod("main", String[].class).invoke(null, (Object) java.util.Arrays.copyOfRange(args, 2, args.length));
            } else {
                JnetLauncher.main(args);
            }
        } catch (java.lang.reflect.InvocationTargetException e) {
            e.getCause().printStackTrace();
            status = 1;
        } catch (Throwable t) {
            t.printStackTrace();
            status = 1;
        } finally {
            watcher.interrupt();
            watcher.join();
            sample();
            System.out.println("kernel-sockets " + SEEN.size() + (SEEN.isEmpty() ? "" : " " + new TreeSet<>(SEEN)));
        }
        System.out.flush();
        System.exit(status); // also when the program left non-daemon threads behind after failing
    }
}
