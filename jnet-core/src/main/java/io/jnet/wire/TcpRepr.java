package io.jnet.wire;

import static io.jnet.wire.MalformedPacketException.Reason.BAD_CHECKSUM;
import static io.jnet.wire.MalformedPacketException.Reason.BAD_HEADER_LENGTH;
import static io.jnet.wire.MalformedPacketException.Reason.BAD_OPTION;
import static io.jnet.wire.MalformedPacketException.Reason.TRUNCATED;

import java.util.Arrays;

/**
 * A TCP header (RFC 9293 section 3.1) as a value. The options are carried twice: parsed into a
 * {@link TcpOptions} and as the raw option bytes. {@link #emit} writes the raw bytes when present (a faithful
 * copy whatever the sender's option order), otherwise the parsed options in Linux's order.
 *
 * @param sourcePort source port, 16 bits
 * @param destinationPort destination port, 16 bits
 * @param seq sequence number
 * @param ack acknowledgment number
 * @param flags the 12 bits after the data offset: reserved bits (0xE00), AE (0x100) and the eight control
 *     bits CWR..FIN ({@link Tcp#FIN} etc.)
 * @param window window field as sent (not scaled), 16 bits
 * @param urgentPointer urgent pointer, 16 bits
 * @param options parsed options; never null (an empty holder when there are none). Not copied: do not mutate
 * @throws IllegalArgumentException for a field out of range, or options (raw, or written from {@code options} with
 *     all their SACK blocks) that are not 0..40 bytes in 4-byte words
 * @param rawOptions option bytes (0..40, a multiple of 4) to emit verbatim, or null to emit {@code options}
 */
public record TcpRepr(int sourcePort, int destinationPort, int seq, int ack, int flags, int window, int urgentPointer,
                      TcpOptions options, byte[] rawOptions) {
    public TcpRepr {
        ReprChecks.unsigned("sourcePort", sourcePort, 16);
        ReprChecks.unsigned("destinationPort", destinationPort, 16);
        ReprChecks.unsigned("flags", flags, 12);
        ReprChecks.unsigned("window", window, 16);
        ReprChecks.unsigned("urgentPointer", urgentPointer, 16);
        if (options == null) options = new TcpOptions();
        int ol = rawOptions != null ? rawOptions.length : options.writtenLength();
        if (ol % 4 != 0 || ol > Tcp.MAX_HEADER_LENGTH - Tcp.MIN_HEADER_LENGTH) {
            throw new IllegalArgumentException("TCP options must be 0..40 bytes in 4-byte words: " + ol);
        }
        if (rawOptions == null && options.sackBlocks > options.sackBlocksWritten()) {
            throw new IllegalArgumentException("TCP options: " + options.sackBlocks + " SACK blocks do not fit in 40 bytes");
        }
        if (rawOptions != null) rawOptions = rawOptions.clone();
    }

    /**
     * Parses the header of the segment in the {@code len} bytes at {@code off} (the IPv4 payload) without
     * checking the checksum.
     *
     * @throws MalformedPacketException TRUNCATED below 20 bytes; BAD_HEADER_LENGTH for a data offset below 5
     *     words or past {@code len}; BAD_OPTION for a malformed option area ({@link TcpOptions#parse})
     */
    public static TcpRepr parse(byte[] b, int off, int len) throws MalformedPacketException {
        return check(b, off, len, Tcp.validate(b, off, len, false, 0, 0));
    }

    /**
     * Parses the header and verifies the checksum over the IPv4 pseudo-header and the {@code len} bytes.
     * Accepts what {@link Tcp#validate} accepts with a well-formed option area.
     *
     * @param srcIp IPv4 source address
     * @param dstIp IPv4 destination address
     * @throws MalformedPacketException as {@link #parse(byte[], int, int)}, and BAD_CHECKSUM
     */
    public static TcpRepr parse(byte[] b, int off, int len, int srcIp, int dstIp) throws MalformedPacketException {
        return check(b, off, len, Tcp.validate(b, off, len, true, srcIp, dstIp));
    }

    private static TcpRepr check(byte[] b, int off, int len, int code) throws MalformedPacketException {
        switch (code) {
            case Tcp.OK -> { }
            case Tcp.ERR_TRUNCATED -> throw new MalformedPacketException(TRUNCATED, "TCP segment of " + len + " bytes");
            case Tcp.ERR_DATA_OFFSET -> throw new MalformedPacketException(BAD_HEADER_LENGTH,
                    "TCP data offset " + Tcp.headerLength(b, off) + " bytes in " + len);
            default -> throw new MalformedPacketException(BAD_CHECKSUM, String.format("TCP checksum 0x%04x", Tcp.checksum(b, off)));
        }
        int hl = Tcp.headerLength(b, off);
        TcpOptions opts = new TcpOptions();
        if (!opts.parse(b, off + Tcp.MIN_HEADER_LENGTH, hl - Tcp.MIN_HEADER_LENGTH)) {
            throw new MalformedPacketException(BAD_OPTION, "malformed TCP option area of " + (hl - Tcp.MIN_HEADER_LENGTH) + " bytes");
        }
        return new TcpRepr(Tcp.sourcePort(b, off), Tcp.destinationPort(b, off), Tcp.seq(b, off), Tcp.ack(b, off),
                ((b[off + 12] & 0x0F) << 8) | Tcp.flags(b, off), Tcp.window(b, off), Tcp.urgentPointer(b, off), opts,
                Arrays.copyOfRange(b, off + Tcp.MIN_HEADER_LENGTH, off + hl));
    }

    /** Header length in bytes: 20 plus the options {@link #emit} writes. */
    public int headerLength() {
        return Tcp.MIN_HEADER_LENGTH + (rawOptions != null ? rawOptions.length : options.writtenLength());
    }

    /** The raw option bytes (a copy), or null. */
    @Override
    public byte[] rawOptions() { return rawOptions == null ? null : rawOptions.clone(); }

    /**
     * Writes the header at {@code off} and the checksum over the pseudo-header, the header and the
     * {@code payloadLength} bytes that must already be in place at {@code off + headerLength()}.
     *
     * @return the header length in bytes
     */
    public int emit(byte[] b, int off, int payloadLength, int srcIp, int dstIp) {
        int hl = headerLength();
        Tcp.writeHeader(b, off, sourcePort, destinationPort, seq, ack, hl, flags & 0xFF, window);
        b[off + 12] |= (byte) (flags >>> 8);
        Bytes.put16(b, off + 18, urgentPointer);
        if (rawOptions != null) {
            System.arraycopy(rawOptions, 0, b, off + Tcp.MIN_HEADER_LENGTH, rawOptions.length);
        } else {
            options.write(b, off + Tcp.MIN_HEADER_LENGTH);
        }
        Tcp.fillChecksum(b, off, hl + payloadLength, srcIp, dstIp);
        return hl;
    }

    /** Equality of all fields; options compare by their values, raw options by content. */
    @Override
    public boolean equals(Object o) {
        return o instanceof TcpRepr r && sourcePort == r.sourcePort && destinationPort == r.destinationPort
                && seq == r.seq && ack == r.ack && flags == r.flags && window == r.window
                && urgentPointer == r.urgentPointer && options.toString().equals(r.options.toString())
                && Arrays.equals(rawOptions, r.rawOptions);
    }

    @Override
    public int hashCode() {
        int h = sourcePort;
        for (int v : new int[] {destinationPort, seq, ack, flags, window, urgentPointer}) h = 31 * h + v;
        return (31 * h + options.toString().hashCode()) * 31 + Arrays.hashCode(rawOptions);
    }

    @Override
    public String toString() {
        return "TCP[" + sourcePort + " > " + destinationPort + " [" + Tcp.flagsToString(flags) + "] seq "
                + Integer.toUnsignedString(seq) + " ack " + Integer.toUnsignedString(ack) + " win " + window
                + " urg " + urgentPointer + " options " + options + "]";
    }
}
