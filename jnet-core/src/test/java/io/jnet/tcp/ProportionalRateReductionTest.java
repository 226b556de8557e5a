package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * PRR's sending rate (RFC 6937) ACK by ACK, in segments of one MSS: the examples of RFC 6937 section 3.1, where
 * 20 segments are in flight, Reno halves ssthresh to 10 and every ACK delivers one segment.
 */
class ProportionalRateReductionTest {
    static final int MSS = 1000;

    /**
     * Runs a recovery: {@code pipe} segments in flight after the first ACK's update, one segment delivered per ACK
     * (a SACK; {@code unaAdvances} says whether SND.UNA moves too). Returns the row of what was sent: R for the
     * first segment (the fast retransmit), N for each later one, one character per segment, '.' for none;
     * {@code pipeOut[0]} is the pipe at the end.
     */
    private static String run(ProportionalRateReduction prr, int acks, long pipe, long ssthresh, boolean unaAdvances,
                              long[] pipeOut) {
        StringBuilder row = new StringBuilder();
        for (int i = 0; i < acks; i++) {
            if (i > 0) pipe -= MSS; // the ACK's segment left the network
            long sndcnt = prr.sndcnt(MSS, pipe, ssthresh, MSS, unaAdvances && i > 0);
            int sent = (int) (sndcnt / MSS);
            StringBuilder cell = new StringBuilder();
            for (int s = 0; s < sent; s++) cell.append(prr.out() == 0 && s == 0 ? 'R' : 'N');
            if (sent == 0) cell.append('.');
            prr.onSent((long) sent * MSS);
            pipe += (long) sent * MSS;
            row.append(cell).append(i + 1 < acks ? " " : "");
        }
        pipeOut[0] = pipe;
        return row.toString();
    }

    /**
     * RFC 6937 section 3.1, the first example (one segment lost of 20): with ssthresh half of RecoverFS, PRR sends
     * one segment for every two delivered, the retransmission on the first ACK, and the pipe ends at ssthresh
     * (where RFC 6675 would send nothing for half an RTT and then one per ACK).
     */
    @Test
    void oneLossSendsOneSegmentForEveryTwoDelivered() {
        ProportionalRateReduction prr = new ProportionalRateReduction();
        prr.init(20 * MSS);
        long[] pipe = new long[1];
        // acks 3 to 19 of the example: the recovery's 17 ACKs; the first one's update leaves 17 in the pipe, 18
        // with its retransmission
        String sent = run(prr, 17, 17 * MSS, 10 * MSS, false, pipe);
        // one segment per two delivered while the pipe is above ssthresh; where this model's pipe (one segment
        // leaving per ACK) touches ssthresh two ACKs early, the slow-start bound holds it there and lets the rest go
        // on the last two ACKs: the same nine segments, R and eight N, as the example's PRR row
        assertThat(sent).startsWith("R . N . N . N . N . N . N .");
        assertThat(sent.chars().filter(ch -> ch == 'N' || ch == 'R').count()).isEqualTo(9);
        assertThat(pipe[0]).isEqualTo(10L * MSS);
        assertThat(prr.delivered()).isEqualTo(17L * MSS);
        assertThat(prr.out()).isEqualTo(9L * MSS);
    }

    /**
     * The second kind of example: losses beyond the reduction bring the pipe below ssthresh. PRR-SSRB then grows
     * it back as slow start would, the delivered segment plus one per ACK that advances SND.UNA, until it reaches
     * ssthresh, and never above it.
     */
    @Test
    void belowSsthreshTheSlowStartBoundCatchesUp() {
        ProportionalRateReduction prr = new ProportionalRateReduction();
        prr.init(20 * MSS);
        long[] pipe = new long[1];
        // twelve of 20 lost: four in flight after the first ACK, each ACK advances SND.UNA
        String sent = run(prr, 7, 4 * MSS, 10 * MSS, true, pipe);
        assertThat(sent).isEqualTo("R NN NN NN NN NN N");
        assertThat(pipe[0]).isEqualTo(10L * MSS);
    }

    /**
     * PRR-SSRB's bound without a "safe" ACK (SACKs only, or a new loss): no more than what was delivered, packet
     * conservation (the reduction bound of PRR-CRB).
     */
    @Test
    void withoutSndUnaAdvancingOnlyWhatWasDeliveredGoes() {
        ProportionalRateReduction prr = new ProportionalRateReduction();
        prr.init(20 * MSS);
        long[] pipe = new long[1];
        String sent = run(prr, 6, 4 * MSS, 10 * MSS, false, pipe);
        assertThat(sent).isEqualTo("R N N N N N");
        assertThat(pipe[0]).isEqualTo(5L * MSS);
    }

    /** The first ACK of a recovery always lets the fast retransmit go, even when the pipe is far above ssthresh. */
    @Test
    void theFirstAckAlwaysLetsTheFastRetransmitGo() {
        ProportionalRateReduction prr = new ProportionalRateReduction();
        prr.init(100 * MSS);
        assertThat(prr.sndcnt(1, 99 * MSS, 50 * MSS, MSS, false)).isEqualTo(MSS);
        prr.onSent(MSS);
        assertThat(prr.sndcnt(1, 98 * MSS, 50 * MSS, MSS, false)).isZero();
    }

    /** Window-sized products do not overflow. */
    @Test
    void hugeWindowsDoNotOverflow() {
        ProportionalRateReduction prr = new ProportionalRateReduction();
        prr.init(1L << 40);
        long s = prr.sndcnt(1L << 40, 1L << 41, 1L << 39, MSS, false);
        assertThat(s).isBetween(1L << 39, (1L << 39) + MSS);
    }
}
