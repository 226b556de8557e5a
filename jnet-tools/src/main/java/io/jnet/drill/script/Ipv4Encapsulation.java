package io.jnet.drill.script;

import java.net.Inet4Address;
import java.util.Optional;

/**
 * An outer IPv4 header before a packet (IP in IP), {@code ipv4 192.0.2.1 > 192.168.0.1:}, in packetdrill's
 * {@code packet_prefix}. The packet after it has its own, inner, IP header.
 *
 * @param pos where {@code ipv4} is
 * @param ip the outer header's TOS/ECN/TTL, if written ({@code ipv4 [ttl 3] ...})
 * @param source the outer source address
 * @param destination the outer destination address
 */
public record Ipv4Encapsulation(SourcePos pos, Optional<IpInfo> ip, Inet4Address source, Inet4Address destination) {

    /** {@code ipv4 192.0.2.1 > 192.168.0.1:}. */
    public String render() {
        return "ipv4 " + ip.map(i -> i.render() + " ").orElse("") + source.getHostAddress() + " > "
            + destination.getHostAddress() + ":";
    }

    @Override
    public String toString() {
        return render();
    }
}
