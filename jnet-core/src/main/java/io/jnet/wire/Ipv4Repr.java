package io.jnet.wire;

import static io.jnet.wire.MalformedPacketException.Reason.BAD_CHECKSUM;
import static io.jnet.wire.MalformedPacketException.Reason.BAD_HEADER_LENGTH;
import static io.jnet.wire.MalformedPacketException.Reason.BAD_LENGTH;
import static io.jnet.wire.MalformedPacketException.Reason.BAD_VERSION;
import static io.jnet.wire.MalformedPacketException.Reason.TRUNCATED;

import java.util.Arrays;

/**
 * An IPv4 header (RFC 791 section 3.1) as a value, options included, so that a parsed header re-emits byte
 * for byte. The header checksum is not a component: {@link #emit} always computes it.
 *
 * @param tos the type-of-service byte (DSCP and ECN)
 * @param payloadLength bytes after the header (total length minus header length)
 * @param identification identification field, 16 bits
 * @param flagsFragment flags (reserved, DF, MF) and fragment offset in 8-byte units, the 16-bit field as sent
 * @param ttl time to live, 8 bits
 * @param protocol protocol number, 8 bits
 * @param source source address (network-order int)
 * @param destination destination address
 * @param options option bytes as sent (padding included): 0 to 40 bytes, a multiple of 4
 */
public record Ipv4Repr(int tos, int payloadLength, int identification, int flagsFragment, int ttl, int protocol,
                       int source, int destination, byte[] options) {
    private static final byte[] NO_OPTIONS = new byte[0];

    public Ipv4Repr {
        ReprChecks.unsigned("tos", tos, 8);
        ReprChecks.unsigned("identification", identification, 16);
        ReprChecks.unsigned("flagsFragment", flagsFragment, 16);
        ReprChecks.unsigned("ttl", ttl, 8);
        ReprChecks.unsigned("protocol", protocol, 8);
        options = options == null || options.length == 0 ? NO_OPTIONS : options.clone();
        if (options.length % 4 != 0 || options.length > Ipv4.MAX_HEADER_LENGTH - Ipv4.MIN_HEADER_LENGTH) {
            throw new IllegalArgumentException("IPv4 options must be 0..40 bytes in 4-byte words: " + options.length);
        }
        if (payloadLength < 0 || Ipv4.MIN_HEADER_LENGTH + options.length + payloadLength > Ipv4.MAX_PACKET) {
            throw new IllegalArgumentException("IPv4 payload length out of range: " + payloadLength);
        }
    }

    /**
     * Parses and checksum-verifies the header of the packet in the {@code len} bytes at {@code off}
     * ({@code len} may exceed the total length, e.g. Ethernet padding).
     *
     * @throws MalformedPacketException as {@link #parse(byte[], int, int, boolean)} with checksum checking
     */
    public static Ipv4Repr parse(byte[] b, int off, int len) throws MalformedPacketException {
        return parse(b, off, len, true);
    }

    /**
     * Parses the header of the packet in the {@code len} bytes at {@code off}. Accepts exactly what
     * {@link Ipv4#validate} accepts.
     *
     * @param verifyChecksum whether the header checksum must verify
     * @throws MalformedPacketException TRUNCATED below 20 bytes; BAD_VERSION; BAD_HEADER_LENGTH for IHL below 5
     *     or past {@code len}; BAD_LENGTH for a total length below the header length or past {@code len};
     *     BAD_CHECKSUM
     */
    public static Ipv4Repr parse(byte[] b, int off, int len, boolean verifyChecksum) throws MalformedPacketException {
        switch (Ipv4.validate(b, off, len, verifyChecksum)) {
            case Ipv4.OK -> { }
            case Ipv4.ERR_TRUNCATED -> throw new MalformedPacketException(TRUNCATED, "IPv4 packet of " + len + " bytes");
            case Ipv4.ERR_VERSION -> throw new MalformedPacketException(BAD_VERSION, "IP version " + Ipv4.version(b, off));
            case Ipv4.ERR_HEADER_LENGTH -> throw new MalformedPacketException(BAD_HEADER_LENGTH,
                    "IPv4 header length " + Ipv4.headerLength(b, off) + " bytes in " + len);
            case Ipv4.ERR_TOTAL_LENGTH -> throw new MalformedPacketException(BAD_LENGTH, "IPv4 total length "
                    + Ipv4.totalLength(b, off) + " with header " + Ipv4.headerLength(b, off) + " in " + len + " bytes");
            default -> throw new MalformedPacketException(BAD_CHECKSUM,
                    String.format("IPv4 header checksum 0x%04x", Ipv4.checksum(b, off)));
        }
        int hl = Ipv4.headerLength(b, off);
        return new Ipv4Repr(Ipv4.tos(b, off), Ipv4.totalLength(b, off) - hl, Ipv4.identification(b, off),
                Ipv4.flagsFragment(b, off), Ipv4.ttl(b, off), Ipv4.protocol(b, off), Ipv4.source(b, off),
                Ipv4.destination(b, off), Arrays.copyOfRange(b, off + Ipv4.MIN_HEADER_LENGTH, off + hl));
    }

    /** Header length in bytes: 20 plus the options. */
    public int headerLength() { return Ipv4.MIN_HEADER_LENGTH + options.length; }

    /** Total length in bytes: header plus payload. */
    public int totalLength() { return headerLength() + payloadLength; }

    /** The option bytes (a copy). */
    @Override
    public byte[] options() { return options.clone(); }

    /** Writes the header with its options and checksum at {@code off}; returns the header length. */
    public int emit(byte[] b, int off) {
        int hl = headerLength();
        Ipv4.write(b, off, tos, totalLength(), identification, flagsFragment, ttl, protocol, source, destination);
        b[off] = (byte) (0x40 | hl / 4);
        System.arraycopy(options, 0, b, off + Ipv4.MIN_HEADER_LENGTH, options.length);
        Ipv4.updateChecksum(b, off);
        return hl;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Ipv4Repr r && tos == r.tos && payloadLength == r.payloadLength
                && identification == r.identification && flagsFragment == r.flagsFragment && ttl == r.ttl
                && protocol == r.protocol && source == r.source && destination == r.destination
                && Arrays.equals(options, r.options);
    }

    @Override
    public int hashCode() {
        int h = tos;
        for (int v : new int[] {payloadLength, identification, flagsFragment, ttl, protocol, source, destination}) {
            h = 31 * h + v;
        }
        return 31 * h + Arrays.hashCode(options);
    }

    @Override
    public String toString() {
        return "IPv4[" + Ipv4.addressToString(source) + " > " + Ipv4.addressToString(destination) + " proto " + protocol
                + " ttl " + ttl + " id " + identification + String.format(" frag 0x%04x tos 0x%02x", flagsFragment, tos)
                + " payload " + payloadLength + " options " + options.length + "]";
    }
}
