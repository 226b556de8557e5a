package io.jnet.cli;

import io.jnet.drill.Drill;
import io.jnet.drill.ScriptFiles;
import io.jnet.drill.jnet.JnetTarget;
import io.jnet.drill.kernel.KernelTarget;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code jnet drill}: plays packetdrill scripts against jnet or this machine's Linux. */
@Command(name = "drill", mixinStandardHelpOptions = true, versionProvider = Version.Provider.class, sortOptions = false,
        description = {"Play scripts in packetdrill's language against jnet (a fresh namespace per script, on virtual time)",
                "or against this machine's Linux (a fresh network namespace with a TUN device, in real time; needs root).",
                "Prints one line per script and a summary. Exit status: 0 when every script passed or failed as listed in",
                "expected-failures.txt, 1 when a script failed, passed unexpectedly or is unsupported, 2 on a usage error."})
public final class DrillCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE.pkt|DIR", arity = "1..*", description = "Scripts, or directories searched for *.pkt.")
    List<Path> paths;

    @Option(names = "--target", paramLabel = "jnet|kernel", defaultValue = "jnet",
            description = "The stack to play against (default: ${DEFAULT-VALUE}).")
    String target;

    @Option(names = {"-v", "--verbose"}, description = "Print every event as it plays.")
    boolean verbose;

    @Option(names = "-D", paramLabel = "NAME=value", description = "Define a symbol the scripts use.")
    Map<String, String> defines = new LinkedHashMap<>();

    @Option(names = "--tolerance_usecs", paramLabel = "US", defaultValue = "4000",
            description = "How far an event may be from its time, in microseconds (default: ${DEFAULT-VALUE}).")
    long toleranceUsecs;

    @Option(names = "--local_ip", defaultValue = "192.168.0.1", description = "The stack's address (default: ${DEFAULT-VALUE}).")
    String localIp;

    @Option(names = "--remote_ip", defaultValue = "192.0.2.1", description = "The runner's address (default: ${DEFAULT-VALUE}).")
    String remoteIp;

    @Option(names = "--gateway_ip", defaultValue = "192.168.0.2", description = "The stack's next hop to the runner (default: ${DEFAULT-VALUE}).")
    String gatewayIp;

    @Option(names = "--mtu", defaultValue = "1500", description = "The device's MTU in bytes (default: ${DEFAULT-VALUE}).")
    int mtu;

    @Option(names = "--runs", paramLabel = "N",
            description = "Times in a row a script must pass (default: 1 on jnet, 3 on the kernel, whose timing is real).")
    Integer runs;

    @Override
    public Integer call() throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, java.nio.charset.StandardCharsets.UTF_8);
        ScriptFiles files;
        Inet4Address local, remote, gateway;
        try {
            validate();
            files = ScriptFiles.collect(paths);
            local = v4(localIp, "--local_ip");
            remote = v4(remoteIp, "--remote_ip");
            gateway = v4(gatewayIp, "--gateway_ip");
            if (!sameSlash16(local, gateway)) {
                throw new IllegalArgumentException("--gateway_ip " + gatewayIp + " is not in the local /16 of --local_ip " + localIp);
            }
            if (remote.equals(local) || remote.equals(gateway)) {
                throw new IllegalArgumentException("--remote_ip " + remoteIp + " must differ from --local_ip and --gateway_ip");
            }
        } catch (IOException | IllegalArgumentException e) {
            spec.commandLine().getErr().println("jnet drill: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        Drill.TargetFactory factory;
        int n;
        switch (target) {
            case "jnet" -> {
                factory = () -> new JnetTarget(local, remote, gateway, mtu);
                n = runs == null ? 1 : runs;
            }
            case "kernel" -> {
                String reason = KernelTarget.unavailableReason();
                if (reason != null) {
                    spec.commandLine().getErr().println("jnet drill: cannot play against the kernel here: " + reason);
                    return Main.EXIT_FAILURE;
                }
                KernelTarget.Options o = new KernelTarget.Options(local, gateway, remote, 16, mtu, true);
                factory = () -> KernelTarget.open(o);
                n = runs == null ? 3 : runs;
                files = files.withoutExpectedFailures(); // the expected failures are jnet's: Linux passes every script
                Drill.warmUp(factory, 5);
            }
            default -> {
                spec.commandLine().getErr().println("jnet drill: --target must be jnet or kernel, not " + target);
                return Main.EXIT_USAGE;
            }
        }
        var results = Drill.run(files, factory, new Drill.Settings(n, defines, toleranceUsecs, verbose), out);
        return Drill.allGood(results) ? Main.EXIT_OK : Main.EXIT_FAILURE;
    }

    /** The options' ranges (picocli checks their types). */
    private void validate() {
        if (toleranceUsecs < 0 || toleranceUsecs > io.jnet.drill.play.Player.MAX_TOLERANCE_USECS) {
            throw new IllegalArgumentException("--tolerance_usecs must be 0 to " + io.jnet.drill.play.Player.MAX_TOLERANCE_USECS
                    + ", not " + toleranceUsecs);
        }
        if (runs != null && runs < 1) throw new IllegalArgumentException("--runs must be 1 or more, not " + runs);
        if (mtu < 68 || mtu > 65535) throw new IllegalArgumentException("--mtu must be 68 to 65535, not " + mtu);
        for (String name : defines.keySet()) {
            if (name.isBlank()) throw new IllegalArgumentException("-D needs NAME=value, with a name");
        }
        for (Path p : paths) {
            if (p.toString().isEmpty()) throw new IllegalArgumentException("an empty path was given as a script");
        }
    }

    private static boolean sameSlash16(Inet4Address a, Inet4Address b) {
        byte[] x = a.getAddress(), y = b.getAddress();
        return x[0] == y[0] && x[1] == y[1];
    }

    private static Inet4Address v4(String text, String option) {
        try {
            if (InetAddress.getByName(text) instanceof Inet4Address a && text.matches("[0-9.]+")) return a;
        } catch (UnknownHostException e) {
            // below
        }
        throw new IllegalArgumentException(option + " must be an IPv4 address, not " + text);
    }
}
