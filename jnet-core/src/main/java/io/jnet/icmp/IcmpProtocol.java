package io.jnet.icmp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.ip.IcmpErrorSender;
import io.jnet.ip.IpProtocolHandler;
import io.jnet.ip.Ipv4Layer;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.Sysctls;
import io.jnet.wire.Checksum;
import io.jnet.wire.Icmp;
import io.jnet.wire.Ipv4;

/**
 * ICMPv4 (RFC 792): answers echo requests (any size, including reassembled ones), passes errors about
 * packets we sent to their transport, and sends destination-unreachable and other errors for received
 * packets, rate limited like Linux (a global token bucket of net.ipv4.icmp_msgs_per_sec with a burst
 * of 50; never about ICMP errors, fragments other than the first, or broadcasts; no limit on loopback).
 */
public final class IcmpProtocol implements IpProtocolHandler, IcmpErrorSender {
    /** Largest error message: 576-byte datagram minus headers (RFC 1812 4.3.2.3). */
    private static final int MAX_ERROR_QUOTE = 576 - Ipv4.MIN_HEADER_LENGTH - Icmp.HEADER_LENGTH;
    private static final int BURST = 50;
    /** Linux's default net.ipv4.icmp_ratemask: types 3, 4, 11 and 12. */
    private static final int RATEMASK = 0x1818;

    private final NetNamespace ns;
    private final Ipv4Layer ip;
    private final Mib mib;
    private final Sysctls sysctl;
    private double tokens = BURST;
    private long lastRefill;

    public IcmpProtocol(NetNamespace ns) {
        this.ns = ns;
        this.ip = ns.extension(Ipv4Layer.class);
        this.mib = ns.mib();
        this.sysctl = ns.sysctl();
        ip.registerProtocol(Ipv4.PROTO_ICMP, this);
        ip.setIcmpErrorSender(this);
    }

    @Override
    public void receive(PacketBuffer pkt, int src, int dst) {
        try {
            mib.inc(MibCounter.IcmpInMsgs);
            byte[] b = pkt.array();
            int off = pkt.dataStart();
            int len = pkt.length();
            if (len < Icmp.HEADER_LENGTH) {
                mib.inc(MibCounter.IcmpInErrors);
                return;
            }
            if (!pkt.checksumUnnecessary() && Checksum.compute(b, off, len) != 0) {
                mib.inc(MibCounter.IcmpInCsumErrors);
                mib.inc(MibCounter.IcmpInErrors);
                return;
            }
            int type = Icmp.type(b, off);
            switch (type) {
                case Icmp.ECHO_REQUEST -> {
                    mib.inc(MibCounter.IcmpInEchos);
                    if (!sysctl.icmpEchoIgnoreAll.enabled() && !Ipv4.isMulticast(dst) && dst != -1) echoReply(pkt, src, dst);
                }
                case Icmp.ECHO_REPLY -> mib.inc(MibCounter.IcmpInEchoReps);
                case Icmp.DEST_UNREACH, Icmp.TIME_EXCEEDED -> {
                    mib.inc(type == Icmp.DEST_UNREACH ? MibCounter.IcmpInDestUnreachs : MibCounter.IcmpInTimeExcds);
                    int info = Icmp.code(b, off) == Icmp.CODE_FRAG_NEEDED ? Icmp.nextHopMtu(b, off) : 0;
                    int qoff = off + Icmp.HEADER_LENGTH;
                    int qlen = len - Icmp.HEADER_LENGTH;
                    if (qlen >= Ipv4.MIN_HEADER_LENGTH && Ipv4.version(b, qoff) == 4
                            && Ipv4.headerLength(b, qoff) >= Ipv4.MIN_HEADER_LENGTH
                            && qlen >= Ipv4.headerLength(b, qoff) + 8) {
                        ip.deliverIcmpError(type, Icmp.code(b, off), info, b, qoff, qlen);
                    } else {
                        mib.inc(MibCounter.IcmpInErrors);
                    }
                }
                default -> { /* other types: counted in IcmpInMsgs only */ }
            }
        } finally {
            pkt.release();
        }
    }

    private void echoReply(PacketBuffer req, int src, int dst) {
        int len = req.length();
        PacketBuffer reply = ns.allocator().allocate(PacketBuffer.DEFAULT_HEADROOM, len);
        int off = reply.put(len);
        System.arraycopy(req.array(), req.dataStart(), reply.array(), off, len);
        byte[] b = reply.array();
        int rest = io.jnet.wire.Bytes.i32(b, off + 4);
        reply.array()[off] = (byte) Icmp.ECHO_REPLY;
        Icmp.write(b, off, len, Icmp.ECHO_REPLY, 0, rest);
        int tos = Ipv4.tos(req.array(), req.networkOffset());
        mib.inc(MibCounter.IcmpOutMsgs);
        mib.inc(MibCounter.IcmpOutEchoReps);
        ip.output(reply, dst, src, Ipv4.PROTO_ICMP, tos, 0, false, null);
    }

    /** Sends an echo request (for tests and a ping tool); payload is copied. Returns 0 or -errno. */
    public int sendEcho(int dst, int id, int seq, byte[] payload) {
        int len = Icmp.HEADER_LENGTH + payload.length;
        PacketBuffer p = ns.allocator().allocate(PacketBuffer.DEFAULT_HEADROOM, len);
        int off = p.put(len);
        System.arraycopy(payload, 0, p.array(), off + Icmp.HEADER_LENGTH, payload.length);
        Icmp.write(p.array(), off, len, Icmp.ECHO_REQUEST, 0, (id << 16) | (seq & 0xFFFF));
        mib.inc(MibCounter.IcmpOutMsgs);
        mib.inc(MibCounter.IcmpOutEchos);
        return ip.output(p, 0, dst, Ipv4.PROTO_ICMP, 0, 0, false, null);
    }

    @Override
    public void sendError(PacketBuffer original, int type, int code, int info) {
        byte[] b = original.array();
        int noff = original.networkOffset();
        if (noff < 0) return;
        int src = Ipv4.source(b, noff);
        int dst = Ipv4.destination(b, noff);
        if (Ipv4.isMulticast(dst) || dst == -1 || src == 0 || Ipv4.isMulticast(src)) return;
        if (Ipv4.fragmentOffset(b, noff) != 0) return;
        int hl = Ipv4.headerLength(b, noff);
        if (Ipv4.protocol(b, noff) == Ipv4.PROTO_ICMP) {
            int t = original.length() > 0 && noff + hl < b.length ? b[noff + hl] & 0xFF : -1;
            if (t != Icmp.ECHO_REQUEST && t != Icmp.ECHO_REPLY) return; // never about an ICMP error
        }
        // Linux icmpv4_mask_allow: only the types in icmp_ratemask (default 0x1818: destination unreachable,
        // source quench, time exceeded, parameter problem) are limited, and never fragmentation needed (path MTU
        // discovery); redirects have their own per-sender limit (Ipv4Layer)
        boolean limited = (RATEMASK & (1 << type)) != 0 && !(type == Icmp.DEST_UNREACH && code == Icmp.CODE_FRAG_NEEDED);
        if (limited && !Ipv4.isLoopback(src) && !allow()) {
            mib.inc(MibCounter.IcmpOutRateLimitGlobal);
            return;
        }
        int total = Ipv4.totalLength(b, noff);
        int available = original.dataEnd() - noff;
        int quote = Math.min(Math.min(total, available), MAX_ERROR_QUOTE);
        int len = Icmp.HEADER_LENGTH + quote;
        PacketBuffer p = ns.allocator().allocate(PacketBuffer.DEFAULT_HEADROOM, len);
        int off = p.put(len);
        System.arraycopy(b, noff, p.array(), off + Icmp.HEADER_LENGTH, quote);
        int rest = type == Icmp.REDIRECT ? info // the gateway address
                : type == Icmp.DEST_UNREACH && code == Icmp.CODE_FRAG_NEEDED ? info & 0xFFFF : 0;
        Icmp.write(p.array(), off, len, type, code, rest);
        mib.inc(MibCounter.IcmpOutMsgs);
        if (type == Icmp.DEST_UNREACH) mib.inc(MibCounter.IcmpOutDestUnreachs);
        else if (type == Icmp.TIME_EXCEEDED) mib.inc(MibCounter.IcmpOutTimeExcds);
        else if (type == Icmp.REDIRECT) mib.inc(MibCounter.IcmpOutRedirects);
        // Linux icmp_send: from the packet's destination when it was ours, else (a forwarded packet) from the
        // address the route back to the sender selects
        int from = ns.isLocalAddress(dst) ? dst : 0;
        ip.output(p, from, src, Ipv4.PROTO_ICMP, 0xC0, 0, false, null);
    }

    private synchronized boolean allow() {
        long now = ns.clock().nanoTime();
        int rate = sysctl.icmpMsgsPerSec.intValue();
        if (rate <= 0) return true;
        if (lastRefill != 0) tokens = Math.min(BURST, tokens + (now - lastRefill) * rate / 1e9);
        lastRefill = now;
        if (tokens < 1) return false;
        tokens -= 1;
        return true;
    }
}
