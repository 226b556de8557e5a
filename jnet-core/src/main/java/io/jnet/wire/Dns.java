package io.jnet.wire;

import static io.jnet.wire.MalformedPacketException.Reason.BAD_NAME;
import static io.jnet.wire.MalformedPacketException.Reason.TRUNCATED;

import java.util.Locale;

/**
 * A DNS message (RFC 1035 §4.1) seen in place: the 12-byte header's fields as static accessors on a byte array,
 * the constants of the header and of resource records, and the domain-name codec (RFC 1035 §3.1, §4.1.4) that
 * {@link DnsMessage} parses and emits with.
 *
 * <pre>
 *  offset size field
 *   0      2   ID
 *   2      2   QR(1) Opcode(4) AA(1) TC(1) RD(1) RA(1) Z(3) RCODE(4)
 *   4      2   QDCOUNT
 *   6      2   ANCOUNT
 *   8      2   NSCOUNT
 *  10      2   ARCOUNT
 * </pre>
 *
 * <p>The header accessors read 12 bytes at {@code off} without checking (a caller checks the length first, as
 * {@link DnsMessage#parse} does); {@link #readName} checks every byte it reads.
 */
public final class Dns {
    private Dns() {}

    /** Fixed header length in bytes (RFC 1035 §4.1.1, HFIXEDSZ in arpa/nameser.h). */
    public static final int HEADER_LENGTH = 12;
    /** Largest message over UDP without EDNS (RFC 1035 §2.3.4, PACKETSZ). */
    public static final int MAX_UDP_LENGTH = 512;
    /** Largest label, bytes (RFC 1035 §2.3.4). */
    public static final int MAX_LABEL = 63;
    /** Largest name in wire form, length octets included, bytes (RFC 1035 §2.3.4, MAXCDNAME). */
    public static final int MAX_NAME = 255;
    /** The port a name server listens on, UDP and TCP (RFC 1035 §4.2). */
    public static final int PORT = 53;

    /** Header flag bits in the 16-bit word at offset 2 (RFC 1035 §4.1.1). */
    public static final int FLAG_QR = 0x8000, FLAG_AA = 0x0400, FLAG_TC = 0x0200, FLAG_RD = 0x0100, FLAG_RA = 0x0080;

    /** RR types (RFC 1035 §3.2.2; AAAA from RFC 3596 §2.1). */
    public static final int TYPE_A = 1, TYPE_NS = 2, TYPE_CNAME = 5, TYPE_SOA = 6, TYPE_PTR = 12, TYPE_MX = 15,
            TYPE_TXT = 16, TYPE_AAAA = 28;
    /** The Internet class (RFC 1035 §3.2.4). */
    public static final int CLASS_IN = 1;

    /** RCODE values (RFC 1035 §4.1.1). */
    public static final int RCODE_NOERROR = 0, RCODE_FORMERR = 1, RCODE_SERVFAIL = 2, RCODE_NXDOMAIN = 3,
            RCODE_NOTIMP = 4, RCODE_REFUSED = 5;

    /** Most compression pointers followed in one name; with pointers that must go backwards a loop is impossible anyway. */
    static final int MAX_POINTERS = 127;

    public static int id(byte[] b, int off) { return Bytes.u16(b, off); }
    /** The 16-bit flags word (QR, Opcode, AA, TC, RD, RA, Z, RCODE). */
    public static int flags(byte[] b, int off) { return Bytes.u16(b, off + 2); }
    public static boolean isResponse(byte[] b, int off) { return (flags(b, off) & FLAG_QR) != 0; }
    public static int opcode(byte[] b, int off) { return (flags(b, off) >>> 11) & 0xF; }
    /** TC: the message was truncated to fit the transport (RFC 1035 §4.1.1). */
    public static boolean isTruncated(byte[] b, int off) { return (flags(b, off) & FLAG_TC) != 0; }
    public static int rcode(byte[] b, int off) { return flags(b, off) & 0xF; }
    public static int questionCount(byte[] b, int off) { return Bytes.u16(b, off + 4); }
    public static int answerCount(byte[] b, int off) { return Bytes.u16(b, off + 6); }
    public static int authorityCount(byte[] b, int off) { return Bytes.u16(b, off + 8); }
    public static int additionalCount(byte[] b, int off) { return Bytes.u16(b, off + 10); }

    /** The mnemonic of an RR type ({@code "A"}, {@code "CNAME"}, ...; {@code "TYPE99"} for others, RFC 3597 §5). */
    public static String typeName(int type) {
        return switch (type) {
            case TYPE_A -> "A";
            case TYPE_NS -> "NS";
            case TYPE_CNAME -> "CNAME";
            case TYPE_SOA -> "SOA";
            case TYPE_PTR -> "PTR";
            case TYPE_MX -> "MX";
            case TYPE_TXT -> "TXT";
            case TYPE_AAAA -> "AAAA";
            default -> "TYPE" + type;
        };
    }

    /** The mnemonic of an RCODE ({@code "NXDOMAIN"}, ...; {@code "RCODE9"} for others). */
    public static String rcodeName(int rcode) {
        return switch (rcode) {
            case RCODE_NOERROR -> "NOERROR";
            case RCODE_FORMERR -> "FORMERR";
            case RCODE_SERVFAIL -> "SERVFAIL";
            case RCODE_NXDOMAIN -> "NXDOMAIN";
            case RCODE_NOTIMP -> "NOTIMP";
            case RCODE_REFUSED -> "REFUSED";
            default -> "RCODE" + rcode;
        };
    }

    /**
     * Reads the domain name at {@code pos} of the message of {@code len} bytes at {@code off}, following
     * compression pointers (RFC 1035 §4.1.4), and appends it to {@code out} in text form: labels joined by dots,
     * no trailing dot, the root as the empty string; a byte of a label outside {@code '!'..'~'} and a {@code '.'} or
     * {@code '\'} inside one are written as {@code \DDD} (decimal), as glibc's ns_name_ntop does.
     *
     * <p>Checks: every byte read lies inside the message; a label is at most 63 bytes; the name at most 255 bytes
     * in wire form; a pointer refers to an offset before the start of the labels it ends (the name's
     * start, or the previous pointer's target): a "prior occurrence", so offsets only decrease and a pointer loop
     * cannot form; and at most {@value #MAX_POINTERS} are followed; label types 01 and 10 (RFC 6891
     * §5, obsolete) are refused.
     *
     * @param b the bytes; the message starts at {@code off} and is {@code len} bytes long
     * @param pos absolute index of the name in {@code b}
     * @return the absolute index just past the name where it starts (past its pointer, if it ends with one)
     * @throws MalformedPacketException TRUNCATED when the name runs past the message, BAD_NAME for the rest
     */
    public static int readName(byte[] b, int off, int len, int pos, StringBuilder out) throws MalformedPacketException {
        int end = off + len;
        int next = -1;
        int wireLength = 0;
        int pointers = 0;
        int p = pos;
        int runStart = pos - off; // where the labels being read began: the name itself, or the last pointer's target
        boolean first = true;
        while (true) {
            if (p >= end) throw new MalformedPacketException(TRUNCATED, "DNS name at offset " + (pos - off) + " runs past the message of " + len + " bytes");
            int l = b[p] & 0xFF;
            switch (l & 0xC0) {
                case 0xC0 -> {
                    if (p + 1 >= end) throw new MalformedPacketException(TRUNCATED, "DNS compression pointer at offset " + (p - off) + " cut off");
                    int target = ((l & 0x3F) << 8) | (b[p + 1] & 0xFF);
                    if (target >= runStart) {
                        throw new MalformedPacketException(BAD_NAME, "DNS compression pointer at offset " + (p - off)
                                + " to offset " + target + ", not a prior occurrence (RFC 1035 §4.1.4): a loop or a forward reference");
                    }
                    if (++pointers > MAX_POINTERS) throw new MalformedPacketException(BAD_NAME, "DNS name at offset " + (pos - off) + " follows more than " + MAX_POINTERS + " compression pointers");
                    if (next < 0) next = p + 2;
                    p = off + target;
                    runStart = target;
                }
                case 0x00 -> {
                    wireLength += l + 1;
                    if (wireLength > MAX_NAME) throw new MalformedPacketException(BAD_NAME, "DNS name at offset " + (pos - off) + " longer than " + MAX_NAME + " bytes");
                    if (l == 0) return next < 0 ? p + 1 : next;
                    if (p + 1 + l > end) throw new MalformedPacketException(TRUNCATED, "DNS label at offset " + (p - off) + " of " + l + " bytes runs past the message of " + len + " bytes");
                    if (!first) out.append('.');
                    first = false;
                    appendLabel(b, p + 1, l, out);
                    p += 1 + l;
                }
                default -> throw new MalformedPacketException(BAD_NAME, String.format(
                        "DNS label type 0x%02x at offset %d (only normal labels and compression pointers are defined, RFC 1035 §4.1.4)", l & 0xC0, p - off));
            }
        }
    }

    private static void appendLabel(byte[] b, int from, int n, StringBuilder out) {
        for (int i = from; i < from + n; i++) {
            int c = b[i] & 0xFF;
            if (c == '.' || c == '\\' || c <= ' ' || c > '~') {
                out.append('\\');
                if (c < 100) out.append('0');
                if (c < 10) out.append('0');
                out.append(c);
            } else {
                out.append((char) c);
            }
        }
    }

    /**
     * The wire length of {@code name} (labels with their length octets and the root's 0), after
     * {@link #checkName}.
     */
    public static int nameLength(String name) {
        String n = checkName(name);
        return n.isEmpty() ? 1 : n.length() + 2;
    }

    /**
     * Writes {@code name} uncompressed at {@code pos}.
     *
     * @return the index past it
     * @throws IllegalArgumentException as {@link #checkName}
     * @throws IndexOutOfBoundsException when it does not fit in {@code b}
     */
    public static int writeName(byte[] b, int pos, String name) {
        String n = checkName(name);
        java.util.Objects.checkFromIndexSize(pos, n.isEmpty() ? 1 : n.length() + 2, b.length);
        if (!n.isEmpty()) {
            for (String label : n.split("\\.", -1)) {
                b[pos++] = (byte) label.length();
                for (int i = 0; i < label.length(); i++) b[pos++] = (byte) label.charAt(i);
            }
        }
        b[pos++] = 0;
        return pos;
    }

    /**
     * Checks that {@code name} can be sent as a query name and returns it without a trailing dot: labels of 1 to
     * 63 printable ASCII characters other than {@code '\'} (no escapes, no spaces), at most 255 bytes in wire form
     * (RFC 1035 §2.3.4). A single {@code "."} or {@code ""} is the root.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static String checkName(String name) {
        String n = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
        if (n.isEmpty()) return n;
        if (n.length() + 2 > MAX_NAME) throw new IllegalArgumentException("DNS name longer than " + MAX_NAME + " bytes: " + name);
        int labelStart = 0;
        for (int i = 0; i <= n.length(); i++) {
            if (i == n.length() || n.charAt(i) == '.') {
                int l = i - labelStart;
                if (l == 0) throw new IllegalArgumentException("empty label in DNS name: " + name);
                if (l > MAX_LABEL) throw new IllegalArgumentException("DNS label longer than " + MAX_LABEL + " bytes in " + name);
                labelStart = i + 1;
            } else {
                char c = n.charAt(i);
                if (c <= ' ' || c > '~' || c == '\\') {
                    throw new IllegalArgumentException("character " + (c <= ' ' || c > '~' ? String.format("U+%04X", (int) c) : "'\\'")
                            + " in DNS name: " + name);
                }
            }
        }
        return n;
    }

    /**
     * Whether two names in text form are the same name: ASCII case-insensitive (RFC 4343 §3), a trailing dot
     * ignored.
     */
    public static boolean sameName(String a, String b) {
        String x = a.endsWith(".") ? a.substring(0, a.length() - 1) : a;
        String y = b.endsWith(".") ? b.substring(0, b.length() - 1) : b;
        return x.length() == y.length() && x.toLowerCase(Locale.ROOT).equals(y.toLowerCase(Locale.ROOT));
    }
}
