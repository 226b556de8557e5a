package io.jnet.link;

import io.jnet.buffer.PacketBuffer;

/**
 * The loopback device ({@code lo}): MTU 65536 like Linux, all-zero MAC addresses, every transmitted
 * frame comes back as received, in the order frames were transmitted whichever threads transmit them:
 * frames go on one receive queue that one thread at a time polls ({@code NapiQueue}), usually the sending
 * thread, at once. Linux queues on the per-CPU backlog (netif_rx), which keeps a flow in order because a
 * socket sends from one CPU at a time in practice; here a frame sent from receive context (TCP answering
 * an ACK) waits until the current frame is done, and a frame of the same connection that an application
 * thread sent meanwhile would overtake it if each thread delivered on its own.
 */
public final class Loopback extends AbstractDevice {
    public static final int DEFAULT_MTU = 65536;

    public Loopback() { this("lo"); }

    private final NapiQueue rx = new NapiQueue(this);

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
        rx.receive(frame);
    }
}
