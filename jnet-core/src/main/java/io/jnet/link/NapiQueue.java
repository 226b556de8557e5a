package io.jnet.link;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.SoftIrq;

/**
 * One device's receive queue, kept in the order frames were queued and polled by one thread at a time, as
 * Linux's NAPI: {@link #receive} queues a frame and schedules a poll ({@link SoftIrq#napiSchedule}) unless one is
 * pending or running; the poll hands up to {@link #NAPI_POLL_WEIGHT} frames to the device's receiver, which
 * processes each at once, and schedules itself again while frames are left. So a frame that one thread queues
 * while it is busy in receive is not overtaken by a later frame of another thread: the devices that hand their
 * frames to this process (veth, loopback) receive them in the order they were transmitted.
 */
final class NapiQueue {
    /**
     * Frames the queue holds at most; more are dropped, counted in the device's rx_dropped. Linux hands such frames
     * to a per-CPU backlog of net.core.netdev_max_backlog (1000) frames; here one queue serves all sending threads
     * and waits whenever its polling thread is descheduled, so it is bounded higher: at 1000, rds-stress -q 100000
     * -t 16 -d 16 on a loaded 2-CPU machine overflowed a veth end's (457 frames deep in a run that did not).
     */
    static final int RX_QUEUE_LIMIT = 16384;
    /** Frames one poll hands up before letting other receive work run (Linux's NAPI_POLL_WEIGHT). */
    static final int NAPI_POLL_WEIGHT = 64;

    private final AbstractDevice dev;
    private final Object lock = new Object();
    private PacketBuffer[] queue = new PacketBuffer[64];
    private int head;
    private int count;
    /** True from the moment a poll is scheduled until a poll finds the queue empty (NAPI_STATE_SCHED). */
    private boolean scheduled;
    private final Runnable poll = this::poll;

    NapiQueue(AbstractDevice dev) { this.dev = dev; }

    /** Queues a received frame; schedules a poll unless one is pending or running. */
    void receive(PacketBuffer frame) {
        boolean schedule;
        synchronized (lock) {
            if (count >= RX_QUEUE_LIMIT) {
                dev.stats().rxDropped.increment();
                frame.release();
                return;
            }
            if (count == queue.length) grow();
            queue[(head + count) & (queue.length - 1)] = frame;
            count++;
            schedule = !scheduled;
            scheduled = true;
        }
        if (schedule) SoftIrq.napiSchedule(poll);
    }

    /** Doubles the queue's array, keeping the order (called with lock held). */
    private void grow() {
        PacketBuffer[] q = new PacketBuffer[queue.length * 2];
        for (int k = 0; k < count; k++) q[k] = queue[(head + k) & (queue.length - 1)];
        queue = q;
        head = 0;
    }

    /** Hands up to {@link #NAPI_POLL_WEIGHT} queued frames to the device's receiver in order, then polls again later. */
    private void poll() {
        for (int n = 0; n < NAPI_POLL_WEIGHT; n++) {
            PacketBuffer f;
            synchronized (lock) {
                if (count == 0) {
                    scheduled = false;
                    return;
                }
                f = queue[head];
                queue[head] = null;
                head = (head + 1) & (queue.length - 1);
                count--;
            }
            dev.deliver(f);
        }
        SoftIrq.napiSchedule(poll);
    }
}
