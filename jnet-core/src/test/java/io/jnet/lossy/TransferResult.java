package io.jnet.lossy;

/**
 * What one lossy transfer measured.
 *
 * @param lossyCase the case
 * @param elapsedMs ms from the first connect to both ends' end of stream: virtual ms on a virtual clock,
 *     real ms otherwise
 * @param boundMs the most {@code elapsedMs} the case allows (see {@link TransferBound})
 * @param realMs real ms the run took
 * @param retransmitted TcpRetransSegs of both namespaces together
 * @param timeouts TcpExtTCPTimeouts (retransmission timer expiries) of both namespaces together
 * @param fastRetransmits TcpExtTCPFastRetrans of both namespaces together
 * @param frames frames that entered the impairment, both directions
 * @param dropped frames it dropped, both directions
 * @param duplicated frames it duplicated, both directions
 * @param reordered frames it held back, both directions
 */
record TransferResult(LossyCase lossyCase, long elapsedMs, long boundMs, long realMs, long retransmitted, long timeouts,
        long fastRetransmits, long frames, long dropped, long duplicated, long reordered) {

    boolean withinBound() {
        return elapsedMs <= boundMs;
    }
}
