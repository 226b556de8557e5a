package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.socket.TcpInfo;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;

/**
 * Conservative loss recovery with SACK: RFC 6675 (Linux tcp_fastretrans_alert's SACK path with
 * tcp_mark_head_lost / tcp_update_scoreboard and tcp_xmit_retransmit_queue; gVisor sack_recovery.go), chosen when
 * SACK is negotiated ({@link NewRenoRecovery} stays for peers without it).
 *
 * <p>With RACK on (net.ipv4.tcp_recovery bit 0x1, the default; {@link RackLossDetection}) losses are RACK's,
 * marked by time, and recovery starts on the first one, as Linux's tcp_time_to_recover: the DupThresh rule, the
 * lost-retransmission rule below and NextSeg rule 3 are not used (Linux keeps them only without RACK). The rest of
 * this comment describes net.ipv4.tcp_recovery = 0.
 *
 * <p>Loss detection is the scoreboard's, not a duplicate ACK count (a Linux receiver compresses its duplicate ACKs
 * once SACK is on): a hole is lost when {@link #DUP_THRESH} segments, or more than (DupThresh - 1) * SMSS bytes,
 * are SACKed above it (RFC 6675 IsLost), and lost holes are marked as Linux's TCPCB_LOST ({@link TcpOutput#LOST}).
 * Recovery starts on the first lost hole (or DupThresh duplicate ACKs, RFC 6675 section 5 step 4) with
 * RecoveryPoint = the highest sequence sent, and ends when SND.UNA reaches it. Meanwhile what goes out follows
 * NextSeg (RFC 6675 section 4): rule 1, the lost holes not yet retransmitted, in sequence order; rule 2, new data;
 * rule 3, a hole below the highest SACKed segment not yet retransmitted. Rule 4 (rescue retransmission) is not
 * done. How much may go on each ACK is Proportional Rate Reduction's (RFC 6937 PRR-SSRB as Linux,
 * {@link ProportionalRateReduction}) from the pipe estimate (RFC 6675 SetPipe: every unSACKed byte not lost, plus
 * every retransmitted one in flight), with cwnd = pipe + that; at the end cwnd = ssthresh.
 *
 * <p>Before recovery, while segments are SACKed but no hole is lost yet (Disorder), new data goes as far as cwnd
 * exceeds the pipe, the SACKed segments counted out of it (RFC 3042 limited transmit; Linux's
 * tcp_packets_in_flight in Disorder): the SACKs it draws can then reveal a loss without waiting for a timeout.
 *
 * <p>A retransmission that is itself lost (a segment sent after it was SACKed, later than a quarter of the
 * minimum RTT after it: the reordering window RACK uses) is marked lost again and counted
 * (TcpExtTCPLostRetransmit), as Linux's tcp_mark_lost_retrans did. After a timeout everything unSACKed is
 * lost (Linux tcp_timeout_mark_lost) and is resent within the slow-start window skipping the SACKed segments (as
 * tcp_xmit_retransmit_queue skips TCPCB_SACKED_ACKED), rather than going back N.
 *
 * <p>Undo ({@link UndoState}, Linux tcp_fastretrans_alert and tcp_process_loss): a recovery ends with its window
 * restored when timestamps show the original was delivered (full undo), a partial ACK filled by a delayed original
 * with no retransmission out ends it early (partial undo), D-SACKs of every retransmission undo it during or after
 * it; in Loss, F-RTO (net.ipv4.tcp_frto) sends new data on the first ACK that advances SND.UNA and undoes the
 * timeout when data never retransmitted is then acknowledged or SACKed.
 *
 * <p>Work per ACK, whatever the write queue holds and whatever blocks the peer sends: the pipe comes from the
 * scoreboard's counts of SACKed, lost and retransmitted bytes (Linux sacked_out, lost_out, retrans_out), the loss
 * edge from at most DupThresh SACKed segments below the highest ({@link SackScoreboard#lossEdge}); the walks over
 * holes (loss marking, NextSeg rules 1 and 3) go on from cursors the last ACK left (Linux's lost_skb_hint and
 * retransmit_skb_hint, gVisor's next-segment cursor), so each hole is passed over once per recovery, amortized
 * O(log n) per ACK, and each walk passes over at most {@link #WALK_BUDGET} holes it does not act on per ACK (the
 * look for lost retransmissions at most {@link #LOST_RETRANS_BUDGET}), O(log n) each in the scoreboard's tree.
 * Nothing beyond clamping the cursors in Open. Allocates nothing. Every change of a segment's
 * {@link TcpOutput#LOST} or {@link TcpOutput#RETRANS_OUT} goes through {@link SackScoreboard#setFlags}, which keeps
 * the counts and records the segments newly lost for the retransmission walk, whoever marked them.
 */
final class SackRecovery implements LossRecovery {
    /** RFC 6675 DupThresh (Linux's default tcp_reordering). */
    static final int DUP_THRESH = TCP_FASTRETRANS_THRESH;
    /** Holes a walk passes over without acting on them, per ACK (loss marking, NextSeg rules 1 and 3). */
    static final int WALK_BUDGET = 64;
    /** Holes looked at for lost retransmissions per ACK. */
    static final int LOST_RETRANS_BUDGET = 16;

    /** In fast recovery (TCP_CA_Recovery). */
    private boolean inRecovery;
    /** RFC 6675 RecoveryPoint: the highest sequence sent when the last recovery or timeout began. */
    private int recoveryPoint;
    /** Duplicate ACKs since SND.UNA last advanced. */
    private int dupAcks;
    /** Some lost segment was left unsent by the last send loop (Linux lost_out &gt; retrans_out). */
    private boolean lostPending;
    /** The pipe estimate of the last walk, bytes (RFC 6675 pipe). */
    private long pipe;
    /** The end of the highest SACKed segment found by the last walk (RFC 6675 HighSACK's end). */
    private int highSackEnd;
    /** Whether {@link #highSackEnd} is set. */
    private boolean anySacked;
    /** The last walk marked a segment lost that was not (Linux newly_lost). */
    private boolean newlyLost;
    /** Bytes this ACK advanced SND.UNA by (0 for a duplicate). */
    private long ackedThisAck;
    /** The scoreboard's SACKed bytes after the last ACK, for RFC 6937 DeliveredData. */
    private long lastSackedBytes;
    /** Whether the cursors below are set. */
    private boolean hinted;
    /** Every unSACKed segment below this is marked lost (the sequence of Linux's lost_skb_hint). */
    private int markedTo;
    /** No segment lost and not retransmitted lies below this (the sequence of Linux's retransmit_skb_hint). */
    private int retransmitHint;
    /** The end of the highest retransmission found lost again: rule 1 looks up to it even above {@link #markedTo}. */
    private int lostEnd;
    /** Every hole below this has been retransmitted (NextSeg rule 3's cursor). */
    private int rule3Hint;
    /** Where the next look for lost retransmissions goes on. */
    private int lostRetransCursor;
    /** The latest send time of a SACKed segment when the look's current pass began. */
    private long lostRetransPassWhen;
    /** A whole pass found nothing new to look at: none until a later-sent segment is SACKed. */
    private boolean lostRetransIdle;
    /** How much recovery sends per ACK (RFC 6937). */
    private final ProportionalRateReduction prr = new ProportionalRateReduction();
    /** A duplicate ACK arrived since the last {@link #afterAck} (Linux num_dupack). */
    private boolean dupThisAck;
    /** F-RTO step 2b: the send loop sends new data only (Linux REXMIT_NEW). */
    private boolean newDataOnly;

    /** {@link #processLoss}: the ACK undid the timeout or ended Loss; nothing more to send from here. */
    private static final int LOSS_DONE = 0;
    /** {@link #processLoss}: F-RTO sends new data (Linux REXMIT_NEW). */
    private static final int LOSS_NEW = 1;
    /** {@link #processLoss}: conventional recovery resends what is lost (Linux REXMIT_LOST). */
    private static final int LOSS_RETRANSMIT = 2;

    @Override
    public boolean onNewAck(TcpConnection c, int ack, long acked) {
        boolean wasInRecovery = inRecovery;
        dupAcks = 0;
        ackedThisAck = acked;
        if (inRecovery) {
            if (Tcp.seqGeq(ack, recoveryPoint)) {
                if (exitRecovery(c)) return false; // undone: the window grows on this ACK as outside recovery
            } else if (c.undo.tryUndoPartial(c, ack - (int) acked)) {
                leaveRecoveryUndone(c); // the hole was filled by a delayed original (tcp_try_undo_partial)
                return false;
            }
        } else if (c.caState == TcpInfo.TCP_CA_Loss) {
            // tcp_process_loss runs in afterAck, once the ACK's SACK blocks and window growth are known
        } else if (c.caState == TcpInfo.TCP_CA_Disorder && c.sack.sackedOut() == 0) {
            c.caState = TcpInfo.TCP_CA_Open;
        }
        return wasInRecovery;
    }

    @Override
    public void onDupAck(TcpConnection c, int newlySacked) {
        dupAcks++;
        dupThisAck = true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Runs the RFC 6675 steps on every ACK: enters recovery at the first lost hole, and in Recovery or Loss
     * marks the lost holes and sends what the pipe allows.
     */
    @Override
    public void afterAck(TcpConnection c) {
        clampHints(c.sndUna);
        long acked = ackedThisAck;
        ackedThisAck = 0;
        long sackedBytes = c.sack.sackedBytes();
        long delivered = Math.max(0, acked + sackedBytes - lastSackedBytes); // RFC 6937 DeliveredData
        boolean dataSacked = sackedBytes > lastSackedBytes;
        lastSackedBytes = sackedBytes;
        boolean dup = dupThisAck;
        dupThisAck = false;
        int lossAction = LOSS_RETRANSMIT;
        if (inRecovery) {
            if (c.undo.tryUndoDsack(c)) leaveRecoveryUndone(c); // tcp_try_undo_dsack, then tcp_try_to_open
        } else if (c.caState == TcpInfo.TCP_CA_Loss) {
            lossAction = processLoss(c, acked > 0, dataSacked, dup);
            if (lossAction == LOSS_DONE) {
                lostPending = false; // undone (lost marks cleared) or everything the timeout took was acknowledged
                return;
            }
        } else {
            c.undo.tryUndoDsack(c); // Open or Disorder: D-SACKs may still undo the last recovery
        }
        if (c.sndUna == c.sndMax) {
            lostPending = false;
            return;
        }
        if (!inRecovery && c.caState != TcpInfo.TCP_CA_Loss) {
            if (c.sack.sackedOut() > 0 && c.caState == TcpInfo.TCP_CA_Open) c.caState = TcpInfo.TCP_CA_Disorder;
            PacketBuffer head = c.writeQueue.peek();
            if (head == null || head.when == 0 || SackScoreboard.isSacked(head)) return;
            boolean rack = RackLossDetection.enabled(c);
            boolean lost;
            if (rack) {
                if (c.sack.sackedOut() == 0) return; // Open, nothing SACKed: nothing RACK could find lost
                update(c); // RACK marks by time; recovery starts on the first segment it finds lost (tcp_time_to_recover)
                lost = newlyLost;
            } else {
                lost = dupAcks >= DUP_THRESH || c.sack.sackedOut() > 0 && c.sack.isLost(head.seq, DUP_THRESH, c.mss);
            }
            if (!lost) {
                // Disorder: SACKed segments have left the network, so new data may take their place (RFC 3042
                // limited transmit, as Linux's tcp_packets_in_flight counts them out in Disorder)
                if (c.sack.sackedOut() > 0) {
                    if (!rack) update(c);
                    sendLoop(c, c.win.cwnd - pipe);
                }
                return;
            }
            enterRecovery(c);
            if (!rack) {
                update(c);
                markHeadLost(c);
            }
        } else {
            update(c);
        }
        long allowance;
        if (inRecovery) {
            // PRR (RFC 6937): cwnd = pipe + sndcnt, as Linux's tcp_cwnd_reduction sets it
            CongestionWindow w = c.win;
            allowance = prr.sndcnt(delivered, pipe, w.ssthresh, c.mss, acked > 0 && !newlyLost);
            w.cwnd = Math.max(w.mss, pipe + allowance);
        } else {
            allowance = c.win.cwnd - pipe; // Loss: slow start from the loss window
        }
        newDataOnly = lossAction == LOSS_NEW;
        sendLoop(c, allowance);
        if (newDataOnly && !Tcp.seqGt(c.sndNxt, recoveryPoint)) c.undo.stopFrto(); // no new data went (tcp_xmit_recovery)
        newDataOnly = false;
    }

    /**
     * Linux tcp_process_loss on an ACK in Loss: a timeout undone by a delayed original or D-SACKs, F-RTO's steps
     * (RFC 5682 3.1 with SACK: 2b sends new data on the first ACK that advances SND.UNA, 3b takes the timeout for
     * spurious when data never retransmitted is then acknowledged or SACKed, 3a for real on a SACK or duplicate ACK
     * after the new data), and the end of Loss once SND.UNA passes RecoveryPoint.
     */
    private int processLoss(TcpConnection c, boolean advanced, boolean dataSacked, boolean dup) {
        UndoState u = c.undo;
        boolean recovered = Tcp.seqGeq(c.sndUna, recoveryPoint);
        if (advanced && u.tryUndoLoss(c, false)) {
            lossToOpen(c);
            return LOSS_DONE;
        }
        if (u.frto()) {
            if (u.origDelivered(recoveryPoint) && u.tryUndoLoss(c, true)) { // step 3b: the timeout was spurious
                lossToOpen(c);
                return LOSS_DONE;
            }
            if (Tcp.seqGt(c.sndNxt, recoveryPoint)) {
                if (dataSacked || dup) u.stopFrto(); // step 3a: the loss was real
            } else if (advanced && !recovered) {
                recoveryPoint = c.sndNxt;
                // step 2b: new data, if the window has room for some; otherwise conventional recovery
                long wndEnd = (c.sndUna & 0xFFFFFFFFL) + Math.min(c.sndWnd, Integer.MAX_VALUE);
                if (c.sendHead != null && Tcp.seqGt((int) wndEnd, c.sndNxt)) return LOSS_NEW;
                u.stopFrto();
            }
        }
        if (recovered) {
            u.tryUndoRecovery(c); // step 2a, and the end of Loss (tcp_try_undo_recovery)
            lossToOpen(c);
            return LOSS_DONE;
        }
        return LOSS_RETRANSMIT;
    }

    /** Loss ends: state Open (Linux tcp_try_undo_loss / tcp_try_undo_recovery). */
    private void lossToOpen(TcpConnection c) {
        c.caState = TcpInfo.TCP_CA_Open;
        c.rack.onRecoveryEnd();
        c.undo.onOpen(c);
    }

    /** A recovery undone before its end (partial or D-SACK undo): Disorder or Open again (tcp_try_keep_open). */
    private void leaveRecoveryUndone(TcpConnection c) {
        inRecovery = false;
        c.caState = c.sack.sackedOut() > 0 ? TcpInfo.TCP_CA_Disorder : TcpInfo.TCP_CA_Open;
        c.rack.onRecoveryEnd();
        c.undo.onOpen(c);
    }

    /**
     * Recovery entered by duplicate ACKs alone marks the first hole lost (Linux tcp_mark_head_lost), so that the
     * fast retransmit (RFC 6675 section 5 step 4.3, PRR's first segment) is of it.
     */
    private void markHeadLost(TcpConnection c) {
        PacketBuffer p = c.sack.firstHole();
        if (p == null || p.when == 0 || (p.flags & (TcpOutput.LOST | TcpOutput.RETRANS_OUT)) != 0) return;
        c.sack.setFlags(p, TcpOutput.LOST, 0);
        noteLost(p);
        if (Tcp.seqGt(p.endSeq, markedTo)) markedTo = p.endSeq; // the first hole: every hole below its end is lost
        pipe = c.sack.pipe();
    }

    /**
     * {@inheritDoc}
     *
     * <p>As Linux's tcp_rack_reo_timeout: RACK marks what is now overdue; when it found some, recovery begins (if
     * not in Recovery or Loss already) and the lost segments go within the window.
     */
    @Override
    public void onReoTimeout(TcpConnection c) {
        ackedThisAck = 0;
        update(c);
        if (!newlyLost) return;
        long allowance;
        if (!inRecovery && c.caState != TcpInfo.TCP_CA_Loss) {
            enterRecovery(c);
            CongestionWindow w = c.win;
            allowance = prr.sndcnt(0, pipe, w.ssthresh, c.mss, false); // the fast retransmit
            w.cwnd = Math.max(w.mss, pipe + allowance);
        } else {
            allowance = c.win.cwnd - pipe;
        }
        sendLoop(c, allowance);
    }

    @Override
    public void onRto(TcpConnection c) {
        if (inRecovery) c.tcp.mib.inc(MibCounter.TcpExtTCPSackRecoveryFail); // recovery ended by a timeout
        inRecovery = false;
        recoveryPoint = c.sndMax;
        c.sack.setUndoMarker(c.sndUna);
        c.caState = TcpInfo.TCP_CA_Loss;
        dupAcks = 0;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The timeout has marked every unSACKed segment lost: resends them in order within the loss window,
     * skipping SACKed ones, with SND.NXT left where it is (Linux tcp_xmit_retransmit_queue).
     */
    @Override
    public boolean resendAfterRto(TcpConnection c) {
        // the timeout took every unSACKed segment for lost (tcp_timeout_mark_lost) and cleared RETRANS_OUT
        clampHints(c.sndUna);
        markedTo = c.sndMax;
        retransmitHint = c.sndUna;
        rule3Hint = c.sndUna;
        lostRetransCursor = c.sndUna;
        lostRetransIdle = false;
        update(c);
        if (!sendLoop(c, c.win.cwnd - pipe)) {
            PacketBuffer hole = c.sack.firstHole();
            if (hole != null && hole.when != 0) retransmit(c, hole); // RFC 6298 5.4: the earliest, whatever cwnd says
        }
        return true;
    }

    @Override
    public boolean inRecovery() { return inRecovery; }

    @Override
    public int dupAcks() { return dupAcks; }

    @Override
    public boolean lostRetransmitted(TcpConnection c) { return !lostPending; }

    /** The pipe estimate of the last walk, bytes (RFC 6675 SetPipe; tests). */
    long pipe() { return pipe; }

    /**
     * RFC 6675 section 5 step 4 (Linux tcp_enter_recovery): RecoveryPoint = HighData, ssthresh from the congestion
     * control and cwnd = ssthresh (RFC 6675 4.2), TcpExtTCPSackRecovery.
     */
    private void enterRecovery(TcpConnection c) {
        c.sack.setUndoMarker(c.sndUna);
        c.undo.onRecoveryStart(c);
        CongestionWindow w = c.win;
        long flight = (c.sndMax - c.sndUna) & 0xFFFFFFFFL;
        c.cc.onLossDetected(w, flight);
        prr.init(flight);
        inRecovery = true;
        recoveryPoint = c.sndMax;
        c.caState = TcpInfo.TCP_CA_Recovery;
        c.tcp.mib.inc(MibCounter.TcpExtTCPSackRecovery);
        c.rack.onCwndReduction();
    }

    /** SND.UNA reached RecoveryPoint: cwnd = ssthresh (RFC 6937; Linux tcp_end_cwnd_reduction), state Open. */
    /** Ends recovery at its recovery point; returns true when it was undone (tcp_try_undo_recovery). */
    private boolean exitRecovery(TcpConnection c) {
        CongestionWindow w = c.win;
        boolean undone = c.undo.tryUndoRecovery(c);
        if (!undone) w.cwnd = Math.max(w.mss, w.ssthresh); // a full undo keeps its window
        inRecovery = false;
        c.cc.afterRecovery(w);
        c.caState = TcpInfo.TCP_CA_Open;
        c.rack.onRecoveryEnd();
        c.undo.onOpen(c);
        return undone;
    }

    /** Clamps the walks' cursors to SND.UNA (they never lag it by more than a window, so never wrap). */
    private void clampHints(int sndUna) {
        if (!hinted) {
            markedTo = retransmitHint = lostEnd = rule3Hint = lostRetransCursor = sndUna;
            hinted = true;
            return;
        }
        if (Tcp.seqLt(markedTo, sndUna)) markedTo = sndUna;
        if (Tcp.seqLt(retransmitHint, sndUna)) retransmitHint = sndUna;
        if (Tcp.seqLt(lostEnd, sndUna)) lostEnd = sndUna;
        if (Tcp.seqLt(rule3Hint, sndUna)) rule3Hint = sndUna;
        if (Tcp.seqLt(lostRetransCursor, sndUna)) lostRetransCursor = sndUna;
    }

    /** {@code p} became lost and not retransmitted: rule 1 must see it again (Linux moves retransmit_skb_hint). */
    private void noteLost(PacketBuffer p) {
        if (Tcp.seqLt(p.seq, retransmitHint)) retransmitHint = p.seq;
    }

    /**
     * RFC 6675 Update and SetPipe (Linux tcp_update_scoreboard with tcp_mark_lost_retrans): marks lost the holes
     * with enough SACKed above them, takes a retransmission as lost again when a segment sent a reordering window
     * after it is SACKed, and takes the pipe from the scoreboard's counts. Bounded: see the class comment.
     */
    private void update(TcpConnection c) {
        SackScoreboard sb = c.sack;
        newlyLost = false;
        PacketBuffer high = sb.highestSacked();
        anySacked = high != null;
        if (anySacked) highSackEnd = high.endSeq;
        if (RackLossDetection.enabled(c)) {
            newlyLost = c.rack.markLost(c); // RACK's time-based marks replace both rules below
        } else if (anySacked) {
            markLost(c, sb);
            if (sb.retransOutBytes() > 0) detectLostRetransmits(c, sb);
        }
        pipe = sb.pipe();
    }

    /**
     * RFC 6675 IsLost from where the last ACK stopped ({@link #markedTo}, Linux's lost_skb_hint) up to the scoreboard's
     * loss edge: every hole below it is lost. At most {@link #WALK_BUDGET} holes per ACK; the rest on later ACKs.
     */
    private void markLost(TcpConnection c, SackScoreboard sb) {
        int edge = sb.lossEdge(DUP_THRESH, c.mss, markedTo);
        if (!Tcp.seqGt(edge, markedTo)) return;
        int budget = WALK_BUDGET;
        for (PacketBuffer p = sb.nextHole(markedTo, edge); p != null && Tcp.seqLt(p.seq, edge); p = sb.nextHoleAfter(p, edge)) {
            if (budget-- == 0) return;
            if ((p.flags & TcpOutput.LOST) == 0) {
                sb.setFlags(p, TcpOutput.LOST, 0); // tcp_mark_head_lost
                newlyLost = true;
                noteLost(p);
            }
            if (Tcp.seqGt(p.endSeq, markedTo)) markedTo = p.endSeq;
        }
        markedTo = edge;
    }

    /**
     * A retransmission that a segment sent a reordering window after it overtook (it is SACKed, the retransmission
     * not) is lost again (TcpExtTCPLostRetransmit). Visits at most {@link #LOST_RETRANS_BUDGET} holes below the
     * highest SACKed segment per ACK, from where the last ACK stopped, starting over at SND.UNA at the end; after a
     * pass during which nothing sent later was SACKed, none until something is (a peer repeating its blocks costs
     * nothing here).
     */
    private void detectLostRetransmits(TcpConnection c, SackScoreboard sb) {
        long maxSackedWhen = sb.maxSackedWhen();
        if (lostRetransIdle) {
            // a retransmission is found lost only by a segment sent after it being SACKed: nothing new since
            if (maxSackedWhen == lostRetransPassWhen) return;
            lostRetransIdle = false;
            lostRetransPassWhen = maxSackedWhen;
            lostRetransCursor = c.sndUna;
        }
        long minRttUs = c.minRtt.get();
        long reoWndNs = minRttUs == MinRttFilter.NONE ? 0 : minRttUs * 1000 / 4;
        PacketBuffer p = sb.nextHole(lostRetransCursor, highSackEnd);
        for (int i = 0; i < LOST_RETRANS_BUDGET; i++) {
            if (p == null || !Tcp.seqLt(p.seq, highSackEnd)) {
                lostRetransCursor = c.sndUna; // the pass is over: another only if something newer was SACKed meanwhile
                if (lostRetransPassWhen == maxSackedWhen) lostRetransIdle = true;
                else lostRetransPassWhen = maxSackedWhen;
                return;
            }
            if ((p.flags & TcpOutput.RETRANS_OUT) != 0 && maxSackedWhen - p.when > reoWndNs) {
                sb.setFlags(p, 0, TcpOutput.RETRANS_OUT);
                c.tcp.mib.inc(MibCounter.TcpExtTCPLostRetransmit);
                newlyLost = true;
                noteLost(p);
                if (Tcp.seqGt(p.endSeq, lostEnd)) lostEnd = p.endSeq;
            }
            lostRetransCursor = p.endSeq;
            p = sb.nextHoleAfter(p, highSackEnd);
        }
    }

    /**
     * Sends by NextSeg (RFC 6675 section 4) while the allowance lasts: lost holes, then new data, then holes below
     * the highest SACKed segment not yet retransmitted. Returns whether something went.
     */
    private boolean sendLoop(TcpConnection c, long allowance) {
        long before = pipe;
        boolean sent = sendRules(c, allowance);
        if (inRecovery) prr.onSent(pipe - before); // RFC 6937 prr_out: every byte sent, new or again
        return sent;
    }

    private boolean sendRules(TcpConnection c, long allowance) {
        SackScoreboard sb = c.sack;
        int mss = c.mss;
        boolean sent = false;
        lostPending = false;
        // rule 1 (not while F-RTO sends new data): lost and not retransmitted, in order, from Linux's retransmit_skb_hint on; segments marked lost
        // since (here, by a timeout or by another detection) move the hint back
        if (sb.takeNewlyLost()) {
            if (Tcp.seqLt(sb.newlyLostLow(), retransmitHint)) retransmitHint = sb.newlyLostLow();
            if (Tcp.seqGt(sb.newlyLostHigh(), lostEnd)) lostEnd = sb.newlyLostHigh();
        }
        clampHints(c.sndUna);
        int end = Tcp.seqGt(lostEnd, markedTo) ? lostEnd : markedTo;
        int budget = WALK_BUDGET;
        for (PacketBuffer p = newDataOnly ? null : sb.nextHole(retransmitHint, end); p != null && Tcp.seqLt(p.seq, end);
                p = sb.nextHoleAfter(p, end)) {
            if ((p.flags & (TcpOutput.LOST | TcpOutput.RETRANS_OUT)) != TcpOutput.LOST) {
                if (budget-- == 0) {
                    lostPending = true; // not known: the next ACK goes on from here
                    break;
                }
                if (Tcp.seqGt(p.endSeq, retransmitHint)) retransmitHint = p.endSeq;
                continue;
            }
            if (allowance < Math.min(mss, p.endSeq - p.seq) || allowance <= 0) {
                lostPending = true;
                return sent;
            }
            int len = p.endSeq - p.seq;
            retransmit(c, p);
            c.tcp.mib.inc(MibCounter.TcpExtTCPFastRetrans);
            if (Tcp.seqGt(p.endSeq, retransmitHint)) retransmitHint = p.endSeq;
            allowance -= len;
            pipe += len;
            sent = true;
        }
        // rule 2: new data
        while (allowance >= mss || allowance > 0 && c.sendHead != null && c.sendHead.length() <= allowance) {
            int n = TcpOutput.sendNewSegment(c);
            if (n <= 0) break;
            allowance -= n;
            pipe += n;
            sent = true;
        }
        // rule 3: a hole below the highest SACKed segment, not yet retransmitted (RETRANSMITTED stays: the cursor
        // only moves on)
        if (inRecovery && anySacked && allowance >= mss && !RackLossDetection.enabled(c)) {
            budget = WALK_BUDGET;
            for (PacketBuffer p = sb.nextHole(rule3Hint, highSackEnd); p != null && allowance >= mss && Tcp.seqLt(p.seq, highSackEnd);
                    p = sb.nextHoleAfter(p, highSackEnd)) {
                if ((p.flags & (TcpOutput.RETRANS_OUT | TcpOutput.RETRANSMITTED)) != 0) {
                    if (budget-- == 0) break;
                    if (Tcp.seqGt(p.endSeq, rule3Hint)) rule3Hint = p.endSeq;
                    continue;
                }
                int len = p.endSeq - p.seq;
                retransmit(c, p);
                c.tcp.mib.inc(MibCounter.TcpExtTCPFastRetrans);
                if (Tcp.seqGt(p.endSeq, rule3Hint)) rule3Hint = p.endSeq;
                allowance -= len;
                pipe += len;
                sent = true;
            }
        }
        return sent;
    }

    /** Retransmits {@code p}; the retransmission timer restarts when it is the head (tcp_xmit_retransmit_queue). */
    private static void retransmit(TcpConnection c, PacketBuffer p) {
        TcpOutput.transmitData(c, p, true);
        if (p == c.writeQueue.peek()) c.rtoTimer.schedule(c.rtt.currentRtoUs() * 1000);
    }
}
