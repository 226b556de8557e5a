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
 * <p>Loss detection is the scoreboard's, not a duplicate ACK count (a Linux receiver compresses its duplicate ACKs
 * once SACK is on): a hole is lost when {@link #DUP_THRESH} segments, or more than (DupThresh - 1) * SMSS bytes,
 * are SACKed above it (RFC 6675 IsLost), and lost holes are marked as Linux's TCPCB_LOST ({@link TcpOutput#LOST}).
 * Recovery starts on the first lost hole (or DupThresh duplicate ACKs, RFC 6675 section 5 step 4) with
 * RecoveryPoint = the highest sequence sent, and ends when SND.UNA reaches it. Meanwhile what goes out follows
 * NextSeg (RFC 6675 section 4): rule 1, the lost holes not yet retransmitted, in sequence order; rule 2, new data;
 * rule 3, a hole below the highest SACKed segment not yet retransmitted. Rule 4 (rescue retransmission) is not
 * done. How much may go is the pipe estimate (RFC 6675 SetPipe: every unSACKed byte not lost, plus every
 * retransmitted one in flight) against cwnd = ssthresh.
 *
 * <p>A retransmission that is itself lost (a segment sent after it was SACKed, later than a quarter of the
 * minimum RTT after it: the reordering window RACK uses) is marked lost again and counted
 * (TcpExtTCPLostRetransmit), as Linux's tcp_mark_lost_retrans did. After a timeout everything unSACKed is
 * lost (Linux tcp_timeout_mark_lost) and is resent within the slow-start window skipping the SACKed segments (as
 * tcp_xmit_retransmit_queue skips TCPCB_SACKED_ACKED), rather than going back N.
 *
 * <p>Work per ACK in Recovery and Loss: one walk of the unacknowledged part of the write queue (bounded by the
 * window); nothing in Open. Allocates nothing.
 */
final class SackRecovery implements LossRecovery {
    /** RFC 6675 DupThresh (Linux's default tcp_reordering). */
    static final int DUP_THRESH = TCP_FASTRETRANS_THRESH;

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

    @Override
    public boolean onNewAck(TcpConnection c, int ack, long acked) {
        boolean wasInRecovery = inRecovery;
        dupAcks = 0;
        if (inRecovery) {
            if (Tcp.seqGeq(ack, recoveryPoint)) exitRecovery(c);
        } else if (c.caState == TcpInfo.TCP_CA_Loss) {
            if (Tcp.seqGeq(ack, recoveryPoint)) c.caState = TcpInfo.TCP_CA_Open;
        } else if (c.caState == TcpInfo.TCP_CA_Disorder && c.sack.sackedOut() == 0) {
            c.caState = TcpInfo.TCP_CA_Open;
        }
        return wasInRecovery;
    }

    @Override
    public void onDupAck(TcpConnection c, int newlySacked) {
        dupAcks++;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Runs the RFC 6675 steps on every ACK: enters recovery at the first lost hole, and in Recovery or Loss
     * marks the lost holes and sends what the pipe allows.
     */
    @Override
    public void afterAck(TcpConnection c) {
        if (c.sndUna == c.sndMax) {
            lostPending = false;
            return;
        }
        if (!inRecovery && c.caState != TcpInfo.TCP_CA_Loss) {
            if (c.sack.sackedOut() > 0 && c.caState == TcpInfo.TCP_CA_Open) c.caState = TcpInfo.TCP_CA_Disorder;
            PacketBuffer head = c.writeQueue.peek();
            if (head == null || head.when == 0 || SackScoreboard.isSacked(head)) return;
            boolean lost = dupAcks >= DUP_THRESH || c.sack.sackedOut() > 0 && c.sack.isLost(head.seq, DUP_THRESH, c.mss);
            if (!lost) return;
            enterRecovery(c);
            update(c);
            fastRetransmit(c);
        } else {
            update(c);
        }
        sendLoop(c);
    }

    /**
     * RFC 6675 section 5 step 4.3: the first segment presumed lost goes at once, whatever the pipe (Linux's PRR
     * lets the fast retransmit go on the ACK that enters recovery).
     */
    private void fastRetransmit(TcpConnection c) {
        for (PacketBuffer p = c.writeQueue.peek(); p != null && p.when != 0; p = p.next) {
            if (SackScoreboard.isSacked(p)) continue;
            if ((p.flags & TcpOutput.RETRANS_OUT) != 0) return;
            p.flags |= TcpOutput.LOST; // entered by duplicate ACKs alone: the head is lost (tcp_mark_head_lost)
            int len = p.endSeq - p.seq;
            retransmit(c, p);
            c.tcp.mib.inc(MibCounter.TcpExtTCPFastRetrans);
            pipe += len;
            return;
        }
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
        update(c);
        if (!sendLoop(c)) {
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
     * control and cwnd = ssthresh (RFC 6675 4.2), TcpExtTCPSACKRecovery.
     */
    private void enterRecovery(TcpConnection c) {
        c.sack.setUndoMarker(c.sndUna);
        CongestionWindow w = c.win;
        c.cc.onLossDetected(w, (c.sndMax - c.sndUna) & 0xFFFFFFFFL);
        w.cwnd = w.ssthresh;
        inRecovery = true;
        recoveryPoint = c.sndMax;
        c.caState = TcpInfo.TCP_CA_Recovery;
        c.tcp.mib.inc(MibCounter.TcpExtTCPSACKRecovery);
    }

    /** SND.UNA reached RecoveryPoint: cwnd = ssthresh (RFC 6675 4.2 left it there), state Open. */
    private void exitRecovery(TcpConnection c) {
        CongestionWindow w = c.win;
        w.cwnd = Math.max(w.mss, Math.min(w.cwnd, w.ssthresh));
        inRecovery = false;
        c.cc.afterRecovery(w);
        c.caState = TcpInfo.TCP_CA_Open;
    }

    /**
     * One walk of the unacknowledged write queue (Linux tcp_update_scoreboard with tcp_mark_lost_retrans, RFC 6675
     * SetPipe): marks lost the holes with enough SACKed above them, takes a retransmission as lost again when a
     * segment sent a reordering window after it is SACKed, and sums the pipe.
     */
    private void update(TcpConnection c) {
        long sackedSegs = c.sack.sackedOut();
        long sackedBytes = c.sack.sackedBytes();
        long maxSackedWhen = 0;
        anySacked = false;
        for (PacketBuffer p = c.writeQueue.peek(); p != null && p.when != 0; p = p.next) {
            if (SackScoreboard.isSacked(p)) {
                if (p.when > maxSackedWhen) maxSackedWhen = p.when;
                highSackEnd = p.endSeq;
                anySacked = true;
            }
        }
        long minRttUs = c.minRtt.get();
        long reoWndNs = minRttUs == MinRttFilter.NONE ? 0 : minRttUs * 1000 / 4;
        long seenSegs = 0;
        long seenBytes = 0;
        long pipeBytes = 0;
        boolean lossRegion = true;
        for (PacketBuffer p = c.writeQueue.peek(); p != null && p.when != 0; p = p.next) {
            int len = p.endSeq - p.seq;
            if (SackScoreboard.isSacked(p)) {
                seenSegs += TcpOutput.segmentCount(c, p);
                seenBytes += len;
                continue;
            }
            if ((p.flags & TcpOutput.RETRANS_OUT) != 0 && maxSackedWhen - p.when > reoWndNs) {
                // a segment sent after this retransmission arrived and it did not: lost again
                p.flags &= ~TcpOutput.RETRANS_OUT;
                c.tcp.mib.inc(MibCounter.TcpExtTCPLostRetransmit);
            }
            if (lossRegion && (p.flags & TcpOutput.LOST) == 0) {
                long segsAbove = sackedSegs - seenSegs;
                long bytesAbove = sackedBytes - seenBytes;
                if (segsAbove >= DUP_THRESH || bytesAbove > (long) (DUP_THRESH - 1) * c.mss) {
                    p.flags |= TcpOutput.LOST; // tcp_mark_head_lost
                } else {
                    lossRegion = false; // IsLost is monotone: nothing above is lost by this rule
                }
            }
            boolean lost = (p.flags & TcpOutput.LOST) != 0;
            boolean retransOut = (p.flags & TcpOutput.RETRANS_OUT) != 0;
            if (!lost) pipeBytes += len;
            if (retransOut) pipeBytes += len;
        }
        pipe = pipeBytes;
    }

    /** Bytes that may be sent now: cwnd - pipe (RFC 6675 section 5 step C). */
    long sendAllowance(TcpConnection c) {
        return c.win.cwnd - pipe;
    }

    /**
     * Sends by NextSeg (RFC 6675 section 4) while the allowance lasts: lost holes, then new data, then holes below
     * the highest SACKed segment not yet retransmitted. Returns whether something went.
     */
    private boolean sendLoop(TcpConnection c) {
        int mss = c.mss;
        long allowance = sendAllowance(c);
        boolean sent = false;
        lostPending = false;
        // rule 1: lost and not retransmitted, in order
        for (PacketBuffer p = c.writeQueue.peek(); p != null && p.when != 0; p = p.next) {
            if (SackScoreboard.isSacked(p) || (p.flags & (TcpOutput.LOST | TcpOutput.RETRANS_OUT)) != TcpOutput.LOST) {
                continue;
            }
            if (allowance < Math.min(mss, p.endSeq - p.seq) || allowance <= 0) {
                lostPending = true;
                return sent;
            }
            int len = p.endSeq - p.seq;
            retransmit(c, p);
            c.tcp.mib.inc(MibCounter.TcpExtTCPFastRetrans);
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
        // rule 3: a hole below the highest SACKed segment, not yet retransmitted
        if (inRecovery && anySacked && allowance >= mss) {
            for (PacketBuffer p = c.writeQueue.peek(); p != null && p.when != 0 && allowance >= mss; p = p.next) {
                if (!Tcp.seqLt(p.seq, highSackEnd)) break;
                if (SackScoreboard.isSacked(p) || (p.flags & (TcpOutput.RETRANS_OUT | TcpOutput.RETRANSMITTED)) != 0) {
                    continue;
                }
                int len = p.endSeq - p.seq;
                retransmit(c, p);
                c.tcp.mib.inc(MibCounter.TcpExtTCPFastRetrans);
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
