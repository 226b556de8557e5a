package io.jnet.stack;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.NetDevice;

/**
 * The receive backlog of one thread: jnet's analog of Linux's per-CPU backlog ({@code netif_rx} +
 * {@code process_backlog}). A frame received while this thread is already processing received frames
 * (loopback or veth delivery from inside the receive path, e.g. an ACK sent by TCP input) is queued and
 * processed after the current one returns, so delivery never recurses and always runs to completion in
 * the thread that produced it. At most net.core.netdev_max_backlog frames wait; more are dropped and
 * counted on the device (rx_dropped).
 *
 * <p>The backlog also runs device polls ({@link #napiSchedule}, Linux's NAPI): a device that keeps its own
 * receive queue in transmit order (veth) has one thread at a time take frames off it, and those frames are
 * processed at once rather than queued here, so that the frames of one device are processed in the order they
 * were sent even when several threads send on it.
 */
public final class SoftIrq {
    private static final ThreadLocal<SoftIrq> CURRENT = ThreadLocal.withInitial(SoftIrq::new);

    private NetNamespace[] nss = new NetNamespace[64];
    private NetDevice[] devs = new NetDevice[64];
    private PacketBuffer[] frames = new PacketBuffer[64];
    private Runnable[] polls = new Runnable[64];
    private int head;
    private int count;
    private boolean running;
    /** True while a device poll runs: the frames it hands up are processed at once (netif_receive_skb). */
    private boolean polling;

    private SoftIrq() {}

    /** True when the calling thread is inside receive processing (softirq context). */
    public static boolean inReceive() { return CURRENT.get().running; }

    /** Receives {@code frame} from {@code dev} into {@code ns}: processes now, or queues if already in receive. */
    public static void netifRx(NetNamespace ns, NetDevice dev, PacketBuffer frame) {
        SoftIrq s = CURRENT.get();
        if (s.running) {
            if (s.polling) {
                // from a device poll: process now, in the device's order; what this transmits is queued
                s.polling = false;
                try {
                    ns.processFrame(dev, frame);
                } finally {
                    s.polling = true;
                }
                return;
            }
            s.enqueue(ns, dev, frame);
            return;
        }
        s.running = true;
        try {
            ns.processFrame(dev, frame);
            s.drain();
        } finally {
            s.running = false;
        }
    }

    /**
     * Runs {@code poll} in receive context (Linux's napi_schedule and net_rx_action): after the current frame
     * when the calling thread is already in receive, else now. {@code poll} takes frames off its device's
     * receive queue and hands them to the device's receiver, which processes each at once; it must hand up
     * a bounded number and call this again if more are left, so other work in this backlog gets its turn.
     */
    public static void napiSchedule(Runnable poll) {
        SoftIrq s = CURRENT.get();
        if (s.running) {
            s.enqueuePoll(poll);
            return;
        }
        s.running = true;
        try {
            s.runPoll(poll);
            s.drain();
        } finally {
            s.running = false;
        }
    }

    private void runPoll(Runnable poll) {
        polling = true;
        try {
            poll.run();
        } finally {
            polling = false;
        }
    }

    /**
     * Runs {@code work} in receive (bottom-half) context: frames it transmits on loopback or veth are
     * queued and processed after {@code work} returns, never synchronously inside it. Timers and any code
     * that runs while holding a socket's short lock use this, so no thread ever holds two sockets' locks.
     */
    public static void runBottomHalf(Runnable work) {
        SoftIrq s = CURRENT.get();
        if (s.running) {
            work.run();
            return;
        }
        s.running = true;
        try {
            work.run();
            s.drain();
        } finally {
            s.running = false;
        }
    }

    private void drain() {
        while (count > 0) {
            int i = head;
            NetNamespace n = nss[i];
            NetDevice d = devs[i];
            PacketBuffer f = frames[i];
            Runnable p = polls[i];
            nss[i] = null;
            devs[i] = null;
            frames[i] = null;
            polls[i] = null;
            head = (i + 1) & (frames.length - 1);
            count--;
            if (p != null) {
                runPoll(p);
            } else {
                n.processFrame(d, f);
            }
        }
    }

    /** Queues a device poll; not a frame, so not bounded by net.core.netdev_max_backlog. */
    private void enqueuePoll(Runnable poll) {
        if (count == frames.length) grow();
        polls[(head + count) & (frames.length - 1)] = poll;
        count++;
    }

    private void enqueue(NetNamespace ns, NetDevice dev, PacketBuffer frame) {
        int limit = ns.sysctl().netdevMaxBacklog.intValue();
        if (count >= limit) {
            dev.stats().rxDropped.increment();
            frame.release();
            return;
        }
        if (count == frames.length) grow();
        int i = (head + count) & (frames.length - 1);
        nss[i] = ns;
        devs[i] = dev;
        frames[i] = frame;
        count++;
    }

    private void grow() {
        int n = frames.length * 2;
        NetNamespace[] nn = new NetNamespace[n];
        NetDevice[] nd = new NetDevice[n];
        PacketBuffer[] nf = new PacketBuffer[n];
        Runnable[] np = new Runnable[n];
        for (int k = 0; k < count; k++) {
            int i = (head + k) & (frames.length - 1);
            nn[k] = nss[i];
            nd[k] = devs[i];
            nf[k] = frames[i];
            np[k] = polls[i];
        }
        nss = nn;
        devs = nd;
        frames = nf;
        polls = np;
        head = 0;
    }
}
