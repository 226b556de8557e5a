package io.jnet.link;

import io.jnet.buffer.PacketBuffer;

/**
 * A virtual Ethernet pair: a frame transmitted on one end is received on the other, in the sending
 * thread (the receiving namespace's backlog prevents recursion). Attach each end to a namespace.
 * MTU 1500 by default, random locally administered MACs.
 */
public final class VethPair {
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

        End(String name, int mtu) { super(name, mtu, randomMac()); }

        @Override public boolean isLoopback() { return false; }

        @Override
        public void transmit(PacketBuffer frame) {
            End p = peer;
            if (closed || p.closed || frame.length() > mtu() + 14 + 4) {
                stats().txDropped.increment();
                frame.release();
                return;
            }
            stats().countTx(frame.length());
            frame.setChecksumUnnecessary(false);
            p.deliver(frame);
        }
    }
}
