package io.jnet.drill.script;

import java.util.List;
import java.util.stream.Collectors;

/** One TCP option in a packet line's {@code <...>} list, in packetdrill's syntax. */
public sealed interface TcpOption {

    /** Where the option is written. */
    SourcePos pos();

    /** In packetdrill's syntax, e.g. {@code mss 1000}. */
    String render();

    /** {@code nop} (kind 1). */
    record Nop(SourcePos pos) implements TcpOption {
        @Override public String render() { return "nop"; }
        @Override public String toString() { return render(); }
    }

    /** {@code eol}, end of option list (kind 0). */
    record Eol(SourcePos pos) implements TcpOption {
        @Override public String render() { return "eol"; }
        @Override public String toString() { return render(); }
    }

    /** {@code mss N}: maximum segment size in bytes, 0..65535 (kind 2). */
    record Mss(SourcePos pos, int bytes) implements TcpOption {
        @Override public String render() { return "mss " + bytes; }
        @Override public String toString() { return render(); }
    }

    /** {@code wscale N}: window scale shift count, 0..255 (kind 3). */
    record WindowScale(SourcePos pos, int shiftCount) implements TcpOption {
        @Override public String render() { return "wscale " + shiftCount; }
        @Override public String toString() { return render(); }
    }

    /** {@code wscale *}: a window scale option with any shift count (outbound packets). */
    record WindowScaleAny(SourcePos pos) implements TcpOption {
        @Override public String render() { return "wscale *"; }
        @Override public String toString() { return render(); }
    }

    /** {@code sackOK}: SACK permitted (kind 4). */
    record SackPermitted(SourcePos pos) implements TcpOption {
        @Override public String render() { return "sackOK"; }
        @Override public String toString() { return render(); }
    }

    /** {@code sack 1:1001 2001:3001}: SACK blocks, left edge and right edge (exclusive), relative (kind 5). */
    record Sack(SourcePos pos, List<SackBlock> blocks) implements TcpOption {
        public Sack {
            blocks = List.copyOf(blocks);
        }

        @Override public String render() {
            return "sack " + blocks.stream().map(SackBlock::render).collect(Collectors.joining(" "));
        }
        @Override public String toString() { return render(); }
    }

    /** One SACK block: sequence numbers 0..2^32-1 as written. */
    record SackBlock(long left, long right) {
        /** {@code left:right}. */
        public String render() { return left + ":" + right; }
        @Override public String toString() { return render(); }
    }

    /** {@code TS val N ecr M}: timestamps, 0..2^32-1 each (kind 8). */
    record Timestamp(SourcePos pos, long val, long ecr) implements TcpOption {
        @Override public String render() { return "TS val " + val + " ecr " + ecr; }
        @Override public String toString() { return render(); }
    }

    /**
     * {@code FO cookie}: TCP Fast Open (kind 34) with a cookie in hex digits, an even number of them, at most 32
     * (16 bytes); empty for a cookie request.
     */
    record FastOpen(SourcePos pos, String cookieHex) implements TcpOption {
        @Override public String render() { return cookieHex.isEmpty() ? "FO" : "FO " + cookieHex; }
        @Override public String toString() { return render(); }
    }

    /** {@code FOEXP cookie}: TCP Fast Open in the experimental option (kind 254, magic 0xF989); cookie as {@link FastOpen}. */
    record FastOpenExp(SourcePos pos, String cookieHex) implements TcpOption {
        @Override public String render() { return cookieHex.isEmpty() ? "FOEXP" : "FOEXP " + cookieHex; }
        @Override public String toString() { return render(); }
    }

    /** {@code md5 digest}: TCP MD5 signature (kind 19), the digest in hex digits, at most 32 (16 bytes). */
    record Md5(SourcePos pos, String digestHex) implements TcpOption {
        @Override public String render() { return "md5 " + digestHex; }
        @Override public String toString() { return render(); }
    }

    /**
     * {@code ECN e1b 1 ceb 0 e0b 1}: the AccECN option (kind 172 or 174, as the counters' order), its byte counters
     * in the order written; {@code ECN} alone is an option with no counters.
     */
    record AccEcn(SourcePos pos, List<AccEcnCounter> counters) implements TcpOption {
        public AccEcn {
            counters = List.copyOf(counters);
        }

        @Override public String render() {
            return counters.isEmpty() ? "ECN"
                : "ECN " + counters.stream().map(AccEcnCounter::render).collect(Collectors.joining(" "));
        }
        @Override public String toString() { return render(); }
    }

    /** One AccECN byte counter: {@code e0b}, {@code ceb} or {@code e1b} and its value, 0..2^24-1. */
    record AccEcnCounter(String name, long value) {
        /** {@code name value}. */
        public String render() { return name + " " + value; }
        @Override public String toString() { return render(); }
    }
}
