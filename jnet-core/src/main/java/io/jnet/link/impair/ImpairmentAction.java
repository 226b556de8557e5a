package io.jnet.link.impair;

/** What an {@link ImpairedDevice} did to one frame, as recorded in its {@link ImpairmentLog}. */
public enum ImpairmentAction {
    /** Discarded at random (the {@code loss} probability). */
    DROP,
    /** Discarded because the delay queue already held {@code limit} frames (tail drop, tc's "overlimits"). */
    OVERLIMIT,
    /** Discarded by {@link ImpairedDevice#close()} while held or queued. */
    FLUSH,
    /** Sent twice: an unaltered copy follows the frame (the {@code dup} probability). */
    DUP,
    /** Queued for a fixed delay, jitter or the rate limit; {@link ImpairmentEvent#nanos()} is the wait. */
    DELAY,
    /** Held back so later frames overtake it, by {@link ImpairmentEvent#frames()} frames and/or {@link ImpairmentEvent#nanos()}. */
    REORDER,
    /** One byte flipped at {@link ImpairmentEvent#offset()} bytes from the start of the Ethernet frame. */
    CORRUPT
}
