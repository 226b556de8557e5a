package io.jnet.stack;

/**
 * SNMP MIB and Linux extension counters, named exactly as Linux prints them in
 * {@code /proc/net/snmp} and {@code /proc/net/netstat} (group prefix + field), e.g. {@code IpInReceives},
 * {@code TcpRetransSegs}, {@code TcpExtTCPTimeouts}.
 */
public enum MibCounter {
    // Ip (RFC 4293 names as Linux prints them)
    IpInReceives, IpInHdrErrors, IpInAddrErrors, IpForwDatagrams, IpInUnknownProtos, IpInDiscards, IpInDelivers,
    IpOutRequests, IpOutDiscards, IpOutNoRoutes, IpReasmTimeout, IpReasmReqds, IpReasmOKs, IpReasmFails, IpFragOKs,
    IpFragFails, IpFragCreates,
    // IpExt
    IpExtInNoRoutes, IpExtInTruncatedPkts, IpExtInCsumErrors, IpExtReasmOverlaps,
    // Icmp
    IcmpInMsgs, IcmpInErrors, IcmpInCsumErrors, IcmpInDestUnreachs, IcmpInTimeExcds, IcmpInEchos, IcmpInEchoReps,
    IcmpOutMsgs, IcmpOutErrors, IcmpOutDestUnreachs, IcmpOutTimeExcds, IcmpOutRedirects, IcmpOutEchos, IcmpOutEchoReps, IcmpOutRateLimitGlobal,
    // Tcp
    TcpActiveOpens, TcpPassiveOpens, TcpAttemptFails, TcpEstabResets, TcpCurrEstab, TcpInSegs, TcpOutSegs,
    TcpRetransSegs, TcpInErrs, TcpOutRsts, TcpInCsumErrors,
    // Udp
    UdpInDatagrams, UdpNoPorts, UdpInErrors, UdpOutDatagrams, UdpRcvbufErrors, UdpSndbufErrors, UdpInCsumErrors,
    UdpIgnoredMulti,
    // TcpExt (Linux names)
    TcpExtSyncookiesSent, TcpExtSyncookiesRecv, TcpExtSyncookiesFailed, TcpExtTCPReqQFullDoCookies,
    TcpExtTCPReqQFullDrop, TcpExtEmbryonicRsts, TcpExtPruneCalled,
    TcpExtRcvPruned, TcpExtOfoPruned, TcpExtOutOfWindowIcmps, TcpExtTW, TcpExtTWRecycled,
    TcpExtPAWSEstab, TcpExtDelayedACKs, TcpExtDelayedACKLost, TcpExtListenOverflows, TcpExtListenDrops,
    TcpExtTCPHPHits, TcpExtTCPPureAcks, TcpExtTCPHPAcks, TcpExtTCPRenoRecovery, TcpExtTCPRenoReorder,
    TcpExtTCPLossUndo, TcpExtTCPFastRetrans, TcpExtTCPSlowStartRetrans, TcpExtTCPTimeouts, TcpExtTCPRenoFailures,
    TcpExtTCPAbortOnData, TcpExtTCPAbortOnClose, TcpExtTCPAbortOnMemory, TcpExtTCPAbortOnTimeout,
    TcpExtTCPAbortOnLinger, TcpExtTCPRcvCollapsed, TcpExtTCPOFOQueue, TcpExtTCPOFODrop, TcpExtTCPOFOMerge,
    TcpExtTCPBacklogDrop, TcpExtTCPMinTTLDrop, TcpExtTCPDeferAcceptDrop, TcpExtTCPChallengeACK,
    TcpExtTCPSYNChallenge, TcpExtTCPRcvQDrop, TcpExtTCPZeroWindowDrop, TcpExtTCPToZeroWindowAdv,
    TcpExtTCPFromZeroWindowAdv, TcpExtTCPWantZeroWindowAdv, TcpExtTCPOrigDataSent, TcpExtTCPDelivered,
    TcpExtTCPKeepAlive, TcpExtTCPSpuriousRTOs, TcpExtTCPDSACKRecv, TcpExtTCPDSACKOldSent,
    TcpExtTCPBacklogCoalesce, TcpExtTCPRcvCoalesce, TcpExtTCPAckCompressed, TcpExtTCPWinProbe,
    TcpExtTCPTimeWaitOverflow, TcpExtTCPRetransFail, TcpExtLockDroppedIcmps, TcpExtTCPSpuriousRtxHostQueues,
    TcpExtTCPACKSkippedSeq, TcpExtTCPACKSkippedPAWS, TcpExtTCPACKSkippedChallenge,
    // SACK and D-SACK (RFC 2018, RFC 2883), Linux's names: D-SACK blocks sent for data below RCV.NXT (OldSent, above)
    // and in the out-of-order queue; received SACK blocks discarded as invalid, D-SACK blocks ignored as too old or
    // with no undo possible, D-SACK blocks for out-of-order data, dubious D-SACKs, segments D-SACKed, and timeouts
    // that found the peer had dropped data it had SACKed
    TcpExtTCPDSACKOfoSent, TcpExtTCPSACKDiscard, TcpExtTCPDSACKIgnoredOld, TcpExtTCPDSACKIgnoredNoUndo,
    TcpExtTCPDSACKOfoRecv, TcpExtTCPDSACKIgnoredDubious, TcpExtTCPDSACKRecvSegs, TcpExtTCPSACKReneging,
    // SACK-based loss recovery (RFC 6675), Linux's names: recoveries entered, recoveries ended by a timeout,
    // retransmissions found lost again, ACKs showing by SACK that a segment arrived after later ones
    TcpExtTCPSackRecovery, TcpExtTCPSackRecoveryFail, TcpExtTCPLostRetransmit, TcpExtTCPSACKReorder,
    // tail loss probes (RFC 8985 section 7), Linux's names: probes sent, and tail losses they repaired (the
    // probe's ACK showed a loss and the congestion window was reduced once)
    TcpExtTCPLossProbes, TcpExtTCPLossProbeRecovery,
    // undo of spurious reductions (RFC 3522 Eifel timestamps, RFC 2883 D-SACK, RFC 5682 F-RTO), Linux's names:
    // recoveries undone in full at their end and on a partial ACK, recoveries undone by D-SACKs, reordering shown by
    // timestamps (TcpExtTCPLossUndo and TcpExtTCPSpuriousRTOs above count the timeouts undone)
    TcpExtTCPFullUndo, TcpExtTCPPartialUndo, TcpExtTCPDSACKUndo, TcpExtTCPTSReorder,
    // jnet's own: SACK options whose length is no whole number of blocks (ignored, as Linux ignores them unseen)
    TcpExtJnetSackOptionMalformed,
    // TCP memory pressure (net.ipv4.tcp_mem; io.jnet.tcp.TcpMemory): entries into pressure, and milliseconds spent
    // under it (Linux adds the time when pressure ends; jnet's reading includes a pressure still going on)
    TcpExtTCPMemoryPressures, TcpExtTCPMemoryPressuresChrono,
    // packets dropped by the reverse path filter (rp_filter; Linux LINUX_MIB_IPRPFILTER, printed in TcpExt)
    TcpExtIPReversePathFilter,
    // jnet's own, no Linux counter: reads of a sendfile mapping that faulted because the file shrank after the
    // call (zeros were sent for those bytes; Linux sends what the page cache holds then)
    TcpExtJnetSendfileFaults,
    // jnet's own, TCP friends (net.ipv4.tcp_friends): connections paired at the handshake, bytes moved straight into
    // a friend's receive queue, and handshakes that stayed plain TCP because lo carries a sniffer or an impairment
    TcpExtJnetFriendsPaired, TcpExtJnetFriendsBytes, TcpExtJnetFriendsFallback,
    // jnet's own, copies on the send side (Linux counts none): payload bytes copied from the user's buffer into the
    // write queue, payload bytes copied within the stack (into a frame when a segment cannot go down as a clone of
    // its write-queue segment, or into the new part when a segment is split), and segments sent as clones (no copy)
    TcpExtJnetSndUserCopiedBytes, TcpExtJnetSndCopiedBytes, TcpExtJnetSndClonedSegs,
    // jnet's own, the per-socket buffer caches (net.ipv4.tcp_tx_skb_cache, tcp_rx_skb_cache; Linux counts none): writes
    // that took the socket's parked write buffer, buffers a reader parked that the receive path freed, and parked
    // buffers freed when the connection ended or TCP was under memory pressure
    TcpExtJnetTxSkbCacheHits, TcpExtJnetRxSkbCacheFrees, TcpExtJnetSkbCachePurges,
    // jnet's own, early demux (net.ipv4.ip_early_demux, tcp_early_demux, udp_early_demux; Linux counts none of these):
    // lookups in a connection table (TCP's established hash, UDP's port table; at early demux, in the protocol's
    // receive, for ICMP errors), input routing decisions made for received packets (skipped when early demux found
    // a socket whose cached input route is valid), and early-demux lookups that found an established TCP or
    // connected UDP socket (hits) or did not (misses; the result is handed to the protocol, not looked up again)
    IpExtJnetSocketLookups, IpExtJnetRouteLookups, IpExtJnetEarlyDemuxHits, IpExtJnetEarlyDemuxMisses,
    // ArpExt-like (Linux keeps these in /proc/net/stat/arp_cache: jnet exposes them here)
    ArpInRequests, ArpInReplies, ArpOutRequests, ArpOutReplies, ArpUnresolvedDiscards, ArpInErrors,
    // RtCache-like (Linux keeps these in /proc/net/stat/rt_cache as in_martian_src / in_martian_dst and logs the
    // packets with net.ipv4.conf.*.log_martians): packets dropped by the input route for a martian source (0/8,
    // 127/8, multicast, broadcast, a local address, 169.254/16 when forwarding, or a failed rp_filter) or a
    // martian destination (0/8, 169.254/16 when forwarding)
    RtCacheInMartianSrc, RtCacheInMartianDst,
    // device-independent link input drops (frames jnet could not parse or has no handler for)
    LinkInErrors, LinkInUnknownProtos;

    /** The Linux group this counter belongs to ("Ip", "IpExt", "Icmp", "Tcp", "Udp", "TcpExt", "Arp", "RtCache", "Link"). */
    public String group() {
        String n = name();
        for (String g : new String[] {"TcpExt", "IpExt", "Icmp", "Tcp", "Udp", "Ip", "Arp", "RtCache", "Link"}) {
            if (n.startsWith(g)) return g;
        }
        return "";
    }

    /** Field name within the group as /proc prints it, e.g. "InReceives". */
    public String field() { return name().substring(group().length()); }
}
