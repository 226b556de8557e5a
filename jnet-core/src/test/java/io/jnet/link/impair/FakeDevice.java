package io.jnet.link.impair;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.DeviceStats;
import io.jnet.link.FrameReceiver;
import io.jnet.link.NetDevice;
import java.util.ArrayList;
import java.util.List;

/**
 * An inner device for decorator tests: keeps every transmitted buffer (and a copy of its bytes), and lets
 * the test inject received frames. Frames are tagged by a 4-byte sequence number after a 14-byte header.
 */
final class FakeDevice implements NetDevice {
    final List<byte[]> transmitted = new ArrayList<>();
    final List<PacketBuffer> transmittedBuffers = new ArrayList<>();
    final DeviceStats stats = new DeviceStats();
    FrameReceiver receiver;
    boolean closed;

    @Override public String name() { return "fake0"; }
    @Override public int mtu() { return 1500; }
    @Override public void setMtu(int mtu) { }
    @Override public long macAddress() { return 0x02_00_00_00_00_01L; }
    @Override public boolean isLoopback() { return false; }
    @Override public DeviceStats stats() { return stats; }
    @Override public void setReceiver(FrameReceiver receiver) { this.receiver = receiver; }
    @Override public void close() { closed = true; }

    @Override
    public void transmit(PacketBuffer frame) {
        transmitted.add(frame.toBytes());
        transmittedBuffers.add(frame);
        stats.countTx(frame.length());
    }

    /** Hands a frame to the receiver as if it arrived on the wire. */
    void inject(PacketBuffer frame) {
        stats.countRx(frame.length());
        receiver.receive(this, frame);
    }

    /** The sequence numbers of the transmitted frames, in order. */
    List<Integer> transmittedTags() {
        List<Integer> out = new ArrayList<>();
        for (byte[] b : transmitted) out.add(tag(b));
        return out;
    }

    /** A frame of {@code length} bytes (at least 18) carrying {@code tag}; the rest is a fixed pattern. */
    static PacketBuffer frame(int tag, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) b[i] = (byte) (i * 7 + 3);
        b[14] = (byte) (tag >>> 24);
        b[15] = (byte) (tag >>> 16);
        b[16] = (byte) (tag >>> 8);
        b[17] = (byte) tag;
        return PacketBuffer.copyOf(b, 0, length, PacketBuffer.DEFAULT_HEADROOM);
    }

    static int tag(byte[] b) {
        return (b[14] & 0xFF) << 24 | (b[15] & 0xFF) << 16 | (b[16] & 0xFF) << 8 | (b[17] & 0xFF);
    }
}
