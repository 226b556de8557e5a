package io.jnet.link.impair;

/**
 * One recorded impairment.
 *
 * @param timeNanos the namespace clock's time ({@link io.jnet.stack.Clock#nanoTime()}) when it was decided
 * @param direction which direction the frame travelled
 * @param frame the frame's 1-based arrival number in that direction (a duplicate shares its original's)
 * @param action what was done
 * @param offset for {@link ImpairmentAction#CORRUPT}: byte offset from the start of the Ethernet frame; else -1
 * @param frames for {@link ImpairmentAction#REORDER}: later frames to let pass (0 = no count bound); else 0
 * @param nanos for {@link ImpairmentAction#DELAY}: the wait in ns; for {@link ImpairmentAction#REORDER}:
 *     the longest hold in ns (0 = no time bound); else 0
 */
public record ImpairmentEvent(long timeNanos, Direction direction, long frame, ImpairmentAction action,
        int offset, int frames, long nanos) {

    /** The event as report text, e.g. {@code egress frame 12 dropped} or {@code ingress frame 40 held 3 frames}. */
    public String describe() {
        String what = switch (action) {
            case DROP -> "dropped";
            case OVERLIMIT -> "dropped (queue full)";
            case FLUSH -> "discarded at close";
            case DUP -> "duplicated";
            case DELAY -> "delayed " + ConfigText.formatMillis(nanos);
            case CORRUPT -> "corrupted at byte " + offset;
            case REORDER -> {
                if (frames > 0 && nanos > 0) yield "held " + frames + " frames or " + ConfigText.formatMillis(nanos);
                if (frames > 0) yield "held " + frames + " frames";
                yield "held " + ConfigText.formatMillis(nanos);
            }
        };
        return direction.label() + " frame " + frame + " " + what;
    }

    @Override
    public String toString() { return describe(); }
}
