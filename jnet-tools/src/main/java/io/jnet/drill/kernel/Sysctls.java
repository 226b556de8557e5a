package io.jnet.drill.kernel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.regex.Pattern;

/**
 * Writes {@code net.*} sysctls of one network namespace through {@code /proc/sys}. The files under
 * {@code /proc/sys/net} show the namespace of the thread that opens them, so the writes run on the namespace's thread.
 * Names follow sysctl(8): dots separate the levels ({@code net.ipv4.tcp_sack}); a name with a slash is a path below
 * {@code /proc/sys} ({@code net/ipv4/conf/eth0.1/rp_filter}).
 */
final class Sysctls {

    private static final Pattern NAME = Pattern.compile("net[./][A-Za-z0-9_.:@/-]+");
    private static final Path ROOT = Path.of("/proc/sys");

    private final Netns netns;

    Sysctls(Netns netns) {
        this.netns = netns;
    }

    /**
     * The file of {@code name} below {@code /proc/sys}.
     *
     * @throws IllegalArgumentException for a name outside {@code net.*} (those are not per namespace) or a malformed one
     */
    static Path path(String name) {
        if (name == null || !NAME.matcher(name).matches() || name.contains("..") || name.contains("//")) {
            throw new IllegalArgumentException("not a per-namespace sysctl (only net.* names): " + name);
        }
        return ROOT.resolve(name.contains("/") ? name : name.replace('.', '/'));
    }

    /**
     * Sets {@code name} to {@code value} in the namespace.
     *
     * @throws IllegalArgumentException for a name outside {@code net.*}, a value with a line break, or a value the
     *     kernel refuses (EINVAL and the like, with its message)
     * @throws UnsupportedOperationException when this kernel (in this namespace) has no such sysctl
     */
    void set(String name, String value) {
        Path file = path(name);
        if (value == null || value.indexOf('\n') >= 0) throw new IllegalArgumentException("bad value for " + name + ": " + value);
        try {
            netns.call(() -> {
                if (!Files.isRegularFile(file)) throw new NoSuchFileException(file.toString());
                Files.write(file, (value + "\n").getBytes(StandardCharsets.US_ASCII), StandardOpenOption.WRITE);
                return null;
            });
        } catch (NoSuchFileException e) {
            throw new UnsupportedOperationException("this kernel has no sysctl " + name + " in a network namespace");
        } catch (IOException e) {
            throw new IllegalArgumentException("the kernel refused " + name + " = " + value + ": " + e.getMessage(), e);
        }
    }
}
