package io.jnet.wire;

import static io.jnet.wire.MalformedPacketException.Reason.TRUNCATED;

/**
 * An Ethernet II header as a value (IEEE 802.3 with EtherType; 14 bytes; no 802.1Q tag handling: a tagged
 * frame parses with EtherType {@link Ethernet#TYPE_VLAN}).
 *
 * @param destination destination MAC, 48 bits
 * @param source source MAC, 48 bits
 * @param etherType EtherType, 16 bits
 */
public record EthernetRepr(long destination, long source, int etherType) {
    public EthernetRepr {
        ReprChecks.mac("destination", destination);
        ReprChecks.mac("source", source);
        ReprChecks.unsigned("etherType", etherType, 16);
    }

    /**
     * Parses the header of the {@code len}-byte frame at {@code off}.
     *
     * @throws MalformedPacketException TRUNCATED when {@code len < 14}
     */
    public static EthernetRepr parse(byte[] b, int off, int len) throws MalformedPacketException {
        if (len < Ethernet.HEADER_LENGTH) throw new MalformedPacketException(TRUNCATED, "Ethernet frame of " + len + " bytes");
        return new EthernetRepr(Ethernet.destination(b, off), Ethernet.source(b, off), Ethernet.etherType(b, off));
    }

    /** Writes the 14-byte header at {@code off}; returns 14. */
    public int emit(byte[] b, int off) {
        Ethernet.write(b, off, destination, source, etherType);
        return Ethernet.HEADER_LENGTH;
    }

    @Override
    public String toString() {
        return "Ethernet[" + Ethernet.macToString(source) + " > " + Ethernet.macToString(destination)
                + String.format(" type 0x%04x]", etherType);
    }
}
