package io.jnet.tcp;

import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;

/**
 * The receiver's SACK blocks (RFC 2018 section 4) and D-SACK block (RFC 2883), as Linux keeps them in
 * {@code tp->selective_acks[]}, {@code rx_opt.num_sacks}, {@code tp->duplicate_sack[0]} and {@code rx_opt.dsack}.
 *
 * <p>Up to {@link #TCP_NUM_SACKS} blocks describe the out-of-order queue, the one holding the most recently
 * received segment first, the others in the order they were last reported (tcp_sack_new_ofo_skb: a segment that
 * extends a block moves that block to the front, merging it with any block it now touches; a new block goes in
 * front and the oldest falls off when all four are taken). Blocks at or below RCV.NXT go when RCV.NXT advances
 * (tcp_sack_remove); all go when the out-of-order queue empties or is pruned (tcp_sack_reset).
 *
 * <p>A D-SACK block reports a duplicate segment, below RCV.NXT or already in the out-of-order queue
 * (tcp_dsack_set counts TcpExtTCPDSACKOldSent or TcpExtTCPDSACKOfoSent and replaces any pending one,
 * tcp_dsack_extend widens it); it goes first in the next ACK that has room for it and only in that one.
 * Sequence numbers compare in sequence space. Not thread-safe: used under the socket lock; allocates nothing.
 */
final class SackBlocks {
    /** SACK blocks the receiver keeps (Linux TCP_NUM_SACKS). */
    static final int TCP_NUM_SACKS = 4;

    private final int[] start = new int[TCP_NUM_SACKS];
    private final int[] end = new int[TCP_NUM_SACKS];
    private int count;
    private boolean dsack;
    private int dsackStart;
    private int dsackEnd;

    /** SACK blocks held (Linux rx_opt.num_sacks), 0..4. */
    int count() { return count; }

    /** Left edge of block {@code i} (0 is the most recent). */
    int start(int i) { return start[i]; }

    /** Right edge (exclusive) of block {@code i}. */
    int end(int i) { return end[i]; }

    /** A D-SACK block waits to be sent. */
    boolean hasDsack() { return dsack; }

    int dsackStart() { return dsackStart; }

    int dsackEnd() { return dsackEnd; }

    /** Forgets every block (Linux tcp_sack_reset); a pending D-SACK stays. */
    void reset() { count = 0; }

    /**
     * A segment spanning [{@code seq}, {@code endSeq}) went to the out-of-order queue, or was found there already
     * (Linux tcp_sack_new_ofo_skb): the block it extends moves to the front, else a new block goes in front.
     */
    void newOfo(int seq, int endSeq) {
        for (int i = 0; i < count; i++) {
            if (extend(i, seq, endSeq)) {
                rotateToFront(i);
                coalesceFront();
                return;
            }
        }
        int n = Math.min(count, TCP_NUM_SACKS - 1); // the oldest falls off when all are taken
        for (int i = n; i > 0; i--) {
            start[i] = start[i - 1];
            end[i] = end[i - 1];
        }
        start[0] = seq;
        end[0] = endSeq;
        count = n + 1;
    }

    /**
     * RCV.NXT advanced (Linux tcp_sack_remove): blocks it covers go; all of them when the out-of-order queue is
     * empty.
     */
    void remove(int rcvNxt, boolean ofoEmpty) {
        if (ofoEmpty) {
            count = 0;
            return;
        }
        int n = 0;
        for (int i = 0; i < count; i++) {
            if (Tcp.seqLt(rcvNxt, start[i])) {
                start[n] = start[i];
                end[n] = end[i];
                n++;
            }
        }
        count = n;
    }

    /**
     * Reports the duplicate [{@code seq}, {@code endSeq}) in the next ACK (Linux tcp_dsack_set): counts
     * TcpExtTCPDSACKOldSent when it starts below {@code rcvNxt}, else TcpExtTCPDSACKOfoSent, and replaces a D-SACK
     * not yet sent.
     */
    void dsackSet(int seq, int endSeq, int rcvNxt, Mib mib) {
        mib.inc(Tcp.seqLt(seq, rcvNxt) ? MibCounter.TcpExtTCPDSACKOldSent : MibCounter.TcpExtTCPDSACKOfoSent);
        dsack = true;
        dsackStart = seq;
        dsackEnd = endSeq;
    }

    /**
     * Adds [{@code seq}, {@code endSeq}) to the pending D-SACK block (Linux tcp_dsack_extend): sets one when none is
     * pending, else widens it when the two touch (a duplicate that does not touch it is not reported).
     */
    void dsackExtend(int seq, int endSeq, int rcvNxt, Mib mib) {
        if (!dsack) {
            dsackSet(seq, endSeq, rcvNxt, mib);
        } else if (!Tcp.seqGt(seq, dsackEnd) && !Tcp.seqGt(dsackStart, endSeq)) {
            if (Tcp.seqLt(seq, dsackStart)) dsackStart = seq;
            if (Tcp.seqGt(endSeq, dsackEnd)) dsackEnd = endSeq;
        }
    }

    /**
     * Puts the blocks in {@code o} (Linux tcp_established_options and tcp_options_write): the D-SACK block first
     * when one is pending, then the SACK blocks, as many as fit in the option space {@code o} leaves and in
     * {@code room} bytes (what the segment's payload leaves of the MSS; a full-sized data segment carries none).
     * A D-SACK block that went out is not sent again.
     */
    void fill(TcpOptions o, int room) {
        int eff = count + (dsack ? 1 : 0);
        o.sackBlocks = 0;
        if (eff == 0) return;
        int used = o.writtenLength();
        int fit = Math.min((TcpOptions.MAX_OPTION_SPACE - used - 4) / 8, (room - 4) / 8);
        int n = Math.min(eff, Math.min(fit, TcpOptions.MAX_SACK_BLOCKS));
        if (n <= 0) return;
        int k = 0;
        if (dsack) {
            o.sackLeft[0] = dsackStart;
            o.sackRight[0] = dsackEnd;
            k = 1;
            dsack = false;
        }
        for (int i = 0; k < n; i++, k++) {
            o.sackLeft[k] = start[i];
            o.sackRight[k] = end[i];
        }
        o.sackBlocks = n;
    }

    /** Linux tcp_sack_extend: when [seq, endSeq) touches block {@code i}, widens the block to cover it. */
    private boolean extend(int i, int seq, int endSeq) {
        if (Tcp.seqGt(seq, end[i]) || Tcp.seqGt(start[i], endSeq)) return false;
        if (Tcp.seqLt(seq, start[i])) start[i] = seq;
        if (Tcp.seqGt(endSeq, end[i])) end[i] = endSeq;
        return true;
    }

    private void rotateToFront(int i) {
        int s = start[i];
        int e = end[i];
        for (; i > 0; i--) {
            start[i] = start[i - 1];
            end[i] = end[i - 1];
        }
        start[0] = s;
        end[0] = e;
    }

    /** Linux tcp_sack_maybe_coalesce: blocks the front one now touches merge into it. */
    private void coalesceFront() {
        int n = 1;
        for (int i = 1; i < count; i++) {
            if (extend(0, start[i], end[i])) continue; // merged into block 0
            start[n] = start[i];
            end[n] = end[i];
            n++;
        }
        count = n;
    }
}
