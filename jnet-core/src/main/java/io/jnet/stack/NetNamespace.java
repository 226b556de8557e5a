package io.jnet.stack;

import io.jnet.buffer.PacketAllocator;
import io.jnet.buffer.PacketBuffer;
import io.jnet.link.Loopback;
import io.jnet.link.NetDevice;
import io.jnet.socket.LocalNames;
import io.jnet.socket.LocalServerSocket;
import io.jnet.socket.LocalSocket;
import io.jnet.socket.SocketProvider;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.socket.UdpSocket;
import io.jnet.wire.Ethernet;
import io.jnet.wire.Ipv4;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * A jnet namespace: one independent TCP/IP stack inside the JVM, like a Linux network namespace.
 * It owns devices, IPv4 addresses, sysctls, MIB counters, a timer wheel and a {@link Clock} (real or
 * virtual). Many namespaces may live in one JVM; veth pairs join them.
 *
 * <pre>{@code
 * NetNamespace ns = NetNamespace.create("demo");          // has "lo" with 127.0.0.1/8
 * TcpServerSocket srv = TcpServerSocket.open(ns);
 * srv.bind(new InetSocketAddress("127.0.0.1", 5001));
 * srv.listen(128);
 * }</pre>
 *
 * <p>Frames received by a device are processed run-to-completion in the thread that delivered them
 * (see {@link SoftIrq}); protocol modules ({@link ProtocolFamily}) register handlers per EtherType.
 */
public final class NetNamespace implements SocketProvider, AutoCloseable {
    private static final AtomicInteger SEQ = new AtomicInteger();

    private final String name;
    private final Clock clock;
    private final TimerWheel timers;
    private final Sysctls sysctls = new Sysctls();
    private final Mib mib = new Mib();
    private final List<Interface> interfaces = new CopyOnWriteArrayList<>();
    /** The same interfaces as an array, for the receive path's lookup (no iterator per frame). */
    private volatile Interface[] interfaceArray = new Interface[0];
    private final Map<Class<?>, Object> extensions = new ConcurrentHashMap<>();
    private final Map<Class<?>, Supplier<?>> socketFactories = new ConcurrentHashMap<>();
    private final List<Runnable> closeHooks = new CopyOnWriteArrayList<>();
    private final LongAdder internalErrors = new LongAdder();
    private volatile Throwable lastInternalError;
    private final EtherTypeHandler[] handlers = new EtherTypeHandler[4];
    private final int[] handlerTypes = new int[4];
    private volatile int[] localAddresses = new int[0];
    private volatile PacketAllocator allocator = io.jnet.buffer.PacketAllocators.fromProperty();
    private final Loopback loopback;
    private final java.util.random.RandomGenerator random;
    private final Interface loopbackInterface;
    private volatile boolean closed;

    private NetNamespace(String name, Clock clock) {
        this.name = name;
        this.clock = clock;
        this.timers = new TimerWheel(clock, name);
        // secrets, port offsets, IP IDs: unpredictable on real time; on virtual time reproducible from the
        // namespace name, so a test run can be replayed exactly
        this.random = clock.isVirtual() ? new java.util.SplittableRandom(name.hashCode() * 0x9E3779B97F4A7C15L)
                : new java.security.SecureRandom();
        this.timers.setErrorHandler(this::reportInternalError);
        clock.register(timers);
        List<ProtocolFamily> families = new ArrayList<>();
        ServiceLoader.load(ProtocolFamily.class, NetNamespace.class.getClassLoader()).forEach(families::add);
        families.sort(Comparator.comparingInt(ProtocolFamily::order));
        for (ProtocolFamily f : families) f.install(this);
        loopback = new Loopback("lo");
        loopbackInterface = attach(loopback);
        addAddress("lo", "127.0.0.1/8");
    }

    /** A namespace on real time, with {@code lo} up and 127.0.0.1/8. */
    public static NetNamespace create(String name) { return new NetNamespace(name, SystemClock.INSTANCE); }

    /** A namespace on the given clock (a {@link VirtualClock} for deterministic tests). */
    public static NetNamespace create(String name, Clock clock) { return new NetNamespace(name, clock); }

    /** A namespace with a generated name. */
    public static NetNamespace create() { return create("ns" + SEQ.incrementAndGet()); }

    public String name() { return name; }
    public Clock clock() { return clock; }
    public TimerWheel timers() { return timers; }
    public Sysctls sysctl() { return sysctls; }
    public Mib mib() { return mib; }
    public NetDevice loopback() { return loopback; }
    /** The loopback interface ({@code lo}). */
    public Interface loopbackInterface() { return loopbackInterface; }
    public PacketAllocator allocator() { return allocator; }

    /**
     * Random numbers for the namespace's secrets and choices (RFC 6528 keys, RFC 6056 port offsets, IP
     * IDs): a SecureRandom on real time, a generator seeded from the name on a {@link VirtualClock}.
     */
    public synchronized long randomLong() { return random.nextLong(); }

    /** A random int in [0, bound). */
    public synchronized int randomInt(int bound) { return random.nextInt(bound); }
    /** Sets where the namespace's packet buffers come from (for buffers allocated from now on). */
    public void setAllocator(PacketAllocator a) { allocator = java.util.Objects.requireNonNull(a, "allocator"); }

    // ---- devices and addresses -------------------------------------------------------------------

    /** Attaches a device (it starts delivering received frames to this namespace). Names must be unique. */
    public synchronized Interface attach(NetDevice dev) {
        if (closed) throw new IllegalStateException("namespace closed");
        for (Interface i : interfaces) {
            if (i.name().equals(dev.name())) throw new IllegalArgumentException("device exists: " + dev.name());
        }
        Interface itf = new Interface(interfaces.size() + 1, dev, sysctls.registerDevice(dev.name()));
        interfaces.add(itf);
        interfaceArray = interfaces.toArray(new Interface[0]);
        dev.setReceiver((d, frame) -> SoftIrq.netifRx(this, d, frame));
        for (Runnable r : deviceListeners) r.run();
        return itf;
    }

    private final List<Runnable> deviceListeners = new CopyOnWriteArrayList<>();
    private final List<AddressListener> addressListeners = new CopyOnWriteArrayList<>();

    /** Called when an address is added (the IP layer adds the connected route). */
    public interface AddressListener {
        void addressAdded(Interface itf, Interface.Address address);
    }

    public void addAddressListener(AddressListener l) { addressListeners.add(l); }

    /**
     * Adds an IPv4 address in CIDR form ({@code "192.0.2.2/24"}) to device {@code devName}, with its connected
     * route. As on Linux, an address in the subnet of one the device already has (same length) is a secondary
     * address: local, but it adds no second prefix route. All or nothing: when it throws, the address is not added.
     *
     * @throws IllegalArgumentException for an unknown device, a bad address or length, or an address the device
     *         already has with that length ("File exists", EEXIST)
     */
    public synchronized void addAddress(String devName, String cidr) {
        Interface itf = requireInterface(devName);
        int slash = cidr.indexOf('/');
        if (slash < 0) throw new IllegalArgumentException("address needs a prefix length: " + cidr);
        int addr = Ipv4.parseAddress(cidr.substring(0, slash));
        int len;
        try {
            len = Integer.parseInt(cidr.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad prefix length: " + cidr);
        }
        if (len < 0 || len > 32) throw new IllegalArgumentException("bad prefix length: " + cidr);
        Interface.Address a = new Interface.Address(addr, len);
        for (Interface.Address x : itf.addresses()) {
            if (x.address() == addr && x.prefixLength() == len) throw new IllegalArgumentException("File exists: " + cidr + " on " + devName);
        }
        itf.addAddress(a);
        int[] old = localAddresses;
        int[] n = java.util.Arrays.copyOf(old, old.length + 1);
        n[old.length] = addr;
        localAddresses = n;
        try {
            for (AddressListener l : addressListeners) l.addressAdded(itf, a);
        } catch (RuntimeException e) {
            // all or nothing: a listener that failed (the connected route) leaves no address behind
            itf.removeAddress(a);
            localAddresses = old;
            throw e;
        }
    }

    /**
     * Puts a decorator in front of an attached device (a pcap sniffer, an impairment device): from now
     * on the namespace transmits through {@code wrap.apply(current)} and receives from it.
     * Example: {@code ns.interpose("lo", d -> new PcapSniffer(d, PcapWriter.create(path)))}.
     */
    public synchronized NetDevice interpose(String devName, java.util.function.UnaryOperator<NetDevice> wrap) {
        Interface itf = requireInterface(devName);
        NetDevice inner = itf.device();
        NetDevice outer = wrap.apply(inner);
        if (!outer.name().equals(inner.name())) throw new IllegalArgumentException("a decorator must keep the device name");
        itf.replaceDevice(outer);
        outer.setReceiver((d, frame) -> SoftIrq.netifRx(this, d, frame));
        return outer;
    }

    public List<Interface> interfaces() { return interfaces; }

    public Interface interfaceByName(String devName) {
        for (Interface i : interfaces) if (i.name().equals(devName)) return i;
        return null;
    }

    public Interface requireInterface(String devName) {
        Interface i = interfaceByName(devName);
        if (i == null) throw new IllegalArgumentException("no such device: " + devName);
        return i;
    }

    public Interface interfaceOf(NetDevice dev) {
        for (Interface i : interfaceArray) if (i.device() == dev) return i;
        return null;
    }

    /** True when {@code addr} is assigned to one of this namespace's interfaces (any loopback 127/8 counts too). */
    public boolean isLocalAddress(int addr) {
        if (Ipv4.isLoopback(addr)) return true;
        for (int a : localAddresses) if (a == addr) return true;
        return false;
    }

    // ---- receive path ----------------------------------------------------------------------------

    /** Registers the handler of an EtherType (IPv4, ARP). */
    public synchronized void registerEtherType(int etherType, EtherTypeHandler h) {
        for (int i = 0; i < handlers.length; i++) {
            if (handlers[i] == null || handlerTypes[i] == etherType) {
                handlerTypes[i] = etherType;
                handlers[i] = h;
                return;
            }
        }
        throw new IllegalStateException("too many EtherType handlers");
    }

    /** Processes one received frame (called by {@link SoftIrq}); never throws. */
    void processFrame(NetDevice dev, PacketBuffer frame) {
        try {
            Interface in = interfaceOf(dev);
            if (in == null || closed) {
                dev.stats().rxDropped.increment();
                frame.release();
                return;
            }
            if (frame.length() < Ethernet.HEADER_LENGTH) {
                mib.inc(MibCounter.LinkInErrors);
                frame.release();
                return;
            }
            byte[] b = frame.array();
            int off = frame.dataStart();
            if (!dev.isLoopback()) {
                long dst = Ethernet.destination(b, off);
                if (dst != dev.macAddress() && !Ethernet.isMulticast(dst)) {
                    dev.stats().rxDropped.increment(); // PACKET_OTHERHOST
                    frame.release();
                    return;
                }
            }
            int type = Ethernet.etherType(b, off);
            frame.pull(Ethernet.HEADER_LENGTH);
            frame.setInputDevice(dev);
            for (int i = 0; i < handlers.length; i++) {
                if (handlers[i] != null && handlerTypes[i] == type) {
                    handlers[i].receive(in, frame);
                    return;
                }
            }
            mib.inc(MibCounter.LinkInUnknownProtos);
            frame.release();
        } catch (Throwable t) {
            // counted, and the frame left alone: the handler that failed owned it and may have released it already,
            // after which the pool may have handed it to someone else; an unreleased frame only goes to the GC
            reportInternalError(t);
        }
    }

    /** Counts and records an exception caught on a stack thread (it never propagates). */
    public void reportInternalError(Throwable t) {
        internalErrors.increment();
        lastInternalError = t;
        if (Boolean.getBoolean("jnet.debug")) t.printStackTrace();
    }

    /** Exceptions caught inside the stack's receive and timer paths (a healthy stack has 0). */
    public long internalErrors() { return internalErrors.sum(); }

    public Throwable lastInternalError() { return lastInternalError; }

    // ---- modules and sockets ---------------------------------------------------------------------

    /** Stores a module's per-namespace state (e.g. the IPv4 layer) for other modules to find. */
    public <T> void putExtension(Class<T> type, T value) { extensions.put(type, value); }

    /** The module state registered under {@code type}; throws IllegalStateException when absent. */
    public <T> T extension(Class<T> type) {
        Object o = extensions.get(type);
        if (o == null) throw new IllegalStateException(type.getSimpleName() + " is not installed in " + name);
        return type.cast(o);
    }

    public <T> void registerSocketFactory(Class<T> type, Supplier<? extends T> factory) { socketFactories.put(type, factory); }

    private <T> T openSocket(Class<T> type) {
        if (closed) throw new IllegalStateException("namespace closed");
        Supplier<?> f = socketFactories.get(type);
        if (f == null) throw new IllegalStateException("no " + type.getSimpleName() + " support installed");
        return type.cast(f.get());
    }

    @Override public TcpSocket openTcpSocket() { return openSocket(TcpSocket.class); }
    @Override public TcpServerSocket openTcpServerSocket() { return openSocket(TcpServerSocket.class); }
    @Override public UdpSocket openUdpSocket() { return openSocket(UdpSocket.class); }
    @Override public LocalSocket openLocalSocket() { return openSocket(LocalSocket.class); }
    @Override public LocalServerSocket openLocalServerSocket() { return openSocket(LocalServerSocket.class); }
    @Override public LocalSocket.Pair openLocalSocketPair() { return openSocket(LocalSocket.Pair.class); }
    @Override public io.jnet.socket.RdsSocket openRdsSocket() { return openSocket(io.jnet.socket.RdsSocket.class); }

    /** The namespace's table of local socket names (the socket files of AF_UNIX sockets on Linux). */
    public LocalNames localNames() { return extension(LocalNames.class); }

    /**
     * unlink(2) of a local socket name: frees {@code path} for another bind; a socket bound to it stays bound
     * but cannot be connected to any more (see {@link LocalNames}).
     *
     * @throws java.io.IOException {@link io.jnet.socket.ErrnoException} ENOENT when no such name exists, EINVAL
     *                             for a malformed name
     */
    public void unlink(String path) throws java.io.IOException { localNames().unlink(path); }

    /** Runs {@code hook} on {@link #close()} (modules purge their tables). */
    public void onClose(Runnable hook) { closeHooks.add(hook); }

    public boolean isClosed() { return closed; }

    /** Closes every socket and device, stops timers. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        for (Runnable r : closeHooks) {
            try { r.run(); } catch (RuntimeException e) { reportInternalError(e); }
        }
        for (Interface i : interfaces) {
            try { i.device().close(); } catch (RuntimeException e) { reportInternalError(e); }
        }
        clock.unregister(timers);
    }

    @Override
    public String toString() { return "NetNamespace[" + name + "]"; }
}
