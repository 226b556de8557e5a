package io.jnet.drill.script;

import io.jnet.drill.script.Token.Kind;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Parses packet lines (packetdrill's {@code packet_spec}: TCP, UDP and ICMP, with the optional IPv4 encapsulation
 * prefix and IP fields) with packetdrill's semantic checks: ranges of numbers, sequence numbers consistent with the
 * payload length, {@code [ect01]} and {@code <...>} only on outbound packets, no ECN mark on UDP. Encapsulations
 * other than IPv4 (IPv6, GRE, MPLS, PSP), SCTP and packet fuzzing are refused as not supported.
 */
final class PacketParser {
    /** The TCP flag letters packetdrill takes, '.' being ACK. */
    static final String TCP_FLAGS = "FSRP.UEWA";

    private final TokenStream in;
    private final TcpOptionParser options;

    PacketParser(TokenStream in) {
        this.in = in;
        this.options = new TcpOptionParser(in);
    }

    /** A packet line from its direction ({@code <} or {@code >}, the next token) on. */
    Packet parse() throws DrillParseException {
        Token dir = in.next();
        Direction direction = dir.isChar('<') ? Direction.INBOUND : Direction.OUTBOUND;
        List<Ipv4Encapsulation> encapsulation = new ArrayList<>();
        while (true) {
            refuseUnsupportedLayer();
            if (!in.atWord("ipv4")) break;
            encapsulation.add(ipv4Encapsulation(direction));
        }
        Optional<IpInfo> ip = ipInfo(direction);
        refuseUnsupportedLayer();
        if (in.atWord("udp")) return udp(dir, direction, encapsulation, ip);
        if (in.atWord("icmp")) return icmp(dir, direction, encapsulation, ip);
        return tcp(dir, direction, encapsulation, ip);
    }

    private void refuseUnsupportedLayer() throws DrillParseException {
        Token t = in.peek();
        if (t.kind() != Kind.WORD) return;
        String what = switch (t.text()) {
            case "ipv6" -> "IPv6 encapsulation";
            case "gre", "GREv0" -> "GRE encapsulation";
            case "mpls" -> "MPLS encapsulation";
            case "encap", "psp" -> "PSP/transport encapsulation ('" + t.text() + "')";
            case "sctp" -> "SCTP packets";
            case "udplite" -> "UDP-Lite packets";
            default -> null;
        };
        if (what != null) throw in.unsupported(t, what);
    }

    private Ipv4Encapsulation ipv4Encapsulation(Direction direction) throws DrillParseException {
        Token kw = in.next();
        Optional<IpInfo> ip = ipInfo(direction);
        Inet4Address src = address("the outer source address after 'ipv4'");
        in.expectChar('>', "between the outer addresses");
        Inet4Address dst = address("the outer destination address");
        in.expectChar(':', "after the outer IPv4 header's addresses");
        return new Ipv4Encapsulation(kw.pos(), ip, src, dst);
    }

    private Inet4Address address(String what) throws DrillParseException {
        Token t = in.expect(Kind.IPV4_ADDR, what);
        String[] parts = t.text().split("\\.");
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
            int v = parts[i].length() > 3 ? 256 : Integer.parseInt(parts[i]);
            if (v > 255) throw in.error(t, "invalid IPv4 address '" + t.text() + "'");
            b[i] = (byte) v;
        }
        try {
            return (Inet4Address) InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always an address
        }
    }

    /** {@code [ect0]}, {@code (tos 0x2)} ... if the next token opens one. */
    private Optional<IpInfo> ipInfo(Direction direction) throws DrillParseException {
        if (!in.atChar('[') && !in.atChar('(')) return Optional.empty();
        Token open = in.next();
        char close = open.isChar('[') ? ']' : ')';
        Optional<Ecn> ecn = Optional.empty();
        OptionalInt tos = OptionalInt.empty();
        OptionalInt flowLabel = OptionalInt.empty();
        OptionalInt ttl = OptionalInt.empty();
        Token first = in.peek();
        Ecn mark = first.kind() == Kind.WORD ? Ecn.byKeyword(first.text()) : null;
        if (mark != null) {
            in.next();
            if (mark == Ecn.ECT01 && direction != Direction.OUTBOUND) {
                throw in.error(first, "[ect01] can only be used with outbound packets");
            }
            ecn = Optional.of(mark);
        } else if (first.isWord("tos")) {
            in.next();
            tos = OptionalInt.of((int) Numbers.take(in, "tos", Numbers.U8, true));
        } else if (first.isWord("ttl")) {
            in.next();
            ttl = OptionalInt.of((int) Numbers.take(in, "ttl", Numbers.U8, false));
        } else if (!first.isWord("flowlabel")) {
            throw in.expected("an IP field (noecn, ect0, ect1, ce, ect01, tos 0x.., ttl N or flowlabel 0x..)");
        }
        if (ttl.isEmpty() && (first.isWord("flowlabel") || in.atChar(','))) {
            if (!first.isWord("flowlabel")) in.next();
            if (!in.atWord("flowlabel")) throw in.expected("'flowlabel' after ','");
            in.next();
            flowLabel = OptionalInt.of((int) Numbers.take(in, "flowlabel", Numbers.U20, true));
        }
        in.expectChar(close, "to end the IP fields");
        return Optional.of(new IpInfo(open.pos(), ecn, tos, flowLabel, ttl));
    }

    private Optional<Ports> ports() throws DrillParseException {
        if (!(in.at(Kind.INTEGER) && in.peek(1).isChar('>'))) return Optional.empty();
        Token src = in.peek();
        int s = (int) Numbers.take(in, "source port", Numbers.U16, false);
        in.next();
        int d = (int) Numbers.take(in, "destination port", Numbers.U16, false);
        return Optional.of(new Ports(src.pos(), s, d));
    }

    private TcpPacket tcp(Token dir, Direction direction, List<Ipv4Encapsulation> encapsulation,
                          Optional<IpInfo> ip) throws DrillParseException {
        Optional<Ports> ports = ports();
        String flags = flags();
        long[] seq = sequence("after the flags");
        OptionalLong ack = OptionalLong.empty();
        OptionalInt win = OptionalInt.empty();
        OptionalInt urg = OptionalInt.empty();
        if (in.atWord("ack")) {
            in.next();
            ack = OptionalLong.of(Numbers.take(in, "TCP ack sequence number", Numbers.U32, false));
        }
        if (in.atWord("win")) {
            in.next();
            win = OptionalInt.of((int) Numbers.take(in, "TCP window", Numbers.U16, false));
        }
        if (in.atWord("urg")) {
            in.next();
            urg = OptionalInt.of((int) Numbers.take(in, "TCP urgent pointer", Numbers.U16, false));
        }
        List<TcpOption> list = List.of();
        boolean any = false;
        if (in.atChar('<')) {
            Token open = in.next();
            if (in.at(Kind.ELLIPSIS)) {
                in.next();
                in.expectChar('>', "after '<...'");
                if (direction != Direction.OUTBOUND) {
                    throw in.error(open, "<...> for TCP options can only be used with outbound packets");
                }
                any = true;
            } else {
                list = options.list();
            }
        }
        Token after = in.peek();
        if (after.isWord("ack") || after.isWord("win") || after.isWord("urg")) {
            throw in.error(after, "'" + after.text() + "' out of place: a TCP line reads "
                + "flags start:end(length) [ack N] [win N] [urg N] [<options>]");
        }
        if (after.isChar('{')) throw in.unsupported(after, "packet fuzzing instructions ({...} after a packet)");
        return new TcpPacket(dir.pos(), direction, encapsulation, ip, ports, flags, seq[0], seq[1], (int) seq[2],
            ack, win, urg, list, any);
    }

    private String flags() throws DrillParseException {
        Token t = in.peek();
        if (t.isChar('.')) {
            in.next();
            return ".";
        }
        if (t.isChar('-')) {
            in.next();
            return "";
        }
        if (t.kind() != Kind.WORD) {
            throw in.expected("TCP flags (S, S., ., P., F., R, - ...), 'udp' or 'icmp' after the direction");
        }
        in.next();
        String flags = t.text();
        if (in.atChar('.')) {
            in.next();
            flags += ".";
        }
        for (int i = 0; i < flags.length(); i++) {
            char c = flags.charAt(i);
            if (TCP_FLAGS.indexOf(c) < 0) {
                throw in.error(t, "invalid TCP flag '" + c + "' in '" + flags
                    + "' (TCP flags are F S R P U E W A, and . for ACK)");
            }
        }
        return flags;
    }

    /** {@code start:end(length)}: {start, end, length}, checked as packetdrill's {@code seq} rule. */
    long[] sequence(String context) throws DrillParseException {
        Token start = in.peek();
        if (!start.kind().equals(Kind.INTEGER)) throw in.expected("sequence numbers start:end(length) " + context);
        long s = Numbers.take(in, "TCP start sequence number", Numbers.U32, false);
        in.expectChar(':', "between the start and end sequence numbers");
        long e = Numbers.take(in, "TCP end sequence number", Numbers.U32, false);
        in.expectChar('(', "before the payload length");
        long len = Numbers.take(in, "TCP payload length", Numbers.U16, false);
        in.expectChar(')', "after the payload length");
        if (e != s + len) {
            throw in.error(start, "inconsistent TCP sequence numbers and payload length: " + s + " + " + len
                + " is not " + e);
        }
        return new long[] {s, e, len};
    }

    private UdpPacket udp(Token dir, Direction direction, List<Ipv4Encapsulation> encapsulation,
                          Optional<IpInfo> ip) throws DrillParseException {
        in.next();
        if (ip.isPresent() && ip.get().ecn().isPresent()) {
            throw in.error(ip.get().pos(), "ECN can only be used with TCP packets");
        }
        Optional<Ports> ports = ports();
        in.expectChar('(', "before the UDP payload length");
        int len = (int) Numbers.take(in, "UDP payload length", Numbers.U16, false);
        in.expectChar(')', "after the UDP payload length");
        return new UdpPacket(dir.pos(), direction, encapsulation, ip, ports, len);
    }

    private IcmpPacket icmp(Token dir, Direction direction, List<Ipv4Encapsulation> encapsulation,
                            Optional<IpInfo> ip) throws DrillParseException {
        in.next();
        if (!in.at(Kind.WORD) || in.atWord("mtu") || in.atWord("id")) {
            throw in.expected("the ICMP type (unreachable, time_exceeded, echo_request ...) after 'icmp'");
        }
        String type = in.next().text();
        Optional<String> code = Optional.empty();
        if (in.at(Kind.WORD) && !in.atWord("mtu") && !in.atWord("id")) code = Optional.of(in.next().text());
        OptionalInt mtu = OptionalInt.empty();
        OptionalInt id = OptionalInt.empty();
        if (in.atWord("mtu")) {
            in.next();
            mtu = OptionalInt.of((int) Numbers.take(in, "ICMP mtu", Numbers.U16, false));
        }
        if (in.atWord("id")) {
            in.next();
            id = OptionalInt.of((int) Numbers.take(in, "ICMP echo id", Numbers.U16, false));
        }
        Optional<IcmpQuoted> quoted = Optional.empty();
        if (in.atChar('[')) quoted = Optional.of(quoted());
        return new IcmpPacket(dir.pos(), direction, encapsulation, ip, type, code, mtu, id, quoted);
    }

    private IcmpQuoted quoted() throws DrillParseException {
        Token open = in.next();
        IcmpQuoted q;
        if (in.atWord("udp") || in.atWord("raw")) {
            boolean udp = in.next().text().equals("udp");
            in.expectChar('(', "before the quoted payload length");
            int len = (int) Numbers.take(in, "quoted payload length", Numbers.U16, false);
            in.expectChar(')', "after the quoted payload length");
            q = udp ? new IcmpQuoted.Udp(open.pos(), len) : new IcmpQuoted.Raw(open.pos(), len);
        } else {
            long[] seq = sequence("or udp (N) or raw (N) in the quoted packet");
            q = new IcmpQuoted.Tcp(open.pos(), seq[0], seq[1], (int) seq[2]);
        }
        in.expectChar(']', "to end the quoted packet");
        return q;
    }
}
