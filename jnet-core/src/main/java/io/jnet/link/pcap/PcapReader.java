package io.jnet.link.pcap;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * Reads a classic libpcap capture file ({@link PcapFormat}) in either byte order, with microsecond
 * ({@code 0xa1b2c3d4}) or nanosecond ({@code 0xa1b23c4d}) timestamps. pcapng files are not read.
 *
 * <p>Not thread-safe. {@link #next()} returns records one at a time; the reader is also
 * {@link Iterable} (once), throwing {@link UncheckedIOException} from the iterator.
 */
public final class PcapReader implements Closeable, Iterable<PcapRecord> {

    /** Longest record accepted regardless of the header's snaplen, in bytes (libpcap's limit too). */
    private static final int MAX_RECORD = PcapFormat.DEFAULT_SNAPLEN;

    private final InputStream in;
    private final ByteOrder byteOrder;
    private final boolean nanosecondTimestamps;
    private final int versionMajor;
    private final int versionMinor;
    private final int thiszone;
    private final int snaplen;
    private final int linkType;
    private final ByteBuffer recordHeader;
    private long records;
    private boolean iterated;

    /**
     * Reads the file header from {@code in}.
     *
     * @throws IOException when the stream ends within the header or the magic is not a pcap magic
     */
    public PcapReader(InputStream in) throws IOException {
        Objects.requireNonNull(in, "in");
        this.in = in instanceof BufferedInputStream ? in : new BufferedInputStream(in, 1 << 16);
        byte[] header = new byte[PcapFormat.FILE_HEADER_LENGTH];
        if (!readFully(header)) throw new EOFException("not a pcap file: empty");
        ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        int magic = h.getInt(0);
        ByteOrder order = ByteOrder.LITTLE_ENDIAN;
        if (magic != PcapFormat.MAGIC_MICROSECONDS && magic != PcapFormat.MAGIC_NANOSECONDS) {
            order = ByteOrder.BIG_ENDIAN;
            h.order(order);
            magic = h.getInt(0);
            if (magic != PcapFormat.MAGIC_MICROSECONDS && magic != PcapFormat.MAGIC_NANOSECONDS) {
                throw new IOException(String.format("not a classic pcap file: magic 0x%08x", h.getInt(0)));
            }
        }
        this.byteOrder = order;
        this.nanosecondTimestamps = magic == PcapFormat.MAGIC_NANOSECONDS;
        this.versionMajor = Short.toUnsignedInt(h.getShort(4));
        this.versionMinor = Short.toUnsignedInt(h.getShort(6));
        this.thiszone = h.getInt(8);
        this.snaplen = h.getInt(16);
        this.linkType = h.getInt(20);
        this.recordHeader = ByteBuffer.allocate(PcapFormat.RECORD_HEADER_LENGTH).order(order);
    }

    /**
     * Opens {@code file} and reads its header.
     *
     * @throws IOException when the file cannot be read or is not a classic pcap file
     */
    public static PcapReader open(Path file) throws IOException {
        InputStream is = Files.newInputStream(file);
        try {
            return new PcapReader(is);
        } catch (IOException | RuntimeException e) {
            is.close();
            throw e;
        }
    }

    /** Reads every record of {@code file}. */
    public static List<PcapRecord> readAll(Path file) throws IOException {
        try (PcapReader r = open(file)) {
            return r.readAll();
        }
    }

    /** Byte order of the file's header fields. */
    public ByteOrder byteOrder() { return byteOrder; }

    /** True for magic {@code 0xa1b23c4d}. */
    public boolean nanosecondTimestamps() { return nanosecondTimestamps; }

    public int versionMajor() { return versionMajor; }

    public int versionMinor() { return versionMinor; }

    /** GMT-to-local correction in seconds from the header (0 in practice; not applied to timestamps). */
    public int thiszone() { return thiszone; }

    /** Snapshot length in bytes from the header. */
    public int snaplen() { return snaplen; }

    /** LINKTYPE_* value (1 for Ethernet). */
    public int linkType() { return linkType; }

    /** Records returned so far. */
    public long recordsRead() { return records; }

    /**
     * The next record, or null at the end of the file.
     *
     * @throws EOFException when the file ends inside a record
     * @throws IOException when reading fails or a record header is malformed (captured length larger
     *     than the original length or than 262144 bytes and the header's snaplen)
     */
    public PcapRecord next() throws IOException {
        byte[] h = recordHeader.array();
        int first = in.read();
        if (first < 0) return null;
        h[0] = (byte) first;
        if (!readFully(h, 1, h.length - 1)) {
            throw new EOFException("truncated pcap file: record header " + (records + 1) + " cut short");
        }
        long seconds = Integer.toUnsignedLong(recordHeader.getInt(0));
        long fraction = Integer.toUnsignedLong(recordHeader.getInt(4));
        long capLen = Integer.toUnsignedLong(recordHeader.getInt(8));
        long origLen = Integer.toUnsignedLong(recordHeader.getInt(12));
        if (capLen > Math.max(MAX_RECORD, Integer.toUnsignedLong(snaplen))) {
            throw new IOException("pcap record " + (records + 1) + ": captured length " + capLen + " exceeds the snapshot length");
        }
        if (origLen > Integer.MAX_VALUE) {
            throw new IOException("pcap record " + (records + 1) + ": original length " + origLen + " too large");
        }
        // Some writers record an original length below the captured one; treat the frame as whole.
        int originalLength = (int) Math.max(origLen, capLen);
        byte[] data = new byte[(int) capLen];
        if (!readFully(data)) {
            throw new EOFException("truncated pcap file: record " + (records + 1) + " data cut short");
        }
        long nanos = seconds * 1_000_000_000L + (nanosecondTimestamps ? fraction : fraction * 1000L);
        records++;
        return new PcapRecord(nanos, originalLength, data);
    }

    /** Reads all remaining records. */
    public List<PcapRecord> readAll() throws IOException {
        List<PcapRecord> list = new ArrayList<>();
        for (PcapRecord r = next(); r != null; r = next()) list.add(r);
        return list;
    }

    /**
     * Iterates the remaining records; can be called once.
     *
     * @throws IllegalStateException on a second call
     */
    @Override
    public Iterator<PcapRecord> iterator() {
        if (iterated) throw new IllegalStateException("a PcapReader can be iterated once");
        iterated = true;
        return new Iterator<>() {
            private PcapRecord pending;
            private boolean done;

            @Override
            public boolean hasNext() {
                if (pending == null && !done) {
                    try {
                        pending = PcapReader.this.next();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    done = pending == null;
                }
                return pending != null;
            }

            @Override
            public PcapRecord next() {
                if (!hasNext()) throw new NoSuchElementException();
                PcapRecord r = pending;
                pending = null;
                return r;
            }
        };
    }

    private boolean readFully(byte[] b) throws IOException {
        return readFully(b, 0, b.length);
    }

    /** False when the stream ends before {@code len} bytes (none or some) were read. */
    private boolean readFully(byte[] b, int off, int len) throws IOException {
        int n = in.readNBytes(b, off, len);
        return n == len;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
