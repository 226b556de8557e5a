package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;

/** Builds and sends control segments that belong to no full connection: resets and TIME-WAIT ACKs. */
final class TcpReset {
    private final TcpProtocol tcp;

    TcpReset(TcpProtocol tcp) { this.tcp = tcp; }

    /**
     * RFC 9293 3.10.7.1: a segment for no socket. No reply to a RST; for an ACK, RST with SEQ=SEG.ACK;
     * otherwise RST+ACK with SEQ=0, ACK=SEG.SEQ+SEG.LEN. {@code pkt} data starts at the TCP header and
     * its control block (seq, endSeq, flags) is filled. Not consumed.
     */
    void sendForNoSocket(PacketBuffer pkt, int src, int dst) {
        int flags = pkt.flags;
        if ((flags & Tcp.RST) != 0) return;
        if (Ipv4.isMulticast(dst) || dst == -1) return;
        byte[] b = pkt.array();
        int off = pkt.dataStart();
        int sport = Tcp.sourcePort(b, off);
        int dport = Tcp.destinationPort(b, off);
        if ((flags & Tcp.ACK) != 0) {
            send(dst, dport, src, sport, Tcp.ack(b, off), 0, Tcp.RST, 0, null);
        } else {
            send(dst, dport, src, sport, 0, pkt.endSeq, Tcp.RST | Tcp.ACK, 0, null);
        }
    }

    /** Sends one header-only segment. {@code opts} may be null. Counts TcpOutSegs (and TcpOutRsts). */
    void send(int laddr, int lport, int raddr, int rport, int seq, int ack, int flags, int window, TcpOptions opts) {
        int optLen = opts == null ? 0 : opts.writtenLength();
        int hl = Tcp.MIN_HEADER_LENGTH + optLen;
        PacketBuffer p = tcp.ns.allocator().allocate(PacketBuffer.DEFAULT_HEADROOM, hl);
        int off = p.put(hl);
        byte[] b = p.array();
        Tcp.writeHeader(b, off, lport, rport, seq, ack, hl, flags, window);
        if (opts != null) opts.write(b, off + Tcp.MIN_HEADER_LENGTH);
        Tcp.fillChecksum(b, off, hl, laddr, raddr);
        tcp.mib.inc(MibCounter.TcpOutSegs);
        if ((flags & Tcp.RST) != 0) tcp.mib.inc(MibCounter.TcpOutRsts);
        tcp.ip.output(p, laddr, raddr, Ipv4.PROTO_TCP, 0, 0, true, null);
    }
}
