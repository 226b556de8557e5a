package io.jnet.link;

import io.jnet.buffer.PacketBuffer;

/**
 * The loopback device ({@code lo}): MTU 65536 like Linux, all-zero MAC addresses, every transmitted
 * frame comes back as received. Delivery happens in the sending thread; the namespace's receive
 * backlog keeps it from recursing (Linux queues on the per-CPU backlog, netif_rx). As with Linux's per-CPU
 * backlogs, frames that two threads send at once may be delivered in another order (a frame sent from receive
 * context waits in that thread's backlog while another thread's frame is processed at once). One ordered
 * queue polled by one thread at a time, as a veth end has ({@code NapiQueue}), removes that but cost TCP_RR
 * over loopback about a third of its transactions/s when measured (BENCHMARKS.md, 2026-12-02), so loopback
 * keeps Linux's behaviour.
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
