package io.jnet.wire;

import static io.jnet.wire.MalformedPacketException.Reason.BAD_LENGTH;
import static io.jnet.wire.MalformedPacketException.Reason.TRUNCATED;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A DNS message (RFC 1035 §4.1) as a value: the header's ID and flags word, the questions, and the resource
 * records of the answer, authority and additional sections whose types a stub resolver uses: A, CNAME, PTR, and
 * AAAA (RFC 3596 §2.2). Records of other types are checked for their bounds and skipped by their RDLENGTH; they
 * are not kept.
 *
 * <p>{@link #parse} reads a message received from the wire and checks every length and every name (see
 * {@link Dns#readName}); {@link #encode} writes one, names uncompressed. {@link #query} makes the query a stub
 * resolver sends (RFC 1035 §4.1.1 and §7.2: one question, RD set).
 *
 * @param id the 16-bit ID that matches a response to its query
 * @param flags the 16-bit word at offset 2: QR, Opcode, AA, TC, RD, RA, Z, RCODE (see {@link Dns}'s FLAG_ constants)
 * @param questions the question section
 * @param answers the answer section's A, AAAA, CNAME and PTR records, in message order
 * @param authorities the authority section's records of those types
 * @param additionals the additional section's records of those types
 */
public record DnsMessage(int id, int flags, List<Question> questions, List<ResourceRecord> answers,
        List<ResourceRecord> authorities, List<ResourceRecord> additionals) {

    public DnsMessage {
        ReprChecks.unsigned("id", id, 16);
        ReprChecks.unsigned("flags", flags, 16);
        questions = List.copyOf(questions);
        answers = List.copyOf(answers);
        authorities = List.copyOf(authorities);
        additionals = List.copyOf(additionals);
        if (questions.size() > 0xFFFF || answers.size() > 0xFFFF || authorities.size() > 0xFFFF || additionals.size() > 0xFFFF) {
            throw new IllegalArgumentException("more than 65535 entries in a DNS section");
        }
    }

    /**
     * One entry of the question section (RFC 1035 §4.1.2).
     *
     * @param name the name asked for, in {@link Dns#readName} text form
     * @param type QTYPE, e.g. {@link Dns#TYPE_A}
     * @param qclass QCLASS, normally {@link Dns#CLASS_IN}
     */
    public record Question(String name, int type, int qclass) {
        public Question {
            Objects.requireNonNull(name, "name");
            ReprChecks.unsigned("type", type, 16);
            ReprChecks.unsigned("qclass", qclass, 16);
        }

        /** Same name (case-insensitive, RFC 4343), type and class: how a resolver matches a response to its query. */
        public boolean matches(Question other) {
            return type == other.type && qclass == other.qclass && Dns.sameName(name, other.name);
        }
    }

    /**
     * One resource record (RFC 1035 §4.1.3) of type A, AAAA, CNAME or PTR.
     *
     * @param name the owner name
     * @param type {@link Dns#TYPE_A}, {@link Dns#TYPE_AAAA}, {@link Dns#TYPE_CNAME} or {@link Dns#TYPE_PTR}
     * @param rrClass the class, normally {@link Dns#CLASS_IN}
     * @param ttl seconds, 0..2^32-1 as on the wire
     * @param address the address of an A (IPv4) or AAAA (IPv6) record, else null
     * @param target the domain name of a CNAME or PTR record, else null
     */
    public record ResourceRecord(String name, int type, int rrClass, long ttl, InetAddress address, String target) {
        public ResourceRecord {
            Objects.requireNonNull(name, "name");
            ReprChecks.unsigned("rrClass", rrClass, 16);
            if (ttl < 0 || ttl > 0xFFFFFFFFL) throw new IllegalArgumentException("ttl out of range for 32 bits: " + ttl);
            switch (type) {
                case Dns.TYPE_A, Dns.TYPE_AAAA -> {
                    int want = type == Dns.TYPE_A ? 4 : 16;
                    if (address == null || address.getAddress().length != want || target != null) {
                        throw new IllegalArgumentException(Dns.typeName(type) + " record needs a " + want + "-byte address and no target");
                    }
                }
                case Dns.TYPE_CNAME, Dns.TYPE_PTR -> {
                    if (target == null || address != null) throw new IllegalArgumentException(Dns.typeName(type) + " record needs a target and no address");
                }
                default -> throw new IllegalArgumentException("record type not kept: " + Dns.typeName(type));
            }
        }

        /** An A record of class IN. */
        public static ResourceRecord a(String name, long ttl, InetAddress address) {
            return new ResourceRecord(name, Dns.TYPE_A, Dns.CLASS_IN, ttl, address, null);
        }

        /** A CNAME record of class IN. */
        public static ResourceRecord cname(String name, long ttl, String target) {
            return new ResourceRecord(name, Dns.TYPE_CNAME, Dns.CLASS_IN, ttl, null, target);
        }

        /** A PTR record of class IN. */
        public static ResourceRecord ptr(String name, long ttl, String target) {
            return new ResourceRecord(name, Dns.TYPE_PTR, Dns.CLASS_IN, ttl, null, target);
        }

        @Override
        public String toString() {
            return name + " " + ttl + " " + (rrClass == Dns.CLASS_IN ? "IN" : "CLASS" + rrClass) + " " + Dns.typeName(type) + " "
                    + (address != null ? address.getHostAddress() : target);
        }
    }

    /** The query a stub resolver sends: {@code id}, RD set (RFC 1035 §4.1.1), one question of class IN. */
    public static DnsMessage query(int id, String name, int type) {
        return new DnsMessage(id, Dns.FLAG_RD, List.of(new Question(Dns.checkName(name), type, Dns.CLASS_IN)),
                List.of(), List.of(), List.of());
    }

    public boolean isResponse() { return (flags & Dns.FLAG_QR) != 0; }
    public int opcode() { return (flags >>> 11) & 0xF; }
    /** TC: the response was cut to fit UDP's 512 bytes; ask again over TCP (RFC 1035 §4.2.1). */
    public boolean isTruncated() { return (flags & Dns.FLAG_TC) != 0; }
    public boolean isAuthoritative() { return (flags & Dns.FLAG_AA) != 0; }
    public boolean recursionDesired() { return (flags & Dns.FLAG_RD) != 0; }
    public boolean recursionAvailable() { return (flags & Dns.FLAG_RA) != 0; }
    /** RCODE, e.g. {@link Dns#RCODE_NXDOMAIN}. */
    public int rcode() { return flags & 0xF; }

    /**
     * Parses the message in the {@code len} bytes at {@code off}. Bytes after the last record of the counted
     * sections are ignored (as glibc's resolver ignores them).
     *
     * @throws MalformedPacketException TRUNCATED when the header, a question, a record or a name runs past
     *     {@code len}; BAD_LENGTH for an RDLENGTH that disagrees with its record's type (A: 4, AAAA: 16, CNAME and
     *     PTR: exactly their name); BAD_NAME for a malformed name ({@link Dns#readName})
     */
    public static DnsMessage parse(byte[] b, int off, int len) throws MalformedPacketException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len < Dns.HEADER_LENGTH) throw new MalformedPacketException(TRUNCATED, "DNS message of " + len + " bytes, below the 12-byte header");
        int end = off + len;
        int pos = off + Dns.HEADER_LENGTH;
        StringBuilder sb = new StringBuilder();
        int qd = Dns.questionCount(b, off);
        List<Question> questions = new ArrayList<>(Math.min(qd, 16));
        for (int i = 0; i < qd; i++) {
            sb.setLength(0);
            pos = Dns.readName(b, off, len, pos, sb);
            if (pos + 4 > end) throw new MalformedPacketException(TRUNCATED, "DNS question " + (i + 1) + " of " + qd + " cut off at offset " + (pos - off));
            questions.add(new Question(sb.toString(), Bytes.u16(b, pos), Bytes.u16(b, pos + 2)));
            pos += 4;
        }
        List<List<ResourceRecord>> sections = new ArrayList<>(3);
        int[] counts = {Dns.answerCount(b, off), Dns.authorityCount(b, off), Dns.additionalCount(b, off)};
        String[] names = {"answer", "authority", "additional"};
        for (int s = 0; s < 3; s++) {
            List<ResourceRecord> records = new ArrayList<>(Math.min(counts[s], 16));
            for (int i = 0; i < counts[s]; i++) {
                sb.setLength(0);
                pos = Dns.readName(b, off, len, pos, sb);
                String where = names[s] + " record " + (i + 1) + " of " + counts[s];
                if (pos + 10 > end) throw new MalformedPacketException(TRUNCATED, "DNS " + where + " cut off at offset " + (pos - off));
                int type = Bytes.u16(b, pos);
                int rrClass = Bytes.u16(b, pos + 2);
                long ttl = Bytes.u32(b, pos + 4);
                int rdLength = Bytes.u16(b, pos + 8);
                int rdata = pos + 10;
                if (rdata + rdLength > end) {
                    throw new MalformedPacketException(TRUNCATED, "DNS " + where + ": RDLENGTH " + rdLength + " at offset " + (pos + 8 - off)
                            + " runs past the message of " + len + " bytes");
                }
                String owner = sb.toString();
                switch (type) {
                    case Dns.TYPE_A, Dns.TYPE_AAAA -> {
                        int want = type == Dns.TYPE_A ? 4 : 16;
                        if (rdLength != want) {
                            throw new MalformedPacketException(BAD_LENGTH, "DNS " + where + ": " + Dns.typeName(type) + " with RDLENGTH " + rdLength + ", not " + want);
                        }
                        records.add(new ResourceRecord(owner, type, rrClass, ttl, address(Arrays.copyOfRange(b, rdata, rdata + want)), null));
                    }
                    case Dns.TYPE_CNAME, Dns.TYPE_PTR -> {
                        sb.setLength(0);
                        int after = Dns.readName(b, off, len, rdata, sb);
                        if (after != rdata + rdLength) {
                            throw new MalformedPacketException(BAD_LENGTH, "DNS " + where + ": " + Dns.typeName(type) + " with RDLENGTH " + rdLength
                                    + " holding a name of " + (after - rdata) + " bytes");
                        }
                        records.add(new ResourceRecord(owner, type, rrClass, ttl, null, sb.toString()));
                    }
                    default -> { } // skipped by RDLENGTH
                }
                pos = rdata + rdLength;
            }
            sections.add(records);
        }
        return new DnsMessage(Dns.id(b, off), Dns.flags(b, off), questions, sections.get(0), sections.get(1), sections.get(2));
    }

    private static InetAddress address(byte[] raw) {
        try {
            return InetAddress.getByAddress(raw);
        } catch (UnknownHostException e) {
            throw new AssertionError(e); // 4 or 16 bytes
        }
    }

    /** The encoded length in bytes: header, questions and records, names uncompressed. */
    public int length() {
        int n = Dns.HEADER_LENGTH;
        for (Question q : questions) n += Dns.nameLength(q.name) + 4;
        for (List<ResourceRecord> section : List.of(answers, authorities, additionals)) {
            for (ResourceRecord r : section) n += Dns.nameLength(r.name) + 10 + rdLength(r);
        }
        return n;
    }

    private static int rdLength(ResourceRecord r) {
        return r.address != null ? r.address.getAddress().length : Dns.nameLength(r.target);
    }

    /**
     * Writes the message at {@code off}, names uncompressed.
     *
     * @return the number of bytes written, {@link #length()}
     * @throws IllegalArgumentException for a name that {@link Dns#checkName} refuses
     * @throws IndexOutOfBoundsException when it does not fit in {@code b}
     */
    public int emit(byte[] b, int off) {
        int n = length();
        Objects.checkFromIndexSize(off, n, b.length);
        Bytes.put16(b, off, id);
        Bytes.put16(b, off + 2, flags);
        Bytes.put16(b, off + 4, questions.size());
        Bytes.put16(b, off + 6, answers.size());
        Bytes.put16(b, off + 8, authorities.size());
        Bytes.put16(b, off + 10, additionals.size());
        int pos = off + Dns.HEADER_LENGTH;
        for (Question q : questions) {
            pos = Dns.writeName(b, pos, q.name);
            Bytes.put16(b, pos, q.type);
            Bytes.put16(b, pos + 2, q.qclass);
            pos += 4;
        }
        for (List<ResourceRecord> section : List.of(answers, authorities, additionals)) {
            for (ResourceRecord r : section) {
                pos = Dns.writeName(b, pos, r.name);
                Bytes.put16(b, pos, r.type);
                Bytes.put16(b, pos + 2, r.rrClass);
                Bytes.put32(b, pos + 4, (int) r.ttl);
                Bytes.put16(b, pos + 8, rdLength(r));
                pos += 10;
                if (r.address != null) {
                    byte[] a = r.address.getAddress();
                    System.arraycopy(a, 0, b, pos, a.length);
                    pos += a.length;
                } else {
                    pos = Dns.writeName(b, pos, r.target);
                }
            }
        }
        return pos - off;
    }

    /** {@link #emit} into a new array of {@link #length()} bytes. */
    public byte[] encode() {
        byte[] b = new byte[length()];
        emit(b, 0);
        return b;
    }

    @Override
    public String toString() {
        return "DnsMessage[id=" + id + (isResponse() ? " response " + Dns.rcodeName(rcode()) : " query")
                + (isTruncated() ? " TC" : "") + " " + questions + " answers=" + answers + "]";
    }
}
