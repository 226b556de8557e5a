package io.jnet.drill.play;

/**
 * The one connection a script's packets belong to, as the runner learns it: the ports, both initial sequence
 * numbers and the timestamp clocks' offset. Sequence numbers are 32-bit values kept in longs.
 */
final class Flow {
    /** The stack's port, -1 until a bind or its first packet says. */
    int localPort = -1;
    /** The runner's port, -1 until a connect or the script's first packet says. */
    int remotePort = -1;
    /** The stack's initial sequence number, learned from the SYN it sends; -1 before. */
    long localIsn = -1;
    /** The runner's initial sequence number (its SYN carries it). */
    final long remoteIsn;
    /**
     * The stack's TS val minus the script's for the first outbound timestamp (RFC 7323 clocks differ): an
     * injected TS ecr is the script's plus this offset. Unknown (null) until the stack sent a timestamp.
     */
    Long tsValOffset;

    Flow(long remoteIsn) { this.remoteIsn = remoteIsn & 0xFFFF_FFFFL; }

    static long u32(long v) { return v & 0xFFFF_FFFFL; }
}
