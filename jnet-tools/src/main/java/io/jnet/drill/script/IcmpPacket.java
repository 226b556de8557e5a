package io.jnet.drill.script;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * An ICMP packet line: {@code < icmp unreachable frag_needed mtu 1200 [1:1001(1000)]},
 * {@code > icmp echo_reply id 7}.
 *
 * @param pos where the direction is written
 * @param direction inbound or outbound
 * @param encapsulation outer IPv4 headers, usually none
 * @param ip the IP header's ECN/TOS/TTL, if written
 * @param type the type's name as packetdrill's ({@code unreachable}, {@code time_exceeded}, {@code echo_request}
 *     ...; the player maps names to numbers)
 * @param code the code's name ({@code frag_needed}, {@code port_unreachable} ...), if written
 * @param mtu the next-hop MTU of a fragmentation-needed error ({@code mtu N}), if written
 * @param echoId the identifier of an echo ({@code id N}), if written
 * @param quoted the packet an error quotes, if written
 */
public record IcmpPacket(SourcePos pos, Direction direction, List<Ipv4Encapsulation> encapsulation,
                         Optional<IpInfo> ip, String type, Optional<String> code, OptionalInt mtu,
                         OptionalInt echoId, Optional<IcmpQuoted> quoted) implements Packet {

    public IcmpPacket {
        encapsulation = List.copyOf(encapsulation);
    }

    @Override
    public String render() {
        StringBuilder b = new StringBuilder(renderPrefix()).append("icmp ").append(type);
        code.ifPresent(c -> b.append(' ').append(c));
        mtu.ifPresent(m -> b.append(" mtu ").append(m));
        echoId.ifPresent(i -> b.append(" id ").append(i));
        quoted.ifPresent(q -> b.append(' ').append(q.render()));
        return b.toString();
    }

    @Override
    public String toString() {
        return render();
    }
}
