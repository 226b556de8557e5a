package io.jnet.drill.play;

import io.jnet.drill.script.IcmpPacket;
import io.jnet.drill.script.IcmpQuoted;
import io.jnet.wire.Checksum;
import io.jnet.wire.Icmp;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import java.net.Inet4Address;
import java.util.Map;

/**
 * Builds an inbound ICMP error (RFC 792) from the runner's address to the stack's, quoting the IP header and the
 * first 8 bytes of a segment the stack sent, as a router on the path would: {@code < icmp unreachable frag_needed
 * mtu 1200 [1:1001(1000)]} carries the next-hop MTU (RFC 1191) and quotes the stack's segment 1:1001.
 */
final class IcmpBuilder {
    private IcmpBuilder() {}

    private static final Map<String, Integer> TYPES = Map.of("unreachable", Icmp.DEST_UNREACH,
            "time_exceeded", Icmp.TIME_EXCEEDED, "source_quench", Icmp.SOURCE_QUENCH, "parameter_problem", Icmp.PARAMETER_PROBLEM);

    /** packetdrill's code names for destination unreachable (RFC 792, RFC 1122 3.2.2.1). */
    private static final Map<String, Integer> UNREACHABLE_CODES = Map.ofEntries(Map.entry("net_unreachable", 0),
            Map.entry("host_unreachable", 1), Map.entry("protocol_unreachable", 2), Map.entry("port_unreachable", 3),
            Map.entry("frag_needed", 4), Map.entry("source_route_failed", 5), Map.entry("net_unknown", 6),
            Map.entry("host_unknown", 7), Map.entry("source_host_isolated", 8), Map.entry("net_prohibited", 9),
            Map.entry("host_prohibited", 10), Map.entry("net_unreachable_for_tos", 11),
            Map.entry("host_unreachable_for_tos", 12), Map.entry("packet_filtered", 13),
            Map.entry("precedence_violation", 14), Map.entry("precedence_cutoff", 15));

    static byte[] build(IcmpPacket p, Flow flow, Inet4Address local, Inet4Address remote) throws Unsupported {
        int line = p.pos().line();
        Integer type = TYPES.get(p.type());
        if (type == null) throw new Unsupported(line, "inbound ICMP type " + p.type());
        int code = 0;
        if (p.code().isPresent()) {
            Integer c = type == Icmp.DEST_UNREACH ? UNREACHABLE_CODES.get(p.code().get())
                    : p.code().get().equals("ttl_exceeded") || p.code().get().equals("exceeded_ttl") ? Integer.valueOf(0) : null;
            if (c == null) throw new Unsupported(line, "ICMP code " + p.code().get() + " for " + p.type());
            code = c;
        }
        long seq = 0;
        int len = 0;
        if (p.quoted().isPresent()) {
            if (!(p.quoted().get() instanceof IcmpQuoted.Tcp q)) throw new Unsupported(line, "an ICMP error quoting " + p.quoted().get().render());
            seq = q.seqStart();
            len = q.payloadLength();
        }
        int src = Ipv4.fromInet(remote), dst = Ipv4.fromInet(local);
        // the quoted packet: the stack's IPv4 header and the first 8 bytes of its TCP header
        byte[] quoted = new byte[Ipv4.MIN_HEADER_LENGTH + 8];
        Ipv4.write(quoted, 0, 0, Ipv4.MIN_HEADER_LENGTH + Tcp.MIN_HEADER_LENGTH + len, 0, Ipv4.FLAG_DF, 64, Ipv4.PROTO_TCP, dst, src);
        int localIsn = (int) (flow.localIsn < 0 ? 0 : flow.localIsn);
        put16(quoted, 20, Math.max(flow.localPort, 0));
        put16(quoted, 22, Math.max(flow.remotePort, 0));
        put32(quoted, 24, (int) Flow.u32(localIsn + seq));
        byte[] icmp = new byte[Icmp.HEADER_LENGTH + quoted.length];
        icmp[0] = (byte) (int) type;
        icmp[1] = (byte) code;
        if (type == Icmp.DEST_UNREACH && code == 4 && p.mtu().isPresent()) put16(icmp, 6, p.mtu().getAsInt());
        System.arraycopy(quoted, 0, icmp, Icmp.HEADER_LENGTH, quoted.length);
        put16(icmp, 2, Checksum.compute(icmp, 0, icmp.length));
        byte[] packet = new byte[Ipv4.MIN_HEADER_LENGTH + icmp.length];
        Ipv4.write(packet, 0, 0, packet.length, 0, 0, 64, 1, src, dst);
        System.arraycopy(icmp, 0, packet, Ipv4.MIN_HEADER_LENGTH, icmp.length);
        return packet;
    }

    private static void put16(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 8);
        b[off + 1] = (byte) v;
    }

    private static void put32(byte[] b, int off, int v) {
        put16(b, off, v >>> 16);
        put16(b, off + 2, v);
    }
}
