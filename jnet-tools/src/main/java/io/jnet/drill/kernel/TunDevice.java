package io.jnet.drill.kernel;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jnet.drill.target.SyscallException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A Linux TUN interface ({@code IFF_TUN | IFF_NO_PI}: each read or write is one IP packet without a link header), held
 * as a non-blocking descriptor on {@code /dev/net/tun}. It is created in the namespace of the thread that opens it,
 * which is why {@link #open} takes a {@link Netns}. Closing the descriptor deletes the interface.
 *
 * <p>With {@code offload}, the device is opened with {@code IFF_VNET_HDR} and {@code TUNSETOFFLOAD(TUN_F_CSUM)}: it
 * offers checksum offload, so the kernel leaves transport checksums partial, and {@link #receive} strips the virtio
 * header and completes the checksum as a NIC would; {@link #send} puts an empty header (no offload asked) before each
 * packet. Segmentation offload (TSO) is deliberately not offered, unlike packetdrill (which asks for
 * {@code TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN} too and so sniffs TCP "super-packets" of many segments): without it
 * the kernel's software GSO cuts each large TCP packet into MSS-sized segments before the device (sequence numbers,
 * PSH and FIN on the last piece, IP ids, as a NIC's TSO would), so what is read here is what a wire would carry.
 * TCP itself still builds large packets (GSO stays on), so its sending decisions are the same as with TSO.
 *
 * <p>Threads: one receiver at a time and one sender at a time (each has its own lock); {@link #close} ends a waiting
 * {@link #receive} through an eventfd and waits for it.
 */
final class TunDevice implements AutoCloseable {

    static final String CLONE_DEVICE = "/dev/net/tun";
    /** {@code _IOW('T', 202, int)}. */
    static final long TUNSETIFF = 0x400454caL;
    /** {@code _IOW('T', 208, unsigned int)}. */
    static final long TUNSETOFFLOAD = 0x400454d0L;
    static final short IFF_TUN = 0x0001;
    static final short IFF_NO_PI = 0x1000;
    static final short IFF_VNET_HDR = 0x4000;
    static final int TUN_F_CSUM = 0x01, TUN_F_TSO4 = 0x02, TUN_F_TSO6 = 0x04, TUN_F_TSO_ECN = 0x08;
    private static final int IFREQ_SIZE = 40;
    private static final int IFREQ_FLAGS_OFFSET = 16;
    /** Largest packet read: 64 KB (an IP packet's largest) plus the virtio header. */
    static final int READ_BUFFER = 65536 + VnetHeader.SIZE;

    private final int fd;
    private final String name;
    private final boolean vnet;
    private final WakeFd wake;
    private final Arena arena = Arena.ofShared();
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    private final MemorySegment readBuffer;
    private final MemorySegment pollFds;
    private final MemorySegment readCapture;
    private final java.util.concurrent.atomic.AtomicBoolean closeStarted = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile boolean closed;

    private TunDevice(int fd, String name, boolean vnet, WakeFd wake) {
        this.fd = fd;
        this.name = name;
        this.vnet = vnet;
        this.wake = wake;
        this.readBuffer = arena.allocate(READ_BUFFER, 64);
        this.pollFds = arena.allocate(2 * Libc.POLLFD_SIZE, 8);
        this.readCapture = Libc.newCapture(arena);
        pollFds.set(JAVA_INT, 0, fd);
        pollFds.set(JAVA_SHORT, 4, Libc.POLLIN);
        pollFds.set(JAVA_INT, 8, wake.fd());
        pollFds.set(JAVA_SHORT, 12, Libc.POLLIN);
    }

    /**
     * Creates the TUN interface {@code name} in {@code netns}.
     *
     * @param offload open it with a virtio header and checksum offload (no segmentation offload); see the class
     * @throws IOException when open(2), TUNSETIFF or TUNSETOFFLOAD fails, with the errno
     */
    static TunDevice open(Netns netns, String name, boolean offload) throws IOException {
        int fd = netns.call(() -> openInNamespace(name, offload));
        try {
            return new TunDevice(fd, name, offload, WakeFd.open());
        } catch (IOException | RuntimeException e) {
            try (Arena a = Arena.ofConfined()) {
                Libc.close(Libc.newCapture(a), fd);
            }
            throw e;
        }
    }

    private static int openInNamespace(String name, boolean offload) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment c = Libc.newCapture(a);
            int fd = Libc.open(c, a.allocateFrom(CLONE_DEVICE), Libc.O_RDWR | Libc.O_NONBLOCK | Libc.O_CLOEXEC, 0);
            if (fd < 0) throw new IOException("open " + CLONE_DEVICE + " failed: " + describe(Libc.errno(c)));
            try {
                MemorySegment ifr = a.allocate(IFREQ_SIZE, 8);
                byte[] n = name.getBytes(StandardCharsets.US_ASCII);
                if (n.length > 15) throw new IllegalArgumentException("interface name longer than 15 bytes: " + name);
                MemorySegment.copy(n, 0, ifr, JAVA_BYTE, 0, n.length);
                short flags = (short) (IFF_TUN | IFF_NO_PI | (offload ? IFF_VNET_HDR : 0));
                ifr.set(JAVA_SHORT, IFREQ_FLAGS_OFFSET, flags);
                if (Libc.ioctl(c, fd, TUNSETIFF, ifr) < 0) {
                    throw new IOException("TUNSETIFF " + name + " failed: " + describe(Libc.errno(c)));
                }
                // checksum offload only: no TSO, so large TCP packets are segmented by the kernel (see the class)
                if (offload && Libc.ioctl(c, fd, TUNSETOFFLOAD, (long) TUN_F_CSUM) < 0) {
                    throw new IOException("TUNSETOFFLOAD on " + name + " failed: " + describe(Libc.errno(c)));
                }
                return fd;
            } catch (IOException | RuntimeException e) {
                Libc.close(c, fd);
                throw e;
            }
        }
    }

    private static String describe(int errno) {
        return new SyscallException(errno).getMessage();
    }

    /** The interface name. */
    String name() {
        return name;
    }

    /**
     * Hands one IPv4 or IPv6 packet to the kernel, as if it arrived on the interface.
     *
     * @throws IOException when write(2) fails (EIO when the interface is down) or the device is closed
     */
    void send(byte[] packet) throws IOException {
        writeLock.lock();
        try (Arena a = Arena.ofConfined()) {
            if (closed) throw new IOException(name + " is closed");
            int hdr = vnet ? VnetHeader.SIZE : 0;
            MemorySegment buf = a.allocate(hdr + packet.length, 8); // zeroed: no offload asked for this packet
            MemorySegment.copy(packet, 0, buf, JAVA_BYTE, hdr, packet.length);
            MemorySegment c = Libc.newCapture(a);
            long n = Libc.write(c, fd, buf, buf.byteSize());
            if (n < 0) throw new IOException("write to " + name + " failed: " + describe(Libc.errno(c)));
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * The next packet the kernel sent out of the interface (link header and virtio header removed, checksums
     * complete), waiting for one up to {@code timeoutMillis} (0: only one already queued).
     *
     * @return the packet, or null when none came in time or the device was closed
     * @throws IOException when poll(2) or read(2) fails
     */
    byte[] receive(int timeoutMillis) throws IOException {
        readLock.lock();
        try {
            if (closed) return null;
            int ready = Libc.poll(readCapture, pollFds, 2, timeoutMillis);
            if (ready < 0) {
                int errno = Libc.errno(readCapture);
                if (errno == Libc.EINTR) return null;
                throw new IOException("poll on " + name + " failed: " + describe(errno));
            }
            if (ready == 0 || closed || pollFds.get(JAVA_SHORT, 14) != 0) return null;
            long n = Libc.read(readCapture, fd, readBuffer, READ_BUFFER);
            if (n < 0) {
                int errno = Libc.errno(readCapture);
                if (errno == Libc.EAGAIN || errno == Libc.EINTR) return null;
                throw new IOException("read from " + name + " failed: " + describe(errno));
            }
            return unwrap((int) n);
        } finally {
            readLock.unlock();
        }
    }

    private byte[] unwrap(int n) {
        int hdr = vnet ? VnetHeader.SIZE : 0;
        if (n < hdr) return new byte[0];
        byte[] packet = new byte[n - hdr];
        MemorySegment.copy(readBuffer, JAVA_BYTE, hdr, packet, 0, packet.length);
        if (vnet) {
            byte[] h = new byte[VnetHeader.SIZE];
            MemorySegment.copy(readBuffer, JAVA_BYTE, 0, h, 0, h.length);
            int version = packet.length > 0 ? (packet[0] & 0xF0) >>> 4 : 0;
            boolean udp = version == 4 && packet.length > 9 && packet[9] == 17
                    || version == 6 && packet.length > 6 && packet[6] == 17;
            VnetHeader.completeChecksum(h, packet, packet.length, udp);
        }
        return packet;
    }

    /** Ends a waiting {@link #receive}, then closes the descriptor, which deletes the interface. Idempotent. */
    @Override
    public void close() {
        if (!closeStarted.compareAndSet(false, true)) return;
        closed = true;
        wake.signal();
        readLock.lock();
        writeLock.lock();
        try {
            try (Arena a = Arena.ofConfined()) {
                Libc.close(Libc.newCapture(a), fd);
            }
            wake.close();
            arena.close();
        } finally {
            writeLock.unlock();
            readLock.unlock();
        }
    }
}
