package io.jnet.wire;

import static io.jnet.wire.MalformedPacketException.Reason.BAD_CHECKSUM;
import static io.jnet.wire.MalformedPacketException.Reason.BAD_LENGTH;
import static io.jnet.wire.MalformedPacketException.Reason.TRUNCATED;

/**
 * A UDP header (RFC 768) as a value.
 *
 * @param sourcePort source port, 16 bits
 * @param destinationPort destination port, 16 bits
 * @param length header plus payload, bytes (8..65535)
 * @param checksummed the checksum policy: true to compute the checksum over the pseudo-header (a computed
 *     0 is sent as 0xFFFF), false to send 0, "no checksum" (RFC 768)
 */
public record UdpRepr(int sourcePort, int destinationPort, int length, boolean checksummed) {
    public UdpRepr {
        ReprChecks.unsigned("sourcePort", sourcePort, 16);
        ReprChecks.unsigned("destinationPort", destinationPort, 16);
        ReprChecks.unsigned("length", length, 16);
        if (length < Udp.HEADER_LENGTH) throw new IllegalArgumentException("UDP length below 8: " + length);
    }

    /**
     * Parses the header of the datagram in the {@code len} bytes of IPv4 payload at {@code off} without
     * checking the checksum; {@link #checksummed} is true when the checksum field is non-zero.
     *
     * @throws MalformedPacketException TRUNCATED below 8 bytes; BAD_LENGTH for a length field below 8 or
     *     past {@code len}
     */
    public static UdpRepr parse(byte[] b, int off, int len) throws MalformedPacketException {
        return check(b, off, len, Udp.validate(b, off, len, false, 0, 0));
    }

    /**
     * Parses the header and verifies the checksum with the IPv4 pseudo-header (a zero checksum field
     * passes: not computed by the sender). Accepts exactly what {@link Udp#validate} accepts.
     *
     * @param srcIp IPv4 source address
     * @param dstIp IPv4 destination address
     * @throws MalformedPacketException as {@link #parse(byte[], int, int)}, and BAD_CHECKSUM
     */
    public static UdpRepr parse(byte[] b, int off, int len, int srcIp, int dstIp) throws MalformedPacketException {
        return check(b, off, len, Udp.validate(b, off, len, true, srcIp, dstIp));
    }

    private static UdpRepr check(byte[] b, int off, int len, int code) throws MalformedPacketException {
        switch (code) {
            case Udp.OK -> { }
            case Udp.ERR_TRUNCATED -> throw new MalformedPacketException(TRUNCATED, "UDP datagram of " + len + " bytes");
            case Udp.ERR_LENGTH -> throw new MalformedPacketException(BAD_LENGTH,
                    "UDP length " + Udp.length(b, off) + " in " + len + " bytes");
            default -> throw new MalformedPacketException(BAD_CHECKSUM, String.format("UDP checksum 0x%04x", Udp.checksum(b, off)));
        }
        return new UdpRepr(Udp.sourcePort(b, off), Udp.destinationPort(b, off), Udp.length(b, off), Udp.checksum(b, off) != 0);
    }

    /** Payload bytes: length minus 8. */
    public int payloadLength() { return length - Udp.HEADER_LENGTH; }

    /**
     * Writes the 8-byte header at {@code off} and, when {@link #checksummed}, the checksum over the
     * pseudo-header and the {@link #length} bytes at {@code off} (the payload must already be in place).
     *
     * @return 8
     */
    public int emit(byte[] b, int off, int srcIp, int dstIp) {
        if (checksummed) {
            Udp.write(b, off, sourcePort, destinationPort, length, srcIp, dstIp);
        } else {
            Bytes.put16(b, off, sourcePort);
            Bytes.put16(b, off + 2, destinationPort);
            Bytes.put16(b, off + 4, length);
            Bytes.put16(b, off + 6, 0);
        }
        return Udp.HEADER_LENGTH;
    }
}
