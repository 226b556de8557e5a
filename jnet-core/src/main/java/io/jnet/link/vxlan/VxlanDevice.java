package io.jnet.link.vxlan;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.AbstractDevice;
import io.jnet.stack.Clock;
import io.jnet.stack.SystemClock;
import io.jnet.wire.Ethernet;
import io.jnet.wire.Vxlan;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A VXLAN tunnel end point (VTEP, RFC 7348): an Ethernet device whose frames travel inside UDP
 * datagrams over the host's (kernel's) IPv4 network, like a Linux {@code vxlan} interface
 * ({@code ip link add vxlan0 type vxlan id VNI ...}).
 *
 * <p><b>Encapsulation</b> (RFC 7348 section 5). Each transmitted inner Ethernet frame gets the 8-byte
 * VXLAN header (I flag set, the device's 24-bit VNI, reserved fields zero) and is sent as one UDP
 * datagram from the device's socket ({@link Builder#localAddress}, default {@code 0.0.0.0:4789}). The
 * outer IPv4 and UDP headers are the kernel's; the outer UDP source port is the socket's port (one socket,
 * so there is no per-flow source-port entropy as section 5 suggests). The UDP checksum is whatever the
 * kernel's socket does. Frames are never fragmented by the device (section 4.3): a frame longer than
 * the MTU plus the Ethernet header (and one 802.1Q tag) is dropped. The default MTU, {@value #DEFAULT_MTU}
 * bytes, leaves room for the 50 bytes of outer IPv4 (20), UDP (8), VXLAN (8) and inner Ethernet (14)
 * headers in a 1500-byte underlay.
 *
 * <p><b>Choosing the remote VTEP</b> (sections 4 and 4.1). A unicast inner destination MAC with an entry
 * in the forwarding database ({@link #fdb()}) goes to that entry's remote. Broadcast, multicast and
 * unknown unicast frames are flooded by head-end replication: one copy to the default remote
 * ({@link Builder#remote}) and one to each flood remote ({@link Builder#floodRemote},
 * {@link #addFloodRemote}), each address once (Linux: the all-zeros FDB entries, {@code bridge fdb append 00:00:00:00:00:00 dst IP}). IP
 * multicast underlay groups (section 4.2) are not supported. With nowhere to send, the frame is dropped.
 *
 * <p><b>Learning</b> (section 4). With learning on (the default, as on Linux), each received frame maps
 * its inner source MAC to the outer source IPv4 address in the forwarding database. The port of a
 * learned entry is the {@link Builder#dstPort destination port} (default 4789), because the outer source
 * port is only flow entropy in section 5 (Linux learns the address alone too); with
 * {@link Builder#learnSourcePort(boolean)} the outer source port is learned as well (for peers that
 * send from the port they listen on, like this device). Learned entries expire after the ageing time
 * (default 300 s); static entries ({@link Builder#staticEntry}) never expire and are never replaced.
 *
 * <p><b>Decapsulation</b> (section 5). A received datagram shorter than the VXLAN header or with the I
 * flag clear is counted as rx_errors ({@link VxlanStats#rxBadHeader}); one for another VNI as rx_dropped
 * ({@link VxlanStats#rxVniMismatch}); an inner frame shorter than an Ethernet header as rx_errors;
 * an inner source MAC that is multicast, zero or the device's own as rx_dropped. Reserved bits are
 * ignored, as the RFC says. Everything else is handed to the receiver as a {@link PacketBuffer} with
 * {@link PacketBuffer#DEFAULT_HEADROOM}, the inner Ethernet header first. Datagrams are accepted from
 * any source address (a VTEP does not authenticate its peers; keep the underlay private).
 *
 * <p><b>Threads.</b> One platform daemon thread, {@code jnet-vxlan-NAME}, waits in a {@link Selector}
 * on the socket and receives datagrams; the receiver runs in that thread. {@link #transmit} may be
 * called from any number of threads; it never blocks on the network: the socket is non-blocking, so a
 * full socket send buffer drops the frame (tx_dropped), and an interrupted caller cannot close the
 * socket (an interruptible blocking channel would be closed by {@link Thread#interrupt()}).
 * {@link #close()} wakes the reader, waits for it to end and closes the socket.
 *
 * <p>Counters: the {@link #stats() device counters} count inner frames and inner bytes, like Linux; a
 * flooded frame counts once per copy sent. {@link #vxlanStats()} tells why packets were dropped.
 */
public final class VxlanDevice extends AbstractDevice {

    /** Default MTU in bytes: a 1500-byte underlay minus outer IPv4, UDP, VXLAN and inner Ethernet headers. */
    public static final int DEFAULT_MTU = 1450;
    /** Default ageing time of learned forwarding entries in seconds (Linux {@code ageing} default). */
    public static final int DEFAULT_AGEING_SECONDS = 300;
    /** Socket receive buffer requested by default in bytes (the kernel caps it at net.core.rmem_max). */
    public static final int DEFAULT_RECEIVE_BUFFER = 4 << 20;
    /** Socket send buffer requested by default in bytes (the kernel caps it at net.core.wmem_max). */
    public static final int DEFAULT_SEND_BUFFER = 4 << 20;

    /** Largest UDP payload over IPv4: 65535 - 20 - 8. */
    static final int MAX_DATAGRAM = 65_507;
    private static final int VLAN_TAG = 4;
    /** Datagrams received per wake-up before looking at the closed flag again. */
    private static final int READ_BURST = 64;
    /** How often the reader sweeps expired forwarding entries (Linux FDB_AGE_INTERVAL, 10 s). */
    private static final long SWEEP_INTERVAL_NANOS = 10_000_000_000L;
    private static final long CLOSE_JOIN_MS = 2000;

    private static final System.Logger LOG = System.getLogger(VxlanDevice.class.getName());

    private final int vni;
    private final DatagramChannel channel;
    private final Selector selector;
    private final InetSocketAddress localAddress;
    private final InetSocketAddress defaultRemote;
    /** Copy-on-write under {@code this}; read without locking by {@link #transmit}. */
    private volatile InetSocketAddress[] floodList;
    private final int dstPort;
    private final boolean learning;
    private final boolean learnSourcePort;
    private final VxlanFdb fdb;
    private final Clock clock;
    private final VxlanStats vxlanStats = new VxlanStats();
    private final AtomicBoolean closeStarted = new AtomicBoolean();
    private final Thread reader;

    // reader thread only
    private final byte[] rxArray = new byte[MAX_DATAGRAM + 1];
    private final ByteBuffer rxBuffer = ByteBuffer.wrap(rxArray);
    private long lastSweep;
    private boolean receiverFailureLogged;

    private VxlanDevice(Builder b, long mac, DatagramChannel channel, Selector selector, InetSocketAddress bound,
                        InetSocketAddress defaultRemote, InetSocketAddress[] floodList) {
        super(b.name, b.mtu, mac);
        this.vni = b.vni;
        this.channel = channel;
        this.selector = selector;
        this.localAddress = bound;
        this.defaultRemote = defaultRemote;
        this.floodList = floodList;
        this.dstPort = b.dstPort;
        this.learning = b.learning;
        this.learnSourcePort = b.learnSourcePort;
        this.clock = b.clock;
        this.fdb = new VxlanFdb(b.clock, b.ageingSeconds, b.maxAddresses);
        this.lastSweep = clock.nanoTime();
        this.reader = Thread.ofPlatform().daemon(true).name("jnet-vxlan-" + b.name).unstarted(this::readLoop);
    }

    /** Starts the options of a VXLAN device named {@code name} (1..15 characters, the jnet interface name). */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Options of a VXLAN device; {@link #open()} creates it. Not thread-safe. */
    public static final class Builder {
        private final String name;
        private int vni = -1;
        private int mtu = DEFAULT_MTU;
        private long mac = -1;
        private InetSocketAddress localAddress = new InetSocketAddress(Vxlan.UDP_PORT);
        private int dstPort = Vxlan.UDP_PORT;
        private InetAddress remoteAddress;
        private int remotePort = -1;
        private final List<InetSocketAddress> floodRemotes = new ArrayList<>();
        private final List<VxlanFdb.Entry> staticEntries = new ArrayList<>();
        private boolean learning = true;
        private boolean learnSourcePort;
        private int ageingSeconds = DEFAULT_AGEING_SECONDS;
        private int maxAddresses;
        private int receiveBuffer = DEFAULT_RECEIVE_BUFFER;
        private int sendBuffer = DEFAULT_SEND_BUFFER;
        private Clock clock = SystemClock.INSTANCE;
        private java.nio.channels.spi.SelectorProvider provider;

        private Builder(String name) {
            if (name == null || name.isEmpty() || name.length() > 15) {
                throw new IllegalArgumentException("bad device name (1..15 characters): " + name);
            }
            this.name = name;
        }

        /** The VXLAN Network Identifier, 0..16777215 (24 bits, RFC 7348 section 5). Required. */
        public Builder vni(int vni) {
            if (vni < 0 || vni > Vxlan.MAX_VNI) throw new IllegalArgumentException("VNI outside 0..16777215: " + vni);
            this.vni = vni;
            return this;
        }

        /** MTU in bytes, 68..65536 (default {@value VxlanDevice#DEFAULT_MTU}). */
        public Builder mtu(int mtu) {
            if (mtu < 68 || mtu > 65536) throw new IllegalArgumentException("MTU out of range 68..65536: " + mtu);
            this.mtu = mtu;
            return this;
        }

        /**
         * The device's MAC address: 48 bits in the low bits, unicast and non-zero. Default: random
         * locally administered.
         */
        public Builder macAddress(long mac) {
            VxlanFdb.checkUnicast(mac);
            this.mac = mac;
            return this;
        }

        /**
         * The local IPv4 address and UDP port the socket binds to (default {@code 0.0.0.0:4789}; port 0
         * lets the kernel choose: see {@link VxlanDevice#localAddress()}).
         */
        public Builder localAddress(InetSocketAddress local) {
            Objects.requireNonNull(local, "local");
            if (local.isUnresolved()) throw new IllegalArgumentException("unresolved local address: " + local);
            this.localAddress = local;
            return this;
        }

        /**
         * UDP destination port (default 4789, RFC 7348 section 5) for a {@link #remote(InetAddress)} given
         * without a port and for learned forwarding entries (unless {@link #learnSourcePort(boolean)}).
         */
        public Builder dstPort(int port) {
            this.dstPort = checkPort(port);
            return this;
        }

        /** The default remote VTEP at {@code address} and the {@link #dstPort destination port}. */
        public Builder remote(InetAddress address) {
            this.remoteAddress = Objects.requireNonNull(address, "address");
            this.remotePort = -1;
            return this;
        }

        /** The default remote VTEP (IPv4 address and UDP port): gets every flooded frame (Linux {@code remote IP}). */
        public Builder remote(InetSocketAddress remote) {
            checkRemote(remote);
            this.remoteAddress = remote.getAddress();
            this.remotePort = remote.getPort();
            return this;
        }

        /**
         * Adds a remote VTEP that gets a copy of every broadcast, multicast and unknown-unicast frame
         * (head-end replication). May be called repeatedly.
         */
        public Builder floodRemote(InetSocketAddress remote) {
            floodRemotes.add(checkRemote(remote));
            return this;
        }

        /** Adds a static forwarding entry: frames to unicast {@code mac} go to {@code remote}. */
        public Builder staticEntry(long mac, InetSocketAddress remote) {
            VxlanFdb.checkUnicast(mac);
            staticEntries.add(new VxlanFdb.Entry(mac, checkRemote(remote), true, 0));
            return this;
        }

        /** Learning of inner source MACs from received packets (default on, like Linux; {@code nolearning}). */
        public Builder learning(boolean learning) {
            this.learning = learning;
            return this;
        }

        /**
         * Whether a learned entry keeps the outer UDP source port (true) or uses the
         * {@link #dstPort destination port} (false, the default, as Linux does).
         */
        public Builder learnSourcePort(boolean learnSourcePort) {
            this.learnSourcePort = learnSourcePort;
            return this;
        }

        /** Seconds after which an unrefreshed learned entry expires, at least 1 (default 300). */
        public Builder ageing(int seconds) {
            if (seconds < 1) throw new IllegalArgumentException("ageing time must be at least 1 s: " + seconds);
            this.ageingSeconds = seconds;
            return this;
        }

        /** Most forwarding entries kept; learning stops when full (Linux {@code maxaddress}; default 0 = unlimited). */
        public Builder maxAddresses(int max) {
            if (max < 0) throw new IllegalArgumentException("negative maximum: " + max);
            this.maxAddresses = max;
            return this;
        }

        /** SO_RCVBUF requested in bytes (the kernel caps it at net.core.rmem_max); 0 keeps the system default. */
        public Builder receiveBufferSize(int bytes) {
            if (bytes < 0) throw new IllegalArgumentException("negative buffer size: " + bytes);
            this.receiveBuffer = bytes;
            return this;
        }

        /** SO_SNDBUF requested in bytes (the kernel caps it at net.core.wmem_max); 0 keeps the system default. */
        public Builder sendBufferSize(int bytes) {
            if (bytes < 0) throw new IllegalArgumentException("negative buffer size: " + bytes);
            this.sendBuffer = bytes;
            return this;
        }

        /** Time source of forwarding-entry ageing (default the system clock). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The provider of the underlay's UDP channel and selector: the host's network, so the kernel's (default the
         * JVM-wide {@link java.nio.channels.spi.SelectorProvider#provider()}, which is the kernel's unless another is
         * installed, e.g. jnet's).
         */
        public Builder provider(java.nio.channels.spi.SelectorProvider provider) {
            this.provider = Objects.requireNonNull(provider, "provider");
            return this;
        }

        /**
         * Binds the socket and starts the reader thread.
         *
         * @throws IllegalStateException when no VNI was given
         * @throws IOException when the socket cannot be opened or bound (e.g. {@code BindException:
         *     Address already in use})
         */
        public VxlanDevice open() throws IOException {
            if (vni < 0) throw new IllegalStateException("VNI not set");
            if (!(localAddress.getAddress() instanceof java.net.Inet4Address)) {
                throw new IllegalArgumentException("the underlay is IPv4: local address " + localAddress);
            }
            InetSocketAddress defaultRemote = remoteAddress == null ? null
                    : checkRemote(new InetSocketAddress(remoteAddress, remotePort < 0 ? dstPort : remotePort));
            Set<InetSocketAddress> flood = new LinkedHashSet<>();
            if (defaultRemote != null) flood.add(defaultRemote);
            flood.addAll(floodRemotes);
            java.nio.channels.spi.SelectorProvider p = provider != null ? provider
                    : java.nio.channels.spi.SelectorProvider.provider();
            DatagramChannel channel = p.openDatagramChannel(StandardProtocolFamily.INET);
            Selector selector = null;
            try {
                channel.setOption(StandardSocketOptions.SO_REUSEADDR, false);
                if (receiveBuffer > 0) channel.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
                if (sendBuffer > 0) channel.setOption(StandardSocketOptions.SO_SNDBUF, sendBuffer);
                channel.bind(localAddress);
                channel.configureBlocking(false);
                selector = p.openSelector();
                channel.register(selector, SelectionKey.OP_READ);
                InetSocketAddress bound = (InetSocketAddress) channel.getLocalAddress();
                long m = mac >= 0 ? mac : randomMac();
                VxlanDevice dev = new VxlanDevice(this, m, channel, selector, bound, defaultRemote,
                        flood.toArray(new InetSocketAddress[0]));
                for (VxlanFdb.Entry e : staticEntries) dev.fdb.addStatic(e.mac(), e.remote());
                dev.reader.start();
                return dev;
            } catch (IOException | RuntimeException | Error e) {
                try {
                    channel.close();
                    if (selector != null) selector.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }

        static InetSocketAddress checkRemote(InetSocketAddress remote) {
            Objects.requireNonNull(remote, "remote");
            if (remote.isUnresolved()) throw new IllegalArgumentException("unresolved remote address: " + remote);
            if (!(remote.getAddress() instanceof java.net.Inet4Address)) {
                throw new IllegalArgumentException("the underlay is IPv4: remote " + remote);
            }
            checkPort(remote.getPort());
            return remote;
        }

        private static int checkPort(int port) {
            if (port < 1 || port > 65535) throw new IllegalArgumentException("UDP port outside 1..65535: " + port);
            return port;
        }
    }

    /** The VXLAN Network Identifier (24 bits). */
    public int vni() { return vni; }

    /** The address and UDP port the socket is bound to (the kernel's choice of port when 0 was asked). */
    public InetSocketAddress localAddress() { return localAddress; }

    /** The default remote VTEP, or null when none was configured. */
    public InetSocketAddress defaultRemote() { return defaultRemote; }

    /** The remotes that get broadcast, multicast and unknown-unicast frames: the default remote first, then the flood remotes. */
    public List<InetSocketAddress> floodRemotes() { return List.of(floodList); }

    /**
     * Adds a remote VTEP to the head-end replication list at run time (Linux
     * {@code bridge fdb append 00:00:00:00:00:00 dev vxlan0 dst IP port PORT}); false when it was there.
     *
     * @throws IllegalArgumentException for an unresolved or non-IPv4 address or port 0
     */
    public synchronized boolean addFloodRemote(InetSocketAddress remote) {
        Builder.checkRemote(remote);
        InetSocketAddress[] old = floodList;
        if (List.of(old).contains(remote)) return false;
        InetSocketAddress[] n = Arrays.copyOf(old, old.length + 1);
        n[old.length] = remote;
        floodList = n;
        return true;
    }

    /** Removes a remote (the default one too) from the head-end replication list; false when it was not there. */
    public synchronized boolean removeFloodRemote(InetSocketAddress remote) {
        InetSocketAddress[] old = floodList;
        InetSocketAddress[] n = Arrays.stream(old).filter(r -> !r.equals(remote)).toArray(InetSocketAddress[]::new);
        if (n.length == old.length) return false;
        floodList = n;
        return true;
    }

    /** Whether source MACs are learned from received packets. */
    public boolean learning() { return learning; }

    /** The forwarding database (inner MAC to remote VTEP); static entries may be added at run time. */
    public VxlanFdb fdb() { return fdb; }

    /** Why packets were dropped (beside {@link #stats()}). */
    public VxlanStats vxlanStats() { return vxlanStats; }

    @Override public boolean isLoopback() { return false; }

    /** True until {@link #close()} has been called. */
    public boolean isOpen() { return !closed; }

    /**
     * Encapsulates the frame (Ethernet header first) and sends it to the remote chosen by its
     * destination MAC (see the class comment), then releases the buffer. Never throws and never blocks
     * on the network: frames shorter than an Ethernet header, longer than MTU + 18 bytes, with no remote,
     * sent after {@link #close()} or refused by a full socket send buffer count as tx_dropped; other send
     * failures count as tx_errors. Thread-safe.
     */
    @Override
    public void transmit(PacketBuffer frame) {
        try {
            int len = frame.length();
            if (closed || len < Ethernet.HEADER_LENGTH) {
                stats().txDropped.increment();
                return;
            }
            if (len > mtu() + Ethernet.HEADER_LENGTH + VLAN_TAG) {
                vxlanStats.txTooBig.increment();
                stats().txDropped.increment();
                return;
            }
            long dst = Ethernet.destination(frame.array(), frame.dataStart());
            InetSocketAddress unicast = Ethernet.isMulticast(dst) ? null : fdb.lookup(dst);
            InetSocketAddress[] flood = floodList;
            if (unicast == null && flood.length == 0) {
                vxlanStats.txNoRemote.increment();
                stats().txDropped.increment();
                return;
            }
            ByteBuffer datagram = encapsulate(frame);
            if (unicast != null) {
                send(datagram, unicast, len);
            } else {
                int start = datagram.position();
                for (InetSocketAddress target : flood) {
                    datagram.position(start);
                    send(datagram, target, len);
                }
            }
        } catch (RuntimeException e) {
            stats().txErrors.increment();
            LOG.log(System.Logger.Level.DEBUG, () -> name() + ": transmit failed", e);
        } finally {
            frame.release();
        }
    }

    /** The frame with the VXLAN header in front, in the buffer's headroom when there are 8 bytes of it. */
    private ByteBuffer encapsulate(PacketBuffer frame) {
        frame.linearize(); // TCP copies for devices without scatterGather; this is for any other sender
        int len = frame.length();
        if (frame.headroom() >= Vxlan.HEADER_LENGTH) {
            int start = frame.push(Vxlan.HEADER_LENGTH);
            Vxlan.write(frame.array(), start, vni);
            return ByteBuffer.wrap(frame.array(), start, Vxlan.HEADER_LENGTH + len);
        }
        byte[] copy = new byte[Vxlan.HEADER_LENGTH + len];
        Vxlan.write(copy, 0, vni);
        System.arraycopy(frame.array(), frame.dataStart(), copy, Vxlan.HEADER_LENGTH, len);
        return ByteBuffer.wrap(copy);
    }

    private void send(ByteBuffer datagram, InetSocketAddress target, int innerLength) {
        try {
            if (channel.send(datagram, target) > 0) {
                stats().countTx(innerLength);
            } else {
                stats().txDropped.increment(); // socket send buffer full
            }
        } catch (ClosedChannelException e) {
            stats().txDropped.increment();
        } catch (IOException | RuntimeException e) {
            stats().txErrors.increment();
            LOG.log(System.Logger.Level.DEBUG, () -> name() + ": send to " + target + " failed: " + e);
        }
    }

    private void readLoop() {
        try {
            while (!closed) {
                selector.select();
                selector.selectedKeys().clear();
                Thread.interrupted(); // only close() stops the reader
                for (int i = 0; i < READ_BURST && !closed; i++) {
                    rxBuffer.clear();
                    SocketAddress from;
                    try {
                        from = channel.receive(rxBuffer);
                    } catch (ClosedChannelException e) {
                        return;
                    } catch (IOException e) {
                        stats().rxErrors.increment();
                        LOG.log(System.Logger.Level.DEBUG, () -> name() + ": receive failed: " + e);
                        continue;
                    }
                    if (from == null) break;
                    decapsulate(rxBuffer.position(), (InetSocketAddress) from);
                }
                long now = clock.nanoTime();
                if (learning && now - lastSweep >= SWEEP_INTERVAL_NANOS) {
                    lastSweep = now;
                    fdb.sweep();
                }
            }
        } catch (ClosedSelectorException e) {
            // close() gave up waiting and closed the selector
        } catch (Throwable t) {
            stats().rxErrors.increment();
            LOG.log(System.Logger.Level.ERROR, name() + ": reader failed", t);
        }
    }

    /** Checks and strips the VXLAN header of the {@code len}-byte datagram in {@link #rxArray}, then delivers. */
    private void decapsulate(int len, InetSocketAddress from) {
        if (len > MAX_DATAGRAM || Vxlan.validate(rxArray, 0, len) != Vxlan.OK) {
            vxlanStats.rxBadHeader.increment();
            stats().rxErrors.increment();
            return;
        }
        if (Vxlan.vni(rxArray, 0) != vni) {
            vxlanStats.rxVniMismatch.increment();
            stats().rxDropped.increment();
            return;
        }
        int frameLength = len - Vxlan.HEADER_LENGTH;
        if (frameLength < Ethernet.HEADER_LENGTH) {
            vxlanStats.rxTruncatedFrame.increment();
            stats().rxErrors.increment();
            return;
        }
        long src = Ethernet.source(rxArray, Vxlan.HEADER_LENGTH);
        if (src == 0 || Ethernet.isMulticast(src) || src == macAddress()) {
            vxlanStats.rxBadSourceMac.increment();
            stats().rxDropped.increment();
            return;
        }
        if (learning) {
            switch (fdb.learn(src, from.getAddress(), learnSourcePort ? from.getPort() : dstPort)) {
                case NEW -> vxlanStats.fdbLearned.increment();
                case MOVED -> vxlanStats.fdbMoved.increment();
                default -> { }
            }
        }
        PacketBuffer frame = PacketBuffer.copyOf(rxArray, Vxlan.HEADER_LENGTH, frameLength, PacketBuffer.DEFAULT_HEADROOM);
        try {
            deliver(frame);
        } catch (Throwable t) {
            stats().rxErrors.increment();
            System.Logger.Level level = receiverFailureLogged ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING;
            receiverFailureLogged = true;
            LOG.log(level, () -> name() + ": frame receiver threw (counted in rx_errors)", t);
        }
    }

    /**
     * Stops the device: wakes the reader thread and waits for it to end (up to 2 s if the receiver is
     * busy; not when called from the reader itself), then closes the socket. Later transmits count as
     * tx_dropped. Idempotent.
     */
    @Override
    public void close() {
        if (!closeStarted.compareAndSet(false, true)) return;
        super.close();
        selector.wakeup();
        if (Thread.currentThread() != reader) {
            boolean interrupted = false;
            long deadline = System.nanoTime() + CLOSE_JOIN_MS * 1_000_000L;
            while (reader.isAlive()) {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) break;
                try {
                    reader.join(left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (reader.isAlive()) {
                LOG.log(System.Logger.Level.WARNING, name() + ": reader still busy in the receiver; closing the socket under it");
            }
            if (interrupted) Thread.currentThread().interrupt();
        }
        try {
            channel.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> name() + ": closing the socket failed: " + e);
        }
        try {
            selector.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> name() + ": closing the selector failed: " + e);
        }
    }

    @Override
    public String toString() {
        return "VxlanDevice[" + name() + " vni " + vni + " local " + localAddress + " mtu " + mtu()
                + (closed ? ", closed" : "") + "]";
    }
}
