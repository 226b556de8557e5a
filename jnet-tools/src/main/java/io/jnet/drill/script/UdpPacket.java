package io.jnet.drill.script;

import java.util.List;
import java.util.Optional;

/**
 * A UDP packet line: {@code < udp (100)}, {@code > udp 5000>53 (20)}.
 *
 * @param pos where the direction is written
 * @param direction inbound or outbound
 * @param encapsulation outer IPv4 headers, usually none
 * @param ip the IP header's TOS/TTL, if written (no ECN: packetdrill refuses ECN marks on UDP)
 * @param ports explicit ports, if written
 * @param payloadLength payload bytes, 0..65535
 */
public record UdpPacket(SourcePos pos, Direction direction, List<Ipv4Encapsulation> encapsulation,
                        Optional<IpInfo> ip, Optional<Ports> ports, int payloadLength) implements Packet {

    public UdpPacket {
        encapsulation = List.copyOf(encapsulation);
    }

    @Override
    public String render() {
        return renderPrefix() + "udp " + ports.map(p -> p.render() + " ").orElse("") + "(" + payloadLength + ")";
    }

    @Override
    public String toString() {
        return render();
    }
}
