package io.jnet.buffer;

/**
 * Where the stack gets packet buffers. The default allocates from the heap; pools and per-socket
 * caches implement this interface and recycle buffers through {@link PacketBuffer#setReleaseHook}.
 */
public interface PacketAllocator {
    /** A buffer with {@code headroom} bytes reserved and room for {@code size} bytes of data. */
    PacketBuffer allocate(int headroom, int size);

    /** Plain heap allocation. */
    PacketAllocator HEAP = PacketBuffer::allocate;
}
