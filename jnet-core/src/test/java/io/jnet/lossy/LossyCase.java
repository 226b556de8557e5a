package io.jnet.lossy;

import io.jnet.link.impair.DirectionConfig;
import io.jnet.link.impair.ImpairmentConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One case of the lossy transfer sweep: the impairment of the link (the same in both directions), the
 * application's write size, the socket buffers requested on both ends, the bytes sent each way and the
 * impairment seed.
 *
 * @param loss probability in [0, 1] that a frame is dropped, each direction
 * @param duplicate probability in [0, 1] that a frame is duplicated, each direction
 * @param reorder probability in [0, 1] that a frame is held back for {@link #REORDER_GAP} later frames
 *     (or {@link #REORDER_DELAY_NS} at most), each direction
 * @param writeSize bytes per {@code write} call
 * @param buffer bytes requested with SO_SNDBUF and SO_RCVBUF on both sockets (Linux doubles it)
 * @param bytes bytes sent each way
 * @param seed seed of the impairment's random decisions
 */
record LossyCase(double loss, double duplicate, double reorder, int writeSize, int buffer, long bytes, long seed) {

    /** One-way delay of the link in each direction, ns: gives the path a round trip of 2 ms. */
    static final long DELAY_NS = 1_000_000;
    /** A reordered frame waits for this many later frames... */
    static final int REORDER_GAP = 3;
    /** ...or this long at most, ns (a stalled sender sends no later frames). */
    static final long REORDER_DELAY_NS = 10_000_000;

    static final double[] LOSSES = {0, 0.01, 0.03, 0.10};
    /** The heavy loss rate of the long sweep ({@code LossySweepHeavyLossTest}). */
    static final double HEAVY_LOSS = 0.30;
    static final double[] DUPLICATES = {0, 0.01};
    static final double[] REORDERS = {0, 0.02};
    static final int[] WRITE_SIZES = {1, 1460, 64 << 10, 1 << 20};
    static final int[] BUFFERS = {4 << 10, 64 << 10, 4 << 20};

    /**
     * Every combination of {@link #LOSSES} x {@link #DUPLICATES} x {@link #REORDERS} x {@link #WRITE_SIZES}
     * x {@link #BUFFERS}, {@code bytes} each way ({@code oneByteBytes} for 1-byte writes), each with its
     * own seed derived from {@code baseSeed} and the case's index.
     */
    static List<LossyCase> sweep(long bytes, long oneByteBytes, long baseSeed) {
        return sweep(LOSSES, DUPLICATES, REORDERS, WRITE_SIZES, BUFFERS, bytes, oneByteBytes, baseSeed);
    }

    /** As {@link #sweep(long, long, long)} over the given settings. */
    static List<LossyCase> sweep(double[] losses, double[] duplicates, double[] reorders, int[] writeSizes, int[] buffers,
            long bytes, long oneByteBytes, long baseSeed) {
        List<LossyCase> cases = new ArrayList<>();
        for (double loss : losses) {
            for (double dup : duplicates) {
                for (double reorder : reorders) {
                    for (int write : writeSizes) {
                        for (int buf : buffers) {
                            long seed = baseSeed * 1_000 + cases.size();
                            cases.add(new LossyCase(loss, dup, reorder, write, buf, write == 1 ? oneByteBytes : bytes, seed));
                        }
                    }
                }
            }
        }
        return cases;
    }

    /** The impairment of each direction: loss, duplication, reordering, and {@link #DELAY_NS} of delay. */
    DirectionConfig direction() {
        return DirectionConfig.NONE.withLoss(loss).withDuplicate(duplicate)
                .withReorder(reorder, REORDER_GAP, REORDER_DELAY_NS).withDelay(DELAY_NS, 0);
    }

    /** Both directions impaired alike, this case's seed, a log large enough to keep the whole run. */
    ImpairmentConfig impairment() {
        return ImpairmentConfig.both(direction(), seed).withLogCapacity(1 << 16);
    }

    /** A short name, e.g. {@code loss=3% dup=1% reorder=2% write=64K buf=4M seed=7042}. */
    String name() {
        return String.format(Locale.ROOT, "loss=%s dup=%s reorder=%s write=%s buf=%s bytes=%s seed=%d",
                percent(loss), percent(duplicate), percent(reorder), size(writeSize), size(buffer), size(bytes), seed);
    }

    static String percent(double p) {
        return String.format(Locale.ROOT, "%.0f%%", p * 100);
    }

    /** 1, 1460, 64K, 1M, 8M: sizes as the sweep names them. */
    static String size(long n) {
        if (n >= 1 << 20 && n % (1 << 20) == 0) return (n >> 20) + "M";
        if (n >= 1 << 10 && n % (1 << 10) == 0) return (n >> 10) + "K";
        return Long.toString(n);
    }

    @Override
    public String toString() {
        return name();
    }
}
