package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.socket.TcpInfo;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;

/**
 * RACK-TLP loss detection (RFC 8985; Linux tcp_recovery.c and tcp_output.c's tail loss probe; gVisor rack.go), used
 * with SACK when net.ipv4.tcp_recovery has bit {@link #TCP_RACK_LOSS_DETECTION} (Linux's default).
 *
 * <p>RACK (RFC 8985 section 6): every segment delivered, SACKed or cumulatively acknowledged, and not ambiguous (a
 * retransmission whose RTT is below the minimum RTT), advances RACK.xmit_ts and RACK.end_seq to the most recently
 * sent delivered one and sets RACK.rtt to its RTT ({@link #advance}). A segment sent before it and not delivered is
 * lost once RACK.rtt + RACK.reo_wnd has passed since it was sent ({@link #detectLoss}); when one is not overdue yet,
 * the reordering timer fires when it would be. The reordering window is min(RACK.min_RTT / 4 * reo_wnd_mult, SRTT),
 * 0 before any reordering was seen in recovery or with DupThresh segments SACKed (Linux tcp_rack_reo_wnd); a D-SACK
 * widens it one step per round trip, for 16 recoveries (tcp_rack_update_reo_wnd, RFC 8985 6.2 step 4). Lost
 * segments are marked in the write queue as Linux's TCPCB_LOST ({@link TcpOutput#LOST}); {@link SackRecovery}
 * enters recovery on them and resends them. A retransmission found lost again counts TcpExtTCPLostRetransmit.
 *
 * <p>TLP (RFC 8985 section 7; Linux tcp_schedule_loss_probe, tcp_send_loss_probe, tcp_process_tlp_ack): in the Open
 * state with data outstanding, the probe timer is armed at PTO = 2 * SRTT (+ {@link #WC_DEL_ACK_NS} with one
 * segment in flight, else + {@link #TIMEOUT_MIN_NS}; 1 s before an RTT sample), no later than the RTO. When it fires
 * it sends one new segment if the peer's window allows, else retransmits the last one sent unless its previous
 * transmission is still in the host (TcpExtTCPSpuriousRtxHostQueues, as skb_still_in_host_queue) (TcpExtTCPLossProbes), records TLP.end_seq = SND.NXT, and restarts the RTO; one probe is outstanding at a time.
 * An ACK beyond TLP.end_seq of a retransmitted probe without a D-SACK of it shows a tail loss the probe repaired:
 * ssthresh from the congestion control and cwnd = ssthresh at once (Linux's CWR episode,
 * TcpExtTCPLossProbeRecovery).
 *
 * <p>The reordering timer and the probe timer share {@link TcpConnection#lossTimer}, as Linux's share
 * icsk_retransmit_timer; the RTO stays armed beside it. One instance per connection, used under the connection lock;
 * allocates nothing. Times are ns on the namespace clock, RTTs µs.
 */
final class RackLossDetection {
    /** net.ipv4.tcp_recovery bit: RACK loss detection (Linux TCP_RACK_LOSS_DETECTION). */
    static final int TCP_RACK_LOSS_DETECTION = 0x1;
    /** net.ipv4.tcp_recovery bit: no D-SACK adaptation of the reordering window (TCP_RACK_STATIC_REO_WND). */
    static final int TCP_RACK_STATIC_REO_WND = 0x2;
    /** net.ipv4.tcp_recovery bit: a reordering window even with DupThresh segments SACKed (TCP_RACK_NO_DUPTHRESH). */
    static final int TCP_RACK_NO_DUPTHRESH = 0x4;
    /** Recoveries a widened reordering window lasts (Linux TCP_RACK_RECOVERY_THRESH). */
    static final int TCP_RACK_RECOVERY_THRESH = 16;
    /** RFC 8985 WCDelAckT: the worst-case delayed ACK a lone segment may wait for (Linux TCP_RTO_MIN), ns. */
    static final long WC_DEL_ACK_NS = 200_000_000L;
    /**
     * Slack added to a PTO of several segments and to the reordering timer (Linux TCP_TIMEOUT_MIN, two jiffies at
     * jnet's HZ=1000 timer wheel), ns.
     */
    static final long TIMEOUT_MIN_NS = 2_000_000L;
    /** PTO before any RTT sample (Linux TCP_TIMEOUT_INIT), ns. */
    static final long TIMEOUT_INIT_NS = 1_000_000_000L;

    private static final int TIMER_NONE = 0, TIMER_REO = 1, TIMER_TLP = 2;

    /** RACK.xmit_ts: send time of the most recently sent segment delivered, ns; valid when {@link #haveSample}. */
    private long xmitNs;
    /** RACK.end_seq: its end. */
    private int endSeq;
    private boolean haveSample;
    /** RACK.rtt of the last segment that advanced RACK, ns. */
    private long rttNs;
    /** RACK advanced since the last loss detection (Linux rack.advanced). */
    private boolean advanced;
    /** RACK.reo_wnd_mult (Linux reo_wnd_steps). */
    private int reoWndMult = 1;
    /** Recoveries left before the multiplier returns to 1 (Linux reo_wnd_persist). */
    private int reoWndPersist;
    /** A D-SACK was received since the last adaptation (Linux rack.dsack_seen). */
    private boolean dsackSeen;
    /** Segments delivered when the window was last widened (Linux rack.last_delivered). */
    private long lastDelivered;
    /** Reordering events seen (Linux reord_seen). */
    private long reordSeen;
    /** The current ACK time, ns. */
    private long nowNs;

    /** TLP.end_seq (Linux tlp_high_seq): SND.NXT when the outstanding probe went; valid when {@link #tlpActive}. */
    private int tlpHighSeq;
    private boolean tlpActive;
    /** The outstanding probe was a retransmission (Linux tlp_retrans), of [{@link #tlpSeq}, {@link #tlpHighSeq}). */
    private boolean tlpRetrans;
    private int tlpSeq;
    /** What {@link TcpConnection#lossTimer} is armed for. */
    private int timerKind = TIMER_NONE;

    /** Whether RACK does loss detection on {@code c}: SACK in use and net.ipv4.tcp_recovery bit 0x1. */
    static boolean enabled(TcpConnection c) {
        return c.sackOk && (c.tcp.sysctl.tcpRecovery.intValue() & TCP_RACK_LOSS_DETECTION) != 0;
    }

    // ------------------------------------------------------------------ RACK

    /** An ACK arrived at {@code nowNs}: the time delivered segments are measured against. */
    void beginAck(long nowNs) {
        this.nowNs = nowNs;
    }

    /**
     * {@code seg} (sent at {@code seg.when}) is delivered by the current ACK, newly SACKed or cumulatively
     * acknowledged (RFC 8985 6.2 steps 1-2; Linux tcp_rack_advance).
     */
    void advance(PacketBuffer seg) {
        if (seg.when == 0) return;
        long rtt = nowNs - seg.when;
        // a retransmission ACKed sooner than the minimum RTT may be the original's ACK: ambiguous
        if ((seg.flags & TcpOutput.RETRANSMITTED) != 0 && minRttUs != MinRttFilter.NONE && rtt < minRttUs * 1000) return;
        advanced = true;
        rttNs = Math.max(0, rtt);
        if (!haveSample || sentAfter(seg.when, seg.endSeq, xmitNs, endSeq)) {
            xmitNs = seg.when;
            endSeq = seg.endSeq;
            haveSample = true;
        }
    }

    /** The connection's minimum RTT at the start of the ACK, µs ({@link MinRttFilter#NONE} when unknown). */
    private long minRttUs = MinRttFilter.NONE;

    /** Sets what {@link #advance} compares a retransmission's RTT with (the windowed minimum RTT, µs). */
    void setMinRtt(long us) { minRttUs = us; }

    /** A reordering event was seen (Linux tcp_check_sack_reordering's reord_seen++). */
    void onReordering() { reordSeen++; }

    /** Reordering events seen (tests). */
    long reorderingSeen() { return reordSeen; }

    /** The current multiplier of the reordering window (tests). */
    int reoWndMult() { return reoWndMult; }

    /** A D-SACK was accepted (Linux tcp_dsack_seen sets rack.dsack_seen). */
    void onDsack() { dsackSeen = true; }

    /**
     * Once per ACK after the cumulative part (RFC 8985 6.2 step 4; Linux tcp_rack_update_reo_wnd): a D-SACK seen a
     * round trip after the last widening widens the window one step and keeps it for 16 recoveries.
     *
     * @param priorDelivered segments delivered when the most recently sent segment this ACK covers was sent (Linux
     *        rs->prior_delivered), 0 without one
     * @param delivered segments delivered so far (Linux tp->delivered)
     */
    void updateReoWnd(TcpConnection c, long priorDelivered, long delivered) {
        if ((c.tcp.sysctl.tcpRecovery.intValue() & TCP_RACK_STATIC_REO_WND) != 0 || priorDelivered == 0) return;
        if (priorDelivered < lastDelivered) dsackSeen = false; // less than a round trip since the last widening
        if (dsackSeen) {
            reoWndMult = Math.min(0xFF, reoWndMult + 1);
            dsackSeen = false;
            lastDelivered = delivered;
            reoWndPersist = TCP_RACK_RECOVERY_THRESH;
        } else if (reoWndPersist == 0) {
            reoWndMult = 1;
        }
    }

    /** A recovery ended without undo (Linux tcp_try_undo_recovery): one fewer left for a widened window. */
    void onRecoveryEnd() {
        if (reoWndPersist > 0) reoWndPersist--;
    }

    /** RACK.reo_wnd, ns (RFC 8985 6.2 step 4; Linux tcp_rack_reo_wnd). */
    long reoWndNs(TcpConnection c) {
        if (reordSeen == 0) {
            if (c.caState >= TcpInfo.TCP_CA_Recovery) return 0;
            if (c.sack.sackedOut() >= SackRecovery.DUP_THRESH
                    && (c.tcp.sysctl.tcpRecovery.intValue() & TCP_RACK_NO_DUPTHRESH) == 0) {
                return 0;
            }
        }
        long minRtt = c.minRtt.get();
        long srtt = c.rtt.srttUs;
        long wnd = minRtt == MinRttFilter.NONE ? srtt : Math.min(minRtt * reoWndMult / 4, srtt);
        return Math.max(0, wnd) * 1000;
    }

    /**
     * RFC 8985 6.2 step 5 (Linux tcp_rack_mark_lost): when RACK advanced, marks lost every segment not delivered that
     * was sent before RACK.xmit_ts and RACK.rtt + reo_wnd ago, and arms the reordering timer for the first of the
     * others to become overdue, plus {@link #TIMEOUT_MIN_NS}. One walk of the sent part of the write queue.
     *
     * @return whether a segment was newly marked lost
     */
    boolean markLost(TcpConnection c) {
        if (!advanced) return false;
        advanced = false;
        return detectLoss(c, c.tcp.ns.clock().nanoTime());
    }

    private boolean detectLoss(TcpConnection c, long now) {
        if (!haveSample) return false;
        long reoWnd = reoWndNs(c);
        long wait = 0;
        boolean marked = false;
        SackScoreboard sb = c.sack;
        // the holes only (SACKed segments are skipped in O(log n)), at most SCAN_BUDGET of them per call: a walk
        // cut short goes on from there next time, so a peer's many tiny holes cost bounded work per ACK
        int from = scanFrom != NO_SCAN && Tcp.seqGt(scanFrom, c.sndUna) ? scanFrom : c.sndUna;
        int budget = SCAN_BUDGET;
        PacketBuffer p = sb.nextHole(from);
        for (; p != null && p.when != 0; p = sb.nextHoleAfter(p)) {
            if (budget-- == 0) break;
            int f = p.flags;
            if ((f & (TcpOutput.LOST | TcpOutput.RETRANS_OUT)) == TcpOutput.LOST) continue; // lost, not resent yet
            if (!sentAfter(xmitNs, endSeq, p.when, p.endSeq)) continue;
            // a retransmission sent in the same instant as RACK's segment went after it, whatever its sequence
            if ((f & TcpOutput.RETRANSMITTED) != 0 && p.when == xmitNs) continue;
            long remaining = rttNs + reoWnd - (now - p.when);
            if (remaining <= 0) {
                if ((f & TcpOutput.RETRANS_OUT) != 0) c.tcp.mib.inc(MibCounter.TcpExtTCPLostRetransmit);
                sb.setFlags(p, TcpOutput.LOST, TcpOutput.RETRANS_OUT);
                marked = true;
            } else if (remaining > wait) {
                wait = remaining;
            }
        }
        scanFrom = p != null && p.when != 0 ? p.seq : NO_SCAN;
        if (wait > 0) {
            // Linux tcp_rack_mark_lost: the reordering timer waits TCP_TIMEOUT_MIN past the earliest overdue time
            timerKind = TIMER_REO;
            c.lossTimer.schedule(wait + TIMEOUT_MIN_NS);
        } else if (timerKind == TIMER_REO) {
            c.lossTimer.cancel();
            timerKind = TIMER_NONE;
        }
        return marked;
    }

    /** Holes one loss detection looks at, at most (the rest on the next call). */
    static final int SCAN_BUDGET = 256;
    private static final int NO_SCAN = Integer.MIN_VALUE;
    /** Where a detection cut short by {@link #SCAN_BUDGET} goes on, or {@link #NO_SCAN}. */
    private int scanFrom = NO_SCAN;

    /** Linux tcp_rack_sent_after: (t1, seq1) was sent after (t2, seq2). */
    private static boolean sentAfter(long t1, int seq1, long t2, int seq2) {
        return t1 > t2 || t1 == t2 && Tcp.seqGt(seq1, seq2);
    }

    // ------------------------------------------------------------------ TLP

    /**
     * The tail loss probe's part of an ACK (RFC 8985 7.4; Linux tcp_process_tlp_ack), after the cumulative part and
     * before the recovery's.
     *
     * @param advancedUna the ACK advanced SND.UNA
     * @param newlySacked segments it newly SACKed
     * @param pure it carried no data, window update, SYN or FIN (Linux: not FLAG_NOT_DUP)
     */
    void processTlpAck(TcpConnection c, int ack, boolean advancedUna, int newlySacked, boolean pure) {
        if (!tlpActive || Tcp.seqLt(ack, tlpHighSeq)) return;
        if (!tlpRetrans) {
            tlpActive = false; // a probe of new data was acknowledged
        } else if (c.sack.dsackCovers(tlpSeq, tlpHighSeq)) {
            tlpActive = false; // the original and the probe both arrived: no loss
        } else if (Tcp.seqGt(ack, tlpHighSeq)) {
            // the probe repaired a loss: one congestion window reduction (Linux's CWR episode, ended at once)
            tlpActive = false;
            if (c.caState == TcpInfo.TCP_CA_Open || c.caState == TcpInfo.TCP_CA_Disorder) {
                CongestionWindow w = c.win;
                c.cc.onLossDetected(w, (c.sndMax - c.sndUna) & 0xFFFFFFFFL);
                w.cwnd = Math.max(w.mss, w.ssthresh);
                c.cc.afterRecovery(w);
            }
            c.tcp.mib.inc(MibCounter.TcpExtTCPLossProbeRecovery);
        } else if (!advancedUna && newlySacked == 0 && pure) {
            tlpActive = false; // a pure duplicate ACK: the original and the probe both arrived
        }
    }

    /**
     * After an ACK that advanced SND.UNA or SACKed data, or after new data went out (Linux tcp_set_xmit_timer and
     * tcp_write_xmit's tcp_schedule_loss_probe): arms the probe timer when a probe may be needed, unless the
     * reordering timer is pending; cancels the loss timer when nothing is outstanding.
     *
     * @param advancingRto the RTO was just restarted (an ACK), so the PTO is bounded by a whole RTO
     */
    void scheduleLossProbe(TcpConnection c, boolean advancingRto) {
        if (c.sndUna == c.sndMax) {
            cancelTimer(c);
            return;
        }
        if (timerKind == TIMER_REO && c.lossTimer.isPending()) return;
        int earlyRetrans = c.tcp.sysctl.tcpEarlyRetrans.intValue();
        if (earlyRetrans != 3 && earlyRetrans != 4 || !c.sackOk || !mayProbe(c.state) || c.caState != TcpInfo.TCP_CA_Open) {
            if (timerKind == TIMER_TLP) cancelTimer(c);
            return;
        }
        long srttUs = c.rtt.srttUs;
        long pto;
        if (srttUs > 0) {
            pto = 2 * srttUs * 1000;
            long inFlight = (c.sndNxt - c.sndUna) & 0xFFFFFFFFL;
            pto += inFlight <= c.mss ? WC_DEL_ACK_NS : TIMEOUT_MIN_NS;
        } else {
            pto = TIMEOUT_INIT_NS;
        }
        // no later than the RTO would fire (Linux tcp_rto_delta_us; the RTO itself after an ACK restarted it)
        long rtoNs = c.rtt.currentRtoUs() * 1000;
        if (!advancingRto && c.rtoTimer.isPending()) {
            rtoNs = Math.min(rtoNs, c.rtoTimer.deadline() - c.tcp.ns.clock().nanoTime());
        }
        pto = Math.min(pto, Math.max(1, rtoNs));
        timerKind = TIMER_TLP;
        c.lossTimer.schedule(pto);
    }

    /**
     * States in which data (or a FIN) can be outstanding after the handshake: a tail is probed in all of them, the FIN
     * of a closing connection included (Linux tcp_schedule_loss_probe has no state test).
     */
    private static boolean mayProbe(TcpState s) {
        return switch (s) {
            case ESTABLISHED, CLOSE_WAIT, FIN_WAIT_1, CLOSING, LAST_ACK -> true;
            default -> false;
        };
    }

    private void cancelTimer(TcpConnection c) {
        if (timerKind != TIMER_NONE) c.lossTimer.cancel();
        timerKind = TIMER_NONE;
    }

    /** A recovery reduces the window: an outstanding probe is no longer watched (tcp_init_cwnd_reduction). */
    void onCwndReduction() { tlpActive = false; }

    /** The retransmission timer expired: no probe is outstanding any more, nor a loss timer (tcp_retransmit_timer). */
    void onRto(TcpConnection c) {
        tlpActive = false;
        cancelTimer(c);
    }

    /** The loss timer expired (Linux tcp_rack_reo_timeout or tcp_send_loss_probe). */
    void onTimer(TcpConnection c) {
        int kind = timerKind;
        timerKind = TIMER_NONE;
        if (c.lossTimer.isPending() || c.state == TcpState.CLOSED || c.sndUna == c.sndMax) return;
        if (kind == TIMER_REO) {
            if (!enabled(c)) return;
            advanced = true; // the walk runs whether or not an ACK advanced RACK
            c.recovery.onReoTimeout(c);
        } else if (kind == TIMER_TLP) {
            sendLossProbe(c);
        }
    }

    /** Time-based loss detection for the reordering timer (Linux tcp_rack_detect_loss from tcp_rack_reo_timeout). */
    boolean detectLossNow(TcpConnection c) {
        advanced = false;
        return detectLoss(c, c.tcp.ns.clock().nanoTime());
    }

    /**
     * The retransmission timer expired while the probe timer is due too: Linux has one timer for both, and a PTO
     * capped at the RTO (a lone segment's PTO adds WCDelAckT, tcp_schedule_loss_probe) fires as a probe, not as an
     * RTO. Sends the probe and returns true when one went (the RTO then restarts from it); false leaves the RTO to
     * run.
     */
    boolean probeInsteadOfRto(TcpConnection c) {
        if (timerKind != TIMER_TLP || !c.lossTimer.isPending()) return false;
        if (c.lossTimer.deadline() - c.tcp.ns.clock().nanoTime() > TIMER_SLACK_NS) return false;
        c.lossTimer.cancel();
        timerKind = TIMER_NONE;
        return sendLossProbe(c);
    }

    /** How far apart two deadlines may be and still count as the same expiry: half a timer-wheel tick, ns. */
    private static final long TIMER_SLACK_NS = 500_000L;

    /**
     * RFC 8985 7.3 (Linux tcp_send_loss_probe): one new segment if the window allows, else the last one again.
     * Returns whether a probe went.
     */
    private boolean sendLossProbe(TcpConnection c) {
        if (tlpActive || c.caState != TcpInfo.TCP_CA_Open) return false; // one probe at a time; the RTO stays armed
        TcpProtocol tcp = c.tcp;
        boolean sent = false;
        if (c.sendHead != null && TcpOutput.sendNewSegment(c) > 0) {
            tlpRetrans = false;
            sent = true;
        } else {
            PacketBuffer last = c.sack.lastSent();
            if (last != null && last.when != 0 && !SackScoreboard.isSacked(last) && Tcp.seqGt(last.endSeq, c.sndUna)) {
                if (last.cloned()) {
                    // the last transmission has not left the host (or the receiver holds it): not lost (Linux
                    // skb_still_in_host_queue); the RTO stays armed
                    tcp.mib.inc(MibCounter.TcpExtTCPSpuriousRtxHostQueues);
                    return false;
                }
                int len = last.length();
                if (len > c.mss) {
                    int pcount = (len + c.mss - 1) / c.mss;
                    TcpOutput.split(c, last, (pcount - 1) * c.mss); // probe with the last MSS only
                    last = last.next;
                }
                TcpOutput.transmitData(c, last, true);
                tlpRetrans = true;
                tlpSeq = last.seq;
                sent = true;
            }
        }
        if (!sent) return false;
        tlpActive = true;
        tlpHighSeq = c.sndNxt;
        if (!tlpRetrans) tlpSeq = tlpHighSeq;
        tcp.mib.inc(MibCounter.TcpExtTCPLossProbes);
        c.rtoTimer.schedule(c.rtt.currentRtoUs() * 1000); // the RTO restarts from the probe
        return true;
    }

    /** A probe is outstanding (tests). */
    boolean probeOutstanding() { return tlpActive; }
}
