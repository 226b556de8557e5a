package io.jnet.link.tap;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.DeviceStats;
import io.jnet.link.FrameReceiver;
import io.jnet.link.NetDevice;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A Linux TAP interface: the kernel sees an Ethernet device, jnet holds the other end as a file
 * descriptor on {@code /dev/net/tun}, opened through the FFM API ({@code java.lang.foreign}, no JNI).
 * Every frame the kernel sends out of the interface arrives here as a received frame, and every frame
 * {@link #transmit transmitted} here is received by the kernel on the interface (Linux
 * {@code drivers/net/tun.c}, {@code Documentation/networking/tuntap.rst}).
 *
 * <p>The device is created with {@code TUNSETIFF} and {@code IFF_TAP | IFF_NO_PI}: each
 * {@code read(2)}/{@code write(2)} carries exactly one Ethernet II frame without a packet-information
 * prefix. Opening needs {@code CAP_NET_ADMIN} (root).
 *
 * <p><b>Using the kernel as a peer.</b> jnet does not configure the kernel side. The test or user
 * moves the interface into a network namespace ({@code ip link set jnet0 netns NS}), gives it an
 * address and sets it up there; the file descriptor stays valid in this process after the move, so
 * jnet talks to the kernel stack of that namespace. When the namespace is deleted the kernel deletes
 * the interface; the reader thread then stops and later transmits are counted as tx_errors.
 *
 * <p><b>Threads.</b> One platform daemon thread, {@code jnet-tap-IFNAME}, waits with {@code poll(2)} on
 * the TAP descriptor and an {@code eventfd(2)} (signalled by {@link #close()}), reads each frame into a
 * reused native buffer and hands a {@link PacketBuffer} copy (with {@link PacketBuffer#DEFAULT_HEADROOM})
 * to the {@link FrameReceiver}. Frames that arrive while no receiver is set are counted as rx_dropped;
 * an exception thrown by the receiver is counted as rx_errors and the thread goes on. {@link #transmit}
 * may be called from any number of threads.
 *
 * <p>The MTU is jnet's own idea (default 1500 bytes); it does not change the kernel side's MTU.
 * The MAC address is jnet's address on this link (the kernel side has its own): random
 * locally administered unicast unless {@link Builder#macAddress(long) given}.
 */
public final class TapDevice implements NetDevice {

    /** Default path of the TUN/TAP clone device. */
    public static final String DEFAULT_DEVICE_PATH = "/dev/net/tun";
    /** Default MTU in bytes (Ethernet). */
    public static final int DEFAULT_MTU = 1500;
    /** Smallest MTU accepted (bytes; IPv4 minimum, RFC 791). */
    public static final int MIN_MTU = 68;
    /** Largest MTU accepted (bytes). */
    public static final int MAX_MTU = 65535;
    /** Longest interface name in bytes (Linux IFNAMSIZ 16 minus the terminating NUL). */
    public static final int MAX_IFNAME_LENGTH = 15;

    static final int ETH_HLEN = 14;
    /** Longest frame transmitted: MTU 65535 plus Ethernet header and one 802.1Q tag. */
    static final int MAX_FRAME = MAX_MTU + ETH_HLEN + 4;
    private static final int READ_BUFFER_SIZE = 65536 + 64;

    /** {@code _IOW('T', 202, int)} from {@code linux/if_tun.h}. */
    static final long TUNSETIFF = 0x400454caL;
    /** {@code _IOW('T', 203, int)} from {@code linux/if_tun.h}. */
    static final long TUNSETPERSIST = 0x400454cbL;
    static final short IFF_TAP = 0x0002;
    static final short IFF_NO_PI = 0x1000;
    /** {@code sizeof(struct ifreq)} on 64-bit Linux: 16-byte name and a 24-byte union. */
    static final int IFREQ_SIZE = 40;
    private static final int IFREQ_FLAGS_OFFSET = 16;

    /** poll(2) timeout: an upper bound on how long the reader runs on after close() if the eventfd wake is lost. */
    private static final int POLL_TIMEOUT_MS = 100;
    /** Frames read per wake-up before checking for close again. */
    private static final int READ_BURST = 64;
    private static final long CLOSE_JOIN_MS = 2000;

    private static final System.Logger LOG = System.getLogger(TapDevice.class.getName());

    private final String ifname;
    private final long macAddress;
    private final DeviceStats stats = new DeviceStats();
    private volatile int mtu;
    private volatile FrameReceiver receiver;
    private volatile boolean closed;
    private volatile boolean detached;
    private final java.util.concurrent.atomic.AtomicReference<Runnable> detachListener = new java.util.concurrent.atomic.AtomicReference<>();
    private final AtomicBoolean closeStarted = new AtomicBoolean();

    private final int tunFd;
    private final int eventFd;
    /** Owns every native segment below; closed together with the descriptors. */
    private final Arena arena;
    private boolean released;

    // reader thread only
    private final MemorySegment readBuffer;
    private final MemorySegment readCapture;
    private final MemorySegment pollFds;
    private final Thread reader;
    private boolean receiverFailureLogged;

    // under txLock
    private final ReentrantLock txLock = new ReentrantLock();
    private final MemorySegment txBuffer;
    private final MemorySegment txCapture;
    private final MemorySegment wakeValue;

    private TapDevice(String ifname, long macAddress, int mtu, int tunFd, int eventFd, Arena arena) {
        this.ifname = ifname;
        this.macAddress = macAddress;
        this.mtu = mtu;
        this.tunFd = tunFd;
        this.eventFd = eventFd;
        this.arena = arena;
        this.readBuffer = arena.allocate(READ_BUFFER_SIZE, 64);
        this.readCapture = arena.allocate(Libc.CAPTURE_LAYOUT);
        this.pollFds = arena.allocate(2 * Libc.POLLFD_SIZE, 8);
        pollFds.set(JAVA_INT, 0, tunFd);
        pollFds.set(JAVA_SHORT, 4, Libc.POLLIN);
        pollFds.set(JAVA_INT, 8, eventFd);
        pollFds.set(JAVA_SHORT, 12, Libc.POLLIN);
        this.txBuffer = arena.allocate(MAX_FRAME, 64);
        this.txCapture = arena.allocate(Libc.CAPTURE_LAYOUT);
        this.wakeValue = arena.allocate(JAVA_LONG);
        wakeValue.set(JAVA_LONG, 0, 1L);
        this.reader = Thread.ofPlatform().daemon(true).name("jnet-tap-" + ifname).unstarted(this::readLoop);
    }

    /**
     * Creates (or attaches to) the TAP interface {@code ifname} with a random MAC address and MTU 1500.
     *
     * @param ifname interface name, at most 15 bytes; may contain {@code %d} for the kernel to fill in
     *     (e.g. {@code "jnet%d"}); null or empty lets the kernel choose ({@code tap%d}). The actual name is
     *     read back from the kernel: see {@link #ifname()}.
     * @throws IOException when {@code open(2)} or the {@code TUNSETIFF} ioctl fails, with the errno, e.g.
     *     {@code "TUNSETIFF failed: errno 1 (EPERM: Operation not permitted)"}
     * @throws IllegalArgumentException for an invalid name
     */
    public static TapDevice open(String ifname) throws IOException {
        return builder(ifname).open();
    }

    /** Starts the options of a TAP device named {@code ifname} (see {@link #open(String)} for the name). */
    public static Builder builder(String ifname) {
        return new Builder(ifname);
    }

    /** Options of a TAP device; {@link #open()} creates it. Not thread-safe. */
    public static final class Builder {
        private final String requestedName;
        private long macAddress = -1;
        private int mtu = DEFAULT_MTU;
        private boolean persist;
        private String devicePath = DEFAULT_DEVICE_PATH;

        private Builder(String ifname) {
            this.requestedName = ifname == null ? "" : ifname;
            validateName(requestedName);
        }

        /**
         * jnet's MAC address on this link: 48 bits in the low bits of {@code mac}, first octet in bits
         * 47..40. Must be a unicast address (bit 40, the I/G bit, clear) and not all zeros.
         */
        public Builder macAddress(long mac) {
            if (mac <= 0 || mac > 0xFFFF_FFFF_FFFFL) {
                throw new IllegalArgumentException("MAC address must be a non-zero 48-bit value: 0x" + Long.toHexString(mac));
            }
            if ((mac & (1L << 40)) != 0) {
                throw new IllegalArgumentException("MAC address is multicast (I/G bit set): 0x" + Long.toHexString(mac));
            }
            this.macAddress = mac;
            return this;
        }

        /** jnet's MTU in bytes, 68..65535 (default 1500). */
        public Builder mtu(int mtu) {
            this.mtu = checkMtu(mtu);
            return this;
        }

        /**
         * With {@code true}, sets {@code TUNSETPERSIST}: the interface outlives {@link TapDevice#close()}
         * (remove it with {@code ip link del}). Default {@code false}: the kernel deletes the interface
         * when the descriptor is closed.
         */
        public Builder persist(boolean persist) {
            this.persist = persist;
            return this;
        }

        /** Path of the clone device (default {@value TapDevice#DEFAULT_DEVICE_PATH}). */
        public Builder devicePath(String path) {
            this.devicePath = Objects.requireNonNull(path, "path");
            return this;
        }

        /**
         * Opens the clone device, creates or attaches the interface and starts the reader thread.
         *
         * @throws IOException when {@code open(2)}, {@code TUNSETIFF}, {@code TUNSETPERSIST} or
         *     {@code eventfd(2)} fails; the message names the call and the errno
         */
        public TapDevice open() throws IOException {
            long mac = macAddress >= 0 ? macAddress : randomLocalMac();
            Arena arena = Arena.ofShared();
            int tunFd = -1;
            int eventFd = -1;
            try (Arena call = Arena.ofConfined()) {
                MemorySegment capture = call.allocate(Libc.CAPTURE_LAYOUT);
                tunFd = Libc.open(capture, call.allocateFrom(devicePath), Libc.O_RDWR | Libc.O_NONBLOCK | Libc.O_CLOEXEC, 0);
                if (tunFd < 0) {
                    throw new IOException("open " + devicePath + " failed: " + ErrnoNames.describe(Libc.errno(capture)));
                }
                MemorySegment ifr = call.allocate(IFREQ_SIZE, 8);
                byte[] name = requestedName.getBytes(StandardCharsets.US_ASCII);
                MemorySegment.copy(name, 0, ifr, JAVA_BYTE, 0, name.length);
                ifr.set(JAVA_SHORT, IFREQ_FLAGS_OFFSET, (short) (IFF_TAP | IFF_NO_PI));
                if (Libc.ioctl(capture, tunFd, TUNSETIFF, ifr) < 0) {
                    throw new IOException("TUNSETIFF failed: " + ErrnoNames.describe(Libc.errno(capture))
                            + " for interface '" + requestedName + "'");
                }
                String actualName = readName(ifr);
                if (persist && Libc.ioctl(capture, tunFd, TUNSETPERSIST, 1L) < 0) {
                    throw new IOException("TUNSETPERSIST failed: " + ErrnoNames.describe(Libc.errno(capture))
                            + " for interface '" + actualName + "'");
                }
                eventFd = Libc.eventfd(capture, 0, Libc.EFD_CLOEXEC | Libc.EFD_NONBLOCK);
                if (eventFd < 0) {
                    throw new IOException("eventfd failed: " + ErrnoNames.describe(Libc.errno(capture)));
                }
                TapDevice device = new TapDevice(actualName, mac, mtu, tunFd, eventFd, arena);
                device.reader.start();
                return device;
            } catch (IOException | RuntimeException | Error e) {
                try (Arena call = Arena.ofConfined()) {
                    MemorySegment capture = call.allocate(Libc.CAPTURE_LAYOUT);
                    if (tunFd >= 0) Libc.close(capture, tunFd);
                    if (eventFd >= 0) Libc.close(capture, eventFd);
                }
                arena.close();
                throw e;
            }
        }
    }

    static void validateName(String name) {
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_IFNAME_LENGTH) {
            throw new IllegalArgumentException("interface name longer than " + MAX_IFNAME_LENGTH + " bytes: " + name);
        }
        if (name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("invalid interface name: " + name);
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= ' ' || c >= 0x7f || c == '/' || c == ':') {
                throw new IllegalArgumentException("invalid character in interface name (Linux dev_valid_name): '" + name + "'");
            }
        }
    }

    private static String readName(MemorySegment ifr) {
        byte[] raw = new byte[16];
        MemorySegment.copy(ifr, JAVA_BYTE, 0, raw, 0, 16);
        int len = 0;
        while (len < raw.length && raw[len] != 0) len++;
        return new String(raw, 0, len, StandardCharsets.US_ASCII);
    }

    /** A random locally administered (U/L bit set) unicast (I/G bit clear) MAC address. */
    static long randomLocalMac() {
        long mac = ThreadLocalRandom.current().nextLong() & 0xFFFF_FFFF_FFFFL;
        return (mac & ~(1L << 40)) | (1L << 41);
    }

    private static int checkMtu(int mtu) {
        if (mtu < MIN_MTU || mtu > MAX_MTU) {
            throw new IllegalArgumentException("MTU " + mtu + " outside " + MIN_MTU + ".." + MAX_MTU);
        }
        return mtu;
    }

    /** The interface name as the kernel reports it (with any {@code %d} filled in). */
    public String ifname() { return ifname; }

    @Override public String name() { return ifname; }
    @Override public int mtu() { return mtu; }

    /**
     * Changes jnet's MTU (bytes, 68..65535); the kernel side keeps its own.
     *
     * @throws IllegalArgumentException outside the range
     */
    @Override public void setMtu(int mtu) { this.mtu = checkMtu(mtu); }

    @Override public long macAddress() { return macAddress; }
    @Override public boolean isLoopback() { return false; }
    @Override public DeviceStats stats() { return stats; }
    @Override public void setReceiver(FrameReceiver receiver) { this.receiver = receiver; }

    /** True until {@link #close()} has been called. */
    public boolean isOpen() { return !closed; }

    /**
     * True once the kernel reported the interface gone while the device was open (it was deleted, or moved
     * with a network namespace that was deleted): the reader has stopped and nothing more will arrive.
     */
    public boolean isDetached() { return detached; }

    /**
     * Runs {@code listener} (in the reader thread, once) when the interface goes away while open
     * ({@link #isDetached}); at once if it already has. It must not block; an exception it throws is logged.
     */
    public void onDetach(Runnable listener) {
        detachListener.set(listener);
        if (detached) runDetachListener();
    }

    private void runDetachListener() {
        Runnable l = detachListener.getAndSet(null); // once, whichever of the reader and onDetach comes last
        if (l == null) return;
        try {
            l.run();
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, ifname + ": detach listener failed", t);
        }
    }

    /**
     * Writes the frame's data (Ethernet header first) to the interface with one {@code write(2)} and
     * releases the buffer. Never throws: frames shorter than an Ethernet header or longer than
     * {@value #MAX_FRAME} bytes, frames sent after {@link #close()} and frames refused because the
     * kernel side is down ({@code EIO}) or full ({@code EAGAIN}) count as tx_dropped; other write errors
     * count as tx_errors. Thread-safe.
     */
    @Override
    public void transmit(PacketBuffer frame) {
        try {
            int len = frame.length();
            if (len < ETH_HLEN || len > MAX_FRAME) {
                stats.txDropped.increment();
                return;
            }
            txLock.lock();
            try {
                if (closed) {
                    stats.txDropped.increment();
                    return;
                }
                frame.linearize(); // TCP copies for devices without scatterGather; this is for any other sender
                MemorySegment.copy(frame.array(), frame.dataStart(), txBuffer, JAVA_BYTE, 0, len);
                long n = Libc.write(txCapture, tunFd, txBuffer, len);
                if (n == len) {
                    stats.countTx(len);
                } else if (n < 0) {
                    int errno = Libc.errno(txCapture);
                    if (errno == Libc.EIO || errno == Libc.EAGAIN) {
                        stats.txDropped.increment();
                    } else {
                        stats.txErrors.increment();
                        LOG.log(System.Logger.Level.DEBUG, () -> ifname + ": write failed: " + ErrnoNames.describe(errno));
                    }
                } else {
                    stats.txErrors.increment();
                }
            } finally {
                txLock.unlock();
            }
        } finally {
            frame.release();
        }
    }

    private void readLoop() {
        try {
            while (!closed) {
                int ready = Libc.poll(readCapture, pollFds, 2, POLL_TIMEOUT_MS);
                if (ready < 0) {
                    int errno = Libc.errno(readCapture);
                    if (errno == Libc.EINTR) continue;
                    stats.rxErrors.increment();
                    LOG.log(System.Logger.Level.WARNING, ifname + ": poll failed: " + ErrnoNames.describe(errno));
                    return;
                }
                if (ready == 0) continue;
                if (pollFds.get(JAVA_SHORT, 14) != 0) return; // eventfd: close() asked us to stop
                short revents = pollFds.get(JAVA_SHORT, 6);
                if ((revents & Libc.POLLIN) != 0) {
                    if (!readBurst()) return;
                } else if ((revents & (Libc.POLLERR | Libc.POLLHUP | Libc.POLLNVAL)) != 0) {
                    // tun_chr_poll reports POLLERR once the interface is gone (e.g. its namespace was deleted)
                    stats.rxErrors.increment();
                    LOG.log(System.Logger.Level.INFO, ifname + ": interface detached, reader stops");
                    detached = true;
                    runDetachListener();
                    return;
                }
            }
        } catch (Throwable t) {
            stats.rxErrors.increment();
            LOG.log(System.Logger.Level.ERROR, ifname + ": reader failed", t);
        } finally {
            if (closed) releaseDescriptors();
        }
    }

    /** Reads up to {@link #READ_BURST} frames; false when the descriptor is unusable and the reader must stop. */
    private boolean readBurst() {
        for (int i = 0; i < READ_BURST && !closed; i++) {
            long n = Libc.read(readCapture, tunFd, readBuffer, READ_BUFFER_SIZE);
            if (n < 0) {
                int errno = Libc.errno(readCapture);
                if (errno == Libc.EAGAIN) return true;
                if (errno == Libc.EINTR) continue;
                stats.rxErrors.increment();
                LOG.log(System.Logger.Level.INFO, ifname + ": read failed, reader stops: " + ErrnoNames.describe(errno));
                return false;
            }
            if (n == 0) return true;
            deliver((int) n);
        }
        return true;
    }

    private void deliver(int length) {
        FrameReceiver r = receiver;
        if (r == null) {
            stats.rxDropped.increment();
            return;
        }
        PacketBuffer frame = PacketBuffer.allocate(PacketBuffer.DEFAULT_HEADROOM, length);
        int at = frame.put(length);
        MemorySegment.copy(readBuffer, JAVA_BYTE, 0, frame.array(), at, length);
        stats.countRx(length);
        try {
            r.receive(this, frame);
        } catch (Throwable t) {
            stats.rxErrors.increment();
            // the first failure is worth a warning; repeats are counted in rx_errors
            System.Logger.Level level = receiverFailureLogged ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING;
            receiverFailureLogged = true;
            LOG.log(level, () -> ifname + ": frame receiver threw (counted in rx_errors)", t);
        }
    }

    /**
     * Stops the reader thread (it is gone when this returns, unless the receiver is blocked in a call
     * or this is called from the reader thread itself), then closes the descriptor, which deletes the
     * interface unless it was made persistent. Later transmits are counted as tx_dropped. Idempotent.
     */
    @Override
    public void close() {
        if (!closeStarted.compareAndSet(false, true)) return;
        closed = true;
        txLock.lock();
        try {
            if (!released) {
                try (Arena call = Arena.ofConfined()) {
                    Libc.write(call.allocate(Libc.CAPTURE_LAYOUT), eventFd, wakeValue, 8);
                }
            }
        } finally {
            txLock.unlock();
        }
        if (Thread.currentThread() == reader) return; // the reader releases the descriptors on its way out
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
        if (!reader.isAlive()) {
            releaseDescriptors();
        } else {
            LOG.log(System.Logger.Level.WARNING, ifname + ": reader still busy in the receiver; it closes the device when it returns");
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    private void releaseDescriptors() {
        txLock.lock();
        try {
            if (released) return;
            released = true;
            Libc.close(txCapture, tunFd);
            Libc.close(txCapture, eventFd);
            arena.close();
        } finally {
            txLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "TapDevice[" + ifname + ", mac=" + formatMac(macAddress) + ", mtu=" + mtu + (closed ? ", closed" : "") + "]";
    }

    /** Formats a 48-bit MAC address as {@code 02:00:5e:10:00:01}. */
    static String formatMac(long mac) {
        StringBuilder sb = new StringBuilder(17);
        for (int shift = 40; shift >= 0; shift -= 8) {
            if (shift != 40) sb.append(':');
            int b = (int) (mac >>> shift) & 0xff;
            sb.append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        return sb.toString();
    }
}
