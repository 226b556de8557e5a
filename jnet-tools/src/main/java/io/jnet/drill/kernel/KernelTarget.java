package io.jnet.drill.kernel;

import io.jnet.drill.target.Syscalls;
import io.jnet.drill.target.Target;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * This machine's Linux kernel as a script's target, set up as packetdrill sets up its local tests, but in a network
 * namespace of its own so that nothing on the host is touched: a fresh namespace {@code jnet-drill-PID-N}, {@code lo}
 * up, and a TUN device {@code tun0} with the local address ({@code 192.168.0.1/16} by default), the given MTU, IPv6
 * off, and a route to the remote address ({@code 192.0.2.1}) via the gateway ({@code 192.168.0.2}). There is no
 * default route and no other interface: packets leave only through {@code tun0}, to this runner.
 *
 * <p>The runner is the remote peer: {@link #inject} writes an IPv4 packet to the TUN device (the kernel receives it on
 * {@code tun0}); {@link #nextOutbound} reads what the kernel sends out of {@code tun0}, dropping what is not IPv4 or is
 * IGMP. The device offers checksum offload by default (checksums are completed here) but, unlike packetdrill's, no TCP
 * segmentation offload: the kernel segments large TCP packets itself, so the runner sees the MSS-sized segments a
 * wire would carry, not TSO "super-packets" (a script line expecting a super-packet still matches its pieces, see
 * {@code Player}); {@link Options#offload} false turns checksum offload off too.
 *
 * <p>Time is real: microseconds of {@link System#nanoTime()} since {@link #open}; {@link #waitUntil} sleeps, then spins
 * the last 200 µs.
 *
 * <p><b>Threads.</b> Linux keeps the network namespace per thread and a socket belongs to the namespace of the thread
 * that created it. One platform thread ({@code jnet-drill-netns-NAME}) enters the namespace with setns(2) and runs
 * everything that must be made inside: {@code socket(2)}, opening {@code /dev/net/tun}, {@code /proc/sys/net}
 * writes. Every other call runs on the caller's thread, from any number of threads at once: a blocking call blocks its
 * caller only. {@link #inject} and {@link #nextOutbound} may run concurrently with each other and with system calls
 * (one injector and one reader at a time). {@link #close} ends every blocked call (see {@link KernelSyscalls}), closes
 * every descriptor, stops the namespace thread and deletes the namespace.
 *
 * <p>Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN), {@code /dev/net/tun} and iproute2's {@code ip}; see
 * {@link #unavailableReason()}. A JVM shutdown hook closes targets left open; namespaces left by a JVM that was killed
 * (its pid is in the name) are deleted by the next {@link #open}.
 */
public final class KernelTarget implements Target {

    /**
     * The set-up of a target: addresses as packetdrill's {@code --local_ip}, {@code --gateway_ip},
     * {@code --remote_ip}, the local prefix length (16 in packetdrill), the TUN MTU in
     * bytes ({@code --mtu}, 68..65535), and whether the TUN device offers checksum offload (never segmentation
     * offload: see the class).
     */
    public record Options(Inet4Address localAddress, Inet4Address gatewayAddress, Inet4Address remoteAddress,
                          int prefixLength, int mtu, boolean offload) {

        /** packetdrill's Linux defaults: 192.168.0.1/16, gateway 192.168.0.2, remote 192.0.2.1, MTU 1500, offload. */
        public static final Options DEFAULTS = new Options(ipv4("192.168.0.1"), ipv4("192.168.0.2"),
                ipv4("192.0.2.1"), 16, 1500, true);

        /** @throws IllegalArgumentException for a prefix outside 1..30, an MTU outside 68..65535, or clashing addresses */
        public Options {
            Objects.requireNonNull(localAddress, "localAddress");
            Objects.requireNonNull(gatewayAddress, "gatewayAddress");
            Objects.requireNonNull(remoteAddress, "remoteAddress");
            if (prefixLength < 1 || prefixLength > 30) throw new IllegalArgumentException("prefix length " + prefixLength + " outside 1..30");
            if (mtu < 68 || mtu > 65535) throw new IllegalArgumentException("MTU " + mtu + " outside 68..65535");
            if (localAddress.equals(remoteAddress) || localAddress.equals(gatewayAddress)) {
                throw new IllegalArgumentException("the local address must differ from the gateway and remote addresses");
            }
            int mask = -1 << (32 - prefixLength);
            if ((toInt(localAddress) & mask) != (toInt(gatewayAddress) & mask)) {
                throw new IllegalArgumentException("gateway " + gatewayAddress.getHostAddress() + " is not in "
                        + localAddress.getHostAddress() + "/" + prefixLength);
            }
        }

        public Options withLocalAddress(Inet4Address a) { return new Options(a, gatewayAddress, remoteAddress, prefixLength, mtu, offload); }
        public Options withGatewayAddress(Inet4Address a) { return new Options(localAddress, a, remoteAddress, prefixLength, mtu, offload); }
        public Options withRemoteAddress(Inet4Address a) { return new Options(localAddress, gatewayAddress, a, prefixLength, mtu, offload); }
        public Options withPrefixLength(int p) { return new Options(localAddress, gatewayAddress, remoteAddress, p, mtu, offload); }
        public Options withMtu(int m) { return new Options(localAddress, gatewayAddress, remoteAddress, prefixLength, m, offload); }
        public Options withOffload(boolean o) { return new Options(localAddress, gatewayAddress, remoteAddress, prefixLength, mtu, o); }

        /**
         * The IPv4 address in dotted-quad form.
         *
         * @throws IllegalArgumentException when {@code dotted} is not one
         */
        public static Inet4Address ipv4(String dotted) {
            if (!dotted.matches("\\d{1,3}(\\.\\d{1,3}){3}")) throw new IllegalArgumentException("not an IPv4 address: " + dotted);
            try {
                return (Inet4Address) InetAddress.getByName(dotted);
            } catch (UnknownHostException | ClassCastException e) {
                throw new IllegalArgumentException("not an IPv4 address: " + dotted, e);
            }
        }

        private static int toInt(Inet4Address a) {
            byte[] b = a.getAddress();
            return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
        }
    }

    static final String TUN_NAME = "tun0";
    private static final String PREFIX = "jnet-drill-";
    private static final Pattern OWNED = Pattern.compile(Pattern.quote(PREFIX) + "(\\d+)-\\d+");
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static final Set<KernelTarget> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean STALE_SWEPT = new AtomicBoolean();
    private static final int IPPROTO_IGMP = 2;
    /** The least real time a call that should not block gets to return (µs). */
    static final long MIN_CALL_WAIT_MICROS = 20_000;
    /** Longest single poll in {@link #nextOutbound}, so that an interrupt is seen. */
    private static final int POLL_SLICE_MS = 100;
    private static final System.Logger LOG = System.getLogger(KernelTarget.class.getName());

    static {
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("jnet-drill-netns-cleanup").unstarted(
                () -> List.copyOf(LIVE).forEach(KernelTarget::close)));
    }

    private final String namespace;
    private final Options options;
    private final NetnsThread netns;
    private final KernelSyscalls syscalls;
    private final TunDevice tun;
    private final Sysctls sysctls;
    private final RealClock clock;
    private final AtomicBoolean closed = new AtomicBoolean();

    private KernelTarget(String namespace, Options options, NetnsThread netns, KernelSyscalls syscalls, TunDevice tun) {
        this.namespace = namespace;
        this.options = options;
        this.netns = netns;
        this.syscalls = syscalls;
        this.tun = tun;
        this.sysctls = new Sysctls(netns);
        this.clock = new RealClock();
    }

    /**
     * Why a kernel target cannot be opened here (not Linux, not root, no {@code /dev/net/tun}, no {@code ip}), or
     * null when it can.
     */
    public static String unavailableReason() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) return "not Linux";
        long euid = effectiveUid();
        if (euid != 0) return "not root (effective uid " + euid + "): network namespaces and TUN devices need CAP_SYS_ADMIN and CAP_NET_ADMIN";
        if (!Files.exists(Path.of(TunDevice.CLONE_DEVICE))) return TunDevice.CLONE_DEVICE + " does not exist (no TUN driver)";
        if (IpCommand.find().isEmpty()) return "'ip' (iproute2) is not installed";
        return null;
    }

    private static long effectiveUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) return Long.parseLong(line.substring(4).trim().split("\\s+")[1]);
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /** Opens a target with packetdrill's defaults ({@link Options#DEFAULTS}). */
    public static KernelTarget open() throws IOException {
        return open(Options.DEFAULTS);
    }

    /**
     * Creates the namespace and its TUN device and starts the clock.
     *
     * @throws IOException when this machine cannot ({@link #unavailableReason()}) or a step fails (the message names
     *     it); whatever was made is removed again
     */
    public static KernelTarget open(Options options) throws IOException {
        Objects.requireNonNull(options, "options");
        String reason = unavailableReason();
        if (reason != null) throw new IOException("cannot run the kernel target: " + reason);
        sweepStale();
        String ns = createNamespace();
        NetnsThread thread = null;
        KernelSyscalls syscalls = null;
        TunDevice tun = null;
        try {
            thread = NetnsThread.enter(Path.of("/run/netns", ns), ns);
            syscalls = new KernelSyscalls(thread);
            tun = TunDevice.open(thread, TUN_NAME, options.offload());
            configure(ns, thread, options);
            KernelTarget target = new KernelTarget(ns, options, thread, syscalls, tun);
            LIVE.add(target);
            return target;
        } catch (IOException | RuntimeException | Error e) {
            if (syscalls != null) syscalls.closeAll();
            if (tun != null) tun.close();
            if (thread != null) thread.close();
            deleteNamespace(ns);
            throw e;
        }
    }

    private static String createNamespace() throws IOException {
        long pid = ProcessHandle.current().pid();
        for (int attempt = 0; ; attempt++) {
            String name = PREFIX + pid + "-" + COUNTER.incrementAndGet();
            try {
                IpCommand.run(null, "netns", "add", name);
                return name;
            } catch (IOException e) {
                if (attempt >= 3 || !String.valueOf(e.getMessage()).contains("exists")) throw e;
            }
        }
    }

    private static void configure(String ns, NetnsThread thread, Options o) throws IOException {
        // quiet tun0 before it comes up: no IPv6 (router solicitations, MLD reports)
        Sysctls s = new Sysctls(thread);
        try {
            s.set("net.ipv6.conf." + TUN_NAME + ".disable_ipv6", "1");
        } catch (UnsupportedOperationException e) {
            // a kernel without IPv6 sends none
        }
        String local = o.localAddress().getHostAddress();
        IpCommand.run(String.join("\n",
                "link set dev lo up",
                "link set dev " + TUN_NAME + " mtu " + o.mtu(),
                "address add " + local + "/" + o.prefixLength() + " dev " + TUN_NAME,
                "link set dev " + TUN_NAME + " up",
                "route add " + o.remoteAddress().getHostAddress() + "/32 via " + o.gatewayAddress().getHostAddress()
                        + " dev " + TUN_NAME) + "\n",
                "-n", ns, "-batch", "-");
    }

    /** Deletes namespaces named by this class whose JVM (the pid in the name) is gone. */
    private static void sweepStale() {
        if (!STALE_SWEPT.compareAndSet(false, true)) return;
        try {
            for (String line : IpCommand.run(null, "netns", "list").split("\n")) {
                String ns = line.trim().split("\\s+")[0];
                Matcher m = OWNED.matcher(ns);
                if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) deleteNamespace(ns);
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "listing network namespaces failed", e);
        }
    }

    private static void deleteNamespace(String ns) {
        try {
            IpCommand.run(null, "netns", "delete", ns);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "deleting network namespace " + ns + " failed: " + e.getMessage());
        }
    }

    /** The namespace's name, as {@code ip netns} lists it. */
    public String namespace() {
        return namespace;
    }

    /** The options this target was opened with. */
    public Options options() {
        return options;
    }

    @Override
    public String name() {
        return "kernel";
    }

    @Override
    public Inet4Address localAddress() {
        return options.localAddress();
    }

    @Override
    public Inet4Address remoteAddress() {
        return options.remoteAddress();
    }

    @Override
    public Syscalls syscalls() {
        return syscalls;
    }

    @Override
    public long nowMicros() {
        return clock.nowMicros();
    }

    @Override
    public void waitUntil(long micros) throws InterruptedException {
        clock.waitUntil(micros);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IOException when the TUN write fails or the target is closed
     */
    @Override
    public void inject(byte[] ipPacket) throws IOException {
        if (closed.get()) throw new IOException("the kernel target is closed");
        tun.send(ipPacket);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Packets are read from {@code tun0} by a reader thread as the kernel sends them and stamped then, so a packet
     * that waits while the player is busy keeps its send time. Returns null at once when the target is closed.
     *
     * @throws IllegalStateException when reading the TUN device failed
     */
    @Override
    public Outbound nextOutbound(long deadlineMicros) throws InterruptedException {
        ensureReader();
        while (!closed.get()) {
            long left = deadlineMicros - clock.nowMicros();
            Outbound o = left <= 0 ? sent.poll() : sent.poll(Math.min(left, POLL_SLICE_MS * 1000L), java.util.concurrent.TimeUnit.MICROSECONDS);
            if (o != null) return o;
            IOException failure = readFailure;
            if (failure != null) throw new IllegalStateException(failure.getMessage(), failure);
            if (left <= 0) return null;
        }
        return null;
    }

    /** Packets read from {@code tun0}, stamped when read. */
    private final java.util.concurrent.LinkedBlockingQueue<Outbound> sent = new java.util.concurrent.LinkedBlockingQueue<>();
    private volatile Thread reader;
    private volatile IOException readFailure;

    private synchronized void ensureReader() {
        if (reader != null) return;
        reader = Thread.ofPlatform().daemon().name("jnet-drill-tun-" + namespace).start(() -> {
            while (!closed.get()) {
                try {
                    byte[] p = tun.receive(POLL_SLICE_MS);
                    if (closed.get()) return; // what closing itself sends (FINs, RSTs) is not the script's
                    if (p != null && isWanted(p)) sent.add(new Outbound(p, clock.nowMicros()));
                } catch (IOException e) {
                    if (!closed.get()) readFailure = e;
                    return;
                }
            }
        });
    }

    /**
     * {@inheritDoc} On real time, as packetdrill: the call has blocked when its thread sleeps in the kernel (state
     * {@code S} in {@code /proc/self/task/TID/stat}, twice 200 µs apart); a call that neither returns nor sleeps
     * gets up to {@code realMicros}, and at least {@link #MIN_CALL_WAIT_MICROS} (its first run may wait for the JIT).
     */
    @Override
    public boolean awaitCall(Thread caller, java.util.concurrent.Future<?> done, long realMicros) throws InterruptedException {
        long giveUp = System.nanoTime() + Math.max(realMicros, MIN_CALL_WAIT_MICROS) * 1000;
        int sleeping = 0;
        while (!done.isDone()) {
            int tid = syscalls.threadId(caller);
            if (tid > 0 && sleepingInKernel(tid)) {
                if (++sleeping >= 2 && !done.isDone()) return false;
            } else {
                sleeping = 0;
            }
            if (System.nanoTime() - giveUp > 0) return done.isDone();
            Thread.sleep(0, 200_000);
        }
        return true;
    }

    /** True when the thread's state in /proc is S (interruptible sleep: a socket call waiting). */
    private static boolean sleepingInKernel(int tid) {
        try {
            String stat = Files.readString(Path.of("/proc/self/task/" + tid + "/stat"));
            int close = stat.lastIndexOf(')');
            return close > 0 && close + 2 < stat.length() && stat.charAt(close + 2) == 'S';
        } catch (IOException e) {
            return false;
        }
    }

    /** IPv4, and not IGMP (multicast membership reports are not the script's business). */
    static boolean isWanted(byte[] p) {
        return p.length >= 20 && (p[0] & 0xF0) == 0x40 && (p[9] & 0xFF) != IPPROTO_IGMP;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Writes {@code /proc/sys/net/...} from the namespace's thread: {@code net.*} sysctls are per namespace.
     *
     * @throws IllegalArgumentException also for a name outside {@code net.*}
     */
    @Override
    public void sysctl(String name, String value) {
        if (closed.get()) throw new IllegalStateException("the kernel target is closed");
        sysctls.set(name, value);
    }

    /**
     * Ends blocked calls, closes every descriptor and the TUN device, stops the namespace thread and deletes the
     * namespace. Idempotent; failures are logged, not thrown.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        try {
            if (!syscalls.closeAll()) {
                LOG.log(System.Logger.Level.WARNING, namespace + ": a system call did not return within "
                        + KernelSyscalls.CLOSE_WAIT_MS + " ms of closing");
            }
            Thread r = reader;
            if (r != null) {
                try {
                    r.join(2 * POLL_SLICE_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            tun.close();
            netns.close();
        } finally {
            deleteNamespace(namespace);
            LIVE.remove(this);
        }
    }

    @Override
    public String toString() {
        return "KernelTarget[" + namespace + (closed.get() ? ", closed" : "") + "]";
    }
}
