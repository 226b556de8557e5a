package io.jnet.link;

import io.jnet.buffer.PacketBuffer;

/**
 * A virtual Ethernet pair: a frame transmitted on one end is received on the other, in the sending
 * thread (the receiving namespace's backlog prevents recursion). Attach each end to a namespace.
 * Frames are received in the order they were transmitted, whichever threads transmit them: each end
 * queues what it receives and one thread at a time polls that queue ({@code NapiQueue}), as
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

    static final class End extends AbstractDevice {
        End peer;
        private final NapiQueue rx = new NapiQueue(this);

        End(String name, int mtu) { super(name, mtu, randomMac()); }

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
            p.rx.receive(frame);
        }
    }
}
