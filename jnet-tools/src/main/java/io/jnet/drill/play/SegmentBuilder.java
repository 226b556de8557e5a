package io.jnet.drill.play;

import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import java.net.Inet4Address;
import java.util.List;

/** Builds the IPv4 packet for an inbound script segment: the runner's address and port to the stack's. */
final class SegmentBuilder {
    private SegmentBuilder() {}

    /** Why an inbound packet cannot be addressed: what the runner does not know yet. */
    static final String PORTS_UNKNOWN = "an inbound packet before the connection's ports are known (no bind or connect yet)";

    /** packetdrill's inbound TTL. */
    static final int TTL = 64;

    /**
     * The packet, sequence numbers made absolute with {@code flow}'s initial ones (an ack or SACK block before the
     * stack's SYN is left as written, as packetdrill does), TS ecr moved onto the stack's clock, checksums filled.
     *
     * @throws Unsupported when the runner cannot address the packet: the ports are not known yet (a runner limit,
     *     not the stack's failure)
     * @throws PlayException when the line itself is wrong (ACK flag without {@code ack N}, options over 40 bytes)
     */
    static byte[] build(SegmentSpec s, Flow flow, Inet4Address local, Inet4Address remote, int line) throws PlayException, Unsupported {
        if (flow.localPort < 0 || flow.remotePort < 0) throw new Unsupported(line, PORTS_UNKNOWN);
        long ack = 0;
        if (s.ack() != null) {
            // before the stack sent a SYN its ISN is unknown: the ack is sent as written, absolute (packetdrill's
            // local_seq_script_to_live_offset is then the socket's live ISN, still 0), as outbound numbers are read
            ack = Flow.u32((flow.localIsn < 0 ? 0 : flow.localIsn) + s.ack());
        } else if ((s.flags() & Tcp.ACK) != 0) {
            throw new PlayException(line, "an inbound segment with the ACK flag needs 'ack N'");
        }
        List<TcpOption> options = s.options() == null ? List.of() : s.options();
        long ecrOffset = flow.tsValOffset == null ? 0 : flow.tsValOffset;
        byte[] opts = OptionCodec.encode(options, ecrOffset, flow.localIsn < 0 ? 0 : flow.localIsn);
        int hl = Tcp.MIN_HEADER_LENGTH + opts.length;
        if (hl > Tcp.MAX_HEADER_LENGTH) throw new PlayException(line, "TCP options take " + opts.length + " bytes, more than 40");
        int tcpLen = hl + s.length();
        byte[] p = new byte[Ipv4.MIN_HEADER_LENGTH + tcpLen];
        int src = Ipv4.fromInet(remote), dst = Ipv4.fromInet(local);
        int tos = s.ecn() < 0 ? 0 : s.ecn();
        Ipv4.write(p, 0, tos, p.length, 0, Ipv4.FLAG_DF, TTL, Ipv4.PROTO_TCP, src, dst);
        int t = Ipv4.MIN_HEADER_LENGTH;
        int window = s.window() == null ? 0 : s.window();
        Tcp.writeHeader(p, t, flow.remotePort, flow.localPort, (int) Flow.u32(flow.remoteIsn + s.seq()), (int) ack, hl, s.flags(), window);
        if (s.urgentPointer() != null) {
            p[t + 18] = (byte) (s.urgentPointer() >>> 8);
            p[t + 19] = (byte) (int) s.urgentPointer();
        }
        System.arraycopy(opts, 0, p, t + Tcp.MIN_HEADER_LENGTH, opts.length);
        Tcp.fillChecksum(p, t, tcpLen, src, dst);
        return p;
    }
}
