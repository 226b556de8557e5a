package io.jnet.wire;

import static io.jnet.wire.MalformedPacketException.Reason.TRUNCATED;
import static io.jnet.wire.MalformedPacketException.Reason.UNSUPPORTED;

/**
 * An ARP packet for IPv4 over Ethernet (RFC 826) as a value: 28 bytes, hardware type 1, protocol type
 * 0x0800, address lengths 6 and 4.
 *
 * @param operation {@link Arp#OP_REQUEST} or {@link Arp#OP_REPLY}
 * @param senderMac sender hardware address, 48 bits
 * @param senderIp sender protocol address (network-order int)
 * @param targetMac target hardware address, 48 bits (zero in a request)
 * @param targetIp target protocol address
 */
public record ArpRepr(int operation, long senderMac, int senderIp, long targetMac, int targetIp) {
    public ArpRepr {
        ReprChecks.unsigned("operation", operation, 16);
        ReprChecks.mac("senderMac", senderMac);
        ReprChecks.mac("targetMac", targetMac);
    }

    /**
     * Parses the ARP packet in the {@code len} bytes at {@code off} (trailing Ethernet padding is allowed).
     * Accepts exactly what {@link Arp#isValid} accepts.
     *
     * @throws MalformedPacketException TRUNCATED below 28 bytes; UNSUPPORTED for other hardware/protocol
     *     types or address lengths, or an operation other than request/reply
     */
    public static ArpRepr parse(byte[] b, int off, int len) throws MalformedPacketException {
        if (len < Arp.LENGTH) throw new MalformedPacketException(TRUNCATED, "ARP packet of " + len + " bytes");
        if (!Arp.isValid(b, off, len)) {
            throw new MalformedPacketException(UNSUPPORTED, String.format(
                    "ARP hardware type %d protocol 0x%04x lengths %d/%d operation %d", Arp.hardwareType(b, off),
                    Arp.protocolType(b, off), Arp.hardwareLength(b, off), Arp.protocolLength(b, off),
                    Arp.operation(b, off)));
        }
        return new ArpRepr(Arp.operation(b, off), Arp.senderMac(b, off), Arp.senderIp(b, off), Arp.targetMac(b, off),
                Arp.targetIp(b, off));
    }

    /** Writes the 28-byte packet at {@code off}; returns 28. */
    public int emit(byte[] b, int off) {
        Arp.write(b, off, operation, senderMac, senderIp, targetMac, targetIp);
        return Arp.LENGTH;
    }
}
