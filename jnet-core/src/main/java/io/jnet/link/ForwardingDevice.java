package io.jnet.link;

import io.jnet.buffer.PacketBuffer;
import java.util.Objects;

/**
 * A device decorator that forwards every {@link NetDevice} method to a wrapped device (in the style of
 * Guava's {@code ForwardingObject}); subclasses override what they change (capture, impairment, filters).
 *
 * <p>Name, MTU, MAC, loopback flag and counters are the wrapped device's. Received frames reach the
 * receiver from this decorator, not from the wrapped device. The offload properties are not forwarded:
 * a decorator watches or alters frames, so {@link #checksumOffload()} is true only on loopback,
 * {@link #scatterGather()} is false, {@link #gsoMaxSize()} is 0 and {@link #allowsBypass()} is false,
 * as {@link NetDevice}'s defaults say for decorators.
 */
public abstract class ForwardingDevice implements NetDevice {
    private final NetDevice inner;

    /** @param inner the device to wrap (not null); this decorator takes its receiver slot when attached */
    protected ForwardingDevice(NetDevice inner) {
        this.inner = Objects.requireNonNull(inner, "inner");
    }

    /** The wrapped device. */
    public NetDevice inner() { return inner; }

    @Override public String name() { return inner.name(); }
    @Override public int mtu() { return inner.mtu(); }
    @Override public void setMtu(int mtu) { inner.setMtu(mtu); }
    @Override public long macAddress() { return inner.macAddress(); }
    @Override public boolean isLoopback() { return inner.isLoopback(); }
    @Override public DeviceStats stats() { return inner.stats(); }

    /** Passes the frame (and its ownership) to the wrapped device. */
    @Override
    public void transmit(PacketBuffer frame) { inner.transmit(frame); }

    /** Installs {@code receiver} on the wrapped device; it gets the frames as received by this decorator. */
    @Override
    public void setReceiver(FrameReceiver receiver) {
        inner.setReceiver(receiver == null ? null : (device, frame) -> receiver.receive(this, frame));
    }

    /** Closes the wrapped device. */
    @Override
    public void close() { inner.close(); }

    @Override
    public String toString() { return getClass().getSimpleName() + "[" + inner + "]"; }
}
