package io.jnet.wire;

import static io.jnet.wire.MalformedPacketException.Reason.BAD_CHECKSUM;
import static io.jnet.wire.MalformedPacketException.Reason.TRUNCATED;

import java.util.Arrays;

/**
 * An ICMPv4 message (RFC 792) as a value: the 8-byte header and the data after it (for error messages the
 * quoted IP header and leading payload bytes). {@link #emit} computes the checksum over header and data.
 *
 * @param type message type, 8 bits
 * @param code message code, 8 bits
 * @param restOfHeader the 32-bit field after the checksum (echo identifier and sequence, next-hop MTU,
 *     zero for port unreachable)
 * @param data the bytes after the 8-byte header
 */
public record IcmpRepr(int type, int code, int restOfHeader, byte[] data) {
    public IcmpRepr {
        ReprChecks.unsigned("type", type, 8);
        ReprChecks.unsigned("code", code, 8);
        data = data == null ? new byte[0] : data.clone();
    }

    /**
     * Parses and checksum-verifies the message occupying the {@code len} bytes at {@code off} (the whole
     * IPv4 payload).
     *
     * @throws MalformedPacketException as {@link #parse(byte[], int, int, boolean)} with checksum checking
     */
    public static IcmpRepr parse(byte[] b, int off, int len) throws MalformedPacketException {
        return parse(b, off, len, true);
    }

    /**
     * Parses the message occupying the {@code len} bytes at {@code off}. With checksum checking it accepts
     * exactly what {@link Icmp#validate} accepts.
     *
     * @throws MalformedPacketException TRUNCATED below 8 bytes; BAD_CHECKSUM
     */
    public static IcmpRepr parse(byte[] b, int off, int len, boolean verifyChecksum) throws MalformedPacketException {
        if (len < Icmp.HEADER_LENGTH) throw new MalformedPacketException(TRUNCATED, "ICMP message of " + len + " bytes");
        if (verifyChecksum && Icmp.validate(b, off, len) != Icmp.OK) {
            throw new MalformedPacketException(BAD_CHECKSUM, String.format("ICMP checksum 0x%04x", Icmp.checksum(b, off)));
        }
        return new IcmpRepr(Icmp.type(b, off), Icmp.code(b, off), Bytes.i32(b, off + 4),
                Arrays.copyOfRange(b, off + Icmp.HEADER_LENGTH, off + len));
    }

    /** Bytes {@link #emit} writes: 8 plus the data. */
    public int length() { return Icmp.HEADER_LENGTH + data.length; }

    /** The data bytes (a copy). */
    @Override
    public byte[] data() { return data.clone(); }

    /**
     * True for the messages whose data quotes the offending datagram's IP header and first 8 data bytes
     * (RFC 792): destination unreachable, source quench, redirect, time exceeded, parameter problem.
     */
    public boolean isError() {
        return switch (type) {
            case Icmp.DEST_UNREACH, Icmp.SOURCE_QUENCH, Icmp.REDIRECT, Icmp.TIME_EXCEEDED, Icmp.PARAMETER_PROBLEM -> true;
            default -> false;
        };
    }

    /** Writes header and data at {@code off} and computes the checksum; returns {@link #length()}. */
    public int emit(byte[] b, int off) {
        System.arraycopy(data, 0, b, off + Icmp.HEADER_LENGTH, data.length);
        Icmp.write(b, off, length(), type, code, restOfHeader);
        return length();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IcmpRepr r && type == r.type && code == r.code && restOfHeader == r.restOfHeader
                && Arrays.equals(data, r.data);
    }

    @Override
    public int hashCode() { return ((type * 31 + code) * 31 + restOfHeader) * 31 + Arrays.hashCode(data); }

    @Override
    public String toString() {
        return "ICMP[type " + type + " code " + code + String.format(" rest 0x%08x", restOfHeader) + " data "
                + data.length + "]";
    }
}
