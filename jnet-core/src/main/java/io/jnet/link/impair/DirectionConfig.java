package io.jnet.link.impair;

/**
 * The impairments of one direction of an {@link ImpairedDevice}, applied to each frame in this order:
 * loss, duplication, corruption, reordering, then delay/jitter/rate.
 *
 * @param loss probability in [0, 1] that a frame is dropped
 * @param duplicate probability in [0, 1] that an unaltered copy is sent right after the frame
 * @param corrupt probability in [0, 1] that one byte beyond the 14-byte Ethernet header is flipped, so the
 *     receiver's IPv4/TCP/UDP checksum check drops the frame
 * @param reorder probability in [0, 1] that a frame is held back while later frames overtake it
 * @param reorderGap a held frame is released once this many later frames arrived (0 = no count bound)
 * @param reorderDelayNanos a held frame is released after this many ns at the latest (0 = no time bound);
 *     with {@code reorder > 0} at least one of the two bounds must be set
 * @param delayNanos fixed one-way delay in ns added to every frame (netem {@code delay})
 * @param jitterNanos each frame's delay is drawn uniformly from {@code delay ± jitter} (clamped at 0); frames
 *     still leave in arrival order (reordering is the {@code reorder} impairment's job)
 * @param rateBitsPerSecond link rate in bits/s: a frame of n bytes occupies the link 8n/rate seconds and
 *     waits for the frames before it (netem {@code rate}; 0 = unlimited)
 * @param limit most frames waiting for delay or rate at once; more are dropped (netem {@code limit})
 */
public record DirectionConfig(double loss, double duplicate, double corrupt, double reorder, int reorderGap,
        long reorderDelayNanos, long delayNanos, long jitterNanos, long rateBitsPerSecond, int limit) {

    /** Default {@link #reorderGap()}: a held frame lets 3 later frames pass. */
    public static final int DEFAULT_REORDER_GAP = 3;
    /** Default {@link #limit()}: 1000 frames, netem's default queue limit. */
    public static final int DEFAULT_LIMIT = 1000;
    /** No impairment at all: every frame passes at once, unchanged. */
    public static final DirectionConfig NONE =
            new DirectionConfig(0, 0, 0, 0, DEFAULT_REORDER_GAP, 0, 0, 0, 0, DEFAULT_LIMIT);

    /** @throws IllegalArgumentException naming the first field out of range */
    public DirectionConfig {
        probability("loss", loss);
        probability("dup", duplicate);
        probability("corrupt", corrupt);
        probability("reorder", reorder);
        if (reorderGap < 0) throw new IllegalArgumentException("reorder-gap must be >= 0 frames: " + reorderGap);
        nanos("reorder-delay", reorderDelayNanos);
        nanos("delay", delayNanos);
        nanos("jitter", jitterNanos);
        if (rateBitsPerSecond < 0) throw new IllegalArgumentException("rate must be >= 0 bit/s: " + rateBitsPerSecond);
        if (limit < 1) throw new IllegalArgumentException("limit must be >= 1 frame: " + limit);
        if (reorder > 0 && reorderGap == 0 && reorderDelayNanos == 0) {
            throw new IllegalArgumentException("reorder needs reorder-gap > 0 or reorder-delay > 0, else held frames never leave");
        }
    }

    /** True when nothing is impaired: no loss, duplication, corruption, reordering, delay or rate limit. */
    public boolean isNone() {
        return loss == 0 && duplicate == 0 && corrupt == 0 && reorder == 0 && delayNanos == 0 && jitterNanos == 0
                && rateBitsPerSecond == 0;
    }

    public DirectionConfig withLoss(double p) {
        return new DirectionConfig(p, duplicate, corrupt, reorder, reorderGap, reorderDelayNanos, delayNanos, jitterNanos, rateBitsPerSecond, limit);
    }

    public DirectionConfig withDuplicate(double p) {
        return new DirectionConfig(loss, p, corrupt, reorder, reorderGap, reorderDelayNanos, delayNanos, jitterNanos, rateBitsPerSecond, limit);
    }

    public DirectionConfig withCorrupt(double p) {
        return new DirectionConfig(loss, duplicate, p, reorder, reorderGap, reorderDelayNanos, delayNanos, jitterNanos, rateBitsPerSecond, limit);
    }

    /** Reordering with probability {@code p}, held for {@code gap} later frames or {@code delayNanos} ns, whichever ends first (0 = unbounded). */
    public DirectionConfig withReorder(double p, int gap, long delayNanos) {
        return new DirectionConfig(loss, duplicate, corrupt, p, gap, delayNanos, this.delayNanos, jitterNanos, rateBitsPerSecond, limit);
    }

    /** Fixed delay and jitter in ns. */
    public DirectionConfig withDelay(long delayNanos, long jitterNanos) {
        return new DirectionConfig(loss, duplicate, corrupt, reorder, reorderGap, reorderDelayNanos, delayNanos, jitterNanos, rateBitsPerSecond, limit);
    }

    /** Rate in bits/s (0 = unlimited). */
    public DirectionConfig withRate(long bitsPerSecond) {
        return new DirectionConfig(loss, duplicate, corrupt, reorder, reorderGap, reorderDelayNanos, delayNanos, jitterNanos, bitsPerSecond, limit);
    }

    public DirectionConfig withLimit(int frames) {
        return new DirectionConfig(loss, duplicate, corrupt, reorder, reorderGap, reorderDelayNanos, delayNanos, jitterNanos, rateBitsPerSecond, frames);
    }

    /** The non-default settings in the configuration syntax, e.g. {@code loss=2%,delay=5ms}; empty for {@link #NONE}. */
    @Override
    public String toString() {
        return ImpairmentConfigFormat.formatDirection(this, "");
    }

    private static void probability(String name, double p) {
        if (!(p >= 0 && p <= 1)) throw new IllegalArgumentException(name + " must be a probability in [0, 1]: " + p);
    }

    private static void nanos(String name, long ns) {
        if (ns < 0 || ns > ConfigText.MAX_NANOS) throw new IllegalArgumentException(name + " must lie in [0, 1 hour]: " + ns + " ns");
    }
}
