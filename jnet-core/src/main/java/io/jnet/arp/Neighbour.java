package io.jnet.arp;

import io.jnet.buffer.PacketQueue;
import io.jnet.stack.Interface;
import io.jnet.stack.Timer;

/**
 * One neighbour entry (Linux's struct neighbour, NUD states INCOMPLETE, REACHABLE, STALE, DELAY,
 * PROBE, FAILED, PERMANENT). Guarded by its own monitor.
 */
public final class Neighbour {
    /** Neighbour unreachability detection states (Linux NUD_*). */
    public enum State { INCOMPLETE, REACHABLE, STALE, DELAY, PROBE, FAILED, PERMANENT }

    final Interface itf;
    final int address;
    volatile long mac;
    volatile State state;
    /** Clock time (ns) of the last confirmation (ARP reply or request from it). */
    volatile long confirmed;
    int probes;
    final PacketQueue pending = new PacketQueue();
    Timer timer;
    /** Set when the entry left the table: holders of a cached reference must look up afresh. */
    volatile boolean dead;

    /** True once the entry was removed from its table (garbage collected or flushed). */
    public boolean isDead() { return dead; }

    Neighbour(Interface itf, int address) {
        this.itf = itf;
        this.address = address;
        this.state = State.INCOMPLETE;
    }

    public int address() { return address; }
    public long mac() { return mac; }
    public State state() { return state; }
    public Interface itf() { return itf; }

    /** True when frames can be sent now (a MAC is known). */
    public boolean isValid() {
        State s = state;
        return s == State.REACHABLE || s == State.STALE || s == State.DELAY || s == State.PROBE || s == State.PERMANENT;
    }

    @Override
    public String toString() {
        return io.jnet.wire.Ipv4.addressToString(address) + " dev " + itf.name() + " lladdr "
                + io.jnet.wire.Ethernet.macToString(mac) + " " + state;
    }
}
