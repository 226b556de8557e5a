package io.jnet.link;

import io.jnet.buffer.PacketBuffer;

/**
 * The loopback device ({@code lo}): MTU 65536 like Linux, all-zero MAC addresses, every transmitted
 * frame comes back as received. Delivery happens in the sending thread; the namespace's receive
 * backlog keeps it from recursing (Linux queues on the per-CPU backlog, netif_rx).
 */
public final class Loopback extends AbstractDevice {
    public static final int DEFAULT_MTU = 65536;

    public Loopback() { this("lo"); }

    public Loopback(String name) { super(name, DEFAULT_MTU, 0L); }

    @Override public boolean isLoopback() { return true; }

    /** Frames come back to this process as they are: data carried by reference stays so. */
    @Override public boolean scatterGather() { return true; }

    /** Nothing watches or alters a bare loopback: TCP friends may pair over it. */
    @Override public boolean allowsBypass() { return true; }

    @Override
    public void transmit(PacketBuffer frame) {
        if (closed) {
            stats().txDropped.increment();
            frame.release();
            return;
        }
        stats().countTx(frame.length());
        deliver(frame);
    }
}
