package io.jnet.drill.script;

import io.jnet.drill.script.Token.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses the TCP options of a packet line, {@code <mss 1000,sackOK,TS val 100 ecr 0,nop,wscale 7>}, after the
 * {@code <}, up to and with the closing {@code >}; checks values as packetdrill does (ranges, hex cookies and digests).
 */
final class TcpOptionParser {
    /** The longest TCP Fast Open cookie, in bytes (packetdrill's MAX_TCP_FAST_OPEN_COOKIE_BYTES). */
    static final int MAX_COOKIE_BYTES = 16;
    /** The longest MD5 digest, in bytes. */
    static final int MAX_DIGEST_BYTES = 16;

    private final TokenStream in;

    TcpOptionParser(TokenStream in) {
        this.in = in;
    }

    /** Options separated by commas up to {@code >}; at least one. */
    List<TcpOption> list() throws DrillParseException {
        List<TcpOption> out = new ArrayList<>();
        while (true) {
            out.add(option());
            if (in.atChar(',')) {
                in.next();
            } else if (in.atChar('>')) {
                in.next();
                return out;
            } else {
                throw in.expected("',' or '>' in the TCP options");
            }
        }
    }

    private TcpOption option() throws DrillParseException {
        Token t = in.peek();
        if (t.kind() != Kind.WORD) throw in.expected("a TCP option (" + KNOWN + ")");
        in.next();
        return switch (t.text()) {
            case "nop" -> new TcpOption.Nop(t.pos());
            case "eol" -> new TcpOption.Eol(t.pos());
            case "mss" -> new TcpOption.Mss(t.pos(), (int) Numbers.take(in, "mss", Numbers.U16, false));
            case "wscale" -> {
                if (in.atChar('*')) {
                    in.next();
                    yield new TcpOption.WindowScaleAny(t.pos());
                }
                yield new TcpOption.WindowScale(t.pos(), (int) Numbers.take(in, "window scale shift count", Numbers.U8, false));
            }
            case "sackOK" -> new TcpOption.SackPermitted(t.pos());
            case "sack" -> sack(t);
            case "TS" -> {
                if (!in.atWord("val")) throw in.expected("'val' after 'TS'");
                in.next();
                long val = Numbers.take(in, "TS val", Numbers.U32, false);
                if (!in.atWord("ecr")) throw in.expected("'ecr' after the TS val");
                in.next();
                yield new TcpOption.Timestamp(t.pos(), val, Numbers.take(in, "TS ecr", Numbers.U32, false));
            }
            case "FO" -> new TcpOption.FastOpen(t.pos(), cookie("TCP fast open cookie"));
            case "FOEXP" -> new TcpOption.FastOpenExp(t.pos(), cookie("TCP fast open cookie"));
            case "md5" -> {
                if (!in.at(Kind.WORD) && !in.at(Kind.INTEGER)) throw in.expected("the MD5 digest in hex after 'md5'");
                yield new TcpOption.Md5(t.pos(), hex(in.next(), "TCP MD5 digest", MAX_DIGEST_BYTES));
            }
            case "ECN" -> accEcn(t);
            case "mptcp", "mp_capable", "mp_join", "dss", "add_address", "remove_address", "mp_prio", "mp_fail",
                "mp_fastclose" -> throw in.unsupported(t, "MPTCP options ('" + t.text() + "')");
            default -> throw in.error(t, "unknown TCP option '" + t.text() + "' (TCP options are " + KNOWN + ")");
        };
    }

    private static final String KNOWN = "nop, eol, mss N, wscale N, sackOK, sack L:R ..., TS val N ecr N, FO [cookie], "
        + "FOEXP [cookie], md5 digest, ECN [e0b N] [ceb N] [e1b N]";

    private TcpOption sack(Token kw) throws DrillParseException {
        List<TcpOption.SackBlock> blocks = new ArrayList<>();
        do {
            long left = Numbers.take(in, "TCP SACK left sequence number", Numbers.U32, false);
            in.expectChar(':', "between the SACK block's edges");
            long right = Numbers.take(in, "TCP SACK right sequence number", Numbers.U32, false);
            blocks.add(new TcpOption.SackBlock(left, right));
        } while (in.at(Kind.INTEGER));
        return new TcpOption.Sack(kw.pos(), blocks);
    }

    private TcpOption accEcn(Token kw) throws DrillParseException {
        List<TcpOption.AccEcnCounter> counters = new ArrayList<>();
        while (in.atWord("e0b") || in.atWord("ceb") || in.atWord("e1b")) {
            String name = in.next().text();
            counters.add(new TcpOption.AccEcnCounter(name, Numbers.take(in, "AccECN " + name, Numbers.U24, false)));
        }
        return new TcpOption.AccEcn(kw.pos(), counters);
    }

    /** An optional cookie: none when the option ends here. */
    private String cookie(String what) throws DrillParseException {
        if (!in.at(Kind.WORD) && !in.at(Kind.INTEGER)) return "";
        return hex(in.next(), what, MAX_COOKIE_BYTES);
    }

    private String hex(Token t, String what, int maxBytes) throws DrillParseException {
        String s = t.text();
        if ((s.length() & 1) != 0) throw in.error(t, what + " '" + s + "' has an odd number of hex digits");
        for (int i = 0; i < s.length(); i++) {
            if (Character.digit(s.charAt(i), 16) < 0) {
                throw in.error(t, what + " '" + s + "' is not a valid hex string");
            }
        }
        if (s.length() / 2 > maxBytes) {
            throw in.error(t, what + " of " + s.length() / 2 + " bytes exceeds the maximum of " + maxBytes + " bytes");
        }
        return s;
    }
}
