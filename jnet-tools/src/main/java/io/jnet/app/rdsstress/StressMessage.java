package io.jnet.app.rdsstress;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The header every rds-stress message starts with, {@value #HEADER_BYTES} bytes, big-endian:
 * <pre>
 *   0  int   magic 0x52445353 ("RDSS")
 *   4  byte  type: HELLO 1, HELLO_ACK 2, REQUEST 3, ACK 4, END 5, END_ACK 6, BYE 7
 *   5  byte  flags: 0x01 ONE_WAY (a request that wants no ack)
 *   6  short incarnation: the passive side's random number for its lifetime (0 from the active side), so
 *            that a restarted passive side's fresh numbering is told from duplicates
 *   8  long  seq: REQUEST and ACK: the message's number in its direction of its (sender, receiver) pair, from 1;
 *            END: the last request number sent; END_ACK: the last ack number sent
 *  16  long  echo: ACK: the number of the request answered; END_ACK: the first request number counted (above
 *            1 when the passive side joined mid-run)
 *  24  long  time: REQUEST: the sender's System.nanoTime() at send; ACK: the request's, echoed (rtt)
 *  32  int   ack bytes wanted (REQUEST), else 0
 *  36  int   CRC32C of the whole message with these four bytes taken as zero
 * </pre>
 * The rest of a request or ack is filler up to its size; the checksum covers it, so a corrupted or misplaced
 * byte anywhere in a message is detected. An END_ACK carries after the header the receiving side's count of
 * the requests it got: received, duplicated, reordered, corrupt (4 longs), so that the active side can print
 * the verdict of both directions.
 */
public final class StressMessage {
    public static final int MAGIC = 0x52445353;
    public static final int HEADER_BYTES = 40;
    /** Bytes of an END_ACK: the header and four counters. */
    public static final int END_ACK_BYTES = HEADER_BYTES + 4 * 8;

    public static final byte HELLO = 1;
    public static final byte HELLO_ACK = 2;
    public static final byte REQUEST = 3;
    public static final byte ACK = 4;
    public static final byte END = 5;
    public static final byte END_ACK = 6;
    public static final byte BYE = 7;

    public static final byte FLAG_ONE_WAY = 0x01;

    private static final int CHECKSUM_OFFSET = 36;

    private StressMessage() {}

    /**
     * Writes a header into {@code b[0..HEADER_BYTES)} and the checksum over {@code b[0..len)}; the filler
     * {@code b[HEADER_BYTES..len)} must already be in place.
     *
     * @throws IllegalArgumentException when {@code len} is below {@link #HEADER_BYTES} or above {@code b.length}
     */
    public static void write(byte[] b, int len, byte type, byte flags, long seq, long echo, long time, int ackBytes) {
        write(b, len, type, flags, (short) 0, seq, echo, time, ackBytes);
    }

    /** As {@link #write(byte[], int, byte, byte, long, long, long, int)}, with the sender's incarnation. */
    public static void write(byte[] b, int len, byte type, byte flags, short incarnation, long seq, long echo, long time,
                             int ackBytes) {
        if (len < HEADER_BYTES || len > b.length) throw new IllegalArgumentException("message length " + len);
        INT.set(b, 0, MAGIC);
        b[4] = type;
        b[5] = flags;
        b[6] = (byte) (incarnation >> 8);
        b[7] = (byte) incarnation;
        LONG.set(b, 8, seq);
        LONG.set(b, 16, echo);
        LONG.set(b, 24, time);
        INT.set(b, 32, ackBytes);
        INT.set(b, CHECKSUM_OFFSET, checksum(b, len));
    }

    /** CRC32C of {@code b[0..len)} with the checksum field read as zero. */
    static int checksum(byte[] b, int len) {
        CRC32C crc = new CRC32C();
        crc.update(b, 0, CHECKSUM_OFFSET);
        crc.update(ZERO, 0, 4);
        crc.update(b, HEADER_BYTES, len - HEADER_BYTES);
        return (int) crc.getValue();
    }

    private static final byte[] ZERO = new byte[4];

    /** True when {@code b[0..len)} is a whole message: long enough, the magic, and a matching checksum. */
    public static boolean valid(byte[] b, int len) {
        if (len < HEADER_BYTES || getInt(b, 0) != MAGIC) return false;
        return getInt(b, CHECKSUM_OFFSET) == checksum(b, len);
    }

    public static byte type(byte[] b) { return b[4]; }

    public static byte flags(byte[] b) { return b[5]; }

    public static short incarnation(byte[] b) { return (short) (((b[6] & 0xff) << 8) | (b[7] & 0xff)); }

    public static long seq(byte[] b) { return getLong(b, 8); }

    public static long echo(byte[] b) { return getLong(b, 16); }

    public static long time(byte[] b) { return getLong(b, 24); }

    public static int ackBytes(byte[] b) { return getInt(b, 32); }

    /** The i-th counter (0..3) after an END_ACK's header. */
    public static long counter(byte[] b, int i) { return getLong(b, HEADER_BYTES + 8 * i); }

    /** Writes the i-th counter (0..3) after an END_ACK's header; before {@link #write}, which checksums it. */
    public static void putCounter(byte[] b, int i, long v) { LONG.set(b, HEADER_BYTES + 8 * i, v); }

    static int getInt(byte[] b, int off) { return (int) INT.get(b, off); }

    static long getLong(byte[] b, int off) { return (long) LONG.get(b, off); }

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
}
