package io.jnet.wire;

/** Big-endian (network byte order) field access on byte arrays. */
public final class Bytes {
    private Bytes() {}

    public static int u8(byte[] b, int off) { return b[off] & 0xFF; }

    public static int u16(byte[] b, int off) { return ((b[off] & 0xFF) << 8) | (b[off + 1] & 0xFF); }

    public static int i32(byte[] b, int off) {
        return ((b[off] & 0xFF) << 24) | ((b[off + 1] & 0xFF) << 16) | ((b[off + 2] & 0xFF) << 8) | (b[off + 3] & 0xFF);
    }

    public static long u32(byte[] b, int off) { return i32(b, off) & 0xFFFFFFFFL; }

    public static long u48(byte[] b, int off) { return ((long) u16(b, off) << 32) | u32(b, off + 2); }

    public static void put8(byte[] b, int off, int v) { b[off] = (byte) v; }

    public static void put16(byte[] b, int off, int v) { b[off] = (byte) (v >>> 8); b[off + 1] = (byte) v; }

    public static void put32(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 24); b[off + 1] = (byte) (v >>> 16); b[off + 2] = (byte) (v >>> 8); b[off + 3] = (byte) v;
    }

    public static void put48(byte[] b, int off, long v) { put16(b, off, (int) (v >>> 32)); put32(b, off + 2, (int) v); }
}
