package io.jnet.testing;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * A Linux network namespace made for one test ({@code ip netns add jnet-test-PID-XXXX}), where the
 * kernel plays the peer of jnet: the test moves a TAP interface in, gives it an address, sets it up and
 * runs kernel-side commands (ping, curl, python3) inside. A command that is not installed skips the
 * test (JUnit assumption, with the reason) instead of failing it.
 *
 * <p>Safety rules, enforced here: addresses come only from the documentation blocks 192.0.2.0/24
 * (TEST-NET-1) and 198.51.100.0/24 (TEST-NET-2) of RFC 5737, with a prefix of /24 or longer; no
 * default route is ever added, so nothing can leave the namespace. {@link #close()} kills the processes
 * started here and deletes the namespace (which deletes the virtual interfaces in it); a JVM shutdown
 * hook closes namespaces a test forgot, and namespaces left by a killed JVM (whose pid, part of the
 * name, is gone) are deleted the next time one is created.
 *
 * <p>Needs root ({@code CAP_SYS_ADMIN}, {@code CAP_NET_ADMIN}), iproute2 and {@code /dev/net/tun}:
 * tests call {@link #assumeAvailable()} first so they are skipped, with the reason, elsewhere.
 */
public final class LinuxNetns implements AutoCloseable {

    /** Timeout of commands run with {@link #exec(String...)}. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private static final String PREFIX = "jnet-test-";
    private static final Pattern OWNED_NAME = Pattern.compile(PREFIX + "(\\d+)-[0-9a-f]+");
    private static final Pattern ADDRESS =
            Pattern.compile("(192\\.0\\.2|198\\.51\\.100)\\.(\\d{1,3})/(\\d{1,2})");
    private static final Pattern DEVICE = Pattern.compile("[A-Za-z0-9_.%@-]{1,15}");
    private static final Set<LinuxNetns> LIVE = ConcurrentHashMap.newKeySet();
    private static volatile String unavailableReason;
    private static volatile boolean probed;
    private static boolean staleSwept;

    static {
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("jnet-netns-cleanup").unstarted(
                () -> List.copyOf(LIVE).forEach(LinuxNetns::close)));
    }

    private final String name;
    private final List<BackgroundProcess> processes = new ArrayList<>();
    private boolean closed;

    private LinuxNetns(String name) {
        this.name = name;
    }

    /**
     * True when namespaces can be made here: Linux, effective uid 0, {@code ip} installed,
     * {@code /dev/net/tun} can be opened and a probe namespace can be created. Checked once.
     */
    public static boolean available() {
        return unavailableReason().isEmpty();
    }

    /** Why {@link #available()} is false, or empty when it is true. */
    public static synchronized Optional<String> unavailableReason() {
        if (!probed) {
            unavailableReason = probe();
            probed = true;
        }
        return Optional.ofNullable(unavailableReason);
    }

    /** Skips the calling test (JUnit assumption) with the reason when namespaces are unavailable. */
    public static void assumeAvailable() {
        Optional<String> reason = unavailableReason();
        Assumptions.assumeTrue(reason.isEmpty(), () -> "Linux network namespaces unavailable: " + reason.orElse(""));
    }

    private static String probe() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) return "not Linux";
        long euid = effectiveUid();
        if (euid != 0) return "not root (effective uid " + euid + ")";
        if (!Tools.has("ip")) return "'ip' (iproute2) is not installed";
        try {
            // opening the clone device without TUNSETIFF creates nothing
            FileChannel.open(Path.of("/dev/net/tun"), StandardOpenOption.READ, StandardOpenOption.WRITE).close();
        } catch (IOException | RuntimeException e) {
            return "/dev/net/tun cannot be opened: " + e;
        }
        String probeName = PREFIX + ProcessHandle.current().pid() + "-0";
        try {
            CommandResult add = Tools.run(DEFAULT_TIMEOUT, "ip", "netns", "add", probeName);
            if (!add.ok()) return "cannot create a network namespace: " + add.describe();
            Tools.run(DEFAULT_TIMEOUT, "ip", "netns", "del", probeName);
        } catch (IOException e) {
            return "cannot run ip: " + e;
        }
        return null;
    }

    /** Effective uid from {@code /proc/self/status}, or -1 when it cannot be read. */
    static long effectiveUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) return Long.parseLong(line.substring(4).trim().split("\\s+")[1]);
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /**
     * Creates a fresh namespace named {@code jnet-test-PID-XXXX} with its loopback down and no
     * interfaces or routes.
     *
     * @throws IOException when {@code ip netns add} fails
     */
    public static LinuxNetns create() throws IOException {
        sweepStale();
        long pid = ProcessHandle.current().pid();
        for (int attempt = 0; ; attempt++) {
            String name = PREFIX + pid + "-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
            CommandResult r = Tools.run(DEFAULT_TIMEOUT, "ip", "netns", "add", name);
            if (r.ok()) {
                LinuxNetns ns = new LinuxNetns(name);
                LIVE.add(ns);
                return ns;
            }
            if (attempt >= 5 || !r.stderr().contains("exists")) throw new IOException(r.describe());
        }
    }

    /** Deletes namespaces named by this class whose creating JVM is gone. */
    private static synchronized void sweepStale() {
        if (staleSwept) return;
        staleSwept = true;
        try {
            CommandResult list = Tools.run(DEFAULT_TIMEOUT, "ip", "netns", "list");
            for (String line : list.stdout().split("\n")) {
                String ns = line.trim().split("\\s+")[0];
                Matcher m = OWNED_NAME.matcher(ns);
                if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                    Tools.run(DEFAULT_TIMEOUT, "ip", "netns", "del", ns);
                }
            }
        } catch (IOException | RuntimeException e) {
            // best effort
        }
    }

    /** The namespace name, as {@code ip netns} knows it. */
    public String name() { return name; }

    /**
     * Runs a command inside the namespace ({@code ip netns exec NAME cmd...}) with
     * {@link #DEFAULT_TIMEOUT}; a non-zero exit is reported in the result, not thrown.
     *
     * @throws IOException when the command cannot be started
     */
    public CommandResult exec(String... cmd) throws IOException {
        return exec(DEFAULT_TIMEOUT, cmd);
    }

    /** As {@link #exec(String...)} with a timeout, after which the command is killed. */
    public CommandResult exec(Duration timeout, String... cmd) throws IOException {
        checkOpen();
        return Tools.run(timeout, inside(cmd));
    }

    /**
     * Runs a command inside the namespace and requires it to succeed.
     *
     * @throws IOException when it cannot be started, fails or times out (with its output)
     */
    public CommandResult execChecked(String... cmd) throws IOException {
        return exec(cmd).checkSuccess();
    }

    /**
     * Starts a command inside the namespace in the background; it is killed at {@link #close()} if
     * still running.
     *
     * @throws IOException when it cannot be started
     */
    public synchronized BackgroundProcess start(String... cmd) throws IOException {
        checkOpen();
        BackgroundProcess p = BackgroundProcess.start(inside(cmd));
        processes.add(p);
        return p;
    }

    /**
     * Moves interface {@code dev} from this host's namespace into this one ({@code ip link set DEV netns NAME}).
     *
     * @throws IOException when ip fails (no such device, ...)
     */
    public void moveLink(String dev) throws IOException {
        checkOpen();
        Tools.run(DEFAULT_TIMEOUT, "ip", "link", "set", "dev", checkDevice(dev), "netns", name).checkSuccess();
    }

    /**
     * Adds an IPv4 address to {@code dev} inside the namespace.
     *
     * @param cidr address and prefix, e.g. {@code 192.0.2.1/24}; only 192.0.2.0/24 and 198.51.100.0/24
     *     (RFC 5737 documentation blocks) with a prefix length of 24..32
     * @throws IllegalArgumentException for any other address
     * @throws IOException when ip fails
     */
    public void addAddress(String dev, String cidr) throws IOException {
        checkAddress(cidr);
        execChecked("ip", "address", "add", cidr, "dev", checkDevice(dev));
    }

    /** Sets {@code dev} (e.g. {@code lo} or the moved TAP) up inside the namespace. */
    public void linkUp(String dev) throws IOException {
        execChecked("ip", "link", "set", "dev", checkDevice(dev), "up");
    }

    /**
     * Sets a sysctl inside the namespace, e.g. {@code net.ipv6.conf.jnett0.disable_ipv6 = 1}, by writing
     * its file under {@code /proc/sys} from a shell in the namespace (no procps needed).
     */
    public void sysctl(String key, String value) throws IOException {
        execChecked("sh", "-c", "printf '%s\\n' \"$1\" > \"$2\"", "sh", value, procSysPath(key, value).toString());
    }

    /**
     * Sets a sysctl of this host's namespace (the one the JVM runs in) by writing its file under
     * {@code /proc/sys}.
     *
     * @throws IOException when the file cannot be written (no such key, not root)
     */
    public static void hostSysctl(String key, String value) throws IOException {
        Files.writeString(procSysPath(key, value), value + "\n");
    }

    /** {@code /proc/sys/net/ipv4/ip_forward} for {@code net.ipv4.ip_forward} (sysctl(8)'s naming: a key with a '/' is a path). */
    static Path procSysPath(String key, String value) {
        if (!key.matches("[A-Za-z0-9_.%@/-]+") || key.contains("..") || value.contains("\n")) {
            throw new IllegalArgumentException("bad sysctl " + key + "=" + value);
        }
        return Path.of("/proc/sys", key.contains("/") ? key : key.replace('.', '/'));
    }

    static void checkAddress(String cidr) {
        Matcher m = ADDRESS.matcher(cidr);
        if (!m.matches() || Integer.parseInt(m.group(2)) > 255 || Integer.parseInt(m.group(3)) < 24
                || Integer.parseInt(m.group(3)) > 32) {
            throw new IllegalArgumentException("test addresses must lie in 192.0.2.0/24 or 198.51.100.0/24 with a "
                    + "prefix of /24 or longer (RFC 5737): " + cidr);
        }
    }

    private static String checkDevice(String dev) {
        if (!DEVICE.matcher(dev).matches()) throw new IllegalArgumentException("bad interface name: " + dev);
        return dev;
    }

    private List<String> inside(String... cmd) {
        if (cmd.length == 0) throw new IllegalArgumentException("empty command");
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", name));
        // ip netns exec searches PATH; give it the full path when sbin is not on PATH (and skip the test,
        // with the reason, when the command is not installed: ip would start and fail in the background)
        full.add(Tools.require(cmd[0]).toString());
        full.addAll(List.of(cmd).subList(1, cmd.length));
        return full;
    }

    private synchronized void checkOpen() {
        if (closed) throw new IllegalStateException("namespace " + name + " is closed");
    }

    /**
     * Kills the processes started here and deletes the namespace; the kernel deletes the virtual
     * interfaces in it (a TAP interface moved here disappears, and its jnet device stops reading).
     * Idempotent; failures are printed, not thrown.
     */
    @Override
    public void close() {
        List<BackgroundProcess> toKill;
        synchronized (this) {
            if (closed) return;
            closed = true;
            toKill = List.copyOf(processes);
            processes.clear();
        }
        toKill.forEach(BackgroundProcess::close);
        try {
            CommandResult r = Tools.run(DEFAULT_TIMEOUT, "ip", "netns", "del", name);
            if (!r.ok()) System.err.println("jnet: deleting network namespace failed: " + r.describe());
        } catch (IOException e) {
            System.err.println("jnet: deleting network namespace " + name + " failed: " + e);
        }
        LIVE.remove(this);
    }

    @Override
    public String toString() {
        return "LinuxNetns[" + name + (closed ? ", closed" : "") + "]";
    }
}
