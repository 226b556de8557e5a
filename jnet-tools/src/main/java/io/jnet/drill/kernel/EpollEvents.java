package io.jnet.drill.kernel;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Arrays of {@code struct epoll_event}, which is packed on x86_64 ({@code __attribute__((packed))} in
 * {@code include/uapi/linux/eventpoll.h}): a 32-bit {@code events} mask at offset 0 and the 64-bit {@code data} at
 * offset 4, 12 bytes an entry.
 */
final class EpollEvents {

    /** {@code sizeof(struct epoll_event)} on x86_64, bytes. */
    static final int SIZE = 12;

    private EpollEvents() {}

    /** Room for {@code count} entries (at least one), zeroed. */
    static MemorySegment allocate(Arena arena, int count) {
        return arena.allocate((long) SIZE * Math.max(1, count), 8);
    }

    static void set(MemorySegment events, int index, int mask, long data) {
        events.set(JAVA_INT_UNALIGNED, (long) index * SIZE, mask);
        events.set(JAVA_LONG_UNALIGNED, (long) index * SIZE + 4, data);
    }

    static int events(MemorySegment events, int index) {
        return events.get(JAVA_INT_UNALIGNED, (long) index * SIZE);
    }

    static long data(MemorySegment events, int index) {
        return events.get(JAVA_LONG_UNALIGNED, (long) index * SIZE + 4);
    }
}
