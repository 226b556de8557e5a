package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.socket.Errno;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Icmp;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.nio.ByteBuffer;

/**
 * TCP input for a connection (RFC 9293 3.10.7.3 and 3.10.7.4, with RFC 5961 challenge ACKs,
 * RFC 7323 PAWS, RFC 5681/6582 duplicate-ACK handling and Linux's delayed-ACK decisions).
 * Runs with the connection locked; {@code pkt} data starts at the TCP header and its control block
 * (seq, endSeq, flags) is filled by {@link TcpProtocol}.
 */
final class TcpInput {
    private TcpInput() {}

    /** RFC 7323 5.5: TS.Recent is invalid after 24 days of idleness. */
    private static final long PAWS_IDLE_NS = 24L * 24 * 3600 * 1_000_000_000L;
    /**
     * Linux's TCP_PAWS_WINDOW: a timestamp up to this many ticks (ms) behind TS.Recent still passes PAWS,
     * so segments reordered within a millisecond (e.g. an ACK and a FIN sent from two threads) are not
     * taken for old duplicates.
     */
    static final int TCP_PAWS_WINDOW = 1;

    /** RFC 7323 5.3 with Linux's window: true when {@code tsVal} is more than TCP_PAWS_WINDOW ticks behind {@code tsRecent}. */
    static boolean pawsOld(int tsRecent, int tsVal) {
        return tsRecent - tsVal > TCP_PAWS_WINDOW;
    }

    static void process(TcpConnection c, PacketBuffer pkt) {
        try {
            c.dataPath.sync(c); // rcvNxt covers what a friend has put in the receive pipe before its FIN or RST
            c.skbCache.receivedSegment(c);

            if (!processSegment(c, pkt)) pkt.release();
        } catch (RuntimeException e) {
            c.tcp.ns.reportInternalError(e);
            pkt.release();
        }
    }

    /** Returns true when the packet buffer was kept (queued as data). */
    private static boolean processSegment(TcpConnection c, PacketBuffer pkt) {
        TcpProtocol tcp = c.tcp;
        byte[] b = pkt.array();
        int off = pkt.dataStart();
        int hl = Tcp.headerLength(b, off);
        TcpOptions opts = c.rxOpts;
        // a malformed option area ends parsing and the segment is processed with what came before it (Linux)
        opts.parse(b, off + Tcp.MIN_HEADER_LENGTH, hl - Tcp.MIN_HEADER_LENGTH);
        int flags = pkt.flags;
        int seq = pkt.seq;
        int ack = Tcp.ack(b, off);
        int wnd = Tcp.window(b, off);
        int urgPtr = (flags & Tcp.URG) != 0 ? Tcp.urgentPointer(b, off) : 0;
        pkt.pull(hl); // data now = payload
        c.lastRecvNs = tcp.ns.clock().nanoTime();
        c.segsIn++; // tcp_segs_in
        if (pkt.length() > 0) c.dataSegsIn++;
        if (c.keepalive && c.keepaliveTimer.isPending()) TcpTimers.armKeepalive(c);

        switch (c.state) {
            case CLOSED -> {
                // the connection ended while this segment waited in the backlog (Linux discards it in
                // TCP_CLOSE); a TIME-WAIT remnant that took the tuple gets it instead
                pkt.push(hl);
                tcp.mib.inc(io.jnet.stack.MibCounter.IpExtJnetSocketLookups);
                TcpEndpoint ep = tcp.table.lookup(c.localAddr, c.localPort, c.remoteAddr, c.remotePort);
                if (ep instanceof TimeWaitSock tw) {
                    tw.process(pkt, c.remoteAddr, c.localAddr);
                    return true; // consumed (released) by the remnant
                }
                return false;
            }
            case SYN_SENT -> {
                synSent(c, pkt, flags, seq, ack, wnd, opts, urgPtr);
                return false;
            }
            default -> { }
        }

        int segLen = pkt.endSeq - seq;
        // PAWS (RFC 7323 5.3)
        if (c.tsEnabled && opts.hasTimestamp && c.tsRecentStamp != 0 && pawsOld(c.tsRecent, opts.tsVal)
                && (flags & Tcp.RST) == 0) {
            if (c.lastRecvNs - c.tsRecentStamp > PAWS_IDLE_NS) {
                c.tsRecentStamp = 0; // RFC 7323 5.5: ts.recent invalid after 24 days idle
            } else {
                tcp.mib.inc(MibCounter.TcpExtPAWSEstab);
                sendDupAckLimited(c, segLen, flags, MibCounter.TcpExtTCPACKSkippedPAWS);
                return false;
            }
        }

        // sequence acceptability, as Linux's tcp_sequence: the segment must end at or after RCV.WUP (the
        // left edge last advertised) and start within the window; text before RCV.NXT is trimmed later.
        // This is RFC 9293 3.10.7.4's test widened so that an old ACK still has its ACK field processed.
        int rwnd = c.receiveWindow();
        boolean acceptable = Tcp.seqGeq(pkt.endSeq, c.rcvWup) && Tcp.seqLeq(seq, c.rcvNxt + rwnd)
                && !(segLen > 0 && Tcp.seqGeq(seq, c.rcvNxt + rwnd) && rwnd > 0);
        if (acceptable && rwnd == 0 && pkt.length() > 0 && Tcp.seqGeq(seq, c.rcvNxt)) {
            // a zero window: the ACK is processed, the data dropped (the peer's window probe)
            tcp.mib.inc(MibCounter.TcpExtTCPZeroWindowDrop);
            pkt.trim(0);
            flags &= ~Tcp.FIN;
            pkt.endSeq = seq;
            segLen = 0;
        }
        if (!acceptable) {
            if ((flags & Tcp.SYN) != 0 && (flags & Tcp.RST) == 0) {
                // a SYN out of the window draws a challenge ACK, as one in it (Linux tcp_validate_incoming: syn_challenge)
                tcp.mib.inc(MibCounter.TcpExtTCPSYNChallenge);
                challengeAck(c);
                return false;
            }
            if ((flags & Tcp.RST) == 0) {
                if (Tcp.seqLt(seq, c.rcvNxt) && segLen > 0) {
                    tcp.mib.inc(MibCounter.TcpExtDelayedACKLost);
                    // tcp_send_dupack: report the duplicate, up to RCV.NXT, in a D-SACK block
                    if (dsackOn(c)) c.rcvSacks.dsackSet(seq, Tcp.seqGt(pkt.endSeq, c.rcvNxt) ? c.rcvNxt : pkt.endSeq, c.rcvNxt, tcp.mib);
                }
                sendDupAckLimited(c, segLen, flags, MibCounter.TcpExtTCPACKSkippedSeq); // tcp_send_dupack
                enterQuickAck(c);
            }
            return false;
        }

        // RST (RFC 9293 second, RFC 5961 3.2)
        if ((flags & Tcp.RST) != 0) {
            if (seq == c.rcvNxt) {
                resetReceived(c);
            } else {
                challengeAck(c);
            }
            return false;
        }

        // SYN in a synchronized state (RFC 5961 4.2)
        if ((flags & Tcp.SYN) != 0) {
            if (c.state == TcpState.SYN_RECEIVED && c.parent != null && seq == c.irs) {
                TcpOutput.sendSyn(c, true); // retransmitted SYN: repeat the SYN-ACK
            } else {
                tcp.mib.inc(MibCounter.TcpExtTCPSYNChallenge);
                challengeAck(c);
            }
            return false;
        }

        if ((flags & Tcp.ACK) == 0) return false;

        // timestamps: update TS.Recent (RFC 7323 4.3)
        if (c.tsEnabled && opts.hasTimestamp && Tcp.seqLeq(seq, c.lastAckSent)) {
            if (opts.tsVal - c.tsRecent >= 0 || c.tsRecentStamp == 0) {
                c.tsRecent = opts.tsVal;
                c.tsRecentStamp = c.lastRecvNs;
            }
        }

        // ACK processing (fifth)
        if (c.state == TcpState.SYN_RECEIVED) {
            if (Tcp.seqLt(c.sndUna, ack) && Tcp.seqLeq(ack, c.sndMax)) {
                if (c.parent != null && c.retransmits < c.parent.deferAcceptRetrans() && pkt.endSeq == c.irs + 1) {
                    // tcp_check_req: while TCP_DEFER_ACCEPT defers it, a bare ACK is dropped and the request
                    // marked acked; data (or the bare ACK after the deferral's last SYN-ACK) completes it. A
                    // request counts no segments (the child's segs_in starts at the SYN's 1)
                    c.reqAcked = true;
                    c.segsIn--;
                    tcp.mib.inc(MibCounter.TcpExtTCPDeferAcceptDrop);
                    return false;
                }
                if (c.parent != null && !c.parent.admitChild(c)) return false; // accept queue full: drop the ACK
                // Linux creates the child at this ACK with snd_una = ISN + 1 (tcp_create_openreq_child): the ACK of
                // the SYN-ACK advances nothing in tcp_ack and bytes_acked stays 0 (a simultaneous open counts it)
                if (c.parent != null) c.sndUna = ack;
                c.sndWnd = (long) wnd << c.sndWscale;
                c.sndWl1 = seq;
                c.sndWl2 = ack;
                // the largest window starts at the ACK's: Linux creates the child at this ACK and takes its
                // window for both (tcp_create_openreq_child: max_window = snd_wnd); the SYN's unscaled window
                // would hold the size goal and forced_push at a window the peer no longer offers
                c.maxSndWnd = c.sndWnd;
                TcpOutput.syncMss(c); // tcp_v4_syn_recv_sock
                synAckRttSample(c, opts);
                establish(c);
                TcpFriends.complete(c, pkt);
                if (c.parent != null) c.parent.childEstablished(c);
            } else {
                c.tcp.reset().send(c.localAddr, c.localPort, c.remoteAddr, c.remotePort, ack, 0, Tcp.RST, 0, null);
                return false;
            }
        }
        if (!processAck(c, pkt, flags, seq, ack, wnd, segLen, opts)) return false;

        // after ACK: state transitions driven by our FIN being acknowledged
        boolean finAcked = c.finQueued && c.sndUna == c.writeSeq;
        switch (c.state) {
            case FIN_WAIT_1 -> {
                if (finAcked) {
                    setState(c, TcpState.FIN_WAIT_2);
                    TcpOutput.armFinWait2(c);
                    c.wakeUp();
                }
            }
            case CLOSING -> {
                if (finAcked) {
                    TcpOutput.enterTimeWait(c);
                    return false;
                }
            }
            case LAST_ACK -> {
                if (finAcked) {
                    TcpOutput.done(c);
                    return false;
                }
            }
            default -> { }
        }

        // sixth, the URG bit (Linux tcp_urg): a new urgent pointer, or the urgent byte awaited in this segment
        if ((flags & Tcp.URG) != 0 || c.urgData == TcpConnection.URG_NOTYET) urg(c, pkt, flags, seq, urgPtr);

        // segment text (seventh)
        boolean kept = false;
        boolean hasData = pkt.length() > 0;
        if (hasData || (flags & Tcp.FIN) != 0) {
            switch (c.state) {
                case ESTABLISHED, FIN_WAIT_1, FIN_WAIT_2, SYN_RECEIVED -> kept = dataQueue(c, pkt, flags, ack);
                default -> {
                    // CLOSE_WAIT, CLOSING, LAST_ACK: the peer already sent FIN; ignore text
                    if (hasData) TcpOutput.sendAck(c);
                }
            }
        }
        if (c.state == TcpState.CLOSED) return kept;
        TcpOutput.xmit(c);
        ackSendCheck(c);
        return kept;
    }

    // ---- SYN-SENT ----------------------------------------------------------------------------------

    /**
     * A segment in SYN-SENT (tcp_rcv_synsent_state_process). An ACK that is not for our SYN is answered with
     * a RST (none to a RST) and, while the SYN was not retransmitted, the SYN timer is re-armed to
     * TCP_TIMEOUT_MIN: the peer may have ignored an earlier FIN|ACK or RST|ACK, and the SYN goes again at once.
     */
    private static void synSent(TcpConnection c, PacketBuffer pkt, int flags, int seq, int ack, int wnd, TcpOptions opts,
                                int urgPtr) {
        boolean hasAck = (flags & Tcp.ACK) != 0;
        if (hasAck && (Tcp.seqLeq(ack, c.iss) || Tcp.seqGt(ack, c.sndMax))) {
            if (c.retransmits == 0) c.rtoTimer.schedule(RackLossDetection.TIMEOUT_MIN_NS);
            if ((flags & Tcp.RST) == 0) {
                c.tcp.reset().send(c.localAddr, c.localPort, c.remoteAddr, c.remotePort, ack, 0, Tcp.RST, 0, null);
            }
            return;
        }
        if ((flags & Tcp.RST) != 0) {
            if (hasAck) {
                TcpOutput.abort(c, Errno.ECONNREFUSED, false);
            }
            return;
        }
        if ((flags & Tcp.SYN) == 0) return;
        c.irs = seq;
        c.rcvNxt = seq + 1;
        c.copiedSeq = c.rcvNxt;
        c.rcvWup = c.rcvNxt;
        c.lastAckSent = c.rcvNxt;
        negotiate(c, opts, true);
        if (hasAck) {
            c.bytesAcked += (ack - c.sndUna) & 0xFFFFFFFFL; // our SYN
            c.lastAckRecvNs = c.lastRecvNs;
            c.sndUna = ack;
            c.sndWnd = wnd; // window in a SYN is never scaled (RFC 7323 2.2)
            c.sndWl1 = seq;
            c.sndWl2 = ack;
            c.maxSndWnd = Math.max(c.maxSndWnd, c.sndWnd);
            TcpOutput.syncMss(c); // tcp_rcv_synsent_state_process, after tcp_ack took the SYN-ACK's window
            if (c.tsEnabled && opts.hasTimestamp) {
                c.tsRecent = opts.tsVal;
                c.tsRecentStamp = c.lastRecvNs;
            }
            // the SYN's own send time gives the RTT unless it was retransmitted (Karn); else the echoed timestamp
            if (c.retransmits == 0) {
                rttSample(c, Math.max(1, (c.lastRecvNs - c.lastSynSentNs) / 1000));
            } else if (c.tsEnabled && opts.hasTimestamp && opts.tsEcr != 0) {
                long ms = (c.tcp.tsClock() + c.tsOffset - opts.tsEcr) & 0xFFFFFFFFL;
                if (ms < 600_000) rttSample(c, Math.max(1, ms) * 1000);
            }
            c.rtt.resetBackoff();
            c.rtoTimer.cancel();
            establish(c);
            TcpFriends.acceptOffer(c, pkt);
            // tcp_rcv_synsent_state_process: in pingpong mode (TCP_QUICKACK off before connect) or with
            // TCP_DEFER_ACCEPT set the final ACK waits up to TCP_DELACK_MAX for data to ride on, the connection
            // leaving pingpong mode for quick-ACK mode
            boolean delayAck = c.pingpong > 0 || c.deferAccept != 0;
            enterQuickAck(c);
            if (delayAck) {
                c.ackPending = true;
                c.delackTimer.schedule(c.tcp.sysctl.tcpDelackMaxMs.intValue() * 1_000_000L);
            } else {
                TcpOutput.sendAck(c);
                if ((flags & Tcp.URG) != 0) urg(c, pkt, flags, seq, urgPtr); // tcp_rcv_state_process: "step6 onward by hand"
            }
            TcpOutput.xmit(c);
            c.wakeUp();
        } else {
            // simultaneous open (RFC 9293 3.5, figure 8)
            c.sndWnd = wnd;
            c.sndWl1 = seq;
            c.maxSndWnd = Math.max(c.maxSndWnd, c.sndWnd);
            if (c.tsEnabled && opts.hasTimestamp) {
                c.tsRecent = opts.tsVal;
                c.tsRecentStamp = c.lastRecvNs;
            }
            setState(c, TcpState.SYN_RECEIVED);
            TcpOutput.sendSyn(c, true);
        }
    }

    /** An RTT measurement in µs: feeds the RTO estimator (RFC 6298) and the windowed minimum (tcp_update_rtt_min). */
    /**
     * The RTT sample a passive open takes when the ACK of its SYN-ACK arrives (Linux tcp_synack_rtt_meas): the
     * SYN-ACK's send time, unless it was retransmitted (Karn); then the echoed timestamp, if any.
     */
    private static void synAckRttSample(TcpConnection c, TcpOptions opts) {
        // Karn counts SYN-ACKs resent (req->num_retrans), not timeouts: TCP_DEFER_ACCEPT's resend none
        if (c.totalRetrans == 0 && c.lastSynSentNs != 0) {
            rttSample(c, Math.max(1, (c.lastRecvNs - c.lastSynSentNs) / 1000));
        } else if (c.tsEnabled && opts.hasTimestamp && opts.tsEcr != 0) {
            long ms = (c.tcp.tsClock() + c.tsOffset - opts.tsEcr) & 0xFFFFFFFFL;
            if (ms < 600_000) rttSample(c, Math.max(1, ms) * 1000);
        }
        c.rtt.resetBackoff();
    }

    static void rttSample(TcpConnection c, long us) {
        c.rtt.sample(us, c.tcp.sysctl.tcpRtoMinUs.intValue());
        c.minRtt.update(c.tcp.ns.clock().nanoTime(), c.tcp.sysctl.tcpMinRttWlen.intValue() * 1_000_000_000L, us);
    }

    /**
     * The rate Linux would pace at (tcp_update_pacing_rate): max(cwnd, data in flight) per SRTT, times
     * net.ipv4.tcp_pacing_ss_ratio percent in slow start (cwnd below half of ssthresh), else
     * tcp_pacing_ca_ratio percent. Reported in TCP_INFO; jnet does not pace.
     */
    static void updatePacingRate(TcpConnection c) {
        long srtt = c.rtt.srttUs;
        if (srtt <= 0) return;
        int ratio = c.win.cwnd < c.win.ssthresh / 2
                ? c.tcp.sysctl.tcpPacingSsRatio.intValue() : c.tcp.sysctl.tcpPacingCaRatio.intValue();
        long window = Math.max(c.win.cwnd, (c.sndMax - c.sndUna) & 0xFFFFFFFFL);
        c.pacingRate = window * ratio * 10_000L / srtt; // bytes * (ratio / 100) * 1e6 / srtt
    }

    /**
     * Applies the peer's SYN options: MSS (floored at tcp_min_snd_mss), window scale, timestamps, SACK-permitted
     * (SACK is used when we offered it, net.ipv4.tcp_sack, and the peer's SYN or SYN-ACK carried it: Linux
     * tcp_parse_options takes SACK_PERM only on a SYN and only with the sysctl on).
     */
    static void negotiate(TcpConnection c, TcpOptions opts, boolean active) {
        int peerMss = opts.mss >= 0 ? opts.mss : 536;
        if (c.userMss > 0 && c.userMss < peerMss) peerMss = c.userMss; // tcp_parse_options: user_mss clamps mss_clamp
        peerMss = Math.max(peerMss, c.tcp.sysctl.tcpMinSndMss.intValue());
        c.peerMss = peerMss;
        if (c.wscaleEnabled && opts.windowScale >= 0) {
            c.sndWscale = opts.windowScale;
        } else {
            c.wscaleEnabled = false;
            c.sndWscale = 0;
            c.rcvWscale = 0;
        }
        c.tsEnabled = c.tsEnabled && opts.hasTimestamp;
        c.sackOk = c.sackOk && opts.sackPermitted && c.tcp.sysctl.tcpSack.enabled();
        c.pmtu = c.tcp.ip.mtuFor(c.remoteAddr);
        int pathMss = TcpOutput.mssForMtu(c.pmtu);
        int m = Math.min(peerMss, pathMss > 0 ? pathMss : peerMss);
        if (c.tsEnabled) m -= 12;
        c.mss = Math.max(m, c.tcp.sysctl.tcpMinSndMss.intValue() - (c.tsEnabled ? 12 : 0));
        c.rcvMss = Math.min(c.advMss, 536);
        c.win.init(c.mss);
        c.cc.init(c.win);
        TcpSocketOptions.expandSndbuf(c);
    }

    static void establish(TcpConnection c) {
        setState(c, TcpState.ESTABLISHED);
        c.establishedNs = c.tcp.ns.clock().nanoTime();
        c.retransmits = 0;
        c.rtoTimer.cancel();
        updatePacingRate(c);
        c.rcvqSpace = Math.min(c.rcvbuf, 10L * c.advMss);
        c.rcvqTime = c.tcp.ns.clock().nanoTime();
        c.rcvqCopied = 0;
        if (c.keepalive) TcpTimers.armKeepalive(c);
        // SACK negotiated: RFC 6675 recovery; NewReno otherwise
        if (c.sackOk && !(c.recovery instanceof SackRecovery)) c.recovery = new SackRecovery();
    }

    /** Keeps TcpCurrEstab right (it counts ESTABLISHED and CLOSE-WAIT, as Linux). */
    static void setState(TcpConnection c, TcpState s) {
        TcpState old = c.state;
        boolean was = old == TcpState.ESTABLISHED || old == TcpState.CLOSE_WAIT;
        boolean is = s == TcpState.ESTABLISHED || s == TcpState.CLOSE_WAIT;
        if (!was && is) c.tcp.mib.inc(MibCounter.TcpCurrEstab);
        if (was && !is) c.tcp.mib.dec(MibCounter.TcpCurrEstab);
        c.state = s;
    }

    // ---- RST and challenge ACK ---------------------------------------------------------------------

    private static void resetReceived(TcpConnection c) {
        switch (c.state) {
            case SYN_RECEIVED -> {
                if (c.parent != null) {
                    c.tcp.mib.inc(MibCounter.TcpExtEmbryonicRsts);
                    TcpOutput.done(c); // passive open: back to LISTEN means just dropping the child
                } else {
                    TcpOutput.abort(c, Errno.ECONNREFUSED, false);
                }
            }
            case CLOSE_WAIT -> TcpOutput.abort(c, Errno.EPIPE, false);
            case CLOSING, LAST_ACK, TIME_WAIT -> TcpOutput.done(c);
            default -> TcpOutput.abort(c, Errno.ECONNRESET, false);
        }
    }

    /**
     * Linux __tcp_oow_rate_limited: true, counting {@code skipped}, when this connection answered an invalid segment
     * less than net.ipv4.tcp_invalid_ratelimit ago; otherwise the answer about to go is recorded and false returned.
     * Duplicate ACKs for out-of-window segments and challenge ACKs share the one timestamp (last_oow_ack_time), so
     * two ends that disagree cannot loop ACKs at full speed.
     */
    static boolean oowRateLimited(TcpConnection c, MibCounter skipped) {
        long now = c.lastRecvNs;
        if (c.lastOowAckNs != 0) {
            long elapsed = now - c.lastOowAckNs;
            if (elapsed >= 0 && elapsed < c.tcp.sysctl.tcpInvalidRatelimit.intValue() * 1_000_000L) {
                c.tcp.mib.inc(skipped);
                return true;
            }
        }
        c.lastOowAckNs = now;
        return false;
    }

    /**
     * Answers an unacceptable segment with a duplicate ACK (Linux tcp_oow_rate_limited, then tcp_send_dupack): a
     * segment that occupies sequence space without a SYN (data or FIN) is always answered, as it is not likely part
     * of an ACK loop, and leaves the timestamp alone; a pure ACK or a SYN is rate-limited per {@link #oowRateLimited}.
     */
    static void sendDupAckLimited(TcpConnection c, int segLen, int flags, MibCounter skipped) {
        if ((segLen != 0 && (flags & Tcp.SYN) == 0) || !oowRateLimited(c, skipped)) TcpOutput.sendAck(c);
    }

    /**
     * A challenge ACK (RFC 5961 3.2, 4.2, 5.2; Linux tcp_send_challenge_ack), limited per connection to one per
     * net.ipv4.tcp_invalid_ratelimit (TcpExtTCPACKSkippedChallenge counts those skipped) and then by the
     * namespace's net.ipv4.tcp_challenge_ack_limit per second (RFC 5961 7); TcpExtTCPChallengeACK counts those sent.
     */
    static void challengeAck(TcpConnection c) {
        if (oowRateLimited(c, MibCounter.TcpExtTCPACKSkippedChallenge)) return;
        if (!c.tcp.challengeAckAllowed()) return;
        c.tcp.mib.inc(MibCounter.TcpExtTCPChallengeACK);
        TcpOutput.sendAck(c);
    }

    // ---- ACK processing ----------------------------------------------------------------------------

    /** Returns false when the segment is to be dropped after the ACK step. */
    private static boolean processAck(TcpConnection c, PacketBuffer pkt, int flags, int seq, int ack, int wnd, int segLen,
                                      TcpOptions opts) {
        TcpProtocol tcp = c.tcp;
        boolean noQueue = c.sndMax == c.sndUna; // Linux prior_packets == 0: nothing was in flight
        if (Tcp.seqGt(ack, c.sndMax)) {
            // acks something not yet sent: dropped, answered with a challenge ACK, rate-limited (RFC 9293 3.10.7.4,
            // RFC 5961 5.2; Linux tcp_ack's SKB_DROP_REASON_TCP_ACK_UNSENT_DATA)
            challengeAck(c);
            return false;
        }
        // RFC 5961 5.2: an ACK below SND.UNA - MAX.SND.WND is too old, dropped with a challenge ACK. Linux 6.x's
        // tcp_ack bounds the window by the bytes acknowledged so far, min(max_window, bytes_acked): no ACK below
        // what was ever sent is acceptable, so with nothing acknowledged yet an ACK of ISN is too old
        long maxWindow = Math.min(Math.min(c.maxSndWnd, c.bytesAcked), Integer.MAX_VALUE / 2);
        if (Tcp.seqLt(ack, c.sndUna - (int) maxWindow)) {
            challengeAck(c);
            return false;
        }
        long newWnd = (long) wnd << c.sndWscale;
        boolean windowUpdate = false;
        if (Tcp.seqLt(c.sndWl1, seq) || (c.sndWl1 == seq && Tcp.seqLeq(c.sndWl2, ack))) {
            windowUpdate = newWnd != c.sndWnd;
            c.sndWnd = newWnd;
            c.sndWl1 = seq;
            c.sndWl2 = ack;
            if (newWnd > c.maxSndWnd) {
                c.maxSndWnd = newWnd;
                TcpOutput.syncMss(c); // tcp_ack_update_window
            }
        }
        int newlySacked = 0;
        c.rack.beginAck(c.lastRecvNs);
        c.rack.setMinRtt(c.minRtt.get());
        c.sack.clearAckState();
        int priorFack = c.sack.fack(c.sndUna); // Linux prior_fack, before the SACK blocks are tagged
        long priorSackedBytes = c.sack.sackedBytes(); // for what this ACK delivers (Linux tp->delivered)
        c.undo.beginAck(c.tsEnabled && opts.hasTimestamp, opts.tsEcr);
        if (c.sackOk) {
            // SACK blocks first, as tcp_ack does before cleaning the queue (tcp_sacktag_write_queue)
            if (opts.sackMalformed) tcp.mib.inc(MibCounter.TcpExtJnetSackOptionMalformed);
            if (opts.sackBlocks > 0) {
                newlySacked = c.sack.tag(opts, ack, c.sndUna, c.sndMax, c.mss, c.totalRetrans, tcp.mib);
                if (c.sack.reorderedThisAck()) UndoState.raiseReordering(c, c.sack.reordLow()); // counted by tag
            }
        }
        boolean advancedUna = Tcp.seqGt(ack, c.sndUna);
        boolean pure = segLen == 0 && pkt.length() == 0 && !windowUpdate && (flags & (Tcp.SYN | Tcp.FIN)) == 0;
        if (advancedUna) {
            newAck(c, ack, opts, priorFack, priorSackedBytes);
        } else if (ack == c.sndUna) {
            boolean dup = pure && c.sndMax != c.sndUna;
            if (dup) c.recovery.onDupAck(c, newlySacked);
            else if (pkt.length() == 0) tcp.mib.inc(MibCounter.TcpExtTCPPureAcks);
        }
        if (c.sackOk) {
            // RACK-TLP's part before loss recovery's, as tcp_ack: the reordering window, then the probe's ACK
            c.rack.updateReoWnd(c, c.rate.ackPriorDelivered(), c.rate.deliveredSegments());
            c.rack.processTlpAck(c, ack, advancedUna, newlySacked, pure);
        }
        c.recovery.afterAck(c);
        if (c.sackOk && (advancedUna || newlySacked > 0)) c.rack.scheduleLossProbe(c, advancedUna); // tcp_set_xmit_timer
        c.probesOut = 0; // the peer answers: probes are not unanswered (Linux icsk_probes_out)
        c.lastAckRecvNs = c.lastRecvNs;
        updatePacingRate(c);
        if (noQueue) ackProbe(c);
        return true;
    }

    /**
     * Linux tcp_ack_probe, for an ACK that came with nothing in flight (tcp_ack's no_queue): when the window now
     * takes the first unsent segment whole, probing is over (backoff and first-probe time cleared, the persist
     * timer stopped; the send that follows re-arms it if need be); otherwise the persist timer starts again from
     * this ACK with the backoff it has (tcp_probe0_when), so an answered probe does not reset the backoff.
     */
    static void ackProbe(TcpConnection c) {
        PacketBuffer head = c.sendHead;
        if (head == null) return;
        int wndEnd = c.sndUna + (int) Math.min(c.sndWnd, Integer.MAX_VALUE);
        if (Tcp.seqLeq(head.endSeq, wndEnd)) {
            c.persistBackoff = 0;
            c.probesTstampNs = 0;
            c.persistTimer.cancel();
        } else {
            c.persistTimer.schedule(TcpOutput.persistTimeoutNs(c));
        }
    }

    private static void newAck(TcpConnection c, int ack, TcpOptions opts, int priorFack, long priorSackedBytes) {
        long acked = (ack - c.sndUna) & 0xFFFFFFFFL;
        long now = c.lastRecvNs;
        long rttSampleNs = -1;
        long deliveredSegments = 0;
        c.bytesAcked += acked;
        c.rate.beginAck();
        // clean the retransmission queue (tcp_clean_rtx_queue)
        PacketBuffer seg;
        boolean reordered = false;
        int reordSeq = 0;
        while ((seg = c.writeQueue.peek()) != null) {
            if (Tcp.seqLt(seg.seq, ack)) c.rate.delivered(seg);
            if (Tcp.seqLeq(seg.endSeq, ack)) {
                // sent once, never SACKed, and acknowledged only now below data SACKed before this ACK: it arrived
                // after later segments (tcp_clean_rtx_queue's reord, checked against prior_fack by
                // tcp_check_sack_reordering; SACKs this ACK brought prove nothing: a delayed ACK of in-order data
                // carries the first SACK of a loss)
                if (!reordered && c.sackOk && Tcp.seqLt(seg.seq, priorFack) && seg.when != 0
                        && (seg.flags & (SackScoreboard.SACKED_ACKED | TcpOutput.RETRANSMITTED)) == 0) {
                    reordered = true;
                    reordSeq = seg.seq;
                }
                deliveredSegments += TcpOutput.segmentCount(c, seg);
                if (seg.when != 0 && (seg.flags & (SackScoreboard.SACKED_ACKED | TcpOutput.RETRANSMITTED)) == 0) {
                    c.undo.noteOrigDelivered(seg.endSeq); // FLAG_ORIG_SACK_ACKED, for F-RTO
                }
                // Karn (RFC 6298 3): no sample once a retransmitted segment is acknowledged; else the oldest
                if (c.sackOk && (seg.flags & SackScoreboard.SACKED_ACKED) == 0) c.rack.advance(seg);
                if ((seg.flags & TcpOutput.RETRANSMITTED) != 0) rttSampleNs = -2;
                else if (seg.when != 0 && rttSampleNs == -1) rttSampleNs = now - seg.when;
                if (seg == c.sendHead) c.sendHead = seg.next;
                c.sack.onAcked(seg, c.mss);
                c.writeQueue.poll();
                c.skbCache.freeAcked(c, seg);
            } else if (Tcp.seqLt(seg.seq, ack)) {
                int n = Math.min(ack - seg.seq, seg.length());
                int before = TcpOutput.segmentCount(c, seg);
                seg.pull(n);
                seg.seq = ack;
                c.sack.onPartialAck(seg, n, before, c.mss);
                deliveredSegments += before - TcpOutput.segmentCount(c, seg); // tcp_tso_acked
                break;
            } else {
                break;
            }
        }
        c.sndUna = ack;
        if (c.sndUrg && Tcp.seqLeq(c.sndUp, ack)) c.sndUrg = false; // the urgent data is acknowledged (tcp_clean_rtx_queue)
        if (reordered) {
            UndoState.checkReordering(c, reordSeq, false); // TcpExtTCPSACKReorder, tp->reordering
            c.rack.onReordering();
        }
        if (Tcp.seqLt(c.sndNxt, ack)) c.sndNxt = ack;
        if (c.sendHead == null) {
            // after a go-back-N rewind the first unsent segment is the first with seq >= sndNxt
            for (PacketBuffer p = c.writeQueue.peek(); p != null; p = p.next) {
                if (Tcp.seqGeq(p.seq, c.sndNxt) && p.when == 0) { c.sendHead = p; break; }
            }
        }
        // RTT (RFC 6298 with Karn's algorithm; RFC 7323 timestamps when no clean sample); the RTO's backoff is
        // cleared only with a valid measurement (RFC 6298 5.7 and Karn: Linux tcp_ack_update_rtt), so the ACK of a
        // retransmission without timestamps keeps it
        boolean measured = false;
        if (rttSampleNs >= 0) {
            rttSample(c, Math.max(1, rttSampleNs / 1000));
            measured = true;
        } else if (c.tsEnabled && opts.hasTimestamp && opts.tsEcr != 0) {
            long ms = (c.tcp.tsClock() + c.tsOffset - opts.tsEcr) & 0xFFFFFFFFL;
            if (ms < 600_000) {
                rttSample(c, Math.max(1, ms) * 1000); // at least one tick, as tcp_rtt_tsopt_us
                measured = true;
            }
        }
        c.rate.generate(deliveredSegments, now, c.minRtt.get());
        if (measured) c.rtt.resetBackoff();
        c.retransmits = 0;
        // loss recovery first: an ACK in fast recovery sets cwnd there, any other (the one that undid a recovery
        // included: Linux's tcp_cong_control after tcp_fastretrans_alert returned to Open) lets the congestion
        // control grow it
        if (!c.recovery.onNewAck(c, ack, acked)) {
            // what the ACK delivered, acknowledged or SACKed, and not SACKed before (Linux's acked_sacked,
            // tcp_newly_delivered: tcp_clean_rtx_queue does not count segments SACKed earlier), and the segments a
            // D-SACK reports received twice
            long delivered = Math.max(0, acked + c.sack.sackedBytes() - priorSackedBytes)
                    + c.sack.dsackSegsThisAck() * c.mss;
            c.cc.onAck(c.win, delivered, TcpOutput.isCwndLimited(c));
        }
        // retransmission timer (RFC 6298 5.2/5.3)
        if (c.sndUna == c.sndMax) c.rtoTimer.cancel();
        else c.rtoTimer.schedule(c.rtt.currentRtoUs() * 1000);
        c.tcp.memory.reclaim(c); // what the acknowledged segments freed (sk_wmem_free_skb, sk_mem_reclaim)
        TcpSocketOptions.expandSndbuf(c);
        if (c.writeQueue.isEmpty()) c.chrono.stop(TcpChrono.BUSY, true, now);
        if (TcpOutput.sendSpace(c) > 0) c.chrono.stop(TcpChrono.SNDBUF_LIMITED, c.writeQueue.isEmpty(), now);
        // tcp_check_space / sk_stream_write_space: wake a writer that ran out of space once a third of the
        // buffer is free, not on every ACK (each wake-up is a context switch for one segment's worth)
        if (c.sndNoSpace && TcpOutput.isWriteable(c)) {
            c.sndNoSpace = false;
            if (c.writeSpaceEveryAck) c.writeSpaceSignalled = true;
            c.wakeUp();
        } else if (c.writeSpaceEveryAck) {
            c.writeSpaceSignalled = true;
            c.wakeUp(); // an in-stack owner frees its messages as they are acknowledged (RDS: rds_tcp_write_space)
        }
    }

    // ---- urgent data (RFC 9293 3.10.7.4 "sixth, check the URG bit"; Linux tcp_urg, tcp_check_urg) ---------------

    /**
     * Step six for a segment (Linux tcp_urg): takes a new urgent pointer ({@link #checkUrg}), then, while the urgent
     * byte is awaited, takes it from this segment if the segment holds it, wherever the segment lies (in order or
     * not), and wakes the socket's waiters and pollers (POLLPRI). {@code pkt}'s data is its payload, {@code seq}
     * its sequence number (a SYN's payload starts one later).
     */
    static void urg(TcpConnection c, PacketBuffer pkt, int flags, int seq, int urgPtr) {
        if ((flags & Tcp.URG) != 0) checkUrg(c, seq, urgPtr);
        if (c.urgData == TcpConnection.URG_NOTYET) {
            int at = c.urgSeq - seq - ((flags & Tcp.SYN) != 0 ? 1 : 0);
            if (Integer.compareUnsigned(at, pkt.length()) < 0) {
                c.urgData = TcpConnection.URG_VALID | pkt.byteAt(at);
                c.wakeUp(); // sk_data_ready
            }
        }
    }

    /**
     * A segment with URG (Linux tcp_check_urg): its pointer marks a new urgent byte unless that byte was read
     * already, lies before RCV.NXT (a retransmission: not replayed), or is not beyond the mark known. With
     * net.ipv4.tcp_stdurg 0 (the default) the pointer points one past the urgent byte, BSD's reading (RFC 6093);
     * with 1 at it, as RFC 1122 has it. A reader standing at the old mark moves past its urgent byte, which leaves
     * the stream unless SO_OOBINLINE keeps it there. The new byte is awaited ({@link TcpConnection#URG_NOTYET})
     * until a segment holding it arrives ({@link #urg}). Linux also raises SIGURG here; jnet has no signals.
     */
    private static void checkUrg(TcpConnection c, int seq, int urgPtr) {
        int ptr = urgPtr;
        if (ptr != 0 && !c.tcp.sysctl.tcpStdurg.enabled()) ptr--;
        ptr += seq;
        int copied = copiedSeq(c);
        if (Tcp.seqGt(copied, ptr)) return; // seen and read already
        if (Tcp.seqLt(ptr, c.rcvNxt)) return; // do not replay the urgent pointer of a retransmission
        if (c.urgData != 0 && !Tcp.seqGt(ptr, c.urgSeq)) return; // a newer or the same pointer is known
        PacketBuffer head = c.receiveQueue.peek();
        if (c.urgSeq == copied && c.urgData != 0 && !c.urgInline && head != null) {
            skipUrgentByte(c, head);
            c.tcp.memory.reclaim(c);
        }
        c.urgData = TcpConnection.URG_NOTYET;
        c.urgSeq = ptr;
    }

    /**
     * The first sequence number not read yet (Linux copied_seq): the receive queue's head, or when all is read
     * RCV.NXT less a FIN received, which no read consumes here.
     */
    static int copiedSeq(TcpConnection c) {
        PacketBuffer p = c.receiveQueue.peek();
        if (p != null) return p.seq;
        return c.finReceived ? c.rcvNxt - 1 : c.rcvNxt;
    }

    /** Takes the urgent byte, first in {@code p}, the receive queue's head, out of the stream; frees {@code p} when emptied. */
    private static void skipUrgentByte(TcpConnection c, PacketBuffer p) {
        c.copiedSeq++; // Linux's copied_seq moves past it too
        if (p.length() == 1) {
            c.receiveQueue.poll();
            c.skbCache.eat(c, p);
        } else {
            p.pull(1);
            p.seq++;
        }
    }

    // ---- data --------------------------------------------------------------------------------------

    /**
     * Queues the segment's text and FIN (tcp_data_queue). Returns true when {@code pkt} was kept. New text
     * for a socket the application closed ends the connection (tcp_rcv_state_process: TCPAbortOnData,
     * tcp_reset) and is answered as for a closed connection (tcp_v4_send_reset): RST with seq = SEG.ACK
     * and is answered as for a closed connection (tcp_v4_send_reset): RST with seq = SEG.ACK and no ACK flag
     * (RFC 9293 3.10.7.1); {@code ack} is the segment's acknowledgment number.
     */
    private static boolean dataQueue(TcpConnection c, PacketBuffer pkt, int flags, int ack) {
        TcpProtocol tcp = c.tcp;
        int seq = pkt.seq;
        // trim what we already have
        if (Tcp.seqLt(seq, c.rcvNxt)) {
            int dup = c.rcvNxt - seq;
            if (dup >= pkt.length() && (flags & Tcp.FIN) == 0) {
                // a retransmission of what we have: ACK at once, with the duplicate in a D-SACK block (tcp_data_queue)
                if (dsackOn(c)) c.rcvSacks.dsackSet(seq, pkt.endSeq, c.rcvNxt, tcp.mib);
                TcpOutput.sendAck(c);
                return false;
            }
            if (dsackOn(c)) c.rcvSacks.dsackSet(seq, c.rcvNxt, c.rcvNxt, tcp.mib); // partly old: the old part
            int cut = Math.min(dup, pkt.length());
            pkt.pull(cut);
            pkt.seq = seq = seq + cut;
        }
        if (c.rcvShutdown && pkt.length() > 0
                && (c.userClosed || c.state == TcpState.FIN_WAIT_1 || c.state == TcpState.FIN_WAIT_2)) {
            // data for a socket shut both ways, by close or shutdown(SHUT_RDWR): reset (Linux tcp_rcv_state_process
            // in FIN-WAIT-1/2 with RCV_SHUTDOWN, TCPAbortOnData; RFC 1122 4.2.2.13): tcp_reset closes the socket
            // with ECONNRESET (which only a socket still open can see), and tcp_v4_send_reset answers the segment,
            // which has an ACK in these states, with a RST at its acknowledgment number. shutdown(SHUT_RD) alone
            // queues the data as ever
            tcp.mib.inc(MibCounter.TcpExtTCPAbortOnData);
            tcp.reset().send(c.localAddr, c.localPort, c.remoteAddr, c.remotePort, ack, 0, Tcp.RST, 0, null);
            TcpOutput.abort(c, c.userClosed ? 0 : Errno.ECONNRESET.number(), false);
            return false;
        }
        int len = pkt.length();
        if (len > 0) {
            TcpOptions opts = c.rxOpts;
            if (c.tsEnabled && opts.hasTimestamp && opts.tsEcr != 0) {
                long ageMs = (c.tcp.tsClock() + c.tsOffset - opts.tsEcr) & 0xFFFFFFFFL;
                c.rcvRtt.timestampEchoed(opts.tsEcr, ageMs, len, c.rcvMss);
            }
            measureRcvMss(c, len);
            eventDataRecv(c);
            ReceiveMemory.growWindow(c, pkt);
        }
        boolean fin = (flags & Tcp.FIN) != 0;
        if (seq == c.rcvNxt) {
            boolean kept = false;
            if (len > 0) {
                // in-order data beyond the buffer is taken only when nothing is queued for the reader
                // (Linux tcp_data_queue forces the charge then), so that the connection never wedges
                if (!ReceiveMemory.schedule(c, pkt) && !c.receiveQueue.isEmpty()) {
                    tcp.mib.inc(MibCounter.TcpExtTCPRcvQDrop);
                    c.wakeUp();
                    TcpOutput.sendAck(c);
                    return false;
                }
                kept = queueRcv(c, pkt);
                tcp.memory.forceSchedule(c, 0); // taken even when refused: nothing else is queued
                c.rcvNxt += len;
                c.bytesReceived += len;
                c.rcvRtt.dataReceived(c.rcvNxt, c.rcvWnd, c.lastRecvNs);
            }
            if (fin) finReceived(c);
            if (!c.oooQueue.isEmpty()) {
                drainOutOfOrder(c);
                c.forceAck = true;
            }
            if (c.rcvSacks.count() > 0) c.rcvSacks.remove(c.rcvNxt, c.oooQueue.isEmpty()); // tcp_sack_remove
            dataReady(c);
            return kept;
        }
        // out of order: beyond rcvNxt (tcp_data_queue_ofo)
        if (len == 0 && !fin) return false;
        if (!ReceiveMemory.schedule(c, pkt)) {
            tcp.mib.inc(MibCounter.TcpExtTCPOFODrop);
            c.wakeUp();
            TcpOutput.sendAck(c);
            return false;
        }
        tcp.mib.inc(MibCounter.TcpExtTCPOFOQueue);
        c.rcvOoopack++;
        enterQuickAck(c);
        c.forceAck = true;
        int ofoEnd = seq + len + (fin ? 1 : 0);
        boolean kept = c.oooQueue.queue(pkt, fin, tcp.mib);
        if (c.sackOk) {
            OfoQueue q = c.oooQueue;
            if (q.dupFound() && dsackOn(c)) c.rcvSacks.dsackSet(q.dupStart(), q.dupEnd(), c.rcvNxt, tcp.mib);
            c.rcvSacks.newOfo(seq, ofoEnd); // tcp_sack_new_ofo_skb: this segment's block goes first
        }
        return kept;
    }

    /** D-SACK blocks are sent: SACK is in use and net.ipv4.tcp_dsack is on (Linux tcp_dsack_set's test). */
    private static boolean dsackOn(TcpConnection c) {
        return c.sackOk && c.tcp.sysctl.tcpDsack.enabled();
    }

    /**
     * Appends in-order text to the receive queue (tcp_queue_rcv): copied into the last buffer's tailroom
     * when it fits (tcp_try_coalesce, TcpExtTCPRcvCoalesce). Returns true when {@code pkt} itself was queued.
     */
    private static boolean queueRcv(TcpConnection c, PacketBuffer pkt) {
        PacketBuffer tail = c.receiveQueue.peekLast();
        if (tail != null && tail.tryCoalesce(pkt)) {
            c.tcp.mib.inc(MibCounter.TcpExtTCPRcvCoalesce);
            return false;
        }
        c.receiveQueue.add(pkt);
        return true;
    }

    /**
     * The peer's FIN is in order (Linux tcp_fin): the ACK is scheduled (inet_csk_schedule_ack), not forced.
     * Moving to CLOSE_WAIT enters pingpong mode (inet_csk_enter_pingpong_mode): the application is expected
     * to answer with its own FIN, so the FIN's ACK waits for the delayed-ACK timer to ride on it.
     */
    private static void finReceived(TcpConnection c) {
        c.rcvNxt++;
        c.bytesReceived++; // as Linux, which advances rcv_nxt to the FIN's end_seq
        c.finReceived = true;
        c.ackPending = true;
        c.oooQueue.purge(); // nothing may follow the FIN (Linux tcp_fin drops it)
        c.rcvSacks.reset();
        switch (c.state) {
            case SYN_RECEIVED, ESTABLISHED -> {
                setState(c, TcpState.CLOSE_WAIT);
                c.pingpong = 1;
            }
            case FIN_WAIT_1 -> {
                boolean finAcked = c.finQueued && c.sndUna == c.writeSeq;
                TcpOutput.sendAck(c);
                if (finAcked) TcpOutput.enterTimeWait(c);
                else setState(c, TcpState.CLOSING);
            }
            case FIN_WAIT_2 -> {
                TcpOutput.sendAck(c);
                TcpOutput.enterTimeWait(c);
            }
            default -> { }
        }
        c.wakeUp();
    }

    /** Moves now-contiguous out-of-order segments to the receive queue (tcp_ofo_queue). */
    private static void drainOutOfOrder(TcpConnection c) {
        PacketBuffer p;
        int dsackHigh = c.rcvNxt;
        while ((p = c.oooQueue.first()) != null && Tcp.seqLeq(p.seq, c.rcvNxt)) {
            c.oooQueue.pollFirst();
            if (Tcp.seqLt(p.seq, dsackHigh) && dsackOn(c)) {
                // bytes the in-order segment brought already (tcp_ofo_queue reports them with tcp_dsack_extend)
                int dsack = dsackHigh;
                if (Tcp.seqLt(p.endSeq, dsackHigh)) dsackHigh = p.endSeq;
                c.rcvSacks.dsackExtend(p.seq, dsack, c.rcvNxt, c.tcp.mib);
            }
            boolean fin = (p.flags & Tcp.FIN) != 0;
            if (Tcp.seqLeq(p.endSeq, c.rcvNxt) && !(fin && p.endSeq == c.rcvNxt)) {
                p.release();
                continue;
            }
            int cut = c.rcvNxt - p.seq;
            if (cut > 0) {
                p.pull(Math.min(cut, p.length()));
                p.seq = c.rcvNxt;
            }
            int len = p.length();
            if (len == 0 || !queueRcv(c, p)) p.release();
            c.rcvNxt += len;
            c.bytesReceived += len;
            if (fin) {
                finReceived(c);
                break;
            }
        }
    }

    // ---- delayed ACK (Linux tcp_event_data_recv / __tcp_ack_snd_check) --------------------------------

    /**
     * Tracks the peer's segment size (Linux tcp_measure_rcv_mss): a full segment sets it; a smaller one
     * of at least 536 bytes lowers it, and marks the ACK "pushed" so that a reader who drains the queue
     * ACKs at once instead of waiting for the delayed-ACK timer.
     */
    private static void measureRcvMss(TcpConnection c, int len) {
        if (len >= c.rcvMss) {
            c.rcvMss = Math.min(len, c.advMss);
        } else {
            if (len >= 536) c.rcvMss = len;
            if (c.ackPushed) c.ackPushed2 = true;
            c.ackPushed = true;
        }
    }

    /**
     * Quick-ACK mode (tcp_enter_quickack_mode, tcp_incr_quickack): ACK the next rcv_wnd / (2 * rcv_mss)
     * segments at once, 2 when that is 0, at most 16. A window below two segments gives one quick ACK.
     */
    static void enterQuickAck(TcpConnection c) {
        incrQuickAck(c);
        c.pingpong = 0;
        c.atoNs = c.tcp.sysctl.tcpDelackMinMs.intValue() * 1_000_000L;
    }

    /**
     * More quick ACKs without leaving pingpong mode (tcp_incr_quickack), as the first data and data after a silence
     * longer than the RTO get them (tcp_event_data_recv): in pingpong mode (TCP_QUICKACK off) they are not used
     * (tcp_in_quickack_mode) and the data waits for the delayed-ACK timer.
     */
    static void incrQuickAck(TcpConnection c) {
        int q = c.rcvWnd / Math.max(1, 2 * c.rcvMss);
        c.quickAcks = Math.max(c.quickAcks, Math.min(16, q == 0 ? 2 : q));
    }

    private static void eventDataRecv(TcpConnection c) {
        long now = c.lastRecvNs;
        long atoMin = c.tcp.sysctl.tcpDelackMinMs.intValue() * 1_000_000L;
        if (c.lrcvtimeNs == 0) {
            incrQuickAck(c);
            c.atoNs = atoMin;
        } else {
            long m = now - c.lrcvtimeNs;
            if (m <= atoMin / 2) {
                c.atoNs = c.atoNs / 2 + atoMin / 2;
            } else if (m < c.atoNs) {
                c.atoNs = Math.min(c.atoNs / 2 + m, c.rtt.currentRtoUs() * 1000);
            } else if (m > c.rtt.currentRtoUs() * 1000) {
                incrQuickAck(c); // data after a long silence
            }
        }
        c.lrcvtimeNs = now;
        c.ackPending = true;
    }

    /** Sends an ACK now or schedules a delayed one (__tcp_ack_snd_check). */
    static void ackSendCheck(TcpConnection c) {
        if (!c.ackPending && !c.forceAck) return;
        boolean now = c.forceAck
                || c.rcvNxt - c.rcvWup > c.rcvMss // more than one full segment unacknowledged
                || (c.quickAcks > 0 && c.pingpong == 0);
        c.forceAck = false;
        if (now) TcpOutput.sendAck(c);
        else TcpOutput.scheduleDelayedAck(c);
    }

    /**
     * Linux tcp_data_ready, after in-order data was queued: wakes readers and pollers (sk_data_ready) once
     * SO_RCVLOWAT bytes are readable ({@link TcpDataPath#epollinReady}) or the FIN came; short of the mark, no one
     * is woken, also not a reader that asked for fewer bytes. A FIN wakes them itself (tcp_fin).
     */
    static void dataReady(TcpConnection c) {
        int lowat = c.rcvLowat;
        if (lowat <= 1 || c.finReceived || c.dataPath.epollinReady(c, lowat)) c.wakeUp();
    }

    // ---- reading ------------------------------------------------------------------------------------

    /**
     * Copies up to {@code len} queued in-order bytes after the first {@code skip} to the application, leaving
     * them queued (recv with MSG_PEEK). Returns bytes copied.
     */
    static int peekToUser(TcpConnection c, int skip, byte[] b, int off, int len, ByteBuffer bb) {
        int copied = 0;
        for (PacketBuffer p = c.receiveQueue.peek(); p != null && copied < len; p = p.next) {
            int plen = p.length();
            if (skip >= plen) {
                skip -= plen;
                continue;
            }
            int n = Math.min(len - copied, plen - skip);
            if (bb != null) p.copyData(skip, bb, n);
            else p.copyData(skip, b, off + copied, n);
            copied += n;
            skip = 0;
        }
        return copied;
    }

    /**
     * Copies queued in-order data to the application; frees consumed buffers. Returns bytes copied. With urgent
     * data (Linux tcp_recvmsg_locked): a read stops before the urgent mark; a read that starts at it goes on past
     * the urgent byte, which it skips unless SO_OOBINLINE keeps it in the stream (so it may return 0 when that byte
     * was all there was); once the reader is past the mark the urgent data is forgotten.
     */
    static int copyToUser(TcpConnection c, byte[] b, int off, int len, ByteBuffer bb) {
        int copied = 0;
        boolean skipped = false;
        PacketBuffer p;
        while (copied < len && (p = c.receiveQueue.peek()) != null) {
            int n = Math.min(len - copied, p.length());
            if (c.urgData != 0) {
                int urgOffset = c.urgSeq - p.seq;
                if (urgOffset == 0) {
                    if (copied > 0) break; // stop at the mark
                    if (!c.urgInline) {
                        skipUrgentByte(c, p);
                        skipped = true;
                        c.urgData = 0; // the reader is past the mark
                        continue;
                    }
                } else if (Integer.compareUnsigned(urgOffset, n) < 0) {
                    n = urgOffset; // up to the mark
                }
            }
            int next = p.seq + n;
            if (bb != null) p.copyData(0, bb, n); // through the reference for data that has one (sendfile)
            else p.copyData(0, b, off + copied, n);
            copied += n;
            if (n == p.length()) {
                c.receiveQueue.poll();
                c.skbCache.eat(c, p);
            } else {
                p.pull(n);
                p.seq = next;
            }
            if (c.urgData != 0 && Tcp.seqGt(next, c.urgSeq)) c.urgData = 0; // past the mark (SO_OOBINLINE)
        }
        c.copiedSeq += copied;
        if (copied > 0 || skipped) c.tcp.memory.reclaim(c);
        rcvSpaceAdjust(c, copied);
        return copied;
    }

    /**
     * Receive-buffer autotuning (Linux tcp_rcv_space_adjust): grow rcvbuf when the reader keeps up; not while TCP
     * memory is under pressure.
     */
    static void rcvSpaceAdjust(TcpConnection c, int copied) {
        c.rcvqCopied += copied;
        if (c.rcvbufLocked || !c.tcp.sysctl.tcpModerateRcvbuf.enabled()) return;
        if (c.tcp.memory.underPressure()) return; // no autotuning under TCP memory pressure
        long now = c.tcp.ns.clock().nanoTime();
        long rttNs = Math.max(c.rtt.srttUs * 1000, 1_000_000L);
        if (now - c.rcvqTime < rttNs) return;
        if (c.rcvqCopied > c.rcvqSpace) {
            long want = Math.min(c.tcp.sysctl.tcpRmem.intValue(2), 4L * c.rcvqCopied);
            if (want > c.rcvbuf) c.rcvbuf = (int) want;
            c.rcvqSpace = c.rcvqCopied;
        }
        c.rcvqCopied = 0;
        c.rcvqTime = now;
    }

    // ---- ICMP -----------------------------------------------------------------------------------------

    /** ICMP error about a segment of ours (Linux tcp_v4_err): hard errors only while connecting. */
    static void icmpError(TcpConnection c, int type, int code, int info, int seq) {
        if (!Tcp.seqGeq(seq, c.sndUna) || Tcp.seqGt(seq, c.sndMax)) {
            c.tcp.mib.inc(MibCounter.TcpExtOutOfWindowIcmps);
            return;
        }
        if (type == Icmp.DEST_UNREACH && code == Icmp.CODE_FRAG_NEEDED) {
            int mtu = info;
            // __ip_rt_update_pmtu: an MTU below net.ipv4.route.min_pmtu (a forged or broken ICMP cannot shrink
            // segments to nothing) takes min_pmtu instead, or keeps a path MTU already below it
            int minPmtu = c.tcp.sysctl.ipRouteMinPmtu.intValue();
            if (mtu < minPmtu) mtu = c.pmtu > 0 ? Math.min(c.pmtu, minPmtu) : minPmtu;
            if (mtu >= 68) {
                int m = TcpOutput.mssForMtu(mtu) - (c.tsEnabled ? 12 : 0);
                if (m < c.mss && m >= 48) {
                    c.pmtu = mtu;
                    c.mss = m;
                    c.win.setMss(m);
                    PacketBuffer head = c.writeQueue.peek();
                    if (head != null && head.when != 0) {
                        c.sendHead = head;
                        c.sndNxt = c.sndUna;
                        TcpOutput.xmit(c);
                    }
                }
            }
            return;
        }
        int err = switch (code) {
            case Icmp.CODE_NET_UNREACH -> Errno.ENETUNREACH.number();
            case Icmp.CODE_HOST_UNREACH -> Errno.EHOSTUNREACH.number();
            case Icmp.CODE_PROTO_UNREACH, Icmp.CODE_PORT_UNREACH -> Errno.ECONNREFUSED.number();
            default -> Errno.EHOSTUNREACH.number();
        };
        if (type != Icmp.DEST_UNREACH) return;
        if (c.state == TcpState.SYN_SENT || c.state == TcpState.SYN_RECEIVED && c.parent == null) {
            TcpOutput.abort(c, err, false); // Linux tcp_v4_err: any unreachable while connecting is fatal
        } else {
            c.softError = err;
        }
    }
}
