package io.jnet.link.pcap;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One captured frame.
 *
 * @param timestampNanos capture time in nanoseconds since the Unix epoch (UTC)
 * @param originalLength length of the frame on the wire in bytes; at least {@code data.length}
 * @param data the captured bytes (the first {@code snaplen} bytes of the frame); not copied, do not modify
 */
public record PcapRecord(long timestampNanos, int originalLength, byte[] data) {

    /**
     * @throws IllegalArgumentException when {@code originalLength < data.length}
     */
    public PcapRecord {
        Objects.requireNonNull(data, "data");
        if (originalLength < data.length) {
            throw new IllegalArgumentException("original length " + originalLength + " < captured length " + data.length);
        }
    }

    /** Number of captured bytes ({@code data.length}). */
    public int capturedLength() {
        return data.length;
    }

    /** True when the frame was cut to the snapshot length. */
    public boolean truncated() {
        return originalLength > data.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PcapRecord r && r.timestampNanos == timestampNanos
                && r.originalLength == originalLength && Arrays.equals(r.data, data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(timestampNanos, originalLength, Arrays.hashCode(data));
    }

    @Override
    public String toString() {
        String hex = HexFormat.of().formatHex(data, 0, Math.min(data.length, 32));
        return "PcapRecord[ts=" + timestampNanos + "ns, len=" + originalLength + ", caplen=" + data.length
                + ", data=" + hex + (data.length > 32 ? "..." : "") + "]";
    }
}
