package io.jnet.cli;

import io.jnet.app.JnetServer;
import io.jnet.app.KernelSideCommands;
import io.jnet.app.TapStack;
import io.jnet.link.DeviceStats;
import io.jnet.link.impair.Direction;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code jnet serve}: a jnet namespace on a TAP interface serving HTTP, echo and discard until SIGINT or
 * SIGTERM. Prints what it serves and the {@code ip} commands that set up the kernel side.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, versionProvider = Version.Provider.class,
        description = {"Serve HTTP, echo and discard over a jnet stack on a TAP interface.",
                "",
                "HTTP, echo (RFC 862) and discard (RFC 863) run on a jnet stack attached to",
                "a TAP interface. HTTP is the JDK's own server (com.sun.net.httpserver) on",
                "jnet's SelectorProvider, which serve makes the JVM-wide one.",
                "Needs root (CAP_NET_ADMIN) for the TAP device.",
                "jnet configures only its own side: set up the kernel side of the TAP as",
                "printed, in a network namespace named jnet-TAP (e.g. jnet-jnet0) or in the",
                "root namespace. Runs until interrupted (SIGINT, SIGTERM).",
                "",
                "HTTP resources:",
                "  GET /bytes/N  N bytes (0 <= N <= 2^40) of a fixed pattern: byte i is",
                "                (i * 0x9E3779B97F4A7C15 mod 2^64) >>> 56, i.e. 00 9e 3c da ...",
                "  PUT, POST     any path: reads the body (Content-Length or chunked;",
                "                Expect: 100-continue answered by the JDK's server) and",
                "                replies 200 with its SHA-256, 64 lowercase hex digits and a",
                "                newline",
                "  GET /         an index of these resources; HEAD gives a GET's head only",
                ""})
public final class ServeCommand implements Callable<Integer> {

    /** The Linux network namespace the printed commands use for TAP {@code ifname}: {@code jnet-IFNAME}. */
    static String suggestedNetns(String ifname) {
        return "jnet-" + ifname;
    }

    @Spec
    CommandSpec spec;

    @Mixin
    TapOptions tapOptions;

    @Option(names = "--port-http", paramLabel = "PORT", defaultValue = "80",
            description = "HTTP port, 0 for none (default ${DEFAULT-VALUE}).")
    int httpPort;

    @Option(names = "--echo", paramLabel = "PORT", defaultValue = "7",
            description = "Echo port, 0 for none (default ${DEFAULT-VALUE}).")
    int echoPort;

    @Option(names = "--discard", paramLabel = "PORT", defaultValue = "9",
            description = "Discard port, 0 for none (default ${DEFAULT-VALUE}).")
    int discardPort;

    @Option(names = "--sysctl", paramLabel = "NAME=VALUE",
            description = "Set a sysctl of the jnet namespace before serving, e.g. net.ipv4.tcp_sack=0 (repeatable; "
                    + "the names and defaults are Linux's).")
    List<String> sysctls = new ArrayList<>();

    @Override
    public Integer call() throws IOException, InterruptedException {
        TapStack.Config config;
        io.jnet.link.impair.ImpairmentConfig impairment;
        JnetServer.Ports ports;
        Map<String, String> settings;
        try {
            config = tapOptions.config();
            impairment = tapOptions.impairment();
            ports = new JnetServer.Ports(httpPort, echoPort, discardPort);
            settings = PerfCommand.parseSysctls(sysctls);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (ports.http() != 0 && !JnetProvider.install("jnet serve", err)) return Main.EXIT_FAILURE;
        TapStack stack = TapOptions.open(config, impairment, "jnet serve", err);
        if (stack == null) return Main.EXIT_FAILURE;
        settings.forEach((name, value) -> stack.namespace().sysctl().set(name, value));
        JnetServer server;
        try {
            server = JnetServer.start(stack.namespace(), stack.address(), ports);
        } catch (IOException | RuntimeException e) {
            stack.close();
            err.println("jnet serve: " + e.getMessage());
            return Main.EXIT_FAILURE;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean finished = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable stop = () -> {
            if (finished.compareAndSet(false, true)) {
                server.close();
                stack.close();
                // printed here: once the hooks finish the JVM halts, the waiting thread may never run again
                printSummary(out, stack, server);
            }
            stopped.countDown();
        };
        Thread hook = Thread.ofPlatform().name("jnet-serve-shutdown").unstarted(stop);
        Runtime.getRuntime().addShutdownHook(hook);
        printBanner(out, stack, server);
        stack.tap().onDetach(stopped::countDown);
        stopped.await();
        if (!stack.tap().isDetached()) return Main.EXIT_OK;
        err.println("jnet serve: " + stack.ifname() + " is gone (deleted, or its network namespace was); stopping");
        stop.run();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs or ran; stop did its work once
        }
        return Main.EXIT_FAILURE;
    }

    private static void printBanner(PrintWriter out, TapStack stack, JnetServer server) {
        KernelSideCommands kernel = stack.kernelSide();
        out.println("jnet serve: " + stack.config().cidr() + " on TAP " + stack.ifname() + " (MAC "
                + formatMac(stack.tap().macAddress()) + ", MTU " + stack.tap().mtu() + ")"
                + (stack.sniffer() != null ? ", capturing to " + stack.config().pcap() : ""));
        for (String line : server.describe()) out.println("  " + line);
        out.println();
        String tryCommand = server.http() != null
                ? "curl -sS -o /dev/null -w '%{http_code} %{size_download} bytes\\n' http://" + kernel.jnetAddress()
                        + (server.ports().http() == 80 ? "" : ":" + server.ports().http()) + "/bytes/1048576"
                : "ping -c 3 " + kernel.jnetAddress();
        out.println("Set up the kernel side as root (CAP_NET_ADMIN); it gets " + kernel.peerCidr() + ", no default route.");
        out.println("From a Linux network namespace:");
        for (String line : kernel.inNamespace(suggestedNetns(stack.ifname()), tryCommand)) out.println("  " + line);
        out.println("or from the root namespace:");
        for (String line : kernel.inRootNamespace()) out.println("  " + line);
        out.println();
        out.println("Stop with Ctrl-C.");
        out.flush();
    }

    private static void printSummary(PrintWriter out, TapStack stack, JnetServer server) {
        DeviceStats s = stack.tap().stats();
        out.println("jnet serve: stopped; " + stack.ifname() + " rx " + s.rxPackets.sum() + " frames, tx "
                + s.txPackets.sum() + " frames"
                + (server.http() != null ? "; http requests " + server.http().requests() : "")
                + "; internal errors " + stack.namespace().internalErrors());
        if (stack.impaired() != null) {
            out.println("jnet serve: impairment (seed " + stack.impaired().config().seed() + ") egress "
                    + stack.impaired().counts(Direction.EGRESS).summary());
            out.println("jnet serve: impairment ingress " + stack.impaired().counts(Direction.INGRESS).summary());
        }
        out.println("jnet serve: counters (as nstat -a):");
        out.print(stack.namespace().mib().toNstatString());
        out.flush();
    }

    static String formatMac(long mac) {
        StringBuilder sb = new StringBuilder(17);
        for (int shift = 40; shift >= 0; shift -= 8) {
            if (shift != 40) sb.append(':');
            sb.append(String.format("%02x", (mac >>> shift) & 0xff));
        }
        return sb.toString();
    }
}
