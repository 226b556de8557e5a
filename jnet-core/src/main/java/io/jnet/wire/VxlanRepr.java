package io.jnet.wire;

import static io.jnet.wire.MalformedPacketException.Reason.BAD_FLAGS;
import static io.jnet.wire.MalformedPacketException.Reason.TRUNCATED;

/**
 * A VXLAN header (RFC 7348 section 5) as a value. Only the VNI is carried: the I flag is always set on
 * emission and the reserved fields are written as zero (and ignored on parse), as the RFC says.
 *
 * @param vni VXLAN Network Identifier, 24 bits
 */
public record VxlanRepr(int vni) {
    public VxlanRepr {
        ReprChecks.unsigned("vni", vni, 24);
    }

    /**
     * Parses the header at the start of the {@code len}-byte UDP payload at {@code off}. Accepts exactly
     * what {@link Vxlan#validate} accepts.
     *
     * @throws MalformedPacketException TRUNCATED below 8 bytes; BAD_FLAGS when the I flag is clear
     */
    public static VxlanRepr parse(byte[] b, int off, int len) throws MalformedPacketException {
        switch (Vxlan.validate(b, off, len)) {
            case Vxlan.OK -> { }
            case Vxlan.ERR_TRUNCATED -> throw new MalformedPacketException(TRUNCATED, "VXLAN header of " + len + " bytes");
            default -> throw new MalformedPacketException(BAD_FLAGS,
                    String.format("VXLAN flags 0x%02x without the I flag", Vxlan.flags(b, off)));
        }
        return new VxlanRepr(Vxlan.vni(b, off));
    }

    /** Writes the 8-byte header at {@code off}; returns 8. */
    public int emit(byte[] b, int off) {
        Vxlan.write(b, off, vni);
        return Vxlan.HEADER_LENGTH;
    }
}
