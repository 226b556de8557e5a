package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.socket.TcpInfo;

/**
 * Builds {@link TcpInfo} from a connection (Linux's {@code tcp_get_info}). The caller holds the socket
 * lock, so the fields describe one instant. Walks the write queue once for the segment counts.
 */
final class TcpInfoSnapshot {
    private TcpInfoSnapshot() {}

    static TcpInfo of(TcpConnection c, long nowNs) {
        TcpState state = c.state;
        boolean handshake = state == TcpState.SYN_SENT || state == TcpState.SYN_RECEIVED;
        int mss = Math.max(1, c.mss);

        // packets_out, lost_out, retrans_out: the write queue's sent segments in MSS units
        long unacked = 0;
        long lost = 0;
        long retrans = 0;
        long sackedSegs = 0;
        for (PacketBuffer p = c.writeQueue.peek(); p != null && p.when != 0; p = p.next) {
            int n = TcpOutput.segmentCount(c, p);
            unacked += n;
            if ((p.flags & SackScoreboard.SACKED_ACKED) != 0) sackedSegs += n;
            else if ((p.flags & TcpOutput.LOST) != 0) lost += n; // a SACKed segment is not lost (tcp_sacktag_one)
            if ((p.flags & TcpOutput.RETRANS_OUT) != 0) retrans += n;
        }
        if (handshake) unacked = 1; // the SYN (or SYN-ACK) in flight
        long sacked;
        if (c.sackOk) {
            sacked = sackedSegs; // Linux sacked_out: the segments SACKed
        } else {
            // without SACK, Linux's Reno path counts duplicate ACKs as "sacked", at most one per segment not in a hole
            long holes = Math.min(Math.max(lost, 1), unacked);
            sacked = Math.max(0, Math.min(c.recovery.dupAcks(), unacked - holes));
        }

        int options = 0;
        if (c.tsEnabled) options |= TcpInfo.TCPI_OPT_TIMESTAMPS;
        if (c.wscaleEnabled) options |= TcpInfo.TCPI_OPT_WSCALE;
        if (c.sackOk && !handshake) options |= TcpInfo.TCPI_OPT_SACK;

        long established = c.establishedNs;
        long cwndSegments = c.win.cwnd / mss;
        long ssthresh = c.win.ssthresh >= TcpInfo.TCP_INFINITE_SSTHRESH * mss
                ? TcpInfo.TCP_INFINITE_SSTHRESH : c.win.ssthresh / mss;
        long atoUs = Math.min(c.atoNs, c.tcp.sysctl.tcpDelackMaxMs.intValue() * 1_000_000L) / 1000;
        long windowClamp = Math.min((long) c.rcvbuf >> 1, 65535L << c.rcvWscale);
        long notSent = Math.max(0, c.writeSeq - c.sndMax);

        return new TcpInfo(
                state.linuxNumber(), c.caState, Math.min(c.retransmits, 255), Math.min(Math.max(c.probesOut, c.keepaliveProbes), 255),
                Math.min(Math.max(c.rtt.backoff, c.persistBackoff), 255), options,
                c.wscaleEnabled ? c.sndWscale : 0, c.wscaleEnabled ? c.rcvWscale : 0,
                c.rate.rateAppLimited(),
                c.rtt.currentRtoUs(), atoUs, c.mss, c.rcvMss,
                unacked, sacked, lost, retrans,
                sinceMs(nowNs, c.dataPath.lastDataSentNs(c), established),
                sinceMs(nowNs, c.dataPath.lastDataRecvNs(c), established),
                sinceMs(nowNs, c.dataPath.lastAckRecvNs(c), established),
                c.pmtu, windowClamp, c.rtt.srttUs, c.rtt.rttvarUs, ssthresh, cwndSegments,
                c.advMss - (c.tsEnabled ? 12 : 0), c.reordering,
                c.rcvRtt.rttUs(), c.rcvqSpace, u32(c.totalRetrans),
                c.pacingRate, c.bytesAcked, c.bytesReceived, u32(c.segsOut), u32(c.segsIn),
                notSent, c.minRtt.get(), u32(c.dataSegsIn), u32(c.dataSegsOut),
                c.rate.rateBytesPerSecond(mss),
                usOf(c.chrono.total(TcpChrono.BUSY, nowNs) + c.chrono.total(TcpChrono.RWND_LIMITED, nowNs)
                        + c.chrono.total(TcpChrono.SNDBUF_LIMITED, nowNs)),
                usOf(c.chrono.total(TcpChrono.RWND_LIMITED, nowNs)), usOf(c.chrono.total(TcpChrono.SNDBUF_LIMITED, nowNs)),
                c.bytesSent, c.bytesRetrans, u32(c.sack.dsackDups()), u32(c.rack.reorderingSeen()), u32(c.rcvOoopack),
                c.sndWnd & 0xFFFFFFFFL, c.rcvWnd & 0xFFFFFFFFL);
    }

    /** A listener, as Linux reports one: accept queue length and limit, the initial cwnd, reordering and pacing. */
    static TcpInfo ofListener(boolean listening, int queued, int backlog) {
        return new TcpInfo(
                listening ? TcpInfo.TCP_LISTEN : TcpInfo.TCP_CLOSE, 0, 0, 0, 0, 0, 0, 0, false,
                0, 0, 0, 0,
                listening ? queued : 0, listening ? backlog : 0, 0, 0,
                0, 0, 0,
                0, 0, 0, 0, 0, CongestionWindow.INIT_CWND_SEGMENTS, 0, LossRecovery.TCP_FASTRETRANS_THRESH,
                0, 0, 0,
                -1, 0, 0, 0, 0,
                0, 0, 0, 0,
                0, 0, 0, 0,
                0, 0, 0, 0, 0,
                0, 0);
    }

    /** Milliseconds since {@code eventNs}, or since establishment when the event never happened; 0 before establishment. */
    private static long sinceMs(long nowNs, long eventNs, long establishedNs) {
        long from = eventNs != 0 ? Math.max(eventNs, establishedNs) : establishedNs;
        if (from == 0) return 0;
        return u32(Math.max(0, nowNs - from) / 1_000_000L);
    }

    private static long usOf(long ns) { return ns / 1000; }

    /** A counter Linux keeps in 32 bits, wrapped as Linux's. */
    private static long u32(long v) { return v & 0xFFFFFFFFL; }
}
