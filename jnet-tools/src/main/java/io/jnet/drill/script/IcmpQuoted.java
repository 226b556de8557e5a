package io.jnet.drill.script;

/**
 * The packet an ICMP error quotes, in brackets at the end of an ICMP line: {@code [1:1001(1000)]} (TCP),
 * {@code [udp (100)]}, {@code [raw (100)]}. Without it packetdrill quotes a TCP header with sequence 0:0(0).
 */
public sealed interface IcmpQuoted {

    /** Where the opening bracket is. */
    SourcePos pos();

    /** In packetdrill's syntax, brackets included. */
    String render();

    /** A quoted TCP segment: its sequence numbers (relative, as a TCP line's) and payload length. */
    record Tcp(SourcePos pos, long seqStart, long seqEnd, int payloadLength) implements IcmpQuoted {
        @Override public String render() { return "[" + seqStart + ":" + seqEnd + "(" + payloadLength + ")]"; }
        @Override public String toString() { return render(); }
    }

    /** A quoted UDP datagram with a payload of {@code payloadLength} bytes. */
    record Udp(SourcePos pos, int payloadLength) implements IcmpQuoted {
        @Override public String render() { return "[udp (" + payloadLength + ")]"; }
        @Override public String toString() { return render(); }
    }

    /** A quoted raw IP packet with a payload of {@code payloadLength} bytes. */
    record Raw(SourcePos pos, int payloadLength) implements IcmpQuoted {
        @Override public String render() { return "[raw (" + payloadLength + ")]"; }
        @Override public String toString() { return render(); }
    }
}
