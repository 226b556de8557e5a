package io.jnet.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads classic pcap files (not pcapng) for tests: either byte order, microsecond (0xa1b2c3d4) or
 * nanosecond (0xa1b23c4d) timestamps. Only the frames of an Ethernet (linktype 1) capture are returned.
 */
final class PcapFrames {
    private PcapFrames() {}

    static final int LINKTYPE_ETHERNET = 1;
    private static final int MAGIC_MICROS = 0xa1b2c3d4;
    private static final int MAGIC_NANOS = 0xa1b23c4d;
    private static final int GLOBAL_HEADER = 24;
    private static final int RECORD_HEADER = 16;

    /**
     * One captured frame.
     *
     * @param index 0-based position in the file
     * @param timestampNanos capture time, ns since the epoch
     * @param originalLength length on the wire, bytes (at least data.length)
     * @param data the captured bytes
     */
    record Frame(int index, long timestampNanos, int originalLength, byte[] data) {}

    /** Frames of a capture under {@code src/test/resources/pcaps/}. */
    static List<Frame> resource(String name) {
        try (InputStream in = PcapFrames.class.getResourceAsStream("/pcaps/" + name)) {
            if (in == null) throw new IOException("no test capture " + name);
            return parse(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Frames of a classic pcap file held in {@code file}; throws IOException for a malformed file. */
    static List<Frame> parse(byte[] file) throws IOException {
        if (file.length < GLOBAL_HEADER) throw new IOException("pcap file of " + file.length + " bytes");
        ByteBuffer bb = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        int magic = bb.getInt(0);
        if (magic != MAGIC_MICROS && magic != MAGIC_NANOS) {
            bb.order(ByteOrder.BIG_ENDIAN);
            magic = bb.getInt(0);
        }
        if (magic != MAGIC_MICROS && magic != MAGIC_NANOS) {
            throw new IOException(String.format("not a classic pcap file: magic 0x%08x", magic));
        }
        long fractionNanos = magic == MAGIC_NANOS ? 1 : 1000;
        int linkType = bb.getInt(20) & 0x0FFF_FFFF; // upper bits may carry FCS information
        if (linkType != LINKTYPE_ETHERNET) throw new IOException("linktype " + linkType + " is not Ethernet");
        List<Frame> frames = new ArrayList<>();
        int pos = GLOBAL_HEADER;
        while (pos < file.length) {
            if (file.length - pos < RECORD_HEADER) throw new IOException("truncated record header at offset " + pos);
            long seconds = bb.getInt(pos) & 0xFFFF_FFFFL;
            long fraction = bb.getInt(pos + 4) & 0xFFFF_FFFFL;
            int captured = bb.getInt(pos + 8);
            int original = bb.getInt(pos + 12);
            pos += RECORD_HEADER;
            if (captured < 0 || captured > file.length - pos) {
                throw new IOException("record " + frames.size() + " claims " + Integer.toUnsignedString(captured)
                        + " bytes, " + (file.length - pos) + " left");
            }
            byte[] data = new byte[captured];
            System.arraycopy(file, pos, data, 0, captured);
            pos += captured;
            frames.add(new Frame(frames.size(), seconds * 1_000_000_000L + fraction * fractionNanos, original, data));
        }
        return frames;
    }
}
