package io.jnet.wire;

/**
 * The header of an RDS (Reliable Datagram Sockets) message as Linux's RDS over TCP transport sends it:
 * {@code struct rds_header} of net/rds/rds.h, 48 bytes in network byte order, written in front of every
 * message's payload on the TCP stream (net/rds/tcp_send.c rds_tcp_xmit sends {@code sizeof(struct rds_header)}
 * bytes, then {@code h_len} payload bytes; net/rds/tcp_recv.c rds_tcp_data_recv reads them back the same way).
 *
 * <pre>
 *  offset size field        Linux type
 *   0      8   h_sequence   __be64   message sequence number on the connection path
 *   8      8   h_ack        __be64   piggybacked ack, set by the IB transport (rds_ib_xmit); rds_tcp_xmit leaves it
 *  16      4   h_len        __be32   payload length in bytes, header excluded
 *  20      2   h_sport      __be16   RDS source port
 *  22      2   h_dport      __be16   RDS destination port
 *  24      1   h_flags      u8       RDS_FLAG_*
 *  25      1   h_credit     u8       flow-control credits (IB)
 *  26      4   h_padding    u8[4]
 *  30      2   h_csum       __sum16  header checksum, see {@link #computeChecksum}
 *  32     16   h_exthdr     u8[RDS_HEADER_EXT_SPACE]  extension headers, see {@link #extensionAt}
 * </pre>
 *
 * <p>Two ways to use it, as {@link Tcp} and {@link TcpOptions} do: static accessors, {@link #write},
 * {@link #validate} and the extension functions on a byte array; or an instance as a reusable mutable holder,
 * filled by {@link #decode} and written by {@link #encode}. Nothing here allocates.
 *
 * <p>Receive-side checks are error codes ({@link #OK}, {@code ERR_*}), never exceptions, as the other
 * validators of this package return them.
 */
public final class RdsHeader {
    /** {@code sizeof(struct rds_header)} (net/rds/rds.h). */
    public static final int LENGTH = 48;
    /** RDS_HEADER_EXT_SPACE (net/rds/rds.h): bytes of extension-header space at {@link #OFF_EXTHDR}. */
    public static final int EXT_SPACE = 16;

    /** Field offsets of struct rds_header (net/rds/rds.h). */
    public static final int OFF_SEQUENCE = 0, OFF_ACK = 8, OFF_LEN = 16, OFF_SPORT = 20, OFF_DPORT = 22,
            OFF_FLAGS = 24, OFF_CREDIT = 25, OFF_PADDING = 26, OFF_CSUM = 30, OFF_EXTHDR = 32;

    /** RDS_FLAG_CONG_BITMAP (net/rds/rds.h): the payload is the sender's congestion map, see {@link #CONG_MAP_BYTES}. */
    public static final int FLAG_CONG_BITMAP = 0x01;
    /** RDS_FLAG_ACK_REQUIRED (net/rds/rds.h). */
    public static final int FLAG_ACK_REQUIRED = 0x02;
    /**
     * RDS_FLAG_RETRANSMITTED (net/rds/rds.h): set by rds_tcp_xmit (net/rds/tcp_send.c) on a resent message;
     * rds_recv_incoming (net/rds/recv.c) drops such a message when its sequence is below the next expected one.
     */
    public static final int FLAG_RETRANSMITTED = 0x04;
    /**
     * RDS_FLAG_EXTHDR_EXTENSION, 0x20: "the header carries more than one extension". Not in the mainline
     * net/rds/rds.h read here; added by the net-next series "net/rds: new extension header: rdma bytes" (2026,
     * v4 patch 1/8) and long present in Oracle's UEK kernels, where it is set by the IB transport only.
     */
    public static final int FLAG_EXTHDR_EXTENSION = 0x20;

    /**
     * RDS_FLAG_PROBE_PORT (net/rds/rds.h), value 1: despite the name, a port number, not a flag. A handshake
     * probe (RDS_HS_PROBE) is a message with sport 1 and dport 0 (the ping, rds_send_ping in net/rds/send.c)
     * or sport 0 and dport 1 (the pong); it carries the {@link #EXTHDR_NPATHS} extension.
     */
    public static final int PROBE_PORT = 1;
    /** RDS_MAX_ADV_CREDIT (net/rds/rds.h, mainline 255): the largest h_credit value. */
    public static final int MAX_ADV_CREDIT = 255;

    /** RDS_TCP_PORT (net/rds/tcp.h): the TCP port RDS over TCP listens on. */
    public static final int TCP_PORT = 16385;
    /**
     * RDS_MAX_MSG_SIZE (net/rds/rds.h), 1 MiB: rds_sendmsg (net/rds/send.c) refuses larger payloads with
     * EMSGSIZE. The TCP receive path does not check h_len against it (rds_tcp_data_recv takes h_len as is),
     * so a receiver passes its own maximum to {@link #validate}.
     */
    public static final int MAX_MSG_SIZE = 1 << 20;
    /** RDS_PROTOCOL_3_0 (net/rds/rds.h): major in the high byte, minor in the low one. */
    public static final int PROTOCOL_3_0 = 0x0300;
    /**
     * RDS_PROTOCOL_3_1 (net/rds/rds.h), which RDS_PROTOCOL_VERSION names. Over TCP no version is exchanged in
     * the header: nothing in net/rds/tcp*.c or send.c adds {@link #EXTHDR_VERSION}; the IB transport
     * negotiates the version in RDMA CM private data (comment at RDS_EXTHDR_VERSION in net/rds/rds.h).
     */
    public static final int PROTOCOL_3_1 = 0x0301;

    /**
     * RDS_CONG_MAP_BYTES (net/rds/rds.h), 65536 / 8: one bit per RDS port. A congestion update is a message
     * with h_flags exactly {@link #FLAG_CONG_BITMAP}, ports 0, sequence 0 and h_len 8192 (rds_cong_update_alloc
     * in net/rds/cong.c; rds_send_xmit in net/rds/send.c does not populate its header); rds_tcp_cong_recv
     * (net/rds/tcp_recv.c) ignores one whose h_len differs. Bit n of the map is bit {@code n % 8} of byte
     * {@code n / 8} ({@code generic___set_le_bit} in rds_cong_set_bit, net/rds/cong.c).
     */
    public static final int CONG_MAP_BYTES = 65536 / 8;

    /** Extension types (net/rds/rds.h). RDS_EXTHDR_NONE ends the list. */
    public static final int EXTHDR_NONE = 0;
    /** RDS_EXTHDR_VERSION: struct rds_ext_header_version, one __be32 h_version. */
    public static final int EXTHDR_VERSION = 1;
    /** RDS_EXTHDR_RDMA: struct rds_ext_header_rdma, one __be32 h_rdma_rkey. */
    public static final int EXTHDR_RDMA = 2;
    /** RDS_EXTHDR_RDMA_DEST: struct rds_ext_header_rdma_dest, __be32 h_rdma_rkey then __be32 h_rdma_offset. */
    public static final int EXTHDR_RDMA_DEST = 3;
    /**
     * RDS_EXTHDR_RDMA_BYTES: struct rds_ext_header_rdma_bytes, __be32 h_rdma_bytes, u8 h_rflags, u8 h_pad[3]
     * (8 bytes). From the 2026 net-next series named at {@link #FLAG_EXTHDR_EXTENSION} and UEK; kernels without
     * it have no size for type 4 and read it as a zero-length extension (see {@link #extensionLength}).
     */
    public static final int EXTHDR_RDMA_BYTES = 4;
    /** RDS_EXTHDR_NPATHS: number of paths, a __be16 (rds_exthdr_size in net/rds/message.c). */
    public static final int EXTHDR_NPATHS = 5;
    /** RDS_EXTHDR_GEN_NUM: the sender's generation number, a __be32 (rds_exthdr_size in net/rds/message.c). */
    public static final int EXTHDR_GEN_NUM = 6;
    /**
     * RDS_EXTHDR_SPORT_IDX, 8: one (dummy) byte telling that the client encodes its path index in its TCP
     * source port. From the 2026 net-next RDS/TCP series ("Encode cp_index in TCP source port"); absent from
     * the mainline message.c read here, whose rds_exthdr_size gives it length 0.
     */
    public static final int EXTHDR_SPORT_IDX = 8;
    /** __RDS_EXTHDR_MAX (net/rds/rds.h, mainline 16): types at or above it end the iteration. */
    public static final int EXTHDR_MAX = 16;

    /** Payload size in bytes per type below {@link #EXTHDR_MAX}; 0 where rds_exthdr_size has no entry. */
    private static final byte[] EXT_SIZE = new byte[EXTHDR_MAX];

    static {
        EXT_SIZE[EXTHDR_VERSION] = 4;
        EXT_SIZE[EXTHDR_RDMA] = 4;
        EXT_SIZE[EXTHDR_RDMA_DEST] = 8;
        EXT_SIZE[EXTHDR_RDMA_BYTES] = 8;
        EXT_SIZE[EXTHDR_NPATHS] = 2;
        EXT_SIZE[EXTHDR_GEN_NUM] = 4;
        EXT_SIZE[EXTHDR_SPORT_IDX] = 1;
    }

    /** Results of {@link #validate} and {@link #decode}. */
    public static final int OK = 0, ERR_TRUNCATED = 1, ERR_LENGTH = 2, ERR_CONG_MAP_LENGTH = 3, ERR_CHECKSUM = 4;

    // ---- static access to a header in a byte array ----

    /** h_sequence as an unsigned 64-bit value held in a long. */
    public static long sequence(byte[] b, int off) { return be64(b, off + OFF_SEQUENCE); }
    /** h_ack as an unsigned 64-bit value held in a long. */
    public static long ack(byte[] b, int off) { return be64(b, off + OFF_ACK); }
    /** h_len: payload bytes that follow the header, 0 to 2^32-1. */
    public static long length(byte[] b, int off) { return Bytes.u32(b, off + OFF_LEN); }
    public static int sourcePort(byte[] b, int off) { return Bytes.u16(b, off + OFF_SPORT); }
    public static int destinationPort(byte[] b, int off) { return Bytes.u16(b, off + OFF_DPORT); }
    public static int flags(byte[] b, int off) { return Bytes.u8(b, off + OFF_FLAGS); }
    public static int credit(byte[] b, int off) { return Bytes.u8(b, off + OFF_CREDIT); }
    /** h_padding as a raw 32-bit big-endian value (Linux sends zeros: the header comes from kzalloc). */
    public static int padding(byte[] b, int off) { return Bytes.i32(b, off + OFF_PADDING); }
    public static int checksum(byte[] b, int off) { return Bytes.u16(b, off + OFF_CSUM); }

    /**
     * True for a congestion-map update as rds_tcp_data_recv (net/rds/tcp_recv.c) tells it: h_flags equal to
     * {@link #FLAG_CONG_BITMAP}, not merely containing it.
     */
    public static boolean isCongestionUpdate(byte[] b, int off) { return flags(b, off) == FLAG_CONG_BITMAP; }

    /** True for a handshake probe (ping or pong), RDS_HS_PROBE of net/rds/rds.h. */
    public static boolean isHandshakeProbe(int sport, int dport) {
        return (sport == PROBE_PORT && dport == 0) || (sport == 0 && dport == PROBE_PORT);
    }

    /**
     * Writes a fresh 48-byte header at {@code off}, as rds_message_populate_header (net/rds/message.c) fills
     * a zeroed message: the given fields, padding, checksum and all 16 extension bytes zero.
     *
     * @param length payload bytes (h_len), taken as unsigned 32 bits
     */
    public static void write(byte[] b, int off, long sequence, long ack, long length, int sport, int dport,
                             int flags, int credit) {
        putBe64(b, off + OFF_SEQUENCE, sequence);
        putBe64(b, off + OFF_ACK, ack);
        Bytes.put32(b, off + OFF_LEN, (int) length);
        Bytes.put16(b, off + OFF_SPORT, sport);
        Bytes.put16(b, off + OFF_DPORT, dport);
        b[off + OFF_FLAGS] = (byte) flags;
        b[off + OFF_CREDIT] = (byte) credit;
        for (int i = OFF_PADDING; i < LENGTH; i++) b[off + i] = 0;
    }

    /**
     * Checks the {@code len} bytes at {@code off} as the start of an RDS-over-TCP message: at least the 48
     * header bytes ({@link #ERR_TRUNCATED}); h_len at most {@code maxLength} ({@link #ERR_LENGTH}; Linux's
     * receiver has no such limit, see {@link #MAX_MSG_SIZE}); a congestion update of exactly
     * {@link #CONG_MAP_BYTES} ({@link #ERR_CONG_MAP_LENGTH}, a message Linux ignores). Only the header is
     * looked at: the payload may follow later on the stream.
     *
     * @param maxLength largest acceptable h_len in bytes, e.g. {@link #MAX_MSG_SIZE}
     * @return {@link #OK} or an ERR_ code
     */
    public static int validate(byte[] b, int off, int len, long maxLength) {
        return validate(b, off, len, maxLength, false);
    }

    /**
     * As {@link #validate(byte[], int, int, long)}, and when {@code checkChecksum} also
     * {@link #verifyChecksum} ({@link #ERR_CHECKSUM}). Linux's TCP transport never checks the checksum (only
     * the IB transport does, in rds_ib_process_recv), so a receiver that mirrors it passes false.
     */
    public static int validate(byte[] b, int off, int len, long maxLength, boolean checkChecksum) {
        if (len < LENGTH) return ERR_TRUNCATED;
        long l = length(b, off);
        if (l > maxLength) return ERR_LENGTH;
        if (isCongestionUpdate(b, off) && l != CONG_MAP_BYTES) return ERR_CONG_MAP_LENGTH;
        if (checkChecksum && !verifyChecksum(b, off)) return ERR_CHECKSUM;
        return OK;
    }

    // ---- checksum ----

    /**
     * The header checksum as rds_message_make_checksum (net/rds/rds.h) computes it: ip_fast_csum over the 48
     * bytes (12 32-bit words) with h_csum taken as zero, i.e. the RFC 1071 Internet checksum of the header,
     * stored in h_csum as computed (the one's complement sum gives the same bytes in either byte order).
     *
     * <p>Only the IB transport calls rds_message_make_checksum (rds_ib_xmit in net/rds/ib_send.c,
     * rds_ib_send_ack) and checks it (rds_ib_process_recv in net/rds/ib_recv.c drops the connection on a bad
     * one). RDS over TCP sends h_csum = 0: rds_tcp_xmit (net/rds/tcp_send.c) does not
     * compute it and the message header comes zeroed from kzalloc (rds_message_alloc, net/rds/message.c); and
     * rds_tcp_data_recv (net/rds/tcp_recv.c) does not verify it.
     */
    public static int computeChecksum(byte[] b, int off) {
        long s = Checksum.sum(b, off, OFF_CSUM, 0);
        s = Checksum.sum(b, off + OFF_CSUM + 2, LENGTH - OFF_CSUM - 2, s);
        return Checksum.fold(s);
    }

    /** Stores {@link #computeChecksum} in h_csum. */
    public static void fillChecksum(byte[] b, int off) { Bytes.put16(b, off + OFF_CSUM, computeChecksum(b, off)); }

    /**
     * rds_message_verify_checksum (net/rds/rds.h): true when h_csum is 0 (no checksum) or the 48 bytes sum
     * to 0xFFFF.
     */
    public static boolean verifyChecksum(byte[] b, int off) {
        return checksum(b, off) == 0 || Checksum.verify(b, off, LENGTH, 0);
    }

    // ---- extension headers ----

    /**
     * Payload bytes of extension {@code type} as rds_exthdr_size (net/rds/message.c) gives them: VERSION 4,
     * RDMA 4, RDMA_DEST 8, RDMA_BYTES 8, NPATHS 2, GEN_NUM 4, SPORT_IDX 1; 0 for NONE and for any other type
     * below {@link #EXTHDR_MAX}; -1 for types at or above it (or negative), which end the iteration.
     */
    public static int extensionLength(int type) {
        return type >= 0 && type < EXTHDR_MAX ? EXT_SIZE[type] : -1;
    }

    /**
     * The extension at position {@code pos} (0 to 15) of the 16-byte extension space at {@code ext}, read as
     * rds_message_next_extension (net/rds/message.c) reads it: the type byte, then its fixed-size payload at
     * {@code ext + pos + 1}. Returns {@link #EXTHDR_NONE} (the end) when {@code pos} is outside the space, the
     * type is NONE or at least {@link #EXTHDR_MAX}, or its payload would run past the space. A type below 16
     * with no known size is returned with a zero-length payload and the iteration goes on at the next byte,
     * as Linux does. With {@link #nextExtension} each step advances at least one byte, so a walk ends within
     * 16 steps:
     *
     * <pre>
     * for (int pos = 0, t; (t = RdsHeader.extensionAt(b, ext, pos)) != RdsHeader.EXTHDR_NONE;
     *         pos = RdsHeader.nextExtension(pos, t)) { ... RdsHeader.extensionValue(b, ext, pos, t) ... }
     * </pre>
     *
     * @param ext offset of h_exthdr in {@code b} (header offset + {@link #OFF_EXTHDR}); 16 bytes must be there
     */
    public static int extensionAt(byte[] b, int ext, int pos) {
        if (pos < 0 || pos >= EXT_SPACE) return EXTHDR_NONE;
        int type = b[ext + pos] & 0xFF;
        if (type == EXTHDR_NONE || type >= EXTHDR_MAX) return EXTHDR_NONE;
        if (pos + 1 + EXT_SIZE[type] > EXT_SPACE) return EXTHDR_NONE;
        return type;
    }

    /** The position after extension {@code type} at {@code pos} (as returned by {@link #extensionAt}). */
    public static int nextExtension(int pos, int type) { return pos + 1 + EXT_SIZE[type]; }

    /**
     * The payload of extension {@code type} at {@code pos} as an unsigned big-endian number of
     * {@link #extensionLength} bytes (NPATHS: the __be16; GEN_NUM, VERSION, RDMA: the __be32; RDMA_DEST:
     * rkey in the high and offset in the low 32 bits; RDMA_BYTES: h_rdma_bytes in the high 32 bits, h_rflags in
     * bits 31..24).
     */
    public static long extensionValue(byte[] b, int ext, int pos, int type) {
        long v = 0;
        for (int i = 0, n = EXT_SIZE[type]; i < n; i++) v = v << 8 | (b[ext + pos + 1 + i] & 0xFF);
        return v;
    }

    /**
     * Position of the first extension of {@code type} in the space at {@code ext}, or -1 when absent.
     */
    public static int findExtension(byte[] b, int ext, int type) {
        for (int pos = 0, t; (t = extensionAt(b, ext, pos)) != EXTHDR_NONE; pos = nextExtension(pos, t)) {
            if (t == type) return pos;
        }
        return -1;
    }

    /**
     * Appends extension {@code type} with {@code value} (big-endian, its low {@link #extensionLength} bytes;
     * see {@link #extensionValue}) as rds_message_add_extension does in the 2026 net-next version
     * (rds_find_next_ext_space, net/rds/message.c): it walks the known extensions to the first
     * {@link #EXTHDR_NONE} byte with room for the type byte and payload, writes there, and relies on the rest of
     * the space being zero (as {@link #write} leaves it) for the terminator; when the extensions fill all 16
     * bytes no terminator is written. Fails (false, nothing written) for a type with no size, when an unknown
     * type is met on the way, or when there is no room. Older mainline kernels refuse a second extension
     * ("For now, refuse to add more than one extension header"), so their handshake probe carries only NPATHS
     * although rds_send_probe (net/rds/send.c) also adds GEN_NUM; both versions read lists written here.
     */
    public static boolean addExtension(byte[] b, int ext, int type, long value) {
        int len = extensionLength(type);
        if (len <= 0) return false;
        int ind = 0;
        while (ind + 1 + len <= EXT_SPACE) {
            int t = b[ext + ind] & 0xFF;
            if (t == EXTHDR_NONE) {
                b[ext + ind] = (byte) type;
                for (int i = len - 1; i >= 0; i--) {
                    b[ext + ind + 1 + i] = (byte) value;
                    value >>>= 8;
                }
                return true;
            }
            int tl = t < EXTHDR_MAX ? EXT_SIZE[t] : 0;
            if (tl == 0) return false; // Linux: WARN_ONCE "Unknown ext hdr type", -EINVAL
            ind += 1 + tl;
        }
        return false;
    }

    // ---- the mutable holder ----

    /** h_sequence (unsigned 64 bits). */
    public long sequence;
    /** h_ack (unsigned 64 bits). */
    public long ack;
    /** h_len in bytes (unsigned 32 bits). */
    public long length;
    public int sourcePort;
    public int destinationPort;
    public int flags;
    public int credit;
    /** h_padding as a raw big-endian 32-bit value; kept so that decode then encode gives back the same bytes. */
    public int padding;
    /** h_csum as received or to be sent (Linux's TCP transport sends 0). */
    public int checksum;
    /** h_exthdr, the 16 bytes of extension space; use the static extension functions with offset 0. */
    public final byte[] extensions = new byte[EXT_SPACE];

    /** Zeroes every field, as a freshly allocated Linux message header is. */
    public void clear() {
        sequence = ack = length = 0;
        sourcePort = destinationPort = flags = credit = padding = checksum = 0;
        java.util.Arrays.fill(extensions, (byte) 0);
    }

    /**
     * Validates the {@code len} bytes at {@code off} with {@link #validate(byte[], int, int, long)} and, unless
     * they are truncated, copies every field into this holder (also when h_len is refused, so a caller can
     * count what it drops). A truncated header leaves the holder cleared.
     *
     * @return {@link #OK} or an ERR_ code
     */
    public int decode(byte[] b, int off, int len, long maxLength) {
        int code = validate(b, off, len, maxLength);
        if (code == ERR_TRUNCATED) {
            clear();
            return code;
        }
        sequence = sequence(b, off);
        ack = ack(b, off);
        length = length(b, off);
        sourcePort = sourcePort(b, off);
        destinationPort = destinationPort(b, off);
        flags = flags(b, off);
        credit = credit(b, off);
        padding = padding(b, off);
        checksum = checksum(b, off);
        System.arraycopy(b, off + OFF_EXTHDR, extensions, 0, EXT_SPACE);
        return code;
    }

    /** Writes the 48 header bytes at {@code off} as held (checksum included as is); returns {@link #LENGTH}. */
    public int encode(byte[] b, int off) {
        write(b, off, sequence, ack, length, sourcePort, destinationPort, flags, credit);
        Bytes.put32(b, off + OFF_PADDING, padding);
        Bytes.put16(b, off + OFF_CSUM, checksum);
        System.arraycopy(extensions, 0, b, off + OFF_EXTHDR, EXT_SPACE);
        return LENGTH;
    }

    /** {@link #addExtension(byte[], int, int, long)} on this holder's extension space. */
    public boolean addExtension(int type, long value) { return addExtension(extensions, 0, type, value); }

    /** Position of the first extension of {@code type} in this holder, or -1. */
    public int findExtension(int type) { return findExtension(extensions, 0, type); }

    /** The payload of the first extension of {@code type} ({@link #extensionValue}), or {@code absent}. */
    public long extensionValue(int type, long absent) {
        int pos = findExtension(type);
        return pos < 0 ? absent : extensionValue(extensions, 0, pos, type);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("RDS seq ").append(Long.toUnsignedString(sequence))
                .append(" ack ").append(Long.toUnsignedString(ack)).append(" len ").append(length)
                .append(' ').append(sourcePort).append(" > ").append(destinationPort)
                .append(String.format(" flags 0x%02x credit %d csum 0x%04x", flags, credit, checksum));
        for (int pos = 0, t; (t = extensionAt(extensions, 0, pos)) != EXTHDR_NONE; pos = nextExtension(pos, t)) {
            sb.append(" ext ").append(t).append('=').append(Long.toHexString(extensionValue(extensions, 0, pos, t)));
        }
        return sb.toString();
    }

    private static long be64(byte[] b, int off) { return (long) Bytes.i32(b, off) << 32 | Bytes.u32(b, off + 4); }

    private static void putBe64(byte[] b, int off, long v) {
        Bytes.put32(b, off, (int) (v >>> 32));
        Bytes.put32(b, off + 4, (int) v);
    }
}
