package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.socket.TcpInfo;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;

/**
 * Fast retransmit and fast recovery without SACK: RFC 5681 3.2 with the NewReno modification of RFC 6582
 * (Linux's Reno path in tcp_fastretrans_alert, tcp_add_reno_sack; gVisor reno_recovery.go). The third duplicate ACK
 * (Linux TCP_FASTRETRANS_THRESH) retransmits the first unacknowledged segment and enters fast recovery with
 * cwnd = ssthresh + 3 * SMSS, each further duplicate ACK inflates cwnd by one SMSS; a partial ACK retransmits the
 * next hole and deflates cwnd by what it acknowledged, adding one SMSS back when that was at least one SMSS; the
 * full ACK of {@link #recover} ends recovery with cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) (option 1);
 * without SACK an ACK of exactly {@link #recover} deflates the window so but holds recovery until data above it is
 * acknowledged (Linux tcp_try_undo_recovery).
 * Duplicate ACKs for data sent before the last recovery or timeout began (SND.UNA not past recover) do not start
 * another one (RFC 6582 3.2 step 1).
 *
 * <p>Without SACK only timestamps can show a retransmission was not needed ({@link UndoState}, RFC 3522): a full
 * undo at the end of recovery, a partial undo on a partial ACK, and a loss undo after a timeout, which also stops
 * going back N.
 *
 * <p>Congestion states (Linux icsk_ca_state) it sets on the connection: Disorder at the first duplicate ACK,
 * Recovery in fast recovery, Loss after a timeout; Open again at the ACK that ends them.
 */
final class NewRenoRecovery implements LossRecovery {
    /** In fast recovery (RFC 5681 3.2). */
    private boolean inRecovery;
    /**
     * RFC 6582 "recover": SND.MAX (the highest sequence sent) when the last fast recovery or timeout began. Valid
     * once {@link #recoveredOnce}; before that, no duplicate ACK is held back by it.
     */
    private int recover;
    /** A recovery or timeout has set {@link #recover} (RFC 6582 initialises recover to the ISS instead). */
    private boolean recoveredOnce;
    /** Duplicate ACKs since SND.UNA last advanced or the last timeout. */
    private int dupAcks;
    /**
     * Fast recovery is held after an ACK of exactly {@link #recover} (Linux tcp_try_undo_recovery for Reno); whether
     * that ACK undid the reduction.
     */
    private boolean held;
    private boolean heldUndone;

    @Override
    public boolean onNewAck(TcpConnection c, int ack, long acked) {
        boolean wasInRecovery = inRecovery;
        if (inRecovery) {
            if (ack == recover && !c.sackOk) {
                holdAtRecoveryPoint(c);
            } else if (Tcp.seqGeq(ack, recover)) {
                exitRecovery(c, ack);
            } else if (c.undo.tryUndoPartial(c, ack - (int) acked)) {
                inRecovery = false; // a delayed original filled the hole (tcp_try_undo_partial)
                c.caState = TcpInfo.TCP_CA_Open;
                c.undo.onOpen(c);
            } else {
                // partial ACK: retransmit the next hole, deflate (RFC 6582 3.2 step 3)
                retransmitHead(c);
                CongestionWindow w = c.win;
                w.cwnd = Math.max(w.mss, w.cwnd - acked + (acked >= w.mss ? w.mss : 0));
            }
        } else if (c.caState == TcpInfo.TCP_CA_Loss && c.undo.tryUndoLoss(c, false)) {
            // the timeout was spurious (RFC 3522 timestamps; tcp_try_undo_loss): no more going back N
            stopGoBackN(c);
            c.caState = TcpInfo.TCP_CA_Open;
            c.undo.onOpen(c);
        } else if (c.caState == TcpInfo.TCP_CA_Loss && Tcp.seqGeq(ack, recover)) {
            c.undo.tryUndoRecovery(c);
            c.caState = TcpInfo.TCP_CA_Open;
            c.undo.onOpen(c);
        } else if (c.caState == TcpInfo.TCP_CA_Disorder) {
            // Disorder ends with the new ACK; Loss once all that was outstanding at the timeout is acknowledged
            c.caState = TcpInfo.TCP_CA_Open;
        }
        dupAcks = 0;
        return wasInRecovery;
    }

    /**
     * {@inheritDoc}
     *
     * <p>With SACK, a Linux receiver compresses its duplicate ACKs after the third (tcp_sack_compress: one ACK per
     * millisecond or per 44 segments), so they no longer count the segments that arrived: the SACK blocks do. As
     * Linux's tcp_time_to_recover (sacked_out + 1 above the reordering degree) and RFC 6675's IsLost, three
     * segments SACKed also start fast retransmit, and in fast recovery the window grows by one SMSS per segment
     * newly SACKed rather than per duplicate ACK (at least one per duplicate ACK, as without SACK). Without SACK,
     * RFC 5681 and RFC 6582 exactly.
     */
    @Override
    public void onDupAck(TcpConnection c, int newlySacked) {
        dupAcks++;
        if (inRecovery) {
            // each further duplicate ACK inflates the window (RFC 5681 3.2 step 4): one segment left the network
            c.win.cwnd += (long) c.win.mss * Math.max(1, newlySacked);
            TcpOutput.xmit(c);
            return;
        }
        if (c.caState == TcpInfo.TCP_CA_Open) c.caState = TcpInfo.TCP_CA_Disorder;
        // the head is lost once the duplicate ACKs reach the connection's reordering degree (Linux
        // tcp_newreno_mark_lost with tp->reordering, which net.ipv4.tcp_reordering starts)
        boolean lost = dupAcks >= c.reordering
                || c.sackOk && dupAcks < TCP_FASTRETRANS_THRESH && c.sack.sackedOut() >= TCP_FASTRETRANS_THRESH;
        if (lost && (!recoveredOnce || Tcp.seqGt(c.sndUna, recover))) {
            enterRecovery(c);
        } else if (!c.sackOk) {
            // limited transmit (RFC 3042) as Linux without SACK: the duplicate ACK took a segment out of those
            // in flight (TcpOutput.leftOut), so a new one may go with cwnd unchanged
            TcpOutput.xmit(c);
        }
    }

    @Override
    public void onRto(TcpConnection c) {
        inRecovery = false;
        held = false;
        recoveredOnce = true;
        recover = c.sndMax;
        c.sack.setUndoMarker(c.sndUna);
        c.caState = TcpInfo.TCP_CA_Loss;
        dupAcks = 0;
    }

    @Override
    public boolean inRecovery() { return inRecovery; }

    @Override
    public int dupAcks() { return dupAcks; }

    /** Outside Loss, or once SND.NXT has passed {@link #recover}: the go-back-N resend covered what the timeout took. */
    @Override
    public boolean lostRetransmitted(TcpConnection c) {
        return c.caState != TcpInfo.TCP_CA_Loss || Tcp.seqGeq(c.sndNxt, recover);
    }

    /**
     * Fast retransmit (RFC 5681 3.2 steps 2-3, RFC 6582 3.2 steps 1-2): ssthresh from the congestion control,
     * cwnd = ssthresh + 3 * SMSS, recover = SND.MAX; the first unacknowledged segment goes again with the
     * retransmission timer restarted, then whatever the window allows.
     */
    private void enterRecovery(TcpConnection c) {
        recoveredOnce = true;
        c.sack.setUndoMarker(c.sndUna); // D-SACKs of what this recovery resends are valid (tcp_init_undo)
        c.undo.onRecoveryStart(c);
        c.caState = TcpInfo.TCP_CA_Recovery;
        long flight = (c.sndMax - c.sndUna) & 0xFFFFFFFFL;
        CongestionWindow w = c.win;
        c.cc.onLossDetected(w, flight);
        w.cwnd = w.ssthresh + 3L * w.mss;
        inRecovery = true;
        recover = c.sndMax;
        c.tcp.mib.inc(MibCounter.TcpExtTCPRenoRecovery);
        if (retransmitHead(c)) c.rtoTimer.schedule(c.rtt.currentRtoUs() * 1000);
        TcpOutput.xmit(c);
    }

    /**
     * An ACK of exactly {@link #recover} without SACK: the window deflates as at a full ACK (or the reduction is
     * undone), but fast recovery goes on until data above it is acknowledged, so that duplicate ACKs of what was
     * sent before cannot start another (Linux tcp_try_undo_recovery: "Hold old state until something *above*
     * high_seq is ACKed. For Reno it is MUST to prevent false fast retransmits"; RFC 6582 4.1).
     */
    private void holdAtRecoveryPoint(TcpConnection c) {
        held = true;
        heldUndone = c.undo.tryUndoRecovery(c);
        CongestionWindow w = c.win;
        if (!heldUndone) w.cwnd = Math.min(w.ssthresh, Math.max((c.sndMax - recover) & 0xFFFFFFFFL, w.mss) + w.mss);
    }

    /** Full ACK (RFC 6582 3.2 step 3, option 1): cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS). */
    private void exitRecovery(TcpConnection c, int ack) {
        CongestionWindow w = c.win;
        // timestamps showed the retransmission was not needed: cwnd restored (at the held ACK, or now)
        if (!(held && heldUndone) && !c.undo.tryUndoRecovery(c)) {
            w.cwnd = Math.min(w.ssthresh, Math.max((c.sndMax - ack) & 0xFFFFFFFFL, w.mss) + w.mss);
        }
        held = false;
        inRecovery = false;
        c.cc.afterRecovery(w);
        c.caState = TcpInfo.TCP_CA_Open;
        c.undo.onOpen(c);
    }

    /**
     * A timeout undone: what go-back-N would have sent again was delivered, so sending resumes after the highest
     * sequence sent, at the first segment never sent.
     */
    private static void stopGoBackN(TcpConnection c) {
        if (!Tcp.seqLt(c.sndNxt, c.sndMax)) return;
        c.sndNxt = c.sndMax;
        PacketBuffer p = c.writeQueue.peek();
        while (p != null && p.when != 0) p = p.next;
        c.sendHead = p;
    }

    /**
     * Retransmits the first unacknowledged segment, the one the duplicate or partial ACK says is missing, if it
     * was sent (TcpExtTCPFastRetrans). Returns whether it went.
     */
    private static boolean retransmitHead(TcpConnection c) {
        PacketBuffer head = c.writeQueue.peek();
        if (head == null || head.when == 0) return false;
        TcpOutput.transmitData(c, head, true);
        c.tcp.mib.inc(MibCounter.TcpExtTCPFastRetrans);
        return true;
    }
}
