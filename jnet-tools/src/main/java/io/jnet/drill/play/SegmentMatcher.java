package io.jnet.drill.play;

import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import java.net.Inet4Address;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks a packet the stack sent against an outbound script segment, as packetdrill does: addresses, ports,
 * flags, relative sequence and acknowledgment numbers, payload length, window, urgent pointer and options when the
 * line gives them, the ECN field when the line says. The first SYN the stack sends teaches the runner the stack's initial
 * sequence number (and its port, when it connected); its first timestamp the offset between the two TS clocks.
 * TS val is not compared (the stack's clock is its own); TS ecr must echo the runner's TS val exactly.
 */
final class SegmentMatcher {
    private SegmentMatcher() {}

    /** The actual segment, decoded into script terms (sequence numbers relative), for reports and partial matches. */
    record Actual(int flags, long seq, int length, long ack, int window, List<TcpOption> options, int ecn, String text) {}

    /**
     * Decodes {@code p} relative to {@code flow}, learning the stack's port and initial sequence number from a SYN.
     *
     * @return null when {@code p} is not a TCP segment between the stack and the runner
     */
    static Actual decode(byte[] p, Flow flow, Inet4Address local, Inet4Address remote) {
        if (p.length < Ipv4.MIN_HEADER_LENGTH || (p[0] >>> 4) != 4) return null;
        int ihl = Ipv4.headerLength(p, 0);
        if (Ipv4.protocol(p, 0) != Ipv4.PROTO_TCP || p.length < ihl + Tcp.MIN_HEADER_LENGTH) return null;
        if (Ipv4.source(p, 0) != Ipv4.fromInet(local) || Ipv4.destination(p, 0) != Ipv4.fromInet(remote)) return null;
        int t = ihl;
        int flags = Tcp.flags(p, t);
        int thl = Tcp.headerLength(p, t);
        int total = Math.min(Ipv4.totalLength(p, 0), p.length);
        int payload = total - ihl - thl;
        if (flow.localPort < 0) flow.localPort = Tcp.sourcePort(p, t);
        if (flow.remotePort < 0) flow.remotePort = Tcp.destinationPort(p, t);
        long seqAbs = Tcp.seq(p, t) & 0xFFFF_FFFFL;
        if ((flags & Tcp.SYN) != 0 && flow.localIsn < 0) flow.localIsn = seqAbs;
        long base = flow.localIsn < 0 ? 0 : flow.localIsn;
        long seq = Flow.u32(seqAbs - base);
        long ack = Flow.u32((Tcp.ack(p, t) & 0xFFFF_FFFFL) - flow.remoteIsn);
        List<TcpOption> options;
        try {
            options = OptionCodec.decode(p, t + Tcp.MIN_HEADER_LENGTH, thl - Tcp.MIN_HEADER_LENGTH, flow.remoteIsn);
        } catch (IllegalArgumentException e) {
            options = List.of(new TcpOption.Other(-1, new byte[0]));
        }
        int ecn = p[1] & 3;
        String text = render(flags, seq, payload, (flags & Tcp.ACK) != 0 ? ack : -1, Tcp.window(p, t), options, ecn)
                + ((flags & Tcp.URG) != 0 ? " urg " + Tcp.urgentPointer(p, t) : "") + " (ports " + Tcp.sourcePort(p, t) + ">" + Tcp.destinationPort(p, t) + ")";
        return new Actual(flags, seq, payload, ack, Tcp.window(p, t), options, ecn, text);
    }

    /** The TCP source port of an IPv4 packet {@link #decode} took. */
    static int sourcePort(byte[] p) { return Tcp.sourcePort(p, Ipv4.headerLength(p, 0)); }

    /** The TCP destination port of an IPv4 packet {@link #decode} took. */
    static int destinationPort(byte[] p) { return Tcp.destinationPort(p, Ipv4.headerLength(p, 0)); }

    /** What differs between the expected segment and the actual one, or an empty list when they match. */
    static List<String> differences(SegmentSpec e, Actual a, byte[] p, Flow flow) {
        List<String> d = new ArrayList<>();
        int t = Ipv4.headerLength(p, 0);
        if (Tcp.sourcePort(p, t) != flow.localPort || Tcp.destinationPort(p, t) != flow.remotePort) {
            d.add("ports " + Tcp.sourcePort(p, t) + ">" + Tcp.destinationPort(p, t) + ", expected " + flow.localPort + ">" + flow.remotePort);
        }
        if (a.flags() != e.flags()) d.add("flags " + flagText(a.flags()) + ", expected " + flagText(e.flags()));
        if (a.seq() != Flow.u32(e.seq())) d.add("seq " + a.seq() + ", expected " + Flow.u32(e.seq()));
        if (a.length() != e.length()) d.add("payload " + a.length() + " bytes, expected " + e.length());
        if (e.ack() != null && a.ack() != Flow.u32(e.ack())) d.add("ack " + a.ack() + ", expected " + Flow.u32(e.ack()));
        if (e.window() != null && a.window() != e.window()) d.add("win " + a.window() + ", expected " + e.window());
        int urg = Tcp.urgentPointer(p, t);
        if (e.urgentPointer() != null && urg != e.urgentPointer()) d.add("urg " + urg + ", expected " + e.urgentPointer());
        if (e.ecn() >= 0 && a.ecn() != e.ecn()) d.add("ECN field " + a.ecn() + ", expected " + e.ecn());
        if (e.options() != null) {
            List<TcpOption> want = e.options();
            List<TcpOption> got = a.options();
            boolean same = want.size() == got.size();
            for (int i = 0; same && i < want.size(); i++) same = sameOption(want.get(i), got.get(i), flow);
            if (!same) d.add("options " + OptionCodec.render(got) + ", expected " + OptionCodec.render(want));
        }
        return d;
    }

    /** Records the offset between the stack's TS clock and the script's at the first outbound timestamp. */
    static void learnTimestamps(SegmentSpec e, Actual a, Flow flow) {
        if (flow.tsValOffset != null || e.options() == null) return;
        TcpOption.Timestamps want = null, got = null;
        for (TcpOption o : e.options()) if (o instanceof TcpOption.Timestamps ts) want = ts;
        for (TcpOption o : a.options()) if (o instanceof TcpOption.Timestamps ts) got = ts;
        if (want != null && got != null) flow.tsValOffset = Flow.u32(got.val() - want.val());
    }

    private static boolean sameOption(TcpOption want, TcpOption got, Flow flow) {
        if (want instanceof TcpOption.Timestamps w && got instanceof TcpOption.Timestamps g) {
            return Flow.u32(w.ecr()) == g.ecr(); // TS val runs on the stack's clock
        }
        if (want instanceof TcpOption.Sack w && got instanceof TcpOption.Sack g) {
            if (w.blocks().size() != g.blocks().size()) return false;
            for (int i = 0; i < w.blocks().size(); i++) {
                if (Flow.u32(w.blocks().get(i)[0]) != g.blocks().get(i)[0] || Flow.u32(w.blocks().get(i)[1]) != g.blocks().get(i)[1]) return false;
            }
            return true;
        }
        if (want instanceof TcpOption.Other w && got instanceof TcpOption.Other g) {
            return w.kind() == g.kind() && java.util.Arrays.equals(w.data(), g.data());
        }
        return want.equals(got);
    }

    /** packetdrill's flag letters S F R P U E W, then {@code .} for ACK (as a script writes them: {@code PU.}). */
    static String flagText(int f) {
        StringBuilder sb = new StringBuilder();
        if ((f & Tcp.SYN) != 0) sb.append('S');
        if ((f & Tcp.FIN) != 0) sb.append('F');
        if ((f & Tcp.RST) != 0) sb.append('R');
        if ((f & Tcp.PSH) != 0) sb.append('P');
        if ((f & Tcp.URG) != 0) sb.append('U');
        if ((f & Tcp.ECE) != 0) sb.append('E');
        if ((f & Tcp.CWR) != 0) sb.append('W');
        if ((f & Tcp.ACK) != 0) sb.append('.');
        return sb.isEmpty() ? "-" : sb.toString();
    }

    static String render(int flags, long seq, int len, long ack, int win, List<TcpOption> options, int ecn) {
        StringBuilder sb = new StringBuilder(flagText(flags)).append(' ').append(seq).append(':').append(Flow.u32(seq + len))
                .append('(').append(len).append(')');
        if (ack >= 0) sb.append(" ack ").append(ack);
        sb.append(" win ").append(win);
        if (!options.isEmpty()) sb.append(' ').append(OptionCodec.render(options));
        return sb.toString();
    }
}
