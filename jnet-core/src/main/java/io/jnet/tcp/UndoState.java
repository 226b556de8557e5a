package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.socket.TcpInfo;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;

/**
 * Undo of a spurious congestion window reduction and F-RTO (Linux tcp_input.c: tcp_init_undo, tcp_may_undo,
 * tcp_packet_delayed, tcp_undo_cwnd_reduction, tcp_try_undo_recovery / _partial / _dsack / _loss, and the F-RTO part
 * of tcp_enter_loss and tcp_process_loss; gVisor keeps the same split by mechanism). The loss recoveries call it; it
 * keeps Linux's undo_marker, undo_retrans, retrans_stamp, prior_cwnd, prior_ssthresh and the frto flag.
 *
 * <p>A reduction is undone when (RFC 3522 Eifel) the ACK's TSecr is earlier than the TSval of the first
 * retransmission (the original was delivered), or when D-SACKs (RFC 2883, RFC 3708) account for every retransmission
 * since the reduction began (undo_retrans back to 0). Undo restores cwnd through
 * {@link CongestionControl#undoCwnd} and ssthresh = max(ssthresh, prior_ssthresh).
 *
 * <p>F-RTO (RFC 5682 section 3, SACK-enhanced as Linux's net.ipv4.tcp_frto = 2; SACK connections only): after a
 * timeout only the first segment is resent; the first ACK that advances SND.UNA sends new data instead of further
 * retransmissions, and an ACK that then acknowledges or SACKs data never retransmitted shows the timeout was spurious
 * (TcpExtTCPSpuriousRTOs, TcpExtTCPLossUndo); a duplicate ACK or a SACK after the new data went shows a real loss,
 * and conventional recovery goes on.
 *
 * <p>All methods run with the connection locked and allocate nothing.
 */
final class UndoState {
    /** Linux undo_marker: SND.UNA when the reduction began; valid while {@link #markerSet}. */
    private int undoMarker;
    private boolean markerSet;
    /** Linux undo_retrans: segments retransmitted since the marker not yet D-SACKed; -1 when none was. */
    private int undoRetrans = -1;
    /** Linux retrans_stamp: the TSval (with the connection's offset) of the first retransmission; valid while set. */
    private int retransStamp;
    private boolean retransStampSet;
    /** Linux prior_cwnd, bytes. */
    private long priorCwnd;
    /** Linux prior_ssthresh, bytes; 0 when there is nothing to restore. */
    private long priorSsthresh;
    /** Linux tp->frto: F-RTO is in progress for the current timeout. */
    private boolean frto;
    /** This ACK's TSecr, when it carried one (Linux rx_opt.saw_tstamp with rcv_tsecr). */
    private int ackTsEcr;
    private boolean ackHasTsEcr;
    /** The lowest end of data never retransmitted that this ACK acknowledged or SACKed (Linux FLAG_ORIG_SACK_ACKED). */
    private int origEnd;
    private boolean origSeen;

    /** The ACK being processed carries the timestamp echo {@code tsEcr} (0: none). */
    void beginAck(boolean hasTimestamp, int tsEcr) {
        ackHasTsEcr = hasTimestamp && tsEcr != 0;
        ackTsEcr = tsEcr;
        origSeen = false;
    }

    /** This ACK acknowledged or SACKed a segment ending at {@code endSeq} that was never retransmitted. */
    void noteOrigDelivered(int endSeq) {
        if (!origSeen || Tcp.seqLt(endSeq, origEnd)) origEnd = endSeq;
        origSeen = true;
    }

    /** Linux FLAG_ORIG_SACK_ACKED: this ACK delivered data never retransmitted ending at or below {@code highSeq}. */
    boolean origDelivered(int highSeq) {
        return origSeen && Tcp.seqLeq(origEnd, highSeq);
    }

    /** Linux tcp_init_undo: the marker at SND.UNA; undo_retrans -1, or the retransmissions still out. */
    private void initUndo(TcpConnection c) {
        undoMarker = c.sndUna;
        markerSet = true;
        int retransOut = retransOut(c);
        undoRetrans = retransOut > 0 ? retransOut : -1;
    }

    /** Linux tcp_current_ssthresh outside a reduction: max(ssthresh, 3/4 cwnd). */
    private static long currentSsthresh(CongestionWindow w) {
        return Math.max(w.ssthresh, (w.cwnd >> 1) + (w.cwnd >> 2));
    }

    /**
     * A fast recovery begins (Linux tcp_enter_recovery with tcp_init_cwnd_reduction), before the congestion control
     * sets ssthresh: records the undo point and the window to restore.
     */
    void onRecoveryStart(TcpConnection c) {
        initUndo(c);
        priorSsthresh = currentSsthresh(c.win);
        priorCwnd = c.win.cwnd;
    }

    /**
     * The retransmission timer expired, before the congestion control sets the loss window (Linux tcp_enter_loss):
     * a new undo point unless a recovery or an earlier timeout of the same episode already holds one, and F-RTO
     * armed when net.ipv4.tcp_frto is on, SACK is in use, and no recovery was under way (or the timeout recurs).
     *
     * @param caState the congestion state before the timeout
     * @return whether ssthresh is to be cut: a new loss episode begins (Linux's "reduce ssthresh if it has not yet
     *     been made inside this window": from Open or Disorder, after the last episode was recovered, or on a timeout
     *     in Loss after an ACK made progress); a recovery or timeout of the same window already cut it
     */
    boolean onRto(TcpConnection c, int caState) {
        boolean newRecovery = caState < TcpInfo.TCP_CA_Recovery;
        boolean newEpisode = caState <= TcpInfo.TCP_CA_Disorder || !markerSet
                || caState == TcpInfo.TCP_CA_Loss && c.retransmits == 1;
        if (newEpisode) {
            priorSsthresh = currentSsthresh(c.win);
            priorCwnd = c.win.cwnd;
            initUndo(c);
        }
        frto = c.tcp.sysctl.tcpFrto.intValue() != 0 && c.sackOk && (newRecovery || c.retransmits > 1);
        return newEpisode;
    }

    /** A segment of {@code segs} MSS went again (Linux tcp_retransmit_skb): retrans_stamp, undo_retrans. */
    void onRetransmit(TcpConnection c, int segs) {
        if (!retransStampSet && c.tsEnabled) {
            retransStamp = c.tcp.tsClock() + c.tsOffset;
            retransStampSet = true;
        }
        if (undoRetrans < 0) undoRetrans = 0;
        undoRetrans += segs;
    }

    /**
     * A D-SACK of {@code segs} segments ending at {@code end} was accepted (Linux tcp_check_dsack and
     * tcp_sacktag_one): a retransmission since the marker was not needed.
     */
    void onDsack(int end, int priorSndUna, long segs) {
        if (markerSet && undoRetrans > 0 && Tcp.seqGt(end, undoMarker)) {
            undoRetrans = (int) Math.max(0, undoRetrans - segs);
        }
    }

    /** Back in Open with no retransmission out (Linux clears retrans_stamp in tcp_fastretrans_alert's Open). */
    void onOpen(TcpConnection c) {
        if (retransOut(c) == 0) retransStampSet = false;
    }

    /** Linux tcp_packet_delayed: the ACK echoes a TSval older than the first retransmission's. */
    boolean packetDelayed() {
        return retransStampSet && ackHasTsEcr && Tcp.seqLt(ackTsEcr, retransStamp);
    }

    /** Linux tcp_may_undo. */
    boolean mayUndo() {
        return markerSet && (undoRetrans == 0 || packetDelayed());
    }

    /** Whether F-RTO is in progress for the current timeout. */
    boolean frto() { return frto; }

    /** F-RTO stops: the loss was real, or new data could not go (RFC 5682 step 2b, 3a). */
    void stopFrto() { frto = false; }

    /**
     * Linux tcp_undo_cwnd_reduction: cwnd from the congestion control's undo, ssthresh back up to prior_ssthresh,
     * and with {@code unmarkLoss} every lost mark cleared. The marker goes.
     */
    void undoCwndReduction(TcpConnection c, boolean unmarkLoss) {
        if (unmarkLoss) {
            for (PacketBuffer p = c.writeQueue.peek(); p != null && p.when != 0; p = p.next) {
                if ((p.flags & TcpOutput.LOST) != 0) c.sack.setFlags(p, 0, TcpOutput.LOST); // keeps lost_out counted
            }
        }
        if (priorSsthresh != 0) {
            CongestionWindow w = c.win;
            w.cwnd = c.cc.undoCwnd(w, priorCwnd);
            if (priorSsthresh > w.ssthresh) w.ssthresh = priorSsthresh;
        }
        markerSet = false;
        frto = false;
    }

    /**
     * Linux tcp_try_undo_recovery, at the ACK that ends Recovery or Loss: a full undo (TcpExtTCPFullUndo, or
     * TcpExtTCPLossUndo in Loss) when {@link #mayUndo}. The caller sets the state Open either way.
     *
     * @return whether it undid
     */
    boolean tryUndoRecovery(TcpConnection c) {
        if (!mayUndo()) return false;
        undoCwndReduction(c, false);
        c.tcp.mib.inc(c.caState == TcpInfo.TCP_CA_Loss ? MibCounter.TcpExtTCPLossUndo : MibCounter.TcpExtTCPFullUndo);
        return true;
    }

    /**
     * Linux tcp_try_undo_loss: in Loss, a delayed original or D-SACKs (or with {@code frtoUndo} F-RTO's proof)
     * undo the timeout's reduction with every lost mark cleared (TcpExtTCPLossUndo, TcpExtTCPSpuriousRTOs).
     * The caller sets the state Open.
     */
    boolean tryUndoLoss(TcpConnection c, boolean frtoUndo) {
        if (!frtoUndo && !mayUndo()) return false;
        undoCwndReduction(c, true);
        c.tcp.mib.inc(MibCounter.TcpExtTCPLossUndo);
        if (frtoUndo) c.tcp.mib.inc(MibCounter.TcpExtTCPSpuriousRTOs);
        c.retransmits = 0;
        return true;
    }

    /**
     * Linux tcp_try_undo_partial, on a partial ACK in Recovery: the hole was filled by a delayed original, a sign
     * of reordering (TcpExtTCPTSReorder, tp-&gt;reordering); with no retransmission out the reduction is undone
     * (TcpExtTCPPartialUndo, lost marks cleared) and the caller leaves Recovery.
     *
     * @param priorSndUna SND.UNA before this ACK
     * @return whether it undid
     */
    boolean tryUndoPartial(TcpConnection c, int priorSndUna) {
        if (!markerSet || !packetDelayed()) return false;
        checkReordering(c, priorSndUna, true);
        if (retransOut(c) > 0) return false;
        retransStampSet = false;
        undoCwndReduction(c, true);
        c.tcp.mib.inc(MibCounter.TcpExtTCPPartialUndo);
        return true;
    }

    /** Linux tcp_try_undo_dsack: every retransmission since the marker was D-SACKed (TcpExtTCPDSACKUndo). */
    boolean tryUndoDsack(TcpConnection c) {
        if (!markerSet || undoRetrans != 0) return false;
        undoCwndReduction(c, false);
        c.tcp.mib.inc(MibCounter.TcpExtTCPDSACKUndo);
        return true;
    }

    /**
     * Linux tcp_check_sack_reordering: data from {@code lowSeq} arrived after data up to the highest SACKed
     * sequence; raises the connection's reordering degree (capped by net.ipv4.tcp_max_reordering) and counts
     * TcpExtTCPTSReorder ({@code ts}) or TcpExtTCPSACKReorder.
     */
    static void checkReordering(TcpConnection c, int lowSeq, boolean ts) {
        if (!raiseReordering(c, lowSeq)) return;
        c.tcp.mib.inc(ts ? MibCounter.TcpExtTCPTSReorder : MibCounter.TcpExtTCPSACKReorder);
        if (ts) c.rack.onReordering(); // reord_seen (the SACK callers tell RACK themselves)
    }

    /**
     * The degree part of {@link #checkReordering}: tp-&gt;reordering = max(it, the distance from {@code lowSeq} to
     * the highest SACKed sequence in segments), at most net.ipv4.tcp_max_reordering.
     *
     * @return false when {@code lowSeq} is not below that highest sequence (nothing was reordered)
     */
    static boolean raiseReordering(TcpConnection c, int lowSeq) {
        int fack = c.sack.fack(c.sndUna);
        if (!Tcp.seqLt(lowSeq, fack)) return false;
        long metric = (fack - lowSeq) & 0xFFFFFFFFL;
        int mss = Math.max(1, c.mss);
        if (metric > (long) c.reordering * mss) {
            c.reordering = (int) Math.min((metric + mss - 1) / mss, c.tcp.sysctl.tcpMaxReordering.intValue());
        }
        return true;
    }

    /** Linux retrans_out: segments retransmitted and still in flight. O(window). */
    private static int retransOut(TcpConnection c) {
        int n = 0;
        for (PacketBuffer p = c.writeQueue.peek(); p != null && p.when != 0; p = p.next) {
            if ((p.flags & TcpOutput.RETRANS_OUT) != 0) n += TcpOutput.segmentCount(c, p);
        }
        return n;
    }
}
