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
 * counter periods (64-128 s). Connections made this way have no window scaling and no timestamps.
 */
final class SynCookies {
    static final int COOKIE_PURPOSE = 4;
    /** MSS classes encoded in the cookie (Linux msstab for IPv4). */
    static final int[] MSS_TABLE = {536, 1300, 1440, 1460};
    private static final long PERIOD_NS = 64_000_000_000L;

    private SynCookies() {}

    static int cookie(TcpProtocol tcp, int laddr, int lport, int raddr, int rport, int peerIsn, int count, int mssIndex) {
        int h = tcp.secret.hash(COOKIE_PURPOSE ^ (count << 8), laddr, lport, raddr, rport) + peerIsn;
        return (count << 24) | ((h + mssIndex) & 0xFFFFFF);
    }

    /**
     * Sends a SYN-ACK whose ISN is a cookie for this SYN; counts TcpExtSyncookiesSent. {@code scratch} is
     * overwritten with the SYN-ACK's options.
     */
    static void sendCookie(TcpProtocol tcp, PacketBuffer syn, int src, int dst, TcpOptions synOpts, TcpOptions scratch) {
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
        tcp.reset().send(dst, dport, src, sport, isn, syn.seq + 1, Tcp.SYN | Tcp.ACK, 65535, scratch);
        tcp.mib.inc(MibCounter.TcpExtSyncookiesSent);
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
