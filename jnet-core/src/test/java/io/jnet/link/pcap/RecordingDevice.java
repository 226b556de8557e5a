package io.jnet.link.pcap;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.DeviceStats;
import io.jnet.link.FrameReceiver;
import io.jnet.link.NetDevice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A device for decorator tests: keeps the bytes of every transmitted frame, then scribbles over the
 * buffer and releases it (as a real device may reuse it at once), and lets the test inject received
 * frames.
 */
final class RecordingDevice implements NetDevice {
    final List<byte[]> transmitted = new ArrayList<>();
    final List<PacketBuffer> transmittedBuffers = new ArrayList<>();
    final DeviceStats stats = new DeviceStats();
    FrameReceiver receiver;
    int mtu = 1500;
    boolean closed;

    @Override public String name() { return "rec0"; }
    @Override public int mtu() { return mtu; }
    @Override public void setMtu(int mtu) { this.mtu = mtu; }
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
        Arrays.fill(frame.array(), (byte) 0xEE);
        frame.release();
    }

    /** Hands {@code bytes} to the receiver as a frame arriving on this device. */
    void inject(byte[] bytes) {
        stats.countRx(bytes.length);
        receiver.receive(this, PacketBuffer.copyOf(bytes, 0, bytes.length, PacketBuffer.DEFAULT_HEADROOM));
    }
}
