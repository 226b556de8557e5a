package io.jnet.buffer;

import java.util.concurrent.locks.ReentrantLock;

/**
 * A lock that counts its acquisitions through {@link #lockCounted()} and those that found it held by another
 * thread and had to wait (the allocator's {@link PacketAllocator#lockEntries()} and
 * {@link PacketAllocator#contendedLockEntries()}). The counts are written under the lock and read without it, as
 * statistics.
 */
final class CountingLock extends ReentrantLock {
    private long entries;
    private long contended;

    /** Takes the lock, counting the acquisition and whether it had to wait. */
    void lockCounted() {
        if (!tryLock()) {
            lock();
            contended++;
        }
        entries++;
    }

    /** Acquisitions through {@link #lockCounted()} so far. */
    long entries() { return entries; }

    /** Of {@link #entries()}, those that had to wait. */
    long contended() { return contended; }
}
