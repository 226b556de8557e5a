package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;

/**
 * SYN cookies (RFC 4987 3.6; Linux net.ipv4.tcp_syncookies=1): when a listener's SYN queue is full,
 * the SYN-ACK's sequence number encodes what the connection needs (an MSS class and a 64-second time
 * counter) under a keyed hash of the 4-tuple and the peer's ISN, and no state is kept. The final ACK
 * proves the peer got the SYN-ACK; the connection is rebuilt from it. Cookies are valid for two
 * counter periods (64-128 s).
 *
 * <p>When the SYN carries timestamps (and net.ipv4.tcp_timestamps is on), the SYN-ACK's TSval carries the
 * options in its low 6 bits as Linux's cookie_init_timestamp does: bits 0-3 the peer's window scale (15: none),
 * bit 4 SACK-permitted, bit 5 ECN; the peer echoes them in the final ACK's TSecr, and
 * {@link #decodeTimestampOptions} reads them back (cookie_timestamp_decode): the SYN-ACK then carries SACK-permitted
 * when the SYN offered it and net.ipv4.tcp_sack is on, and our window scale when the SYN offered one and
 * net.ipv4.tcp_window_scaling is on. Without timestamps the connection has no options, as Linux's
 * tcp_clear_options.
 */
final class SynCookies {
    static final int COOKIE_PURPOSE = 4;
    /** MSS classes encoded in the cookie (Linux msstab for IPv4). */
    static final int[] MSS_TABLE = {536, 1300, 1440, 1460};
    private static final long PERIOD_NS = 64_000_000_000L;
    /** Low TSval bits that carry the options (Linux TSBITS). */
    static final int TSBITS = 6;
    /** Linux TS_OPT_WSCALE_MASK: the window scale bits; all ones for "no window scaling". */
    static final int TS_OPT_WSCALE_MASK = 0xF;
    /** Linux TS_OPT_SACK. */
    static final int TS_OPT_SACK = 1 << 4;
    /** Decoding failed: the options cannot be honoured (Linux cookie_timestamp_decode returns false). */
    static final int TS_OPT_INVALID = -1;

    private SynCookies() {}

    static int cookie(TcpProtocol tcp, int laddr, int lport, int raddr, int rport, int peerIsn, int count, int mssIndex) {
        int h = tcp.secret.hash(COOKIE_PURPOSE ^ (count << 8), laddr, lport, raddr, rport) + peerIsn;
        return (count << 24) | ((h + mssIndex) & 0xFFFFFF);
    }

    /**
     * Sends a SYN-ACK whose ISN is a cookie for this SYN; counts TcpExtSyncookiesSent. {@code scratch} is
     * overwritten with the SYN-ACK's options.
     *
     * @param rcvWscale the window scale a connection of the listener would offer ({@link
     *     TcpOutput#chooseWscale(TcpProtocol, boolean, int)}), -1 for none
     */
    static void sendCookie(TcpProtocol tcp, PacketBuffer syn, int src, int dst, TcpOptions synOpts, TcpOptions scratch,
                           int rcvWscale) {
        byte[] b = syn.array();
        int off = syn.dataStart();
        int sport = Tcp.sourcePort(b, off);
        int dport = Tcp.destinationPort(b, off);
        int peerMss = synOpts.mss >= 0 ? synOpts.mss : 536;
        int idx = 0;
        for (int i = MSS_TABLE.length - 1; i >= 0; i--) {
            if (peerMss >= MSS_TABLE[i]) { idx = i; break; }
        }
        long now = tcp.ns.clock().nanoTime();
        int count = (int) (now / PERIOD_NS) & 0xFF;
        int isn = cookie(tcp, dst, dport, src, sport, syn.seq, count, idx);
        int mss = TcpOutput.mssForMtu(tcp.ip.mtuFor(src));
        scratch.clear();
        scratch.mss = mss;
        if (synOpts.hasTimestamp && tcp.sysctl.tcpTimestamps.intValue() != 0) {
            boolean sack = synOpts.sackPermitted && tcp.sysctl.tcpSack.enabled();
            boolean wscale = synOpts.windowScale >= 0 && rcvWscale >= 0;
            int tsNow = tcp.tsClock() + tcp.timestampOffset(dst, dport, src, sport);
            scratch.hasTimestamp = true;
            scratch.tsVal = cookieTimestamp(tsNow, (wscale ? synOpts.windowScale : TS_OPT_WSCALE_MASK)
                    | (sack ? TS_OPT_SACK : 0));
            scratch.tsEcr = synOpts.tsVal;
            scratch.sackPermitted = sack;
            if (wscale) scratch.windowScale = rcvWscale;
        }
        tcp.reset().send(dst, dport, src, sport, isn, syn.seq + 1, Tcp.SYN | Tcp.ACK, 65535, scratch);
        tcp.mib.inc(MibCounter.TcpExtSyncookiesSent);
    }

    /**
     * The TSval of a cookie SYN-ACK (Linux cookie_init_timestamp): {@code tsNow} with its low {@link #TSBITS} bits
     * replaced by {@code options}, one period earlier when that would lie in the future, so TSval never runs ahead
     * of the clock.
     */
    static int cookieTimestamp(int tsNow, int options) {
        int ts = (tsNow & -(1 << TSBITS)) | options;
        if (ts - tsNow > 0) ts -= 1 << TSBITS;
        return ts;
    }

    /**
     * The options a cookie's timestamp carried, from the final ACK's TSecr (Linux cookie_timestamp_decode): the bits
     * {@link #TS_OPT_SACK} and {@link #TS_OPT_WSCALE_MASK} (the peer's window scale, all ones for none);
     * {@link #TS_OPT_INVALID} when the ACK has timestamps but net.ipv4.tcp_timestamps is off, or it says SACK while
     * net.ipv4.tcp_sack is off, or a window scale while net.ipv4.tcp_window_scaling is off (the cookie then fails);
     * {@link #TS_OPT_WSCALE_MASK} when the ACK has no timestamps (no options at all).
     */
    static int decodeTimestampOptions(TcpProtocol tcp, TcpOptions ackOpts) {
        if (!ackOpts.hasTimestamp) return TS_OPT_WSCALE_MASK;
        if (tcp.sysctl.tcpTimestamps.intValue() == 0) return TS_OPT_INVALID;
        int options = ackOpts.tsEcr & ((1 << TSBITS) - 1);
        if ((options & TS_OPT_SACK) != 0 && !tcp.sysctl.tcpSack.enabled()) return TS_OPT_INVALID;
        if ((options & TS_OPT_WSCALE_MASK) != TS_OPT_WSCALE_MASK && !tcp.sysctl.tcpWindowScaling.enabled()) {
            return TS_OPT_INVALID;
        }
        return options;
    }

    /** The MSS a valid cookie encodes, or -1. */
    static int check(TcpProtocol tcp, int laddr, int lport, int raddr, int rport, int peerIsn, int cookie) {
        int count = (cookie >>> 24) & 0xFF;
        int nowCount = (int) (tcp.ns.clock().nanoTime() / PERIOD_NS) & 0xFF;
        int age = (nowCount - count) & 0xFF;
        if (age > 1) return -1;
        int h = tcp.secret.hash(COOKIE_PURPOSE ^ (count << 8), laddr, lport, raddr, rport) + peerIsn;
        int idx = ((cookie & 0xFFFFFF) - (h & 0xFFFFFF)) & 0xFFFFFF;
        return idx < MSS_TABLE.length ? MSS_TABLE[idx] : -1;
    }
}
