package io.jnet.link.impair;

import java.util.Objects;

/**
 * The full configuration of an {@link ImpairedDevice}: one {@link DirectionConfig} per direction, the
 * random seed and the size of the event log.
 *
 * <p>Text form (CLI): comma-separated {@code key=value} items. Unprefixed keys set both directions;
 * {@code egress.}/{@code ingress.} prefixed keys set one and override the unprefixed value:
 * <pre>
 *   loss=2%,reorder=1%,dup=1%,corrupt=0.1%,delay=5ms,jitter=1ms,reorder-gap=3,seed=7
 *   loss=1%,egress.delay=10ms,ingress.rate=50mbit
 * </pre>
 * Keys: {@code loss}, {@code dup}, {@code corrupt}, {@code reorder} (probabilities: {@code 2%} or
 * {@code 0.02}); {@code reorder-gap} (frames), {@code reorder-delay}, {@code delay}, {@code jitter}
 * (durations: {@code ns}, {@code us}, {@code ms}, {@code s}); {@code rate} (tc units {@code bit},
 * {@code kbit}, {@code mbit}, {@code gbit}, per second); {@code limit} (frames); and, device-wide only,
 * {@code seed} (a 64-bit integer) and {@code log} (events kept, 0 disables the log). See
 * {@link DirectionConfig} for what each does.
 *
 * @param egress impairments of transmitted frames
 * @param ingress impairments of received frames
 * @param seed seed of the random decisions; each direction draws from its own stream derived from it, so
 *     the same seed and the same frames give the same decisions
 * @param logCapacity how many events the device's {@link ImpairmentLog} keeps (oldest are overwritten)
 */
public record ImpairmentConfig(DirectionConfig egress, DirectionConfig ingress, long seed, int logCapacity) {

    /** Default {@link #logCapacity()}. */
    public static final int DEFAULT_LOG_CAPACITY = 1024;
    /** Largest {@link #logCapacity()}. */
    public static final int MAX_LOG_CAPACITY = 1 << 20;

    /** @throws IllegalArgumentException for a log capacity outside [0, {@link #MAX_LOG_CAPACITY}] */
    public ImpairmentConfig {
        Objects.requireNonNull(egress, "egress");
        Objects.requireNonNull(ingress, "ingress");
        if (logCapacity < 0 || logCapacity > MAX_LOG_CAPACITY) {
            throw new IllegalArgumentException("log capacity must lie in [0, " + MAX_LOG_CAPACITY + "]: " + logCapacity);
        }
    }

    /** The same impairments both ways, the default log size. */
    public static ImpairmentConfig both(DirectionConfig config, long seed) {
        return new ImpairmentConfig(config, config, seed, DEFAULT_LOG_CAPACITY);
    }

    /** The given impairments one way, none the other way. */
    public static ImpairmentConfig of(Direction direction, DirectionConfig config, long seed) {
        return direction == Direction.EGRESS
                ? new ImpairmentConfig(config, DirectionConfig.NONE, seed, DEFAULT_LOG_CAPACITY)
                : new ImpairmentConfig(DirectionConfig.NONE, config, seed, DEFAULT_LOG_CAPACITY);
    }

    /**
     * Parses the text form described above. Without a {@code seed} item a random seed is chosen (and
     * shown by {@link #toString()} and the device's report, so a run can be repeated).
     *
     * @throws IllegalArgumentException naming the offending item: unknown key, malformed or out-of-range
     *     value, a key given twice, a prefix on {@code seed}/{@code log}
     */
    public static ImpairmentConfig parse(String text) {
        return ImpairmentConfigParser.parse(text);
    }

    /** The configuration for {@code direction}. */
    public DirectionConfig direction(Direction direction) {
        return direction == Direction.EGRESS ? egress : ingress;
    }

    public ImpairmentConfig withSeed(long seed) {
        return new ImpairmentConfig(egress, ingress, seed, logCapacity);
    }

    public ImpairmentConfig withLogCapacity(int capacity) {
        return new ImpairmentConfig(egress, ingress, seed, capacity);
    }

    /** The text form, non-default values only, seed always: {@link #parse} of it gives an equal configuration. */
    @Override
    public String toString() {
        return ImpairmentConfigFormat.format(this);
    }
}
