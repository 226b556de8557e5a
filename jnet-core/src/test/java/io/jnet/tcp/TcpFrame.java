package io.jnet.tcp;

import io.jnet.wire.Ethernet;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.util.Arrays;

/**
 * A parsed copy of one Ethernet/IPv4/TCP frame seen by a {@link FilterDevice}: the header fields a
 * test asserts on, the raw option bytes (to check their order) and the time it was seen.
 *
 * @param atNanos clock time (ns) when the frame passed the device
 * @param outbound true when the wrapped namespace transmitted it, false when it received it
 * @param urgentPointer the urgent pointer field (meaningful with URG)
 */
record TcpFrame(long atNanos, boolean outbound, int srcAddr, int dstAddr, int srcPort, int dstPort, int seq, int ack,
                int flags, int window, byte[] optionBytes, TcpOptions options, int payloadLength, int urgentPointer) {

    /** Parses {@code frame} (starting at the Ethernet header); null when it is not IPv4/TCP. */
    static TcpFrame parse(byte[] frame, int off, int len, long atNanos, boolean outbound) {
        if (len < Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH + Tcp.MIN_HEADER_LENGTH) return null;
        if (Ethernet.etherType(frame, off) != Ethernet.TYPE_IPV4) return null;
        int ip = off + Ethernet.HEADER_LENGTH;
        if (Ipv4.protocol(frame, ip) != Ipv4.PROTO_TCP) return null;
        int ihl = Ipv4.headerLength(frame, ip);
        int total = Ipv4.totalLength(frame, ip);
        int t = ip + ihl;
        int hl = Tcp.headerLength(frame, t);
        byte[] opt = Arrays.copyOfRange(frame, t + Tcp.MIN_HEADER_LENGTH, t + hl);
        TcpOptions o = new TcpOptions();
        o.parse(opt, 0, opt.length);
        return new TcpFrame(atNanos, outbound, Ipv4.source(frame, ip), Ipv4.destination(frame, ip),
                Tcp.sourcePort(frame, t), Tcp.destinationPort(frame, t), Tcp.seq(frame, t), Tcp.ack(frame, t),
                Tcp.flags(frame, t), Tcp.window(frame, t), opt, o, total - ihl - hl, Tcp.urgentPointer(frame, t));
    }

    boolean has(int flag) { return (flags & flag) != 0; }

    boolean isSyn() { return has(Tcp.SYN) && !has(Tcp.ACK); }

    boolean isSynAck() { return has(Tcp.SYN) && has(Tcp.ACK); }

    boolean isRst() { return has(Tcp.RST); }

    boolean isFin() { return has(Tcp.FIN); }

    /** A segment with payload. */
    boolean isData() { return payloadLength > 0; }

    /** An ACK without payload, SYN, FIN or RST. */
    boolean isPureAck() {
        return payloadLength == 0 && has(Tcp.ACK) && (flags & (Tcp.SYN | Tcp.FIN | Tcp.RST)) == 0;
    }

    /** Option kinds in wire order, NOPs included. */
    int[] optionKinds() {
        int[] kinds = new int[optionBytes.length];
        int n = 0;
        for (int i = 0; i < optionBytes.length; ) {
            int k = optionBytes[i] & 0xFF;
            if (k == TcpOptions.KIND_EOL) break;
            kinds[n++] = k;
            i += k == TcpOptions.KIND_NOP ? 1 : Math.max(2, optionBytes[i + 1] & 0xFF);
        }
        return Arrays.copyOf(kinds, n);
    }

    long atMillis() { return atNanos / 1_000_000L; }

    @Override
    public String toString() {
        return String.format("%d.%03d %s %s:%d > %s:%d [%s] seq %d ack %d win %d len %d %s", atNanos / 1_000_000_000L,
                atNanos / 1_000_000L % 1000, outbound ? "out" : "in", Ipv4.addressToString(srcAddr), srcPort,
                Ipv4.addressToString(dstAddr), dstPort, Tcp.flagsToString(flags), Integer.toUnsignedLong(seq),
                Integer.toUnsignedLong(ack), window, payloadLength, options);
    }
}
