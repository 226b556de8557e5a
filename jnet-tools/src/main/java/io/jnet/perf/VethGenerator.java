package io.jnet.perf;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.NetDevice;
import io.jnet.wire.Checksum;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * The jnet {@link FrameGenerator}: writes Ethernet/IPv4/UDP frames into the generator's end of a veth whose
 * other end is in the server's namespace. Source pair {@code i} is address {@code 10.128.0.0 + 1 + i / 16}
 * (within {@value #SOURCE_PREFIX}) and port {@code 1024 + i % 16}, so a million pairs use 62,500 addresses.
 * The frame is rebuilt in a recycled buffer for each datagram (source address and port, IPv4 header
 * checksum, UDP checksum from the precomputed sum of the parts that do not change): buffers come back through
 * their release hook once the server's socket has read them, so once warm no buffer is allocated per packet.
 */
final class VethGenerator implements FrameGenerator {

    /** Where the sources are: the route back to it goes via the generator's end of the veth. */
    static final String SOURCE_PREFIX = "10.128.0.0/10";
    private static final int SOURCE_BASE = 10 << 24 | 128 << 16;
    private static final int PORTS_PER_ADDRESS = 16;
    private static final int FIRST_PORT = 1024;
    private static final int HEADERS = 14 + 20 + 8;
    private static final int POOL = 4096;

    private final NetDevice end;
    private final PerfDatagramSocket server;
    private final int sources;
    private final int dstAddr;
    private final int dstPort;
    private final byte[] template;
    private final long constSum;
    private final ArrayBlockingQueue<PacketBuffer> pool = new ArrayBlockingQueue<>(POOL);
    private final PacketBuffer.ReleaseHook recycle = b -> pool.offer(b);
    private final String description;
    private int next;
    private volatile int expected = -1;
    private volatile long replies;
    private volatile long stray;
    private long sent;
    private short ipId;

    /**
     * @param end      the generator's veth end (not attached to any namespace)
     * @param peerMac  the MAC of the veth end in the server's namespace
     * @param server   the server's socket, bound to {@code dst}
     * @param sources  source pairs, 1 to {@link TestSpec#MAX_SOURCES}
     * @param payload  bytes of each datagram
     */
    VethGenerator(NetDevice end, long peerMac, PerfDatagramSocket server, int sources, int payload, String via) {
        if (sources < 1 || sources > TestSpec.MAX_SOURCES) throw new IllegalArgumentException("sources out of range: " + sources);
        this.end = end;
        this.server = server;
        this.sources = sources;
        InetSocketAddress dst = server.localAddress();
        this.dstAddr = toInt(dst.getAddress());
        this.dstPort = dst.getPort();
        template = new byte[HEADERS + payload];
        putMac(template, 0, peerMac);
        putMac(template, 6, end.macAddress());
        template[12] = 0x08;
        template[13] = 0x00;
        int ip = 14;
        template[ip] = 0x45;
        putShort(template, ip + 2, 20 + 8 + payload);
        template[ip + 6] = 0x40; // DF
        template[ip + 8] = 64;
        template[ip + 9] = 17;
        putInt(template, ip + 16, dstAddr);
        int udp = ip + 20;
        putShort(template, udp + 2, dstPort);
        putShort(template, udp + 4, 8 + payload);
        for (int i = 0; i < payload; i++) template[HEADERS + i] = (byte) ('a' + i % 26);
        // the parts of the UDP checksum that do not change: pseudo-header without the source, destination
        // port, length, payload
        constSum = (dstAddr >>> 16) + (dstAddr & 0xFFFF) + 17 + (8 + payload) + dstPort + (8 + payload)
                + Checksum.sum(template, HEADERS, payload, 0);
        description = sources + " source address/port pair" + (sources == 1 ? "" : "s") + " in " + SOURCE_PREFIX
                + " (" + Math.ceilDiv(sources, PORTS_PER_ADDRESS) + " addresses x up to " + PORTS_PER_ADDRESS
                + " ports) -> " + dst.getAddress().getHostAddress() + ":" + dstPort + " via " + via;
        end.setReceiver(this::receive);
    }

    @Override public PerfDatagramSocket server() { return server; }

    @Override public int sources() { return sources; }

    private static int sourceAddr(int i) { return SOURCE_BASE + 1 + i / PORTS_PER_ADDRESS; }

    private static int sourcePort(int i) { return FIRST_PORT + i % PORTS_PER_ADDRESS; }

    @Override
    public InetSocketAddress source(int i) {
        return new InetSocketAddress(toAddress(sourceAddr(i)), sourcePort(i));
    }

    @Override
    public int sourceIndex(InetSocketAddress a) {
        return index(toInt(a.getAddress()), a.getPort());
    }

    private int index(int addr, int port) {
        long host = (addr & 0xFFFFFFFFL) - (SOURCE_BASE + 1);
        int p = port - FIRST_PORT;
        if (host < 0 || p < 0 || p >= PORTS_PER_ADDRESS) return -1;
        long i = host * PORTS_PER_ADDRESS + p;
        return i < sources ? (int) i : -1;
    }

    @Override
    public int sendNext() {
        int i = next;
        next = i + 1 == sources ? 0 : i + 1;
        expected = i;
        transmit(i, false);
        return i;
    }

    @Override
    public void sendEnd() { transmit(0, true); }

    private void transmit(int i, boolean endOfTest) {
        PacketBuffer b = pool.poll();
        if (b == null) {
            b = PacketBuffer.allocate(PacketBuffer.DEFAULT_HEADROOM, template.length);
        } else {
            b.reset(PacketBuffer.DEFAULT_HEADROOM);
        }
        b.setReleaseHook(recycle);
        int off = b.dataStart();
        byte[] a = b.array();
        System.arraycopy(template, 0, a, off, template.length);
        b.put(template.length);
        int src = sourceAddr(i);
        int port = sourcePort(i);
        int ip = off + 14;
        putShort(a, ip + 4, ipId++);
        putInt(a, ip + 12, src);
        putShort(a, ip + 10, Checksum.compute(a, ip, 20));
        int udp = ip + 20;
        putShort(a, udp, port);
        long sum = constSum + (src >>> 16) + (src & 0xFFFF) + port;
        if (endOfTest) {
            sum -= (a[udp + 8] & 0xFF) << 8; // the first payload byte becomes END (0)
            a[udp + 8] = UdpEnds.END;
        }
        int c = Checksum.fold(sum);
        putShort(a, udp + 6, c == 0 ? 0xFFFF : c);
        sent++;
        end.transmit(b);
    }

    /** A frame from the server's namespace: a reply when it is UDP to the source of the last request. */
    private void receive(NetDevice dev, PacketBuffer frame) {
        try {
            byte[] a = frame.array();
            int off = frame.dataStart();
            int ip = off + 14;
            if (frame.headLength() >= HEADERS && a[off + 12] == 0x08 && a[off + 13] == 0x00 && a[ip + 9] == 17) {
                int dst = getInt(a, ip + 16);
                int udp = ip + (a[ip] & 0x0F) * 4;
                int port = (a[udp + 2] & 0xFF) << 8 | (a[udp + 3] & 0xFF);
                int i = index(dst, port);
                if (i >= 0 && i == expected) {
                    replies++;
                    return;
                }
            }
            stray++;
        } finally {
            frame.release();
        }
    }

    @Override public long sent() { return sent; }

    @Override public long replies() { return replies; }

    @Override public long strayFrames() { return stray; }

    @Override public String description() { return description; }

    @Override
    public void close() {
        end.setReceiver(null);
        server.close();
    }

    private static void putMac(byte[] a, int off, long mac) {
        for (int i = 0; i < 6; i++) a[off + i] = (byte) (mac >>> (40 - 8 * i));
    }

    private static void putShort(byte[] a, int off, int v) {
        a[off] = (byte) (v >>> 8);
        a[off + 1] = (byte) v;
    }

    private static void putInt(byte[] a, int off, int v) {
        a[off] = (byte) (v >>> 24);
        a[off + 1] = (byte) (v >>> 16);
        a[off + 2] = (byte) (v >>> 8);
        a[off + 3] = (byte) v;
    }

    private static int getInt(byte[] a, int off) {
        return (a[off] & 0xFF) << 24 | (a[off + 1] & 0xFF) << 16 | (a[off + 2] & 0xFF) << 8 | (a[off + 3] & 0xFF);
    }

    static int toInt(InetAddress a) {
        byte[] b = a.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    static InetAddress toAddress(int v) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
