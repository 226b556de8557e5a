package io.jnet.link;

import io.jnet.buffer.PacketBuffer;

/** Common state of jnet's own devices: name, MTU, MAC, receiver, counters, closed flag. */
public abstract class AbstractDevice implements NetDevice {
    private final String name;
    private volatile int mtu;
    private final long mac;
    private volatile FrameReceiver receiver;
    private final DeviceStats stats = new DeviceStats();
    protected volatile boolean closed;

    protected AbstractDevice(String name, int mtu, long mac) {
        if (name == null || name.isEmpty() || name.length() > 15) throw new IllegalArgumentException("bad device name: " + name);
        this.name = name;
        this.mac = mac;
        setMtu(mtu);
    }

    @Override public String name() { return name; }
    @Override public int mtu() { return mtu; }

    @Override
    public void setMtu(int mtu) {
        if (mtu < 68 || mtu > 65536) throw new IllegalArgumentException("MTU out of range 68..65536: " + mtu);
        this.mtu = mtu;
    }

    @Override public long macAddress() { return mac; }
    @Override public void setReceiver(FrameReceiver receiver) { this.receiver = receiver; }
    @Override public DeviceStats stats() { return stats; }

    /** Hands a received frame to the receiver, counting it; drops (counted) when closed or unattached. */
    protected void deliver(PacketBuffer frame) {
        FrameReceiver r = receiver;
        if (r == null || closed) {
            stats.rxDropped.increment();
            frame.release();
            return;
        }
        stats.countRx(frame.length());
        try {
            r.receive(this, frame);
        } catch (RuntimeException e) {
            stats.rxErrors.increment();
        }
    }

    @Override
    public void close() { closed = true; }

    /** A random locally administered unicast MAC (02:xx:xx:xx:xx:xx). */
    public static long randomMac() {
        long r = java.util.concurrent.ThreadLocalRandom.current().nextLong() & 0xFFFF_FFFF_FFFFL;
        return (r & ~(0x0100_0000_0000L)) | 0x0200_0000_0000L;
    }

    @Override
    public String toString() { return getClass().getSimpleName() + "[" + name + " mtu " + mtu + "]"; }
}
