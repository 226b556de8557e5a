package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.MibCounter;
import io.jnet.stack.Timer;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;

/**
 * What remains of a connection in TIME-WAIT (Linux's inet_timewait_sock): the tuple, the sequence
 * state needed to re-ACK a retransmitted FIN, the last timestamp seen, and a 60-second timer
 * (TCP_TIMEWAIT_LEN, 2*MSL). Holds its local port until it expires or is reused.
 */
final class TimeWaitSock extends TcpEndpoint implements TcpProtocol.Binder {
    static final long TIMEWAIT_LEN_NS = 60_000_000_000L;

    private final TcpProtocol tcp;
    final int sndNxt;
    final int rcvNxt;
    final int rcvWnd;
    final boolean hasTimestamps;
    final int tsOffset;
    int tsRecent;
    /** Clock time (ns) when tsRecent was last updated; 0 when timestamps are off. */
    long tsRecentStamp;
    final boolean reuse;
    final boolean explicit;
    final boolean bound;
    final Timer timer;

    TimeWaitSock(TcpProtocol tcp, TcpConnection c, long timeoutNs) {
        this.tcp = tcp;
        this.localAddr = c.localAddr;
        this.localPort = c.localPort;
        this.remoteAddr = c.remoteAddr;
        this.remotePort = c.remotePort;
        this.sndNxt = c.sndNxt;
        this.rcvNxt = c.rcvNxt;
        this.rcvWnd = c.lastAdvertisedWindow();
        this.hasTimestamps = c.tsEnabled;
        this.tsOffset = c.tsOffset;
        this.tsRecent = c.tsRecent;
        this.tsRecentStamp = c.tsEnabled ? Math.max(1, c.tsRecentStamp) : 0;
        this.reuse = c.reuseAddr;
        this.explicit = c.explicitBind;
        this.bound = c.boundAddress != 0;
        this.timer = tcp.ns.timers().newTimer(this::expire);
        timer.schedule(timeoutNs);
    }

    @Override public int boundAddress() { return bound ? localAddr : 0; }
    @Override public boolean reuseAddress() { return reuse; }
    @Override public boolean isListening() { return false; }
    @Override public boolean explicitBind() { return explicit; }

    /**
     * Processes a segment for this tuple (Linux's tcp_timewait_state_process). Returns true when a new
     * SYN may open a new connection (the remnant is gone and the caller passes the SYN to a listener,
     * with the new connection's ISN, this SND.NXT + 65535 + 2, in {@link PacketBuffer#twIsn});
     * false when the segment was consumed.
     */
    boolean process(PacketBuffer pkt, int src, int dst) {
        try {
            int flags = pkt.flags;
            byte[] b = pkt.array();
            int off = pkt.dataStart();
            TcpOptions opts = TcpProtocol.SCRATCH_OPTIONS.get();
            int hl = Tcp.headerLength(b, off);
            opts.parse(b, off + Tcp.MIN_HEADER_LENGTH, hl - Tcp.MIN_HEADER_LENGTH); // malformed: parsing stops, segment kept
            boolean paws = hasTimestamps && opts.hasTimestamp && tsRecentStamp != 0
                    && TcpInput.pawsOld(tsRecent, opts.tsVal) && (flags & Tcp.RST) == 0;
            if ((flags & Tcp.SYN) != 0 && (flags & (Tcp.ACK | Tcp.RST)) == 0) {
                // RFC 6191: a new SYN with a higher sequence number or newer timestamp reopens the tuple
                boolean newer = hasTimestamps && opts.hasTimestamp ? opts.tsVal - tsRecent > 0 : Tcp.seqGt(pkt.seq, rcvNxt);
                if (newer && kill()) {
                    int isn = sndNxt + 65535 + 2;
                    pkt.twIsn = isn == 0 ? 1 : isn;
                    tcp.mib.inc(MibCounter.TcpExtTWRecycled);
                    return true;
                }
            }
            if (paws) {
                tcp.mib.inc(MibCounter.TcpExtPAWSEstab);
                sendAck();
                pkt.release();
                return false;
            }
            if ((flags & Tcp.RST) != 0) {
                // an in-window RST kills TIME-WAIT (assassination), unless net.ipv4.tcp_rfc1337 (RFC 1337 fix TW1)
                if (pkt.seq == rcvNxt && !tcp.sysctl.tcpRfc1337.enabled()) kill();
                pkt.release();
                return false;
            }
            if ((flags & Tcp.FIN) != 0 && pkt.endSeq == rcvNxt) {
                // retransmitted FIN: ACK again and restart the 2MSL timer (RFC 9293 3.10.7.4)
                if (opts.hasTimestamp) { tsRecent = opts.tsVal; tsRecentStamp = tcp.ns.clock().nanoTime(); }
                timer.schedule(TIMEWAIT_LEN_NS);
                sendAck();
            } else if (pkt.endSeq != pkt.seq || (flags & Tcp.SYN) != 0) {
                sendAck();
            }
            pkt.release();
            return false;
        } catch (RuntimeException e) {
            tcp.ns.reportInternalError(e);
            pkt.release();
            return false;
        }
    }

    private void sendAck() {
        TcpOptions o = null;
        if (hasTimestamps) {
            o = TcpProtocol.SCRATCH_OPTIONS.get();
            o.clear();
            o.hasTimestamp = true;
            o.tsVal = tcp.tsClock() + tsOffset;
            o.tsEcr = tsRecent;
        }
        tcp.reset().send(localAddr, localPort, remoteAddr, remotePort, sndNxt, rcvNxt, Tcp.ACK, Math.min(rcvWnd, 65535), o);
    }

    /**
     * tcp_tw_reuse: may a new outgoing connection {@code c} take this tuple? Needs timestamps on both,
     * the sysctl (1, or 2 with loopback addresses) and net.ipv4.tcp_tw_reuse_delay (1 s) since the last timestamp.
     */
    boolean reusableFor(TcpConnection c) {
        int mode = tcp.sysctl.tcpTwReuse.intValue();
        if (mode == 0 || !hasTimestamps || tsRecentStamp == 0 || tcp.sysctl.tcpTimestamps.intValue() == 0) return false;
        if (mode == 2 && !(Ipv4.isLoopback(localAddr) && Ipv4.isLoopback(remoteAddr)) && !(localAddr == remoteAddr)) return false;
        return tcp.ns.clock().nanoTime() - tsRecentStamp >= tcp.sysctl.tcpTwReuseDelay.intValue() * 1_000_000L;
    }

    /** Called after the table replaced this remnant by {@code c}: seeds its sequence and timestamp state. */
    void handOver(TcpConnection c) {
        c.reuseFromTimeWait(sndNxt + 65535 + 2, tsRecent, tsRecentStamp);
        tcp.mib.inc(MibCounter.TcpExtTWRecycled);
        timer.cancel();
        tcp.rebind(this, c, localPort);
        tcp.timeWaitGone();
    }

    /** The 2MSL timer: TIME-WAIT ends (counted in TcpExtTW like Linux's "sockets finished time wait"). */
    private void expire() {
        if (kill()) tcp.mib.inc(MibCounter.TcpExtTW);
    }

    /** Removes the remnant; returns false when it was already gone (expired, killed or reused). */
    boolean kill() {
        if (!tcp.table.remove(this)) return false; // table membership decides who wins against reuse
        timer.cancel();
        tcp.unbind(this, localPort);
        tcp.timeWaitGone();
        return true;
    }
}
