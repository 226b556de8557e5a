package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.Mib;
import io.jnet.wire.TcpOptions;

/**
 * A scoreboard for the SACK benchmark (io.jnet.bench.SackScoreboardBenchmark), which cannot reach the package's
 * classes: {@code n} sent segments of {@link #MSS} bytes, all SACKed but four holes (the first segment and those
 * at a quarter, half and three quarters), and an ACK of SND.UNA carrying four hostile blocks: a D-SACK far below
 * SND.UNA (dubious), one from just inside the second segment to just inside the hole at a quarter (valid, covering
 * a quarter of the queue, all SACKed already), one from inside the hole at half to beyond SND.NXT, and one empty.
 * Each {@link #hostileAck()} leaves the scoreboard as it found it.
 */
public final class SackScoreboardBench {
    public static final int MSS = 1448;
    private static final int BASE = 0x7FF00000;

    private final SackScoreboard sb = new SackScoreboard();
    private final Mib mib = new Mib();
    private final TcpOptions ack = new TcpOptions();
    private final int sndUna;
    private final int sndNxt;

    public SackScoreboardBench(int n) {
        if (n < 8) throw new IllegalArgumentException("at least 8 segments: " + n);
        int seq = BASE;
        for (int i = 0; i < n; i++) {
            PacketBuffer b = PacketBuffer.allocate(0, 0);
            b.seq = seq;
            b.endSeq = seq + MSS;
            seq += MSS;
            sb.onSent(b);
        }
        sndUna = BASE;
        sndNxt = seq;
        TcpOptions all = new TcpOptions();
        all.sackBlocks = 4;
        int q1 = BASE + n / 4 * MSS;
        int q2 = BASE + n / 2 * MSS;
        int q3 = BASE + 3 * n / 4 * MSS;
        int[][] runs = {{BASE + MSS, q1}, {q1 + MSS, q2}, {q2 + MSS, q3}, {q3 + MSS, sndNxt}};
        for (int i = 0; i < 4; i++) {
            all.sackLeft[i] = runs[i][0];
            all.sackRight[i] = runs[i][1];
        }
        sb.tag(all, sndUna, sndUna, sndNxt, MSS, 0, mib);
        if (sb.sackedOut() != n - 4) throw new IllegalStateException("SACKed " + sb.sackedOut() + " of " + n);
        ack.sackBlocks = 4;
        ack.sackLeft[0] = sndUna - 100 * MSS;
        ack.sackRight[0] = sndUna - 50 * MSS;
        ack.sackLeft[1] = BASE + MSS + 1;
        ack.sackRight[1] = q1 + 1;
        ack.sackLeft[2] = q2 + 7;
        ack.sackRight[2] = sndNxt + 1000;
        ack.sackLeft[3] = q3 + 5;
        ack.sackRight[3] = q3 + 5;
    }

    /** Processes the hostile ACK; returns the segments it newly SACKed (0). */
    public int hostileAck() {
        return sb.tag(ack, sndUna, sndUna, sndNxt, MSS, 0, mib);
    }

    /** Segments SACKed. */
    public long sackedOut() { return sb.sackedOut(); }
}
