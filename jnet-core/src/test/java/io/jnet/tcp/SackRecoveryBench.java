package io.jnet.tcp;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.wire.TcpOptions;
import java.io.IOException;

/**
 * A connection in SACK recovery for the recovery benchmark (io.jnet.bench.SackRecoveryBenchmark), which cannot reach
 * the package's classes: a client on {@link VirtualNet} with {@code n} segments in flight that the server never sees,
 * SACKed by the peer but for its holes, in fast recovery with every hole retransmitted. Two patterns of holes:
 * {@code quarters}, the first segment and those at a quarter, half and three quarters of the queue; {@code alternate},
 * every other segment of the first half (n / 4 holes, all lost). {@link #hostileAck()} then processes, as TcpInput
 * does for a duplicate ACK (tcp_sacktag_write_queue, then the recovery's per-ACK step), an ACK of SND.UNA with four
 * hostile blocks: a D-SACK far below SND.UNA, one from just inside the second segment to just inside the segment at a
 * quarter, one from inside the segment at half to beyond SND.NXT, and an empty one. It changes nothing, so every call
 * costs the same.
 */
public final class SackRecoveryBench implements AutoCloseable {
    private final VirtualNet net = new VirtualNet();
    private final TcpServerSocket srv;
    private final TcpConnection c;
    private final TcpOptions hostile = new TcpOptions();
    private final TcpOptions o = new TcpOptions();

    public SackRecoveryBench(int n, String pattern) throws IOException {
        if (n < 8) throw new IllegalArgumentException("at least 8 segments: " + n);
        net.a.sysctl().wmemMax.set(Integer.MAX_VALUE / 2);
        net.a.sysctl().set("net.ipv4.tcp_mem", "100000000 200000000 400000000");
        srv = net.listen(VirtualNet.PORT);
        c = net.establish(srv)[0];
        c.setOption(SocketOption.TCP_NODELAY, true);
        c.setOption(SocketOption.SO_SNDBUF, Integer.MAX_VALUE / 4);
        net.filter.dropOutbound(f -> f.payloadLength() > 0);
        int mss = c.mss;
        c.win.cwnd = (long) (n + 16) * mss;
        c.sndWnd = (long) (n + 16) * mss;
        c.maxSndWnd = c.sndWnd;
        byte[] chunk = new byte[64 * mss];
        long total = (long) n * mss;
        for (long sent = 0; sent < total; ) {
            int len = (int) Math.min(chunk.length, total - sent);
            int w = c.write(chunk, 0, len);
            if (w <= 0) throw new IllegalStateException("write stalled at " + sent + " of " + total);
            sent += w;
        }
        int base = c.sndUna;
        if (c.sndMax - base != total || c.sack.size() != n) {
            throw new IllegalStateException("in flight " + (c.sndMax - base) + " of " + total + ", " + c.sack.size() + " segments");
        }
        int sndNxt = c.sndMax;
        int q1 = base + n / 4 * mss;
        int q2 = base + n / 2 * mss;
        int q3 = base + 3 * n / 4 * mss;
        if (pattern.equals("quarters")) {
            ack(base + mss, q1, q1 + mss, q2, q2 + mss, q3, q3 + mss, sndNxt);
        } else if (pattern.equals("alternate")) {
            ack(q2, sndNxt);
            for (int i = n / 2 - 1; i > 0; i -= 8) { // highest first, four segments an ACK, as a receiver sends them
                int[] e = new int[8];
                for (int k = 0; k < 4; k++) {
                    int seg = Math.max(1, i - 2 * k);
                    if (seg % 2 == 0) seg--;
                    e[2 * k] = base + seg * mss;
                    e[2 * k + 1] = base + (seg + 1) * mss;
                }
                ack(e);
            }
        } else {
            throw new IllegalArgumentException("pattern " + pattern);
        }
        for (int i = 0; i < 64 && c.sack.retransOutBytes() < c.sack.lostBytes(); i++) ack(q3 + mss, sndNxt); // send the rest
        if (!c.recovery.inRecovery()) throw new IllegalStateException("not in recovery");
        long expected = pattern.equals("quarters") ? n - 4 : n - n / 4;
        if (c.sack.sackedOut() != expected) throw new IllegalStateException("SACKed " + c.sack.sackedOut() + " of " + n);
        hostile.sackBlocks = 4;
        hostile.sackLeft[0] = base - 100 * mss;
        hostile.sackRight[0] = base - 50 * mss;
        hostile.sackLeft[1] = base + mss + 1;
        hostile.sackRight[1] = pattern.equals("quarters") ? q1 + 1 : base + 3 * mss - 1;
        hostile.sackLeft[2] = q2 + 7;
        hostile.sackRight[2] = sndNxt + 1000;
        hostile.sackLeft[3] = q3 + 5;
        hostile.sackRight[3] = q3 + 5;
    }

    private void ack(int... edges) {
        o.sackBlocks = edges.length / 2;
        for (int i = 0; i < o.sackBlocks; i++) {
            o.sackLeft[i] = edges[2 * i];
            o.sackRight[i] = edges[2 * i + 1];
        }
        process(o);
    }

    private int process(TcpOptions opts) {
        int newly = c.sack.tag(opts, c.sndUna, c.sndUna, c.sndMax, c.mss, c.totalRetrans, c.tcp.mib);
        c.recovery.onDupAck(c, newly);
        c.recovery.afterAck(c);
        return newly;
    }

    /** Processes the hostile ACK; returns the segments it newly SACKed (0). */
    public int hostileAck() {
        return process(hostile);
    }

    /** Segments SACKed. */
    public long sackedOut() { return c.sack.sackedOut(); }

    /** Segments in flight. */
    public int segments() { return c.sack.size(); }

    /** Scoreboard nodes visited so far. */
    public long visits() { return c.sack.visits; }

    /** Whether the connection is still in fast recovery. */
    public boolean inRecovery() { return c.recovery.inRecovery(); }

    @Override
    public void close() throws IOException {
        srv.close();
        net.close();
    }
}
