package io.jnet.link;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.SoftIrq;

/**
 * A virtual Ethernet pair: a frame transmitted on one end is received on the other, in the sending
 * thread (the receiving namespace's backlog prevents recursion). Attach each end to a namespace.
 * Frames are received in the order they were transmitted, whichever threads transmit them: each end
 * queues what it receives and one thread at a time polls that queue ({@link SoftIrq#napiSchedule}), as
 * Linux's veth queues frames on one receive queue that one CPU processes in order. Without that, a frame
 * queued in one thread's backlog could be overtaken by a later one another thread delivered at once, and
 * TCP would see reordering on a link that has none.
 * MTU 1500 by default, random locally administered MACs. Like Linux's veth, it offloads checksums and
 * segmentation: TCP may hand it segments up to {@link #GSO_MAX_SIZE} that the peer receives whole.
 */
public final class VethPair {
    /** Largest segment handed whole to the peer (Linux's GSO_MAX_SIZE of 64 KiB). */
    public static final int GSO_MAX_SIZE = 65536;

    private final End a;
    private final End b;

    private VethPair(String nameA, String nameB, int mtu) {
        a = new End(nameA, mtu);
        b = new End(nameB, mtu);
        a.peer = b;
        b.peer = a;
    }

    /** Creates a pair with MTU 1500. */
    public static VethPair create(String nameA, String nameB) { return new VethPair(nameA, nameB, 1500); }

    /** Creates a pair with the given MTU in bytes. */
    public static VethPair create(String nameA, String nameB, int mtu) { return new VethPair(nameA, nameB, mtu); }

    public NetDevice a() { return a; }
    public NetDevice b() { return b; }

    /**
     * Frames an end's receive queue holds at most; more are dropped, counted in its rx_dropped. Linux's veth
     * hands frames to a per-CPU backlog of net.core.netdev_max_backlog (1000) frames; here one queue serves all
     * sending threads and waits whenever its polling thread is descheduled, so it is bounded higher: at 1000,
     * rds-stress -q 100000 -t 16 -d 16 on a loaded 2-CPU machine overflowed it (457 frames deep in a run that
     * did not).
     */
    static final int RX_QUEUE_LIMIT = 16384;
    /** Frames one poll hands up before letting other receive work run (Linux's NAPI_POLL_WEIGHT). */
    static final int NAPI_POLL_WEIGHT = 64;

    static final class End extends AbstractDevice {
        End peer;
        private final Object rxLock = new Object();
        private PacketBuffer[] rxQueue = new PacketBuffer[64];
        private int rxHead;
        private int rxCount;
        /** True from the moment a poll is scheduled until a poll finds the queue empty (NAPI_STATE_SCHED). */
        private boolean rxScheduled;
        private final Runnable poll = this::poll;

        End(String name, int mtu) { super(name, mtu, randomMac()); }

        /** Queues a frame the peer transmitted; schedules a poll unless one is pending or running. */
        void receive(PacketBuffer frame) {
            boolean schedule;
            synchronized (rxLock) {
                if (rxCount >= RX_QUEUE_LIMIT) {
                    stats().rxDropped.increment();
                    frame.release();
                    return;
                }
                if (rxCount == rxQueue.length) grow();
                rxQueue[(rxHead + rxCount) & (rxQueue.length - 1)] = frame;
                rxCount++;
                schedule = !rxScheduled;
                rxScheduled = true;
            }
            if (schedule) SoftIrq.napiSchedule(poll);
        }

        /** Doubles the queue's array, keeping the order (called with rxLock held). */
        private void grow() {
            PacketBuffer[] q = new PacketBuffer[rxQueue.length * 2];
            for (int k = 0; k < rxCount; k++) q[k] = rxQueue[(rxHead + k) & (rxQueue.length - 1)];
            rxQueue = q;
            rxHead = 0;
        }

        /** Hands up to {@link #NAPI_POLL_WEIGHT} queued frames to the receiver in order, then polls again later. */
        private void poll() {
            for (int n = 0; n < NAPI_POLL_WEIGHT; n++) {
                PacketBuffer f;
                synchronized (rxLock) {
                    if (rxCount == 0) {
                        rxScheduled = false;
                        return;
                    }
                    f = rxQueue[rxHead];
                    rxQueue[rxHead] = null;
                    rxHead = (rxHead + 1) & (rxQueue.length - 1);
                    rxCount--;
                }
                deliver(f);
            }
            SoftIrq.napiSchedule(poll);
        }

        @Override public boolean isLoopback() { return false; }

        /** Both ends are jnet devices in this process: checksums may be left out. */
        @Override public boolean checksumOffload() { return true; }

        /** The peer is in this process: data carried by reference is handed over as it is. */
        @Override public boolean scatterGather() { return true; }

        /** The peer takes segments up to 64 KiB whole (GSO on send, GRO on receive). */
        @Override public int gsoMaxSize() { return GSO_MAX_SIZE; }

        @Override
        public void transmit(PacketBuffer frame) {
            End p = peer;
            if (closed || p.closed || frame.length() > GSO_MAX_SIZE + 14 + 4) {
                stats().txDropped.increment();
                frame.release();
                return;
            }
            stats().countTx(frame.length());
            // a frame whose checksum was left out is marked unnecessary to verify; others are verified
            frame.setChecksumUnnecessary(frame.checksumPartial());
            p.receive(frame);
        }
    }
}
