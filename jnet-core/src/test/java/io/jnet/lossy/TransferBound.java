package io.jnet.lossy;

/**
 * The most time a lossy transfer may take, from a simple model of Reno TCP without SACK on a link with
 * a 2 ms round trip ({@link LossyCase#DELAY_NS} each way), so that a stall, a lost wake-up or a
 * retransmission timer backing off without cause fails the case while ordinary loss recovery passes.
 *
 * <p>The model charges:
 * <ul>
 *   <li>{@link #BASE_MS} for the handshake, slow start and the closing FINs (which may be lost too);</li>
 *   <li>one round per window of data, a window being the smaller of the effective send buffer and half
 *       the effective receive buffer (Linux's tcp_adv_win_scale), a round costing the round trip plus
 *       the 40 ms delayed-ACK timer (small buffers and 1-byte writes wait for it);</li>
 *   <li>for every frame expected to be dropped (data and ACKs, both directions: {@code frames x loss /
 *       (1 - loss)}, retransmissions included), {@link #LOSS_COST_MS}: a retransmission timeout of
 *       Linux's minimum 200 ms (TCP_RTO_MIN), backed off once, as happens without SACK when the window is
 *       too small for three duplicate ACKs or the retransmission is lost again.</li>
 * </ul>
 * When the handshake leaves a larger RTO, {@link #millis(LossyCase, long)} charges that RTO instead of 200 ms:
 * a SYN or SYN-ACK that was retransmitted gives, with timestamps, an RTT sample of the whole handshake (the
 * SYN-ACK echoes the first SYN's TSval; Linux's tcp_ack_update_rtt takes it, as RFC 7323 3.4 allows), so the
 * first RTO is three times that or more (RFC 6298 2.3), and every loss until later samples bring it down costs
 * it. Seed 7159 of the 10 %-loss, 4 KiB-buffer case loses the SYN twice: a 3 s sample and a 9 s RTO.
 * The sum is multiplied by {@link #SAFETY}.
 */
final class TransferBound {

    static final long BASE_MS = 2_000;
    static final long ROUND_MS = 2 + 40;
    static final long LOSS_COST_MS = 200 + 400;
    static final int SAFETY = 2;
    /** Payload bytes per segment (MSS 1460 less the 12-byte timestamp option). */
    static final int SEGMENT = 1448;

    private TransferBound() {}

    /** Linux's TCP_RTO_MIN, ms. */
    static final long RTO_MIN_MS = 200;

    /** The bound in ms for {@code c} with the minimum RTO (see the class comment). */
    static long millis(LossyCase c) {
        return millis(c, RTO_MIN_MS);
    }

    /**
     * The bound in ms for {@code c} when the handshake left an RTO of {@code rtoMs} (the larger of the two
     * ends'; at least {@link #RTO_MIN_MS} is charged).
     */
    static long millis(LossyCase c, long rtoMs) {
        long lossCost = LOSS_COST_MS * Math.max(RTO_MIN_MS, rtoMs) / RTO_MIN_MS; // the RTO, then backed off once

        long effectiveBuffer = 2L * c.buffer();
        long window = Math.max(SEGMENT, Math.min(effectiveBuffer, effectiveBuffer / 2));
        long rounds = ceilDiv(c.bytes(), window);
        // each direction: data segments and about as many ACK frames; 1-byte writes may send a segment per write
        long segments = ceilDiv(c.bytes(), Math.min(SEGMENT, c.writeSize() == 1 ? 1 : SEGMENT));
        long frames = 2 * 2 * Math.min(segments, 4 * ceilDiv(c.bytes(), SEGMENT) + 4 * rounds);
        double expectedDrops = frames * c.loss() / (1 - c.loss());
        long ms = BASE_MS + rounds * ROUND_MS + (long) Math.ceil(expectedDrops * lossCost);
        return SAFETY * ms;
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
