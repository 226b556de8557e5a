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
import java.net.Inet4Address;
import java.net.URI;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
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
 * {@code jnet fetch URL}: downloads one URL with the JDK's {@code HttpClient} over a jnet stack attached to a TAP
 * interface (jnet's SelectorProvider made the JVM-wide one, see {@link JnetProvider}) and prints the status, byte
 * count, SHA-256 and rate. Exit 0 on a 2xx status, 1 otherwise, 2 for bad usage: a URL
 * that is not an IPv4 literal on the TAP's subnet, or an output file that cannot be written, is refused
 * before the TAP is opened.
 */
@Command(name = "fetch", mixinStandardHelpOptions = true, versionProvider = Version.Provider.class,
        description = {"Fetch a URL over a jnet stack on a TAP interface.",
                "",
                "The client is the JDK's own (java.net.http.HttpClient, HTTP/1.1) on jnet's",
                "SelectorProvider, which fetch makes the JVM-wide one.",
                "Prints status, bytes, SHA-256 and rate (the reason phrase is the status",
                "code's standard one). jnet speaks IPv4 and resolves no names: the URL's",
                "host is an IPv4 address on the TAP's subnet (see --address).",
                "Needs root (CAP_NET_ADMIN) for the TAP device. The kernel side of the TAP",
                "must be up before the fetch: create it first with",
                "'ip tuntap add dev jnet0 mode tap', address it and set it up; jnet",
                "attaches to it. To keep it off the host's interfaces, do all of it in a",
                "network namespace NS and run 'ip netns exec NS jnet fetch URL' there.",
                "Exit 0 on a 2xx status, 1 otherwise, 2 for bad usage."})
public final class FetchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    TapOptions tapOptions;

    @Parameters(index = "0", paramLabel = "URL",
            description = "http://ADDRESS[:PORT]/PATH, ADDRESS an IPv4 literal on the TAP's subnet.")
    String url;

    @Option(names = {"-o", "--out"}, paramLabel = "FILE", description = "Write the body of a 2xx response to FILE.")
    Path outFile;

    @Option(names = "--connect-timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "Limit for the TCP handshake (default ${DEFAULT-VALUE}).")
    double connectTimeoutSeconds;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "300",
            description = "Limit for the whole exchange, connect included (default ${DEFAULT-VALUE}).")
    double timeoutSeconds;

    @Override
    public Integer call() throws IOException {
        TapStack.Config config;
        io.jnet.link.impair.ImpairmentConfig impairment;
        Duration connectTimeout;
        Duration timeout;
        try {
            config = tapOptions.config();
            impairment = tapOptions.impairment();
            connectTimeout = seconds("--connect-timeout", connectTimeoutSeconds);
            timeout = seconds("--timeout", timeoutSeconds);
            checkTarget(url, config);
            if (outFile != null) OutputFiles.checkWritable(outFile);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!JnetProvider.install("jnet fetch", err)) return Main.EXIT_FAILURE;
        TapStack stack = TapOptions.open(config, impairment, "jnet fetch", err);
        if (stack == null) return Main.EXIT_FAILURE;
        try (stack) {
            OutputStream sink;
            try {
                sink = outFile == null ? OutputStream.nullOutputStream()
                        : new BufferedOutputStream(Files.newOutputStream(outFile), 1 << 16);
            } catch (IOException e) {
                err.println("jnet fetch: " + OutputFiles.describe(outFile, e));
                return Main.EXIT_FAILURE;
            }
            FetchResult r;
            try (sink) {
                r = new JnetFetch(stack.namespace(), connectTimeout, timeout).fetch(url, sink);
            } catch (IOException e) {
                explain(e, stack, err);
                return Main.EXIT_FAILURE;
            }
            out.println(describe(r));
            if (stack.impaired() != null) out.println("impairment " + stack.impaired().report());
            out.flush();
            if (stack.namespace().internalErrors() != 0) {
                err.println("jnet fetch: the stack counted " + stack.namespace().internalErrors() + " internal errors, last: "
                        + stack.namespace().lastInternalError());
            }
            return r.status() >= 200 && r.status() < 300 ? Main.EXIT_OK : Main.EXIT_FAILURE;
        }
    }

    /**
     * Refuses a URL jnet cannot fetch, before the TAP is opened: a malformed URL, an IPv6 literal, a host
     * name, or an address off the TAP's subnet (jnet's namespace holds only the connected route).
     *
     * @throws IllegalArgumentException naming the problem and a usable address
     */
    static void checkTarget(String url, TapStack.Config config) {
        URI u = JnetFetch.parseUrl(url);
        String host = JnetFetch.host(u);
        String example = "e.g. http://" + config.peerAddress().getHostAddress() + "/ (the kernel side of the TAP)";
        if (host.indexOf(':') >= 0) {
            throw new IllegalArgumentException("bad URL '" + url + "': jnet fetch speaks IPv4 only; give an IPv4 address on "
                    + config.subnetCidr() + ", " + example);
        }
        Inet4Address address;
        try {
            address = (Inet4Address) JnetFetch.resolve(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("bad URL '" + url + "': '" + host + "' is not an IPv4 address and jnet"
                    + " resolves no names; give an address on " + config.subnetCidr() + ", " + example);
        }
        if (!config.onSubnet(address)) throw new IllegalArgumentException(noRoute(address.getHostAddress(), config));
    }

    private static String noRoute(String host, TapStack.Config config) {
        return "no route to " + host + ": fetch reaches only hosts on the TAP's subnet (" + config.subnetCidr() + ")";
    }

    /** Prints why the fetch failed and, when nobody answered on the link, how to set up the kernel side. */
    private void explain(IOException e, TapStack stack, PrintWriter err) {
        if (e instanceof SocketTimeoutException) {
            err.println("jnet fetch: no complete response from " + url + " within " + formatSeconds(timeoutSeconds));
            return;
        }
        Errno errno = e instanceof ErrnoException x ? x.errno() : null;
        if (errno == Errno.ENETUNREACH) {
            err.println("jnet fetch: " + noRoute(JnetFetch.host(JnetFetch.parseUrl(url)), stack.config()));
            return;
        }
        err.println("jnet fetch: " + url + ": " + e.getMessage());
        if (errno == Errno.ETIMEDOUT || errno == Errno.EHOSTUNREACH) {
            KernelSideCommands kernel = stack.kernelSide();
            err.println("  nobody answered on " + stack.ifname() + ": is its kernel side up? e.g. before running jnet fetch:");
            err.println("    ip tuntap add dev " + stack.ifname() + " mode tap");
            for (String line : kernel.inRootNamespace()) err.println("    " + line);
        }
    }

    /** {@code 200 OK  67108864 bytes  sha256 ab..  1.234 s  435.1 Mbit/s}. */
    static String describe(FetchResult r) {
        return String.format(Locale.ROOT, "%d %s  %d bytes  sha256 %s  %.3f s  %.1f Mbit/s",
                r.status(), r.reason(), r.bytes(), r.sha256(), r.elapsedNanos() / 1e9, r.bitsPerSecond() / 1e6);
    }

    /** {@code 3 s}, {@code 2.5 s}: seconds as given, without trailing zeros. */
    static String formatSeconds(double seconds) {
        return io.jnet.app.JnetStreams.seconds(Duration.ofNanos(Math.round(seconds * 1e9)));
    }

    private static Duration seconds(String option, double value) {
        if (!(value > 0) || value > 86_400) throw new IllegalArgumentException(option + " must be between 0 and 86400 seconds: " + value);
        return Duration.ofNanos(Math.round(value * 1e9));
    }
}
