package io.jnet.drill.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Scatter/gather buffers for readv/writev/sendmsg/recvmsg: one contiguous native buffer cut into the requested pieces
 * by an array of {@code struct iovec} ({@code void *iov_base; size_t iov_len}: 16 bytes on x86_64), so that what the
 * kernel read into the pieces, in order, is the buffer's first bytes. Also {@code struct msghdr} (56 bytes on x86_64:
 * name at 0, namelen at 8, iov at 16, iovlen at 24, control at 32, controllen at 40, flags at 48).
 */
final class Iovecs {

    static final int IOVEC_SIZE = 16;
    static final int MSGHDR_SIZE = 56;
    static final int MSG_FLAGS_OFFSET = 48;
    static final int MSG_NAMELEN_OFFSET = 8;

    /** The contiguous data buffer. */
    final MemorySegment buffer;
    /** The {@code struct iovec} array. */
    final MemorySegment iov;
    /** Number of entries in {@link #iov}. */
    final int count;

    private Iovecs(MemorySegment buffer, MemorySegment iov, int count) {
        this.buffer = buffer;
        this.iov = iov;
        this.count = count;
    }

    /** Empty buffers of the given lengths, to read into. */
    static Iovecs forReading(Arena arena, int[] lengths) {
        long total = 0;
        for (int len : lengths) {
            if (len < 0) throw new IllegalArgumentException("negative iovec length " + len);
            total += len;
        }
        MemorySegment buffer = arena.allocate(Math.max(1, total), 8);
        MemorySegment iov = arena.allocate((long) IOVEC_SIZE * Math.max(1, lengths.length), 8);
        long at = 0;
        for (int i = 0; i < lengths.length; i++) {
            iov.set(ADDRESS, (long) i * IOVEC_SIZE, buffer.asSlice(at));
            iov.set(JAVA_LONG, (long) i * IOVEC_SIZE + 8, lengths[i]);
            at += lengths[i];
        }
        return new Iovecs(buffer, iov, lengths.length);
    }

    /** Buffers holding {@code pieces}, to write from. */
    static Iovecs forWriting(Arena arena, byte[][] pieces) {
        int[] lengths = new int[pieces.length];
        for (int i = 0; i < pieces.length; i++) lengths[i] = pieces[i].length;
        Iovecs v = forReading(arena, lengths);
        long at = 0;
        for (byte[] p : pieces) {
            MemorySegment.copy(p, 0, v.buffer, JAVA_BYTE, at, p.length);
            at += p.length;
        }
        return v;
    }

    /** The first {@code n} bytes the kernel read into the pieces, in order. */
    byte[] firstBytes(long n) {
        int len = (int) Math.min(n, buffer.byteSize());
        byte[] out = new byte[Math.max(0, len)];
        MemorySegment.copy(buffer, JAVA_BYTE, 0, out, 0, out.length);
        return out;
    }

    /** A {@code struct msghdr} over these buffers, with the given name buffer (or NULL) and no control data. */
    MemorySegment msghdr(Arena arena, MemorySegment name, int namelen) {
        MemorySegment m = arena.allocate(MSGHDR_SIZE, 8);
        m.set(ADDRESS, 0, name);
        m.set(JAVA_INT, MSG_NAMELEN_OFFSET, namelen);
        m.set(ADDRESS, 16, iov);
        m.set(JAVA_LONG, 24, count);
        m.set(ADDRESS, 32, MemorySegment.NULL);
        m.set(JAVA_LONG, 40, 0L);
        m.set(JAVA_INT, MSG_FLAGS_OFFSET, 0);
        return m;
    }
}
