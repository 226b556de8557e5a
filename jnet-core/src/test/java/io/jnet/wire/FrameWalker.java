package io.jnet.wire;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Dissects an Ethernet frame layer by layer (Ethernet, ARP, IPv4, ICMP with the quoted packet of an error,
 * UDP, VXLAN and its inner frame, TCP with options; IPv6 only counted) through both the validate() methods
 * and the Repr parsers, failing with an AssertionError when the two disagree, and re-emits every header from
 * its record (payload bytes copied) into an output array at the same offsets.
 *
 * <p>Outcomes: normal return, a MalformedPacketException from a parser (bad input), or an AssertionError
 * (validate/parse disagreement). Anything else is a defect in the wire classes.
 */
final class FrameWalker {
    /** Headers seen, counted at every nesting level (VXLAN inner frames, ICMP quoted packets). */
    static final class Counts {
        int frames, innerFrames, arp, ipv4, ipv6, otherEtherType, fragments, icmp, icmpQuoted, udp, vxlan, tcp,
                tcpSackSegments;

        @Override
        public String toString() {
            return "frames " + frames + " inner " + innerFrames + " arp " + arp + " ipv4 " + ipv4 + " ipv6 " + ipv6
                    + " other " + otherEtherType + " fragments " + fragments + " icmp " + icmp + " quoted " + icmpQuoted
                    + " udp " + udp + " vxlan " + vxlan + " tcp " + tcp + " sack " + tcpSackSegments;
        }
    }

    private static final int MAX_NESTING = 3;

    final Counts counts = new Counts();
    /** TCP headers parsed, when collecting. */
    final List<TcpRepr> tcpSegments = new ArrayList<>();
    private final boolean verifyChecksums;
    private final boolean collect;
    private final TcpOptions scratchOptions = new TcpOptions();
    private int nesting;
    /** Folds accessor results so that every accessor is really called. */
    long sink;

    /**
     * @param verifyChecksums whether checksums must verify (a bad one throws BAD_CHECKSUM)
     * @param collect whether to keep every parsed TcpRepr in {@link #tcpSegments}
     */
    FrameWalker(boolean verifyChecksums, boolean collect) {
        this.verifyChecksums = verifyChecksums;
        this.collect = collect;
    }

    /** Walks the frame {@code b[off, off+len)}, writing the re-emitted frame to {@code out[off, off+len)}. */
    void frame(byte[] b, int off, int len, byte[] out) throws MalformedPacketException {
        counts.frames++;
        nesting = 0;
        ethernet(b, off, len, out);
    }

    private void ethernet(byte[] b, int off, int len, byte[] out) throws MalformedPacketException {
        EthernetRepr eth = EthernetRepr.parse(b, off, len);
        sink += Ethernet.isMulticast(eth.destination()) ? 1 : 0;
        int p = off + Ethernet.HEADER_LENGTH;
        int pl = len - Ethernet.HEADER_LENGTH;
        switch (eth.etherType()) {
            case Ethernet.TYPE_ARP -> arp(b, p, pl, out);
            case Ethernet.TYPE_IPV4 -> ipv4(b, p, pl, out);
            case Ethernet.TYPE_IPV6 -> { counts.ipv6++; copy(b, out, p, pl); }
            default -> { counts.otherEtherType++; copy(b, out, p, pl); }
        }
        eth.emit(out, off);
    }

    private void arp(byte[] b, int off, int len, byte[] out) throws MalformedPacketException {
        boolean valid = Arp.isValid(b, off, len);
        ArpRepr arp;
        try {
            arp = ArpRepr.parse(b, off, len);
        } catch (MalformedPacketException e) {
            agree("ARP", valid, false, e);
            throw e;
        }
        agree("ARP", valid, true, null);
        counts.arp++;
        copy(b, out, off + Arp.LENGTH, len - Arp.LENGTH);
        arp.emit(out, off);
    }

    private static final MalformedPacketException.Reason[] IPV4_REASONS = {null, MalformedPacketException.Reason.TRUNCATED,
            MalformedPacketException.Reason.BAD_VERSION, MalformedPacketException.Reason.BAD_HEADER_LENGTH,
            MalformedPacketException.Reason.BAD_LENGTH, MalformedPacketException.Reason.BAD_CHECKSUM};

    private void ipv4(byte[] b, int off, int len, byte[] out) throws MalformedPacketException {
        int code = Ipv4.validate(b, off, len, verifyChecksums);
        Ipv4Repr ip;
        try {
            ip = Ipv4Repr.parse(b, off, len, verifyChecksums);
        } catch (MalformedPacketException e) {
            agree("IPv4", code == Ipv4.OK, false, e);
            if (e.reason() != IPV4_REASONS[code]) throw new AssertionError("IPv4 validate code " + code + " but " + e);
            throw e;
        }
        agree("IPv4", code == Ipv4.OK, true, null);
        counts.ipv4++;
        sink += Ipv4.fragmentOffset(b, off) + (Ipv4.dontFragment(b, off) ? 1 : 0) + Ipv4.checksum(b, off)
                + Ipv4.version(b, off) + Ipv4.identification(b, off);
        int hl = ip.headerLength();
        int p = off + hl;
        int pl = ip.payloadLength();
        copy(b, out, off + ip.totalLength(), len - ip.totalLength());
        if (Ipv4.isFragment(b, off)) {
            counts.fragments++;
            copy(b, out, p, pl);
        } else {
            switch (ip.protocol()) {
                case Ipv4.PROTO_TCP -> tcp(b, p, pl, ip.source(), ip.destination(), out);
                case Ipv4.PROTO_UDP -> udp(b, p, pl, ip.source(), ip.destination(), out);
                case Ipv4.PROTO_ICMP -> icmp(b, p, pl, out);
                default -> copy(b, out, p, pl);
            }
        }
        ip.emit(out, off);
    }

    private void icmp(byte[] b, int off, int len, byte[] out) throws MalformedPacketException {
        boolean valid = verifyChecksums ? Icmp.validate(b, off, len) == Icmp.OK : len >= Icmp.HEADER_LENGTH;
        IcmpRepr icmp;
        try {
            icmp = IcmpRepr.parse(b, off, len, verifyChecksums);
        } catch (MalformedPacketException e) {
            agree("ICMP", valid, false, e);
            throw e;
        }
        agree("ICMP", valid, true, null);
        counts.icmp++;
        sink += Icmp.echoIdentifier(b, off) + Icmp.echoSequence(b, off) + Icmp.nextHopMtu(b, off);
        byte[] data = null;
        int q = off + Icmp.HEADER_LENGTH;
        int ql = len - Icmp.HEADER_LENGTH;
        if (icmp.isError() && nesting < MAX_NESTING) {
            nesting++;
            try {
                ipv4(b, q, ql, out);
                counts.icmpQuoted++;
                data = Arrays.copyOfRange(out, q, q + ql); // the quoted packet as re-emitted from its records
            } catch (MalformedPacketException e) {
                // a quote cut short (RFC 792 asks only for the IP header and 8 bytes): keep the bytes as sent
            } finally {
                nesting--;
            }
        }
        if (data == null) data = icmp.data();
        new IcmpRepr(icmp.type(), icmp.code(), icmp.restOfHeader(), data).emit(out, off);
    }

    private void udp(byte[] b, int off, int len, int src, int dst, byte[] out) throws MalformedPacketException {
        int code = Udp.validate(b, off, len, verifyChecksums, src, dst);
        UdpRepr udp;
        try {
            udp = verifyChecksums ? UdpRepr.parse(b, off, len, src, dst) : UdpRepr.parse(b, off, len);
        } catch (MalformedPacketException e) {
            agree("UDP", code == Udp.OK, false, e);
            throw e;
        }
        agree("UDP", code == Udp.OK, true, null);
        counts.udp++;
        int ulen = udp.length();
        copy(b, out, off + ulen, len - ulen);
        int p = off + Udp.HEADER_LENGTH;
        int pl = udp.payloadLength();
        if (udp.destinationPort() == Vxlan.UDP_PORT && nesting < MAX_NESTING) {
            vxlan(b, p, pl, out);
        } else {
            copy(b, out, p, pl);
        }
        udp.emit(out, off, src, dst);
    }

    private void vxlan(byte[] b, int off, int len, byte[] out) throws MalformedPacketException {
        int code = Vxlan.validate(b, off, len);
        VxlanRepr vx;
        try {
            vx = VxlanRepr.parse(b, off, len);
        } catch (MalformedPacketException e) {
            agree("VXLAN", code == Vxlan.OK, false, e);
            throw e;
        }
        agree("VXLAN", code == Vxlan.OK, true, null);
        counts.vxlan++;
        counts.innerFrames++;
        nesting++;
        try {
            ethernet(b, off + Vxlan.HEADER_LENGTH, len - Vxlan.HEADER_LENGTH, out);
        } finally {
            nesting--;
        }
        vx.emit(out, off);
    }

    private void tcp(byte[] b, int off, int len, int src, int dst, byte[] out) throws MalformedPacketException {
        int code = Tcp.validate(b, off, len, verifyChecksums, src, dst);
        boolean optionsOk = false;
        if (code == Tcp.OK || code == Tcp.ERR_CHECKSUM) {
            int hl = Tcp.headerLength(b, off);
            optionsOk = scratchOptions.parse(b, off + Tcp.MIN_HEADER_LENGTH, hl - Tcp.MIN_HEADER_LENGTH);
        }
        TcpRepr tcp;
        try {
            tcp = verifyChecksums ? TcpRepr.parse(b, off, len, src, dst) : TcpRepr.parse(b, off, len);
        } catch (MalformedPacketException e) {
            agree("TCP", code == Tcp.OK && optionsOk, false, e);
            throw e;
        }
        agree("TCP", code == Tcp.OK && optionsOk, true, null);
        if (!tcp.options().toString().equals(scratchOptions.toString())) {
            throw new AssertionError("TCP options differ: " + tcp.options() + " vs " + scratchOptions);
        }
        counts.tcp++;
        if (tcp.options().sackBlocks > 0) counts.tcpSackSegments++;
        if (collect) tcpSegments.add(tcp);
        sink += Tcp.checksum(b, off) + Tcp.window(b, off) + Tcp.seq(b, off) + Tcp.ack(b, off)
                + Tcp.flagsToString(Tcp.flags(b, off)).length();
        int hl = tcp.headerLength();
        copy(b, out, off + hl, len - hl);
        tcp.emit(out, off, len - hl, src, dst);
    }

    private static void agree(String layer, boolean validateOk, boolean parseOk, Exception e) {
        if (validateOk != parseOk) {
            throw new AssertionError(layer + ": validate() says " + (validateOk ? "valid" : "invalid") + " but parse "
                    + (parseOk ? "succeeded" : "failed: " + e), e);
        }
    }

    private static void copy(byte[] b, byte[] out, int off, int len) {
        if (len > 0) System.arraycopy(b, off, out, off, len);
    }
}
