package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.ForwardingDevice;
import io.jnet.link.FrameReceiver;
import io.jnet.link.NetDevice;
import io.jnet.stack.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A test device decorator: forwards frames in both directions except those a drop predicate selects,
 * records every TCP frame it sees (dropped ones too), can hold frames back to release them later (to
 * make segments cross), and can inject crafted frames in either direction. Used from the test thread
 * on virtual time; the recording is synchronized so real-time use is safe too.
 */
final class FilterDevice extends ForwardingDevice {
    private final NetDevice inner;
    private final Clock clock;
    private volatile FrameReceiver receiver;
    private volatile Predicate<TcpFrame> dropOut = f -> false;
    private volatile Predicate<TcpFrame> dropIn = f -> false;
    private volatile boolean holdOut;
    private volatile boolean holdIn;
    private final List<PacketBuffer> heldOut = new ArrayList<>();
    private final List<PacketBuffer> heldIn = new ArrayList<>();
    private final List<TcpFrame> frames = new ArrayList<>();
    private final List<TcpFrame> dropped = new ArrayList<>();

    FilterDevice(NetDevice inner, Clock clock) {
        super(inner);
        this.inner = inner;
        this.clock = clock;
        inner.setReceiver((d, frame) -> received(frame));
    }

    private volatile boolean bypassable;

    /**
     * Makes this decorator claim to be a plain loopback that nobody watches ({@link NetDevice#allowsBypass()}), so
     * TCP friends pair over it while it records the handshake (real captures turn pairing off).
     */
    void claimBypassable(boolean on) { bypassable = on; }

    @Override
    public boolean allowsBypass() { return bypassable; }

    /** Drops transmitted TCP frames that {@code p} selects (non-TCP frames always pass). */
    void dropOutbound(Predicate<TcpFrame> p) { dropOut = p; }

    /** Drops received TCP frames that {@code p} selects. */
    void dropInbound(Predicate<TcpFrame> p) { dropIn = p; }

    /** While on, frames in that direction are queued instead of forwarded (until {@link #releaseHeld()}). */
    void hold(boolean outbound, boolean inbound) {
        holdOut = outbound;
        holdIn = inbound;
    }

    /**
     * Forwards the frames held so far (outbound first, then inbound) and returns how many; frames
     * produced meanwhile are held again while holding is on.
     */
    int releaseHeld() {
        List<PacketBuffer> out;
        List<PacketBuffer> in;
        synchronized (this) {
            out = new ArrayList<>(heldOut);
            in = new ArrayList<>(heldIn);
            heldOut.clear();
            heldIn.clear();
        }
        for (PacketBuffer f : out) inner.transmit(f);
        for (PacketBuffer f : in) deliver(f);
        return out.size() + in.size();
    }

    /** Forwards the oldest frame held in one direction; false when none is held. */
    boolean releaseNext(boolean outbound) {
        PacketBuffer f;
        synchronized (this) {
            List<PacketBuffer> q = outbound ? heldOut : heldIn;
            if (q.isEmpty()) return false;
            f = q.removeFirst();
        }
        if (outbound) inner.transmit(f); else deliver(f);
        return true;
    }

    /** Frames held so far in one direction. */
    synchronized int heldCount(boolean outbound) { return (outbound ? heldOut : heldIn).size(); }

    /** Every TCP frame seen so far, both directions, in order (dropped ones included). */
    synchronized List<TcpFrame> frames() { return new ArrayList<>(frames); }

    /** Frames seen in one direction. */
    synchronized List<TcpFrame> frames(boolean outbound) {
        return frames.stream().filter(f -> f.outbound() == outbound).toList();
    }

    synchronized List<TcpFrame> droppedFrames() { return new ArrayList<>(dropped); }

    synchronized void clearRecording() {
        frames.clear();
        dropped.clear();
    }

    /** Sends a crafted frame (Ethernet header first) out of the wrapped device, bypassing filters. */
    void injectOutbound(byte[] frame) { inner.transmit(PacketBuffer.copyOf(frame, 0, frame.length, 0)); }

    /** Hands a crafted frame to the namespace as if the wrapped device had received it. */
    void injectInbound(byte[] frame) { deliver(PacketBuffer.copyOf(frame, 0, frame.length, 0)); }

    /**
     * Hands a crafted frame to the namespace in a buffer shaped as a device makes it: {@code headroom}
     * bytes in front (a TAP device reserves {@link PacketBuffer#DEFAULT_HEADROOM}) and {@code tailroom}
     * spare bytes behind, so that the buffer's charge (truesize) and its room to coalesce into are realistic.
     */
    void injectInbound(byte[] frame, int headroom, int tailroom) {
        PacketBuffer b = PacketBuffer.allocate(headroom, frame.length + tailroom);
        b.put(frame, 0, frame.length);
        deliver(b);
    }

    private void deliver(PacketBuffer frame) {
        FrameReceiver r = receiver;
        if (r == null) {
            frame.release();
            return;
        }
        r.receive(this, frame);
    }

    private TcpFrame record(PacketBuffer frame, boolean outbound) {
        TcpFrame f = TcpFrame.parse(frame.array(), frame.dataStart(), frame.length(), clock.nanoTime(), outbound);
        if (f != null) {
            synchronized (this) {
                frames.add(f);
            }
        }
        return f;
    }

    private void received(PacketBuffer frame) {
        TcpFrame f = record(frame, false);
        if (f != null && dropIn.test(f)) {
            synchronized (this) {
                dropped.add(f);
            }
            frame.release();
            return;
        }
        if (holdIn) {
            synchronized (this) {
                heldIn.add(frame);
            }
            return;
        }
        deliver(frame);
    }

    @Override
    public void transmit(PacketBuffer frame) {
        TcpFrame f = record(frame, true);
        if (f != null && dropOut.test(f)) {
            synchronized (this) {
                dropped.add(f);
            }
            frame.release();
            return;
        }
        if (holdOut) {
            synchronized (this) {
                heldOut.add(frame);
            }
            return;
        }
        inner.transmit(frame);
    }

    @Override public void setReceiver(FrameReceiver receiver) { this.receiver = receiver; }
}
