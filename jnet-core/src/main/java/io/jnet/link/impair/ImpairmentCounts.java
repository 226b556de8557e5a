package io.jnet.link.impair;

/**
 * A snapshot of one direction's counters of an {@link ImpairedDevice}, all in frames.
 *
 * @param frames frames that arrived (transmitted by the namespace, or received from the wrapped device)
 * @param delivered frames passed on (to the wrapped device, or to the namespace), duplicates included
 * @param dropped frames dropped at random ({@code loss})
 * @param overlimit frames dropped because the delay queue was full ({@code limit})
 * @param flushed frames held or queued when the device was closed, discarded
 * @param duplicated extra copies sent
 * @param corrupted frames with a flipped byte
 * @param reordered frames held back for reordering
 * @param delayed frames (copies included) that waited in the delay queue (delay, jitter or rate)
 * @param held frames waiting right now (held for reordering or queued for delay)
 */
public record ImpairmentCounts(long frames, long delivered, long dropped, long overlimit, long flushed,
        long duplicated, long corrupted, long reordered, long delayed, long held) {

    /** One line, e.g. {@code 1000 frames, 985 delivered, 20 dropped, ...}. */
    public String summary() {
        return frames + " frames, " + delivered + " delivered, " + dropped + " dropped, " + overlimit + " over limit, "
                + duplicated + " duplicated, " + corrupted + " corrupted, " + reordered + " reordered, " + delayed
                + " delayed, " + flushed + " flushed, " + held + " held";
    }

    @Override
    public String toString() { return summary(); }
}
