package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.socket.Errno;
import io.jnet.stack.MibCounter;

/**
 * TCP timer handlers (Linux tcp_timer.c): retransmission (RFC 6298 5.4-5.7, with SYN and SYN-ACK
 * retries), delayed ACK, zero-window probes (persist, with backoff), keepalive and the FIN-WAIT-2
 * timeout of orphaned sockets. They run with the connection locked.
 */
final class TcpTimers {
    private TcpTimers() {}

    static void run(TcpConnection c, int flags) {
        try {
            if ((flags & TcpConnection.DEFER_RTO) != 0) retransmitTimer(c);
            if ((flags & TcpConnection.DEFER_DELACK) != 0) delackTimer(c);
            if ((flags & TcpConnection.DEFER_PERSIST) != 0) persistTimer(c);
            if ((flags & TcpConnection.DEFER_KEEPALIVE) != 0) keepaliveTimer(c);
            if ((flags & TcpConnection.DEFER_FINWAIT2) != 0) finWait2Timer(c);
            if ((flags & TcpConnection.DEFER_LOSS) != 0) c.rack.onTimer(c);
            if ((flags & TcpConnection.DEFER_FRIEND_DATA) != 0) TcpFriends.closedFriendGotData(c);
        } catch (RuntimeException e) {
            c.tcp.ns.reportInternalError(e);
        }
    }

    private static void retransmitTimer(TcpConnection c) {
        if (c.rtoTimer.isPending()) return; // re-armed meanwhile
        TcpProtocol tcp = c.tcp;
        switch (c.state) {
            case CLOSED, LISTEN -> { return; }
            case SYN_SENT -> {
                // tcp_write_timeout: tcp_syn_retries plus tcp_syn_linear_timeouts retransmissions at most, and no
                // longer than tcp_syn_retries would take with doubling from the initial RTO (retransmits_timed_out)
                int retries = tcp.sysctl.tcpSynRetries.intValue();
                int linear = tcp.sysctl.tcpSynLinearTimeouts.intValue();
                if (c.retransmits >= retries + linear
                        || retransmitsTimedOut(c, retries, RttEstimator.INITIAL_RTO_US)) {
                    int err = c.softError != 0 ? c.softError : Errno.ETIMEDOUT.number();
                    tcp.mib.inc(MibCounter.TcpExtTCPAbortOnTimeout);
                    TcpOutput.abort(c, err, false);
                    return;
                }
                // tcp_retransmit_timer: the first tcp_syn_linear_timeouts retransmissions keep the RTO, later ones double it
                if (++c.retransmits > linear) c.rtt.backoff++;
                tcp.mib.inc(MibCounter.TcpRetransSegs);
                c.totalRetrans++;
                TcpOutput.sendSyn(c, false);
                c.rtoTimer.schedule(rtoClampedNs(c));
                return;
            }
            case SYN_RECEIVED -> {
                // a listener's request: reqsk_timer_handler with syn_ack_recalc, retransmits as num_timeout
                boolean expire, resend = true;
                if (c.parent == null) {
                    expire = c.retransmits >= tcp.sysctl.tcpSynRetries.intValue();
                } else {
                    int max = tcp.sysctl.tcpSynackRetries.intValue();
                    int defer = c.parent.deferAcceptRetrans();
                    expire = c.retransmits >= max;
                    if (defer != 0) {
                        // TCP_DEFER_ACCEPT: a request the peer ACKed lives out the deferral too, without SYN-ACKs
                        // but for the deferral's last timeout, the peer's last chance to complete it
                        expire &= !c.reqAcked || c.retransmits >= defer;
                        resend = !c.reqAcked || c.retransmits >= defer - 1;
                    }
                }
                c.retransmits++;
                if (expire) {
                    tcp.mib.inc(MibCounter.TcpExtTCPAbortOnTimeout);
                    TcpOutput.abort(c, Errno.ETIMEDOUT.number(), false);
                    return;
                }
                c.rtt.backoff++;
                if (resend) {
                    tcp.mib.inc(MibCounter.TcpRetransSegs);
                    c.totalRetrans++;
                    TcpOutput.sendSyn(c, true);
                }
                c.rtoTimer.schedule(c.rtt.currentRtoUs() * 1000);
                return;
            }
            default -> { }
        }
        PacketBuffer head = c.writeQueue.peek();
        if (head == null || head.when == 0 && c.sndUna == c.sndMax) return; // nothing outstanding
        if (c.rack.probeInsteadOfRto(c)) return; // the PTO, capped at the RTO, fires as a probe
        int limit = tcp.sysctl.tcpRetries2.intValue();
        if (c.userClosed) {
            int orphan = tcp.sysctl.tcpOrphanRetries.intValue();
            limit = orphan == 0 ? 8 : orphan;
        }
        // tcp_write_timeout: with TCP_USER_TIMEOUT the time since the first retransmission decides, not the count
        boolean expired = c.userTimeoutMs > 0 && !c.userClosed ? retransmitsTimedOut(c, limit, 0) : c.retransmits >= limit;
        if (expired) {
            tcp.mib.inc(MibCounter.TcpExtTCPAbortOnTimeout);
            int err = c.softError != 0 ? c.softError : Errno.ETIMEDOUT.number();
            TcpOutput.abort(c, err, false); // Linux tcp_write_err: no RST
            return;
        }
        if (c.retransmits++ == 0) c.retransStampNs = tcp.ns.clock().nanoTime(); // tcp_retransmit_skb: retrans_stamp
        tcp.mib.inc(MibCounter.TcpExtTCPTimeouts);
        if (c.recovery.inRecovery() || c.retransmits == 1) tcp.mib.inc(MibCounter.TcpExtTCPSlowStartRetrans);
        // before the loss window: prior_cwnd, prior_ssthresh, and whether this window's cut is still to be made
        boolean newEpisode = c.undo.onRto(c, c.caState); // (tcp_enter_loss)
        c.cc.onRto(c.win, (c.sndMax - c.sndUna) & 0xFFFFFFFFL, newEpisode);
        c.recovery.onRto(c);
        c.rack.onRto(c);
        markLost(c);
        c.rtt.backoff++;
        if (c.recovery.resendAfterRto(c)) {
            c.rtoTimer.schedule(rtoClampedNs(c));
            return;
        }
        // go back N: resend from SND.UNA within the (now one-segment) congestion window
        c.sendHead = head;
        c.sndNxt = c.sndUna;
        TcpOutput.xmit(c);
        if (c.sndNxt == c.sndUna && head == c.writeQueue.peek()) {
            // window closed: the head could not go; force it out as RFC 6298 5.4 requires
            TcpOutput.transmitData(c, head, true);
            c.sendHead = head.next;
            c.sndNxt = head.endSeq;
        }
        c.rtoTimer.schedule(rtoClampedNs(c));
    }

    /**
     * Linux retransmits_timed_out: true once the time since the first retransmitted segment was sent
     * ({@link TcpConnection#retransStampNs}) reaches TCP_USER_TIMEOUT when set, else what {@code boundary}
     * retransmissions take when the RTO starts at {@code rtoBaseUs} and doubles up to 120 s (tcp_model_timeout).
     * False before the first retransmission.
     */
    static boolean retransmitsTimedOut(TcpConnection c, int boundary, long rtoBaseUs) {
        if (c.retransmits == 0) return false;
        long elapsedNs = c.tcp.ns.clock().nanoTime() - c.retransStampNs;
        long timeoutNs = c.userTimeoutMs > 0 ? c.userTimeoutMs * 1_000_000L : modelTimeoutUs(boundary, rtoBaseUs) * 1000;
        return elapsedNs >= timeoutNs;
    }

    /**
     * The backed-off RTO, not beyond what is left of TCP_USER_TIMEOUT since the first retransmission; 1 ns when
     * none is left (Linux tcp_clamp_rto_to_user_timeout).
     */
    static long rtoClampedNs(TcpConnection c) {
        long rto = c.rtt.currentRtoUs() * 1000;
        if (c.userTimeoutMs == 0) return rto;
        long remaining = c.userTimeoutMs * 1_000_000L - (c.tcp.ns.clock().nanoTime() - c.retransStampNs);
        return remaining <= 0 ? 1 : Math.min(rto, remaining);
    }

    /** Linux tcp_model_timeout: how long {@code boundary} timeouts take, doubling from {@code rtoBaseUs}, capped at 120 s. */
    static long modelTimeoutUs(int boundary, long rtoBaseUs) {
        int thresh = 63 - Long.numberOfLeadingZeros(RttEstimator.MAX_RTO_US / rtoBaseUs); // ilog2
        if (boundary <= thresh) return ((2L << boundary) - 1) * rtoBaseUs;
        return ((2L << thresh) - 1) * rtoBaseUs + (long) (boundary - thresh) * RttEstimator.MAX_RTO_US;
    }

    /**
     * A timeout takes everything sent and unacknowledged for lost, retransmissions included, whose marks
     * are cleared (Linux tcp_timeout_mark_lost): they are counted again as they go out once more.
     */
    private static void markLost(TcpConnection c) {
        // with SACK, SACKed segments are not lost (tcp_mark_skb_lost), unless the peer reneged: the first
        // unacknowledged segment is SACKed, and every mark goes
        if (c.sackOk) c.sack.checkReneging(c.tcp.mib);
        for (PacketBuffer p = c.writeQueue.peek(); p != null && p.when != 0; p = p.next) {
            if ((p.flags & SackScoreboard.SACKED_ACKED) != 0) c.sack.setFlags(p, 0, TcpOutput.RETRANS_OUT);
            else c.sack.setFlags(p, TcpOutput.LOST, TcpOutput.RETRANS_OUT);
        }
    }

    private static void delackTimer(TcpConnection c) {
        if (!c.ackPending || c.state == TcpState.CLOSED) return;
        if (c.pingpong > 0) {
            c.pingpong = 0; // a delayed ACK had to be sent on its own: leave interactive mode
            c.atoNs = c.tcp.sysctl.tcpDelackMinMs.intValue() * 1_000_000L;
        } else {
            c.atoNs = Math.min(c.atoNs * 2, c.rtt.currentRtoUs() * 1000);
        }
        c.tcp.mib.inc(MibCounter.TcpExtDelayedACKs);
        TcpOutput.sendAck(c);
    }

    private static void persistTimer(TcpConnection c) {
        if (c.state == TcpState.CLOSED || c.sendHead == null || c.sndNxt != c.sndUna) {
            c.probesOut = 0;
            c.probesTstampNs = 0;
            return;
        }
        TcpProtocol tcp = c.tcp;
        int limit = tcp.sysctl.tcpRetries2.intValue();
        if (c.userClosed) {
            int orphan = tcp.sysctl.tcpOrphanRetries.intValue();
            limit = orphan == 0 ? 8 : orphan;
        }
        // tcp_probe_timer: TCP_USER_TIMEOUT bounds probing from the first probe, answered or not
        long now = tcp.ns.clock().nanoTime();
        boolean userTimedOut = false;
        if (c.probesTstampNs == 0) c.probesTstampNs = now;
        else userTimedOut = c.userTimeoutMs > 0 && now - c.probesTstampNs >= c.userTimeoutMs * 1_000_000L;
        if (userTimedOut || c.probesOut >= limit) { // tcp_probe_timer: icsk_probes_out >= max_probes ends it
            tcp.mib.inc(MibCounter.TcpExtTCPAbortOnTimeout);
            TcpOutput.abort(c, Errno.ETIMEDOUT.number(), false);
            return;
        }
        if (TcpOutput.xmit(c)) return; // the window opened meanwhile
        tcp.mib.inc(MibCounter.TcpExtTCPWinProbe);
        long usable = (c.sndUna + (int) Math.min(c.sndWnd, Integer.MAX_VALUE)) - c.sndNxt;
        PacketBuffer seg = c.sendHead;
        if (usable > 0 && seg != null && seg.length() > 0) {
            // some window left, too small for sender SWS avoidance: send what fits (tcp_write_wakeup), with PSH,
            // and the bytes of the whole segment count as pushed; cut to the window, the rest keeps the PSH too
            // (tcp_fragment gives the second part the flags)
            if (io.jnet.wire.Tcp.seqLt(c.pushedSeq, seg.endSeq)) c.pushedSeq = seg.endSeq;
            seg.flags |= io.jnet.wire.Tcp.PSH;
            if (seg.length() > usable || seg.length() > c.mss) TcpOutput.split(c, seg, (int) Math.min(usable, c.mss));
            seg.flags |= io.jnet.wire.Tcp.PSH;
            TcpOutput.transmitData(c, seg, false);
            c.sendHead = seg.next;
            c.sndNxt = seg.endSeq;
            if (io.jnet.wire.Tcp.seqGt(c.sndNxt, c.sndMax)) c.sndMax = c.sndNxt;
            c.rtoTimer.schedule(c.rtt.currentRtoUs() * 1000);
            // data in flight: probing is over and its backoff with it (tcp_send_probe0 with packets_out); the
            // next probe, if the window stays below a segment, comes one RTO after the ACK, not a doubled one
            c.probesOut = 0;
            c.persistBackoff = 0;
            c.probesTstampNs = 0;
            return;
        }
        TcpOutput.sendProbe(c); // zero window: an old sequence number elicits an ACK
        c.probesOut++;
        // tcp_send_probe0: the backoff grows up to net.ipv4.tcp_retries2
        if (c.persistBackoff < tcp.sysctl.tcpRetries2.intValue()) c.persistBackoff++;
        if (!c.rtoTimer.isPending()) c.persistTimer.schedule(TcpOutput.persistTimeoutNs(c));
    }

    static void armKeepalive(TcpConnection c) {
        c.keepaliveTimer.schedule(keepaliveTimeNs(c));
        c.keepaliveProbes = 0;
    }

    /** Linux keepalive_time_when: TCP_KEEPIDLE, else net.ipv4.tcp_keepalive_time, in ns. */
    static long keepaliveTimeNs(TcpConnection c) {
        return (c.keepIdleS != 0 ? c.keepIdleS : c.tcp.sysctl.tcpKeepaliveTime.intValue()) * 1_000_000_000L;
    }

    /** Linux keepalive_intvl_when: TCP_KEEPINTVL, else net.ipv4.tcp_keepalive_intvl, in ns. */
    static long keepaliveIntvlNs(TcpConnection c) {
        return (c.keepIntvlS != 0 ? c.keepIntvlS : c.tcp.sysctl.tcpKeepaliveIntvl.intValue()) * 1_000_000_000L;
    }

    /** Linux keepalive_probes: TCP_KEEPCNT, else net.ipv4.tcp_keepalive_probes. */
    static int keepaliveProbes(TcpConnection c) {
        return c.keepCnt != 0 ? c.keepCnt : c.tcp.sysctl.tcpKeepaliveProbes.intValue();
    }

    /** Linux keepalive_time_elapsed: ns since the last segment was received (friends traffic counts too). */
    static long keepaliveIdleNs(TcpConnection c) {
        long lastRecv = Math.max(c.lastRecvNs, c.dataPath.lastDataNs(c));
        return c.tcp.ns.clock().nanoTime() - Math.max(lastRecv, 1);
    }

    /**
     * Linux tcp_keepalive_timer: while data is outstanding the connection is alive without probes; after
     * keepalive_time_when idle a probe goes every keepalive_intvl_when, and when keepalive_probes went
     * unanswered the connection is reset (tcp_send_active_reset) and fails with ETIMEDOUT (tcp_write_err).
     */
    private static void keepaliveTimer(TcpConnection c) {
        if (!c.keepalive || !(c.state == TcpState.ESTABLISHED || c.state == TcpState.CLOSE_WAIT
                || c.state == TcpState.FIN_WAIT_2)) return;
        TcpProtocol tcp = c.tcp;
        long keepTime = keepaliveTimeNs(c);
        if (c.sndUna != c.sndMax || c.writeQueue.peek() != null) {
            c.keepaliveTimer.schedule(keepTime);
            return;
        }
        long idle = keepaliveIdleNs(c);
        if (idle < keepTime) {
            c.keepaliveTimer.schedule(keepTime - idle);
            return;
        }
        // with TCP_USER_TIMEOUT: silent that long and a probe out, else keepalive_probes unanswered
        if (c.userTimeoutMs > 0 ? idle >= c.userTimeoutMs * 1_000_000L && c.keepaliveProbes > 0
                : c.keepaliveProbes >= keepaliveProbes(c)) {
            tcp.mib.inc(MibCounter.TcpExtTCPAbortOnTimeout);
            TcpOutput.abort(c, c.softError != 0 ? c.softError : Errno.ETIMEDOUT.number(), true);
            return;
        }
        c.keepaliveProbes++;
        tcp.mib.inc(MibCounter.TcpExtTCPKeepAlive);
        TcpOutput.sendProbe(c);
        c.keepaliveTimer.schedule(keepaliveIntvlNs(c));
    }

    private static void finWait2Timer(TcpConnection c) {
        if (c.state == TcpState.FIN_WAIT_2 && c.userClosed) TcpOutput.done(c);
    }
}
