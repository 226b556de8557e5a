package io.jnet.wire;

/**
 * Thrown by the {@code *Repr.parse} methods and {@link DnsMessage#parse} when bytes do not form a well-formed header. The receive path
 * does not use it: it calls the {@code validate} methods, which return error codes, and counts the drops.
 */
public final class MalformedPacketException extends Exception {
    /** Why a header was rejected. */
    public enum Reason {
        /** Fewer bytes than the fixed header needs. */
        TRUNCATED,
        /** IPv4 version field is not 4. */
        BAD_VERSION,
        /** IPv4 IHL or TCP data offset below the minimum or past the available bytes. */
        BAD_HEADER_LENGTH,
        /**
         * A length field (IPv4 total length, UDP length, a DNS record's RDLENGTH) outside its header length and the
         * available bytes, or not the length its type needs (a DNS A record's 4 bytes).
         */
        BAD_LENGTH,
        /** A checksum that does not verify. */
        BAD_CHECKSUM,
        /** A malformed TCP option area (option length below 2 or running past the header). */
        BAD_OPTION,
        /**
         * A malformed DNS name (RFC 1035 §4.1.4): a label over 63 bytes, a name over 255, a compression pointer that
         * does not go back to a prior occurrence, an undefined label type.
         */
        BAD_NAME,
        /** A required flag is missing (VXLAN I flag). */
        BAD_FLAGS,
        /** Well formed but not a supported kind (ARP not Ethernet/IPv4, unknown ARP operation). */
        UNSUPPORTED
    }

    private final Reason reason;

    /**
     * @param reason the kind of defect
     * @param detail what was found, e.g. {@code "IPv4 IHL 3 words"}
     */
    public MalformedPacketException(Reason reason, String detail) {
        super(reason + ": " + detail);
        this.reason = reason;
    }

    /** The kind of defect. */
    public Reason reason() { return reason; }
}
