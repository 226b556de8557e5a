package io.jnet.link.pcap;

import io.jnet.buffer.PacketBuffer;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.Flushable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Writes a classic libpcap capture file ({@link PcapFormat}): little-endian header fields, version 2.4,
 * microsecond timestamps (magic {@code 0xa1b2c3d4}) unless nanoseconds are asked for, snapshot length
 * 262144 bytes and link type 1 (Ethernet) by default. Frames longer than the snapshot length are cut to
 * it, their original length kept in the record.
 *
 * <p>Thread-safe: each {@code write} appends one whole record, so several threads (a device's
 * transmitting and receiving sides) may share a writer. Output is buffered; {@link #flush()} pushes it
 * to the stream, {@link #close()} flushes and closes it.
 */
public final class PcapWriter implements Closeable, Flushable {

    private final OutputStream out;
    private final int snaplen;
    private final int linkType;
    private final boolean nanosecondTimestamps;
    private final ByteBuffer recordHeader = ByteBuffer.allocate(PcapFormat.RECORD_HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private long records;
    private boolean closed;

    /**
     * A writer with microsecond timestamps, snapshot length 262144 and link type Ethernet. Writes the
     * file header at once.
     *
     * @throws IOException when the header cannot be written
     */
    public PcapWriter(OutputStream out) throws IOException {
        this(out, PcapFormat.DEFAULT_SNAPLEN, PcapFormat.LINKTYPE_ETHERNET, false);
    }

    /**
     * A writer with the given header fields. Writes the file header at once.
     *
     * @param snaplen snapshot length in bytes (1..0x7fffffff): longer frames are cut to it
     * @param linkType LINKTYPE_* value of the records (1 for Ethernet)
     * @param nanosecondTimestamps true for magic {@code 0xa1b23c4d} (nanosecond fractions), false for
     *     {@code 0xa1b2c3d4} (microseconds, what every reader understands)
     * @throws IOException when the header cannot be written
     * @throws IllegalArgumentException for a non-positive snaplen or negative link type
     */
    public PcapWriter(OutputStream out, int snaplen, int linkType, boolean nanosecondTimestamps) throws IOException {
        Objects.requireNonNull(out, "out");
        if (snaplen <= 0) throw new IllegalArgumentException("snaplen must be positive: " + snaplen);
        if (linkType < 0) throw new IllegalArgumentException("link type must not be negative: " + linkType);
        this.out = out instanceof BufferedOutputStream ? out : new BufferedOutputStream(out, 1 << 16);
        this.snaplen = snaplen;
        this.linkType = linkType;
        this.nanosecondTimestamps = nanosecondTimestamps;
        ByteBuffer h = ByteBuffer.allocate(PcapFormat.FILE_HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(nanosecondTimestamps ? PcapFormat.MAGIC_NANOSECONDS : PcapFormat.MAGIC_MICROSECONDS);
        h.putShort((short) PcapFormat.VERSION_MAJOR);
        h.putShort((short) PcapFormat.VERSION_MINOR);
        h.putInt(0); // thiszone: timestamps are UTC
        h.putInt(0); // sigfigs
        h.putInt(snaplen);
        h.putInt(linkType);
        this.out.write(h.array());
    }

    /**
     * Creates (or truncates) {@code file} and writes the header of an Ethernet capture with microsecond
     * timestamps.
     *
     * @throws IOException when the file cannot be created or written
     */
    public static PcapWriter create(Path file) throws IOException {
        OutputStream os = Files.newOutputStream(file);
        try {
            return new PcapWriter(os);
        } catch (IOException | RuntimeException e) {
            os.close();
            throw e;
        }
    }

    /** Snapshot length in bytes. */
    public int snaplen() { return snaplen; }

    /** LINKTYPE_* of the file. */
    public int linkType() { return linkType; }

    /** True when timestamps are written with nanosecond fractions. */
    public boolean nanosecondTimestamps() { return nanosecondTimestamps; }

    /** Number of records written so far. */
    public synchronized long recordsWritten() { return records; }

    /**
     * Appends the data of {@code frame} (not released, not modified).
     *
     * @param timestampNanos capture time in nanoseconds since the Unix epoch
     * @throws IOException when writing fails or the writer is closed
     */
    public void write(long timestampNanos, PacketBuffer frame) throws IOException {
        if (frame.payloadRegion() != null) { // data carried by reference: write a linear copy
            PacketBuffer copy = frame.copy();
            try {
                write(timestampNanos, copy.array(), copy.dataStart(), copy.length());
            } finally {
                copy.release();
            }
            return;
        }
        write(timestampNanos, frame.array(), frame.dataStart(), frame.length());
    }

    /**
     * Appends a frame of {@code length} bytes at {@code offset} in {@code data}, cut to the snapshot
     * length.
     *
     * @param timestampNanos capture time in nanoseconds since the Unix epoch (UTC), up to year 2106
     * @throws IOException when writing fails or the writer is closed
     * @throws IllegalArgumentException for a timestamp outside the format's unsigned 32-bit seconds
     */
    public void write(long timestampNanos, byte[] data, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, data.length);
        write(timestampNanos, data, offset, Math.min(length, snaplen), length);
    }

    /** Appends a record read from another file, keeping its original length. */
    public void write(PcapRecord record) throws IOException {
        byte[] d = record.data();
        write(record.timestampNanos(), d, 0, Math.min(d.length, snaplen), record.originalLength());
    }

    private synchronized void write(long timestampNanos, byte[] data, int offset, int capturedLength, int originalLength)
            throws IOException {
        if (closed) throw new IOException("pcap writer is closed");
        long seconds = Math.floorDiv(timestampNanos, 1_000_000_000L);
        long fraction = Math.floorMod(timestampNanos, 1_000_000_000L);
        if (seconds < 0 || seconds > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("timestamp outside the pcap range (1970..2106): " + timestampNanos + " ns");
        }
        recordHeader.clear();
        recordHeader.putInt((int) seconds);
        recordHeader.putInt((int) (nanosecondTimestamps ? fraction : fraction / 1000));
        recordHeader.putInt(capturedLength);
        recordHeader.putInt(originalLength);
        out.write(recordHeader.array());
        out.write(data, offset, capturedLength);
        records++;
    }

    /** Pushes buffered records to the underlying stream. */
    @Override
    public synchronized void flush() throws IOException {
        if (!closed) out.flush();
    }

    /** Flushes and closes the underlying stream. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) return;
        closed = true;
        out.close();
    }
}
