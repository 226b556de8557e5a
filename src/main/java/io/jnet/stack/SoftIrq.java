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
 */
public final class SoftIrq {
    private static final ThreadLocal<SoftIrq> CURRENT = ThreadLocal.withInitial(SoftIrq::new);

    private NetNamespace[] nss = new NetNamespace[64];
    private NetDevice[] devs = new NetDevice[64];
    private PacketBuffer[] frames = new PacketBuffer[64];
    private int head;
    private int count;
    private boolean running;

    private SoftIrq() {}

    /** True when the calling thread is inside receive processing (softirq context). */
    public static boolean inReceive() { return CURRENT.get().running; }

    /** Receives {@code frame} from {@code dev} into {@code ns}: processes now, or queues if already in receive. */
    public static void netifRx(NetNamespace ns, NetDevice dev, PacketBuffer frame) {
        SoftIrq s = CURRENT.get();
        if (s.running) {
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
            nss[i] = null;
            devs[i] = null;
            frames[i] = null;
            head = (i + 1) & (frames.length - 1);
            count--;
            n.processFrame(d, f);
        }
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
        for (int k = 0; k < count; k++) {
            int i = (head + k) & (frames.length - 1);
            nn[k] = nss[i];
            nd[k] = devs[i];
            nf[k] = frames[i];
        }
        nss = nn;
        devs = nd;
        frames = nf;
        head = 0;
    }
}
