package io.jnet.drill.script;

import java.util.List;
import java.util.Optional;

/**
 * A packet line: {@code <} one the script injects, {@code >} one it expects the stack to send. Sequence numbers in
 * it are as written (packetdrill makes the remote side's relative to its initial sequence number, the stack's
 * relative to the stack's, unless the script says otherwise); the player interprets them.
 */
public sealed interface Packet extends Action permits TcpPacket, UdpPacket, IcmpPacket {

    /** Where the direction is written. */
    @Override
    SourcePos pos();

    /** Inbound ({@code <}) or outbound ({@code >}). */
    Direction direction();

    /** Outer IPv4 headers before the packet, outermost first; usually none. */
    List<Ipv4Encapsulation> encapsulation();

    /** The (inner) IP header's ECN/TOS/TTL as written, e.g. {@code [ect0]}. */
    Optional<IpInfo> ip();

    /** {@code <} or {@code >}, the encapsulation and the IP fields, each followed by a space. */
    default String renderPrefix() {
        StringBuilder b = new StringBuilder().append(direction().symbol()).append(' ');
        for (Ipv4Encapsulation e : encapsulation()) b.append(e.render()).append(' ');
        ip().ifPresent(i -> b.append(i.render()).append(' '));
        return b.toString();
    }
}
