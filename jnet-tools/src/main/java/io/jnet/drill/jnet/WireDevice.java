package io.jnet.drill.jnet;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.AbstractDevice;
import io.jnet.stack.Clock;
import io.jnet.wire.Ethernet;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The stack's end of the script's wire: an Ethernet device whose far end is the runner, as a TUN device's far end
 * is packetdrill. Frames the stack sends are queued as IPv4 packets (the Ethernet header taken off, anything but
 * IPv4 dropped and counted) with the time they were sent; {@link #inject} hands the stack a packet at once, in the
 * caller's thread. No offloads: checksums are computed and segments fit the MTU, as on a TUN device.
 */
final class WireDevice extends AbstractDevice {
    /** One packet the stack sent, with its time on the namespace's clock (ns). */
    record Sent(byte[] packet, long nanos) {}

    private final Clock clock;
    private final long runnerMac = randomMac();
    private final ArrayDeque<Sent> sent = new ArrayDeque<>();
    /** Frames sent (all kinds), for the player's check that the stack has settled. */
    private final AtomicLong transmitted = new AtomicLong();
    private final AtomicLong otherDropped = new AtomicLong();

    WireDevice(String name, int mtu, Clock clock) {
        super(name, mtu, randomMac());
        this.clock = clock;
    }

    /** The MAC address the runner answers with (the gateway's, in the stack's neighbour table). */
    long runnerMac() { return runnerMac; }

    @Override public boolean isLoopback() { return false; }

    @Override
    public void transmit(PacketBuffer frame) {
        try {
            transmitted.incrementAndGet();
            if (closed) {
                stats().txDropped.increment();
                return;
            }
            stats().countTx(frame.length());
            byte[] f = new byte[frame.length()];
            frame.copyData(0, f, 0, f.length);
            if (f.length < Ethernet.HEADER_LENGTH || Ethernet.etherType(f, 0) != Ethernet.TYPE_IPV4) {
                otherDropped.incrementAndGet();
                return;
            }
            byte[] ip = java.util.Arrays.copyOfRange(f, Ethernet.HEADER_LENGTH, f.length);
            synchronized (sent) {
                sent.add(new Sent(ip, clock.nanoTime()));
            }
        } finally {
            frame.release();
        }
    }

    /** Hands the stack an IPv4 packet from the runner, in this thread. */
    void inject(byte[] ipPacket) {
        byte[] f = new byte[Ethernet.HEADER_LENGTH + ipPacket.length];
        Ethernet.write(f, 0, macAddress(), runnerMac, Ethernet.TYPE_IPV4);
        System.arraycopy(ipPacket, 0, f, Ethernet.HEADER_LENGTH, ipPacket.length);
        deliver(PacketBuffer.copyOf(f, 0, f.length, PacketBuffer.DEFAULT_HEADROOM));
    }

    /** The oldest packet sent and not yet taken, or null. */
    Sent poll() {
        synchronized (sent) {
            return sent.poll();
        }
    }

    /** The time of the oldest packet not yet taken, or -1 when none. */
    long peekNanos() {
        synchronized (sent) {
            Sent s = sent.peek();
            return s == null ? -1 : s.nanos();
        }
    }

    long transmitted() { return transmitted.get(); }

    /** Frames that were not IPv4 (none expected: the gateway's address is a permanent neighbour). */
    long otherDropped() { return otherDropped.get(); }
}
