package io.jnet.buffer;

import java.util.List;

/**
 * Packet allocators by name, for the command line and the {@code jnet.allocator} system property, which
 * chooses what a new namespace gets:
 * <ul>
 *   <li>{@code magazines} (the default): a {@link PacketPool} with per-thread magazines in front of the size
 *       classes' depots (one lock entry per magazine of buffers, not per buffer);</li>
 *   <li>{@code pool}: a {@link PacketPool#sharedClasses()} pool (size classes shared by all threads, one lock per
 *       class, taken on every allocation and release);</li>
 *   <li>{@code heap}: {@link PacketAllocator#HEAP}, a new buffer per call that the garbage collector frees.</li>
 * </ul>
 */
public final class PacketAllocators {
    /** The system property naming the allocator of new namespaces. */
    public static final String PROPERTY = "jnet.allocator";
    /** The allocator of new namespaces when the property is not set. */
    public static final String DEFAULT = "magazines";

    private PacketAllocators() {}

    /** The names {@link #create} knows. */
    public static List<String> names() { return List.of("magazines", "pool", "heap"); }

    /**
     * A new allocator of the given kind.
     *
     * @throws IllegalArgumentException for a name not in {@link #names()}
     */
    public static PacketAllocator create(String name) {
        return switch (name) {
            case "magazines" -> new PacketPool();
            case "pool" -> PacketPool.sharedClasses();
            case "heap" -> PacketAllocator.HEAP;
            default -> throw new IllegalArgumentException("allocator: one of " + names() + ", not '" + name + "'");
        };
    }

    /** A new allocator of the kind {@value #PROPERTY} names, {@value #DEFAULT} when it is not set. */
    public static PacketAllocator fromProperty() {
        String name = System.getProperty(PROPERTY, DEFAULT);
        try {
            return create(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("-D" + PROPERTY + ": " + e.getMessage(), e);
        }
    }
}
