package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The sender's scoreboard on its own: SACK blocks recorded on sent segments (Linux tcp_sacktag_write_queue),
 * hostile blocks rejected and counted as tcp_is_sackblock_valid and tcp_check_dsack count them, the queries
 * RFC 6675 recovery will need, and the tree's invariants under random use against a plain model.
 */
class SackScoreboardTest {
    static final int BASE = 0x7FFFF000; // the sequence space wraps inside the tests' queues
    static final int M = 1000;

    final Mib mib = new Mib();
    final SackScoreboard sb = new SackScoreboard();
    final List<PacketBuffer> queue = new ArrayList<>();

    /** Sends {@code n} segments of M bytes after those sent so far. */
    void send(int n) {
        for (int i = 0; i < n; i++) {
            PacketBuffer b = PacketBuffer.allocate(64, M);
            b.put(M);
            b.seq = queue.isEmpty() ? BASE : queue.getLast().endSeq;
            b.endSeq = b.seq + M;
            queue.add(b);
            sb.onSent(b);
        }
    }

    int sndNxt() { return queue.getLast().endSeq; }

    int sndUna() { return queue.getFirst().seq; }

    /** An ACK of {@code ack} (offset from BASE) with blocks given as offsets from BASE. */
    int ack(int ack, int... edges) { return ackRaw(BASE + ack, edges); }

    int ackRaw(int ack, int... edges) {
        TcpOptions o = new TcpOptions();
        o.sackBlocks = edges.length / 2;
        for (int i = 0; i < o.sackBlocks; i++) {
            o.sackLeft[i] = BASE + edges[2 * i];
            o.sackRight[i] = BASE + edges[2 * i + 1];
        }
        int n = sb.tag(o, ack, sndUna(), sndNxt(), M, retrans, mib);
        sb.check();
        return n;
    }

    long retrans;

    /** Cumulatively acknowledges up to offset {@code off}, as tcp_clean_rtx_queue. */
    void clean(int off) {
        while (!queue.isEmpty() && queue.getFirst().endSeq - BASE <= off) {
            sb.onAcked(queue.removeFirst(), M);
        }
        sb.check();
    }

    String sacked() {
        StringBuilder s = new StringBuilder();
        for (PacketBuffer b : queue) s.append(SackScoreboard.isSacked(b) ? 'S' : '.');
        return s.toString();
    }

    @Test
    void blocksMarkTheSegmentsTheyCoverWhole() {
        send(10);
        assertThat(ack(0, 2 * M, 4 * M)).isEqualTo(2);
        assertThat(sacked()).isEqualTo("..SS......");
        assertThat(ack(0, 6 * M, 7 * M, 2 * M, 4 * M)).isEqualTo(1);
        assertThat(sacked()).isEqualTo("..SS..S...");
        // edges inside segments: only what is covered whole
        assertThat(ack(0, 7 * M + 1, 9 * M + 500)).isEqualTo(1);
        assertThat(sacked()).isEqualTo("..SS..S.S.");
        assertThat(sb.sackedOut()).isEqualTo(4);
        assertThat(sb.sackedBytes()).isEqualTo(4L * M);
        assertThat(sb.firstHole().seq).isEqualTo(BASE);
        assertThat(sb.highestSacked().seq).isEqualTo(BASE + 8 * M);
        assertThat(sb.sackedBytesAbove(BASE + 3 * M)).isEqualTo(3L * M);
        assertThat(sb.nextHole(BASE + 2 * M).seq).isEqualTo(BASE + 4 * M);
        // RFC 6675 IsLost: 3 SACKed segments above, or more than 2 SMSS SACKed above
        assertThat(sb.isLost(BASE, 3, M)).isTrue();
        assertThat(sb.isLost(BASE + 4 * M, 3, M)).isFalse();
        assertThat(sb.isLost(BASE + 4 * M, 2, M)).isTrue();
        // the cumulative ACK takes SACKed segments with it
        clean(4 * M);
        assertThat(sacked()).isEqualTo("..S.S.");
        assertThat(sb.sackedOut()).isEqualTo(2);
        assertThat(sb.sackedBytes()).isEqualTo(2L * M);
        assertThat(mib.get(MibCounter.TcpExtTCPSACKDiscard)).isZero();
    }

    @Test
    void hostileBlocksAreDiscardedAndCountedAsLinux() {
        send(10);
        int nxt = 10 * M;
        ack(0, 5 * M, nxt + 1); // beyond SND.NXT
        ack(0, 5 * M, 5 * M); // empty
        ack(0, 6 * M, 5 * M); // reversed
        // far below: taken for a D-SACK, dubious (nothing was retransmitted), then discarded as an old SACK block
        ack(0, -0x40000000, -0x3FFFF000);
        assertThat(sacked()).isEqualTo("..........");
        assertThat(mib.get(MibCounter.TcpExtTCPSACKDiscard)).isEqualTo(4);
        assertThat(mib.get(MibCounter.TcpExtTCPDSACKRecv)).isEqualTo(1);
        assertThat(mib.get(MibCounter.TcpExtTCPDSACKIgnoredDubious)).isEqualTo(1);
        // a block starting at SND.UNA is no SACK of anything new (Linux: start must be after snd_una)
        ack(0, 5 * M, 6 * M, 0, 2 * M);
        assertThat(sacked()).isEqualTo(".....S....");
        assertThat(mib.get(MibCounter.TcpExtTCPSACKDiscard)).isEqualTo(5);
        // an old block on a reordered (older) ACK is not counted
        clean(M);
        ack(-M, -M, 0);
        assertThat(mib.get(MibCounter.TcpExtTCPSACKDiscard)).isEqualTo(5);
        // all four blocks hostile at once: nothing marked, nothing thrown
        assertThat(ack(M, 3 * M, 20 * M, 4 * M, 4 * M, 9 * M, 2 * M, 0x7FFFFFFF, 0)).isZero();
    }

    @Test
    void dsackBelowTheAckIsRecognisedAndNeedsAnUndoMarker() {
        send(10);
        clean(3 * M);
        retrans = 1;
        // a D-SACK of [1000, 2000) below SND.UNA 3000, no recovery yet: ignored, no undo possible
        ack(3 * M, M, 2 * M);
        assertThat(mib.get(MibCounter.TcpExtTCPDSACKRecv)).isEqualTo(1);
        assertThat(mib.get(MibCounter.TcpExtTCPDSACKIgnoredNoUndo)).isEqualTo(1);
        // with the undo marker at 0 (a recovery that began there), it is valid
        sb.setUndoMarker(BASE);
        retrans = 3;
        ack(3 * M, M, 2 * M, 5 * M, 6 * M);
        assertThat(mib.get(MibCounter.TcpExtTCPDSACKRecv)).isEqualTo(2);
        assertThat(mib.get(MibCounter.TcpExtTCPDSACKIgnoredNoUndo)).isEqualTo(1);
        assertThat(mib.get(MibCounter.TcpExtTCPDSACKIgnoredOld)).isZero();
        assertThat(sb.dsacksSeen()).as("both recognised as D-SACKs (Linux TCP_DSACK_SEEN), used or not").isEqualTo(2);
        assertThat(sacked()).isEqualTo("..S....");
        // below the undo marker: too old
        sb.setUndoMarker(BASE + 2 * M);
        ack(3 * M, M, 2 * M);
        assertThat(mib.get(MibCounter.TcpExtTCPDSACKIgnoredOld)).isEqualTo(1);
        // a D-SACK inside the second block (RFC 2883 4.1.2: duplicate of SACKed data)
        ack(3 * M, 7 * M, 8 * M, 6 * M, 9 * M);
        assertThat(mib.get(MibCounter.TcpExtTCPDSACKOfoRecv)).isEqualTo(1);
        assertThat(sacked()).isEqualTo("..SSSS.");
    }

    @Test
    void renegingAtATimeoutClearsEveryMark() {
        send(6);
        ack(0, M, 3 * M);
        assertThat(sb.checkReneging(mib)).as("the head is not SACKed").isFalse();
        clean(M);
        assertThat(sacked()).isEqualTo("SS...");
        assertThat(sb.checkReneging(mib)).isTrue();
        sb.check();
        assertThat(sacked()).isEqualTo(".....");
        assertThat(sb.sackedOut()).isZero();
        assertThat(mib.get(MibCounter.TcpExtTCPSACKReneging)).isEqualTo(1);
    }

    @Test
    void randomUseKeepsTheTreeAndTheMarksRightAgainstAPlainModel() {
        Random r = new Random(0x5ac4);
        for (int round = 0; round < 200; round++) {
            queue.clear();
            sb.clear();
            boolean[] model = new boolean[0];
            List<Boolean> marks = new ArrayList<>();
            for (int step = 0; step < 200; step++) {
                switch (r.nextInt(6)) {
                    case 0 -> {
                        int n = 1 + r.nextInt(20);
                        send(n);
                        for (int i = 0; i < n; i++) marks.add(false);
                    }
                    case 1 -> {
                        if (queue.isEmpty()) break;
                        int k = r.nextInt(Math.min(queue.size(), 5) + 1);
                        int off = k == 0 ? 0 : queue.get(k - 1).endSeq - BASE;
                        if (k > 0) clean(off);
                        for (int i = 0; i < k; i++) marks.removeFirst();
                    }
                    default -> {
                        if (queue.isEmpty()) break;
                        int una = sndUna() - BASE;
                        int span = sndNxt() - sndUna();
                        int blocks = 1 + r.nextInt(4);
                        int[] edges = new int[2 * blocks];
                        for (int b = 0; b < blocks; b++) {
                            int s = una + r.nextInt(span + 2 * M) - M;
                            if (r.nextBoolean()) s = s / M * M; // often on a segment edge
                            int e = s + 1 + r.nextInt(6 * M);
                            if (r.nextBoolean()) e = (e + M - 1) / M * M;
                            if (r.nextInt(10) == 0) e = s - r.nextInt(M); // reversed
                            edges[2 * b] = s;
                            edges[2 * b + 1] = e;
                        }
                        ackRaw(sndUna(), edges);
                        // the model: a valid block (after SND.UNA, not beyond SND.NXT, start < end) marks what it covers whole
                        for (int b = 0; b < blocks; b++) {
                            int s = edges[2 * b];
                            int e = edges[2 * b + 1];
                            boolean dsackFirst = b == 0 && (s < una || blocks > 1 && s >= edges[2] && e <= edges[3]);
                            if (dsackFirst && s < una) continue;
                            if (!(s > una && e <= span + una && s < e)) continue;
                            for (int i = 0; i < queue.size(); i++) {
                                PacketBuffer p = queue.get(i);
                                if (p.seq - BASE >= s && p.endSeq - BASE <= e) marks.set(i, true);
                            }
                        }
                    }
                }
                StringBuilder want = new StringBuilder();
                for (boolean m : marks) want.append(m ? 'S' : '.');
                assertThat(sacked()).as("round %d step %d", round, step).isEqualTo(want.toString());
                assertThat(sb.size()).isEqualTo(queue.size());
                long bytes = marks.stream().filter(m -> m).count() * M;
                assertThat(sb.sackedBytes()).isEqualTo(bytes);
                PacketBuffer hole = sb.firstHole();
                int firstUnmarked = marks.indexOf(false);
                assertThat(hole == null ? -1 : queue.indexOf(hole)).isEqualTo(firstUnmarked);
            }
        }
    }

    @Test
    void splitSegmentsJoinTheTreeWithTheirMarks() {
        send(4);
        ack(0, M, 2 * M);
        PacketBuffer seg = queue.get(1);
        PacketBuffer tail = PacketBuffer.allocate(64, M / 2);
        tail.put(M / 2);
        tail.seq = seg.seq + M / 2;
        tail.endSeq = seg.endSeq;
        tail.flags = seg.flags;
        seg.trim(M / 2);
        seg.endSeq = seg.seq + M / 2;
        queue.add(2, tail);
        sb.onSplit(seg, tail, 1, M);
        sb.check();
        assertThat(sacked()).isEqualTo(".SS..");
        assertThat(sb.sackedOut()).isEqualTo(2);
        assertThat(sb.sackedBytes()).isEqualTo(M);
        clean(3 * M);
        assertThat(sb.sackedOut()).isZero();
        assertThat(sb.size()).isEqualTo(1);
    }

    @Test
    void searchesFromFingersAndTheKeptHighestAgreeWithAScanOfTheQueue() {
        Random r = new Random(0xf1a9);
        for (int round = 0; round < 100; round++) {
            queue.clear();
            sb.clear();
            for (int step = 0; step < 200; step++) {
                switch (r.nextInt(8)) {
                    case 0 -> send(1 + r.nextInt(40));
                    case 1 -> {
                        if (!queue.isEmpty()) clean(queue.get(r.nextInt(Math.min(queue.size(), 6))).endSeq - BASE);
                    }
                    case 2 -> {
                        if (!queue.isEmpty() && r.nextInt(8) == 0) sb.checkReneging(mib);
                    }
                    case 3 -> {
                        if (queue.isEmpty()) break;
                        int i = r.nextInt(queue.size());
                        PacketBuffer seg = queue.get(i);
                        int len = seg.endSeq - seg.seq;
                        if (len < 2) break;
                        PacketBuffer tail = PacketBuffer.allocate(64, len / 2);
                        tail.put(len / 2);
                        tail.seq = seg.endSeq - len / 2;
                        tail.endSeq = seg.endSeq;
                        tail.flags = seg.flags;
                        seg.trim(len - len / 2);
                        seg.endSeq = tail.seq;
                        queue.add(i + 1, tail);
                        sb.onSplit(seg, tail, 1, M);
                        sb.check();
                    }
                    default -> {
                        if (queue.isEmpty()) break;
                        int una = sndUna() - BASE;
                        int span = sndNxt() - sndUna();
                        int blocks = 1 + r.nextInt(4);
                        int[] edges = new int[2 * blocks];
                        for (int b = 0; b < blocks; b++) {
                            int s = una + 1 + r.nextInt(span);
                            if (r.nextBoolean()) s = s / M * M;
                            int e = s + 1 + r.nextInt(8 * M);
                            if (r.nextBoolean()) e = (e + M - 1) / M * M;
                            edges[2 * b] = s;
                            edges[2 * b + 1] = Math.min(e, span + una);
                        }
                        ackRaw(sndUna(), edges);
                    }
                }
                if (queue.isEmpty()) continue;
                PacketBuffer high = null;
                for (PacketBuffer p : queue) if (SackScoreboard.isSacked(p)) high = p;
                assertThat(sb.highestSacked()).as("round %d step %d: highest SACKed", round, step).isSameAs(high);
                for (int q = 0; q < 8; q++) {
                    int seq = sndUna() - M + r.nextInt(sndNxt() - sndUna() + 2 * M);
                    int end = seq + r.nextInt(6 * M) - M;
                    int f = -1;
                    for (int i = 0; i < queue.size(); i++) if (Tcp.seqLeq(queue.get(i).seq, seq)) f = i;
                    assertThat(sb.floor(seq)).as("round %d step %d: floor", round, step).isSameAs(f < 0 ? null : queue.get(f));
                    PacketBuffer hole = holeFrom(Math.max(f, 0));
                    assertThat(sb.nextHole(seq)).as("nextHole").isSameAs(hole);
                    assertThat(sb.nextHole(seq, end)).as("nextHole to an end")
                            .isSameAs(hole != null && Tcp.seqLt(hole.seq, end) ? hole : null);
                    int k = r.nextInt(queue.size());
                    PacketBuffer after = holeFrom(k + 1);
                    assertThat(sb.nextHoleAfter(queue.get(k))).as("nextHoleAfter").isSameAs(after);
                    assertThat(sb.nextHoleAfter(queue.get(k), end)).as("nextHoleAfter to an end")
                            .isSameAs(after != null && Tcp.seqLt(after.seq, end) ? after : null);
                }
            }
        }
    }

    /** The first segment not SACKed from the queue's {@code i}-th on, by a scan. */
    PacketBuffer holeFrom(int i) {
        for (; i < queue.size(); i++) if (!SackScoreboard.isSacked(queue.get(i))) return queue.get(i);
        return null;
    }
}
