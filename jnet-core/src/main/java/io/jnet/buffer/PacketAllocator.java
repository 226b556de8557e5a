package io.jnet.buffer;

/**
 * Where the stack gets packet buffers. The default allocates from the heap; pools and per-socket
 * caches implement this interface and recycle buffers through {@link PacketBuffer#setReleaseHook}.
 */
public interface PacketAllocator {
    /** A buffer with {@code headroom} bytes reserved and room for {@code size} bytes of data. */
    PacketBuffer allocate(int headroom, int size);

    /**
     * Lock acquisitions the allocator made so far, on allocation and release together (0 for an allocator
     * without locks). Read without synchronisation: a statistic, exact once the threads using it are quiet.
     */
    default long lockEntries() { return 0; }

    /** Of {@link #lockEntries()}, those that found the lock held by another thread and had to wait. */
    default long contendedLockEntries() { return 0; }

    /** Plain heap allocation. */
    PacketAllocator HEAP = PacketBuffer::allocate;
}
