package io.jnet.link.impair;

import java.util.ArrayList;
import java.util.List;

/**
 * A bounded in-memory record of {@link ImpairmentEvent}s: a ring that keeps the newest {@code capacity}
 * events and counts the ones it overwrote. Thread-safe (both directions of a device record into one log).
 */
public final class ImpairmentLog {
    private final ImpairmentEvent[] ring;
    private long recorded;

    /** @param capacity events kept, 0 or more (0 keeps none, only counts) */
    public ImpairmentLog(int capacity) {
        if (capacity < 0) throw new IllegalArgumentException("log capacity must be >= 0: " + capacity);
        ring = new ImpairmentEvent[capacity];
    }

    public int capacity() { return ring.length; }

    /** Appends an event, overwriting the oldest when full. */
    public synchronized void record(ImpairmentEvent e) {
        if (ring.length > 0) ring[(int) (recorded % ring.length)] = e;
        recorded++;
    }

    /** Events recorded since creation, including overwritten ones. */
    public synchronized long recorded() { return recorded; }

    /** Events no longer in the ring. */
    public synchronized long overwritten() { return Math.max(0, recorded - ring.length); }

    /** The events still held, oldest first. */
    public synchronized List<ImpairmentEvent> events() {
        int n = (int) Math.min(recorded, ring.length);
        List<ImpairmentEvent> out = new ArrayList<>(n);
        for (long k = recorded - n; k < recorded; k++) out.add(ring[(int) (k % ring.length)]);
        return out;
    }
}
