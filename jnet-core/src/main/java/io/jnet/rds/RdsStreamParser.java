package io.jnet.rds;

import io.jnet.wire.RdsHeader;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Cuts the byte stream of an RDS-over-TCP connection into {@link RdsMessage}s as rds_tcp_data_recv
 * (net/rds/tcp_recv.c) does: it gathers the 48-byte {@code struct rds_header} across any number of reads, then
 * h_len payload bytes, again across any number of reads, and hands on the complete message. Any chunking of the
 * stream gives the same messages in the same order; a message's bytes stay buffered until it is complete.
 *
 * <p>What a header may say, checked with {@link RdsHeader#validate(byte[], int, int, long, boolean)} once its
 * 48 bytes are in:
 * <ul>
 * <li>h_len above the maximum given at construction ({@link RdsHeader#MAX_MSG_SIZE} by default):
 *     {@link RdsHeader#ERR_LENGTH}. Linux's receiver takes any h_len; here the message is refused and the parser
 *     <em>fails</em>: the stream cannot be resynchronised, so the caller resets the TCP connection.</li>
 * <li>a bad checksum, only when checksums are checked (Linux's TCP transport never checks them):
 *     {@link RdsHeader#ERR_CHECKSUM}, the parser fails.</li>
 * <li>a congestion update (h_flags exactly {@link RdsHeader#FLAG_CONG_BITMAP}) whose h_len is not
 *     {@link RdsHeader#CONG_MAP_BYTES}: {@link RdsHeader#ERR_CONG_MAP_LENGTH}. As rds_tcp_cong_recv, which
 *     ignores it, its payload is skipped without being buffered, it is counted in {@link #drops()} and the
 *     stream goes on.</li>
 * </ul>
 * A congestion update of the right length is emitted like any message ({@link RdsMessage#isCongestionUpdate}).
 * A stream that stops inside a header or payload emits nothing for that message; {@link #partial()} tells.
 *
 * <p>Once failed, {@link #feed} consumes nothing and returns -1 until {@link #reset}. No input makes it throw;
 * only bad arguments do (an out-of-bounds slice) and whatever the consumer throws, which reaches the caller with
 * the parser ready for the next message. Memory: the 48-byte header buffer plus, while a payload comes in, one
 * array that grows with the bytes that came, so that a peer that announces a large h_len and sends little
 * cannot make it hold much: {@link #INITIAL_PAYLOAD} bytes (or h_len when smaller) once the header is in, then
 * four times as many, up to exactly h_len, each time the array is full and the message is not (at most
 * {@code max(INITIAL_PAYLOAD, 4 x payload bytes received)}). The last array, of exactly h_len bytes, becomes the
 * emitted message's payload. Linux's receiver holds the skbs that came, not h_len. One instance per
 * connection, used by one thread at a time.
 */
public final class RdsStreamParser {
    private static final int HEADER = 0, PAYLOAD = 1, SKIP = 2;
    /** Bytes of the first payload array of a message, at most (64 KiB); it grows fourfold as it fills. */
    public static final int INITIAL_PAYLOAD = 64 << 10;

    private final int maxLength;
    private final boolean checkChecksum;
    private final byte[] header = new byte[RdsHeader.LENGTH];

    private int state = HEADER;
    private int headerFill;
    private byte[] payload;
    private int payloadFill;
    /** h_len of the message in progress. */
    private int payloadLength;
    private int skipRemaining;
    private int failure = RdsHeader.OK;

    private long messages;
    private long bytes;
    private long drops;

    /** A parser with the maximum h_len {@link RdsHeader#MAX_MSG_SIZE} (1 MiB) and no checksum check, as Linux. */
    public RdsStreamParser() { this(RdsHeader.MAX_MSG_SIZE, false); }

    /**
     * @param maxLength largest acceptable h_len in bytes, 0 to {@code Integer.MAX_VALUE - 8}
     * @param checkChecksum verify h_csum as rds_message_verify_checksum (a zero h_csum passes); Linux's TCP
     *        transport does not
     * @throws IllegalArgumentException for a maximum out of range
     */
    public RdsStreamParser(int maxLength, boolean checkChecksum) {
        if (maxLength < 0 || maxLength > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("maxLength must be 0 to " + (Integer.MAX_VALUE - 8) + ": " + maxLength);
        }
        this.maxLength = maxLength;
        this.checkChecksum = checkChecksum;
    }

    /**
     * Consumes {@code len} bytes of the stream at {@code off}, passing every message they complete to
     * {@code out}, in stream order.
     *
     * @return {@code len} when all were consumed, or -1 when the parser is failed (on entry, when nothing is
     *         consumed, or by a header in these bytes, when the bytes after that header are not looked at);
     *         {@link #failure()} gives the reason
     * @throws IndexOutOfBoundsException when the slice is outside {@code b}
     */
    public int feed(byte[] b, int off, int len, Consumer<? super RdsMessage> out) {
        Objects.checkFromIndexSize(off, len, b.length);
        if (failure != RdsHeader.OK) return -1;
        int end = off + len;
        while (off < end) {
            int n;
            switch (state) {
                case HEADER -> {
                    n = Math.min(RdsHeader.LENGTH - headerFill, end - off);
                    System.arraycopy(b, off, header, headerFill, n);
                    headerFill += n;
                    off += n;
                    bytes += n;
                    if (headerFill == RdsHeader.LENGTH && !headerComplete(out)) return -1;
                }
                case PAYLOAD -> {
                    n = Math.min(payload.length - payloadFill, end - off);
                    System.arraycopy(b, off, payload, payloadFill, n);
                    payloadFill += n;
                    off += n;
                    bytes += n;
                    filled(out);
                }
                default -> { // SKIP
                    n = Math.min(skipRemaining, end - off);
                    skipRemaining -= n;
                    off += n;
                    bytes += n;
                    if (skipRemaining == 0) state = HEADER;
                }
            }
        }
        return len;
    }

    /**
     * Payload bytes that may be read straight into the message's own array ({@link #directArray()} at
     * {@link #directOffset()}), sparing the copy through a read buffer: the room left in the array, at most what
     * the message still needs (the array grows as it fills); 0 between messages, inside a header, while
     * skipping, or once failed.
     */
    public int directRemaining() {
        return state == PAYLOAD && failure == RdsHeader.OK ? payload.length - payloadFill : 0;
    }

    /** The payload array of the message in progress (only while {@link #directRemaining()} is above 0). */
    public byte[] directArray() { return payload; }

    /** Where the next payload byte goes in {@link #directArray()}. */
    public int directOffset() { return payloadFill; }

    /**
     * Accounts {@code n} payload bytes the caller put into {@link #directArray()} at {@link #directOffset()}, as
     * {@link #feed} would have copied them, and emits the message to {@code out} when it is complete.
     *
     * @throws IllegalArgumentException when {@code n} is negative or above {@link #directRemaining()}
     */
    public void directFilled(int n, Consumer<? super RdsMessage> out) {
        if (n < 0 || n > directRemaining()) throw new IllegalArgumentException("filled " + n + " of " + directRemaining());
        payloadFill += n;
        bytes += n;
        filled(out);
    }

    /** After payload bytes came: the message is emitted when complete, else its array grows when full. */
    private void filled(Consumer<? super RdsMessage> out) {
        if (payloadFill == payloadLength) emit(out);
        else if (payloadFill == payload.length) {
            payload = java.util.Arrays.copyOf(payload, (int) Math.min(payloadLength, 4L * payload.length));
        }
    }

    /** The header is in: decides what follows. False when the parser failed. */
    private boolean headerComplete(Consumer<? super RdsMessage> out) {
        headerFill = 0;
        int code = RdsHeader.validate(header, 0, RdsHeader.LENGTH, maxLength, checkChecksum);
        int length = (int) Math.min(RdsHeader.length(header, 0), Integer.MAX_VALUE);
        switch (code) {
            case RdsHeader.OK -> {
                payload = new byte[Math.min(length, INITIAL_PAYLOAD)];
                payloadFill = 0;
                payloadLength = length;
                state = PAYLOAD;
                if (length == 0) emit(out);
                return true;
            }
            case RdsHeader.ERR_CONG_MAP_LENGTH -> { // length <= maxLength: ERR_LENGTH is checked first
                drops++;
                skipRemaining = length;
                state = length == 0 ? HEADER : SKIP;
                return true;
            }
            default -> {
                drops++;
                failure = code;
                return false;
            }
        }
    }

    private void emit(Consumer<? super RdsMessage> out) {
        byte[] p = payload;
        payload = null;
        state = HEADER;
        messages++;
        out.accept(RdsMessage.fromHeader(header, 0, p));
    }

    /**
     * Forgets any partial message and the failure, as a new connection starts from a clean stream (Linux's
     * rds_tcp_restore_callbacks / rds_tcp_reset_callbacks free the partial tinc). Counters are kept.
     */
    public void reset() {
        state = HEADER;
        headerFill = 0;
        payload = null;
        payloadFill = 0;
        skipRemaining = 0;
        failure = RdsHeader.OK;
    }

    /** True once a header was refused; see {@link #failure()}. */
    public boolean failed() { return failure != RdsHeader.OK; }

    /**
     * Why the parser failed: {@link RdsHeader#ERR_LENGTH} (h_len above the maximum) or
     * {@link RdsHeader#ERR_CHECKSUM}; {@link RdsHeader#OK} while it has not.
     */
    public int failure() { return failure; }

    /** The reason of {@link #failure()} in words, for a log line; "ok" while not failed. */
    public String failureReason() {
        return switch (failure) {
            case RdsHeader.OK -> "ok";
            case RdsHeader.ERR_LENGTH -> "h_len " + RdsHeader.length(header, 0) + " above the maximum " + maxLength;
            case RdsHeader.ERR_CHECKSUM -> "bad header checksum";
            default -> "error " + failure;
        };
    }

    /** True when the stream so far ends inside a message (header, payload or a skipped payload). */
    public boolean partial() { return state != HEADER || headerFill != 0; }

    /** Bytes held for the message in progress: header bytes so far, plus the payload array as it is now. */
    public int bufferedBytes() { return headerFill + (payload == null ? 0 : payload.length); }

    /** The largest accepted h_len, bytes. */
    public int maxLength() { return maxLength; }

    /** Messages emitted (congestion updates included). */
    public long messages() { return messages; }

    /** Stream bytes consumed, headers included. */
    public long bytes() { return bytes; }

    /**
     * Messages refused, counted when their header is in: congestion updates of the wrong length (their payload
     * skipped) and the header that failed the parser.
     */
    public long drops() { return drops; }
}
