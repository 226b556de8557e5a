package io.jnet.cli;

import io.jnet.app.FetchResult;
import io.jnet.app.JnetFetch;
import io.jnet.app.KernelSideCommands;
import io.jnet.app.TapStack;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jnet fetch URL}: downloads one URL over a jnet stack attached to a TAP interface and prints the
 * status, byte count, SHA-256 and rate. Exit 0 on a 2xx status, 1 otherwise.
 */
@Command(name = "fetch", mixinStandardHelpOptions = true,
        description = {"Fetch a URL over a jnet stack attached to a TAP interface; print status, bytes, SHA-256 and rate.",
                "The kernel side of the TAP must be up before the fetch: create it first with",
                "'ip tuntap add dev jnet0 mode tap', address it and set it up; jnet attaches to it. Needs root.",
                "To keep it off the host's interfaces, do all of it in a network namespace and run",
                "'ip netns exec NS jnet fetch ...' there.",
                "Exit 0 on a 2xx status, 1 otherwise."})
public final class FetchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    TapOptions tapOptions;

    @Parameters(index = "0", paramLabel = "URL", description = "http://ADDRESS[:PORT]/PATH (IPv4 literal host).")
    String url;

    @Option(names = {"-o", "--out"}, paramLabel = "FILE", description = "Write the body of a 2xx response to FILE.")
    Path outFile;

    @Option(names = "--connect-timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "Limit for the TCP handshake (default ${DEFAULT-VALUE}).")
    double connectTimeoutSeconds;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "300",
            description = "Limit for the exchange once connected (default ${DEFAULT-VALUE}).")
    double timeoutSeconds;

    @Override
    public Integer call() throws IOException {
        TapStack.Config config;
        Duration connectTimeout;
        Duration timeout;
        try {
            config = tapOptions.config();
            connectTimeout = seconds("--connect-timeout", connectTimeoutSeconds);
            timeout = seconds("--timeout", timeoutSeconds);
            io.jnet.app.HttpUrl.parse(url);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        TapStack stack;
        try {
            stack = TapStack.open(config);
        } catch (IOException e) {
            err.println("jnet fetch: cannot open TAP interface " + config.tapName() + ": " + e.getMessage()
                    + " (needs root or CAP_NET_ADMIN)");
            return Main.EXIT_FAILURE;
        }
        try (stack; OutputStream sink = outFile == null ? OutputStream.nullOutputStream()
                : new BufferedOutputStream(Files.newOutputStream(outFile), 1 << 16)) {
            FetchResult r;
            try {
                r = new JnetFetch(stack.namespace(), connectTimeout, timeout).fetch(url, sink);
            } catch (IOException e) {
                err.println("jnet fetch: " + url + ": " + e.getMessage());
                if (!noAnswer(e)) return Main.EXIT_FAILURE;
                KernelSideCommands kernel = stack.kernelSide();
                err.println("  is the kernel side of " + stack.ifname() + " up? e.g. before running jnet fetch:");
                err.println("    ip tuntap add dev " + stack.ifname() + " mode tap");
                for (String line : kernel.inRootNamespace()) err.println("    " + line);
                return Main.EXIT_FAILURE;
            }
            out.println(describe(r));
            out.flush();
            if (stack.namespace().internalErrors() != 0) {
                err.println("jnet fetch: the stack counted " + stack.namespace().internalErrors() + " internal errors, last: "
                        + stack.namespace().lastInternalError());
            }
            return r.status() >= 200 && r.status() < 300 ? Main.EXIT_OK : Main.EXIT_FAILURE;
        }
    }

    /** True for the errors of a link nobody answers on (no SYN-ACK, no RST, no ARP reply). */
    private static boolean noAnswer(IOException e) {
        return e instanceof ErrnoException x
                && (x.errno() == Errno.ETIMEDOUT || x.errno() == Errno.EHOSTUNREACH || x.errno() == Errno.ENETUNREACH);
    }

    /** {@code 200 OK  67108864 bytes  sha256 ab..  1.234 s  435.1 Mbit/s}. */
    static String describe(FetchResult r) {
        return String.format(Locale.ROOT, "%d %s  %d bytes  sha256 %s  %.3f s  %.1f Mbit/s",
                r.status(), r.reason(), r.bytes(), r.sha256(), r.elapsedNanos() / 1e9, r.bitsPerSecond() / 1e6);
    }

    private static Duration seconds(String option, double value) {
        if (!(value > 0) || value > 86_400) throw new IllegalArgumentException(option + " must be between 0 and 86400 seconds: " + value);
        return Duration.ofNanos(Math.round(value * 1e9));
    }
}
