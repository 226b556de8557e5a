package io.jnet.rds;

import io.jnet.wire.RdsHeader;
import java.util.Arrays;
import java.util.Objects;

/**
 * One RDS message, received from or queued for an RDS-over-TCP stream: the fields of {@code struct rds_header}
 * (net/rds/rds.h, see {@link RdsHeader}) that a message carries, and its payload.
 *
 * <p>The payload is a byte-array slice ({@link #payload()}, {@link #payloadOffset()}, {@link #payloadLength()}),
 * not a copy: the message refers to the caller's array, which must not change while the message is queued.
 * {@link RdsStreamParser} gives every message it emits its own array, with offset 0 and the array's full length.
 * h_len is not a field: it is the payload length. h_padding and h_csum are not kept either: Linux's TCP
 * transport sends them as zero and never checks them (see {@link RdsHeader#computeChecksum}), and
 * {@link RdsStreamWriter} writes zeros.
 */
public final class RdsMessage {
    private static final byte[] NO_EXTENSIONS = new byte[RdsHeader.EXT_SPACE];

    private final long sequence;
    private final long ack;
    private final int sourcePort;
    private final int destinationPort;
    private final int flags;
    private final int credit;
    private final byte[] extensions;
    private final byte[] payload;
    private final int payloadOffset;
    private final int payloadLength;
    /** The source address, set as the message is queued on a receiving socket (rds_incoming's i_saddr). */
    int saddr;

    /**
     * @param sequence h_sequence, unsigned 64 bits
     * @param ack h_ack, unsigned 64 bits (Linux's TCP transport leaves it 0)
     * @param sourcePort h_sport, 0 to 65535
     * @param destinationPort h_dport, 0 to 65535
     * @param flags h_flags, RDS_FLAG_* bits, 0 to 255
     * @param credit h_credit, 0 to 255
     * @param extensions h_exthdr, exactly {@link RdsHeader#EXT_SPACE} bytes (copied), or null for none
     * @param payload the payload array (not copied)
     * @param payloadOffset first payload byte in {@code payload}
     * @param payloadLength payload bytes, the h_len that goes on the wire
     * @throws IllegalArgumentException for a field out of its range or extensions of the wrong size
     * @throws IndexOutOfBoundsException when the payload slice is outside the array
     */
    public RdsMessage(long sequence, long ack, int sourcePort, int destinationPort, int flags, int credit,
                      byte[] extensions, byte[] payload, int payloadOffset, int payloadLength) {
        if ((sourcePort | destinationPort) >>> 16 != 0) {
            throw new IllegalArgumentException("ports must be 0 to 65535: " + sourcePort + ", " + destinationPort);
        }
        if ((flags | credit) >>> 8 != 0) {
            throw new IllegalArgumentException("flags and credit must be 0 to 255: " + flags + ", " + credit);
        }
        if (extensions != null && extensions.length != RdsHeader.EXT_SPACE) {
            throw new IllegalArgumentException("extension space must be " + RdsHeader.EXT_SPACE + " bytes, not "
                    + extensions.length);
        }
        Objects.checkFromIndexSize(payloadOffset, payloadLength, payload.length);
        this.sequence = sequence;
        this.ack = ack;
        this.sourcePort = sourcePort;
        this.destinationPort = destinationPort;
        this.flags = flags;
        this.credit = credit;
        this.extensions = extensions == null ? NO_EXTENSIONS : extensions.clone();
        this.payload = payload;
        this.payloadOffset = payloadOffset;
        this.payloadLength = payloadLength;
    }

    /**
     * A received message that takes {@code extensions} as they are (not copied; {@link #NO_EXTENSIONS} when all
     * zero) and its whole {@code payload}, for {@link RdsStreamParser}: fields as read from a header, so in range.
     */
    private RdsMessage(long sequence, long ack, int sourcePort, int destinationPort, int flags, int credit,
                       byte[] payload, byte[] extensions) {
        this.sequence = sequence;
        this.ack = ack;
        this.sourcePort = sourcePort;
        this.destinationPort = destinationPort;
        this.flags = flags;
        this.credit = credit;
        this.extensions = extensions;
        this.payload = payload;
        this.payloadOffset = 0;
        this.payloadLength = payload.length;
    }

    /**
     * The message whose 48-byte header is at {@code off} in {@code header} and whose payload is all of
     * {@code payload} (not copied); no array is allocated for an extension space of zeros.
     */
    static RdsMessage fromHeader(byte[] header, int off, byte[] payload) {
        byte[] ext = NO_EXTENSIONS;
        for (int i = 0; i < RdsHeader.EXT_SPACE; i++) {
            if (header[off + RdsHeader.OFF_EXTHDR + i] != 0) {
                ext = Arrays.copyOfRange(header, off + RdsHeader.OFF_EXTHDR, off + RdsHeader.OFF_EXTHDR + RdsHeader.EXT_SPACE);
                break;
            }
        }
        return new RdsMessage(RdsHeader.sequence(header, off), RdsHeader.ack(header, off),
                RdsHeader.sourcePort(header, off), RdsHeader.destinationPort(header, off), RdsHeader.flags(header, off),
                RdsHeader.credit(header, off), payload, ext);
    }

    /** A message whose payload is all of {@code payload}, with no extensions, credit 0 and ack 0. */
    public RdsMessage(long sequence, int sourcePort, int destinationPort, int flags, byte[] payload) {
        this(sequence, 0, sourcePort, destinationPort, flags, 0, null, payload, 0, payload.length);
    }

    /** h_sequence, unsigned 64 bits. */
    public long sequence() { return sequence; }
    /** h_ack, unsigned 64 bits. */
    public long ack() { return ack; }
    /** h_sport. */
    public int sourcePort() { return sourcePort; }
    /** h_dport. */
    public int destinationPort() { return destinationPort; }
    /** h_flags. */
    public int flags() { return flags; }
    /** h_credit. */
    public int credit() { return credit; }
    /** A copy of h_exthdr, 16 bytes; read it with {@link RdsHeader#extensionAt} and friends at offset 0. */
    public byte[] extensions() { return extensions.clone(); }
    /** Copies h_exthdr to {@code dst} at {@code off} (16 bytes), without allocating. */
    public void copyExtensions(byte[] dst, int off) {
        System.arraycopy(extensions, 0, dst, off, RdsHeader.EXT_SPACE);
    }
    /** The payload array, not a copy; the payload is {@link #payloadLength()} bytes at {@link #payloadOffset()}. */
    public byte[] payload() { return payload; }
    public int payloadOffset() { return payloadOffset; }
    /** Payload bytes (h_len). */
    public int payloadLength() { return payloadLength; }

    /**
     * True for a congestion-map update: h_flags exactly {@link RdsHeader#FLAG_CONG_BITMAP}, as
     * rds_tcp_data_recv (net/rds/tcp_recv.c) tests it (a message with that bit and others set is an ordinary one).
     */
    public boolean isCongestionUpdate() { return flags == RdsHeader.FLAG_CONG_BITMAP; }

    /** The payload as a fresh array of exactly {@link #payloadLength()} bytes. */
    public byte[] payloadCopy() { return Arrays.copyOfRange(payload, payloadOffset, payloadOffset + payloadLength); }

    @Override
    public String toString() {
        return "RDS seq " + Long.toUnsignedString(sequence) + " ack " + Long.toUnsignedString(ack) + " len "
                + payloadLength + ' ' + sourcePort + " > " + destinationPort
                + String.format(" flags 0x%02x credit %d", flags, credit);
    }
}
