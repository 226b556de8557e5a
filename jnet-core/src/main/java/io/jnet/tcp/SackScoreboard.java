package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.util.Arrays;

/**
 * The sender's SACK scoreboard (RFC 2018, RFC 6675 section 3; Linux tcp_sacktag_write_queue, gVisor
 * sack_scoreboard.go): which sent segments of the write queue the peer has SACKed, as Linux's
 * TCPCB_SACKED_ACKED bit on each segment ({@link #SACKED_ACKED} in the buffer's flags).
 *
 * <p>The sent segments (Linux's retransmission queue, tcp_rtx_queue) sit in a treap keyed by sequence number,
 * threaded through the buffers' tree links, which a write-queue buffer does not otherwise use (only the receive
 * side's out-of-order queue does). Each node carries two summary bits of its subtree in its flags: every
 * segment SACKed, some segment SACKed. So, whatever blocks an ACK carries, finding where a block starts costs
 * O(log n), and so does skipping a run of segments already SACKed or not SACKed: an ACK costs
 * O(blocks * log n + segments newly SACKed * log n), never a walk of the queue (the SACK block flood that
 * made Linux move its queue into a red-black tree). A segment is SACKed only when a block covers all of it;
 * segments are never split for a block (the SACK Panic family, CVE-2019-11477 and 11478, came from splitting):
 * a block edge inside a segment leaves it as it was. Memory: none beyond the write queue, whatever the peer
 * sends. The write queue's segments enter when first sent ({@link #onSent}) or when a sent one is split
 * ({@link #onSplit}), and leave when acknowledged ({@link #onAcked}) or purged ({@link #clear}).
 *
 * <p>Blocks are validated as Linux's tcp_is_sackblock_valid: beyond SND.NXT (here SND.MAX, the highest sent),
 * start not before end, or at or below SND.UNA are discarded (TcpExtTCPSACKDiscard), except a D-SACK block
 * (RFC 2883: the first block, below the cumulative ACK or within the second block; TcpExtTCPDSACKRecv,
 * TcpExtTCPDSACKOfoRecv) for data sent since the undo marker (TcpExtTCPDSACKIgnoredOld when older,
 * TcpExtTCPDSACKIgnoredNoUndo when no marker was set). A D-SACK of more than was ever retransmitted is dubious
 * and ignored as such (tcp_dsack_seen, TcpExtTCPDSACKIgnoredDubious).
 *
 * <p>Queries for loss recovery ({@link #firstHole}, {@link #highestSacked}, {@link #sackedBytesAbove},
 * {@link #isLost}) are for RFC 6675 recovery ({@link SackRecovery}); newly SACKed segments advance RACK
 * ({@link RackLossDetection}), and a SACK below the highest SACKed segment of data never retransmitted counts as
 * reordering (TcpExtTCPSACKReorder, tcp_check_sack_reordering). One
 * instance per connection, used under the socket lock; allocates nothing.
 */
final class SackScoreboard {
    /** A write-queue segment the peer SACKed (Linux TCPCB_SACKED_ACKED), in the buffer's flags. */
    static final int SACKED_ACKED = 0x1000;
    /** The segment is in the scoreboard's tree. */
    static final int IN_TREE = 0x2000;
    /** Every segment of the node's subtree is SACKed. */
    private static final int SUB_ALL = 0x4000;
    /** Some segment of the node's subtree is SACKed. */
    private static final int SUB_ANY = 0x8000;
    /** Flags a split must not copy to the new part: the tree's own. */
    static final int TREE_BITS = IN_TREE | SUB_ALL | SUB_ANY;

    /** The largest window a peer can offer (65535 << 14): a D-SACK block longer than that is dubious. */
    private static final long MAX_WINDOW = 65535L << 14;

    private PacketBuffer root;
    private PacketBuffer first;
    private PacketBuffer last;
    private int size;
    /** Segments SACKed (Linux sacked_out, in tcp_skb_pcount units). */
    private long sackedOut;
    /** Bytes SACKed. */
    private long sackedBytes;
    /** Linux undo_marker: SND.UNA when the last recovery or timeout began; D-SACKs below it are too old. */
    private int undoMarker;
    private boolean undoMarkerSet;
    /** Segments D-SACKed so far (Linux dsack_dups). */
    private long dsackDups;
    /** D-SACK blocks accepted (Linux's TCP_DSACK_SEEN, counted). */
    private long dsacksSeen;
    /** RACK, told of every segment newly SACKed (tcp_sacktag_one calls tcp_rack_advance); null in tests without it. */
    RackLossDetection rack;
    /** Told of every D-SACK accepted (undo_retrans); null in tests without it. */
    UndoState undo;
    /** The end of the highest SACKed segment before the current ACK (Linux prior_fack), for reordering. */
    private int priorFack;
    /** The current ACK SACKed, never retransmitted, a segment below {@link #priorFack}. */
    private boolean reordered;
    /** The lowest sequence of data {@link #reordered} found, valid while it is set. */
    private int reordLow;
    /** Whether a D-SACK block was accepted since {@link #clearAckState}, and its edges. */
    private boolean dsackThisAck;
    private int dsackStart;
    private int dsackEnd;
    /** Bytes of the tree's segments: sent and not yet acknowledged. */
    private long treeBytes;
    /** Bytes of unSACKed segments taken for lost (Linux lost_out, in bytes): {@link TcpOutput#LOST} set. */
    private long lostBytes;
    /** Bytes of unSACKed retransmissions in flight (Linux retrans_out, in bytes): {@link TcpOutput#RETRANS_OUT}. */
    private long retransOutBytes;
    /** The latest first-or-last send time ({@link PacketBuffer#when}, ns) of a segment SACKed so far. */
    private long maxSackedWhen;
    /** Whether a segment became lost and not retransmitted since the last {@link #takeNewlyLost}. */
    private boolean newlyLostSet;
    /** The lowest start and the highest end of such segments. */
    private int newlyLostLow;
    private int newlyLostHigh;
    /** Tree nodes visited by the walks (tests: the work of an ACK, as a count). */
    long visits;
    /** Segments the last accepted D-SACK block covered. */
    private long dsackSegs;
    /**
     * The highest SACKed segment (Linux's tp->highest_sack, which tcp_sacktag_one advances), valid while
     * {@link #highSackedValid}; null when nothing is SACKed. Looked up again from the root only after the segment
     * left the tree, lost its mark or was split.
     */
    private PacketBuffer highSacked;
    private boolean highSackedValid;
    /**
     * Segments recent {@link #floor} searches found, where the next one starts when it lies closest: one a cursor
     * (the block being tagged, the recovery's retransmission, loss marking and RACK walks each go on from their own
     * place, as Linux keeps retransmit_skb_hint and lost_skb_hint). A search from one of them moves it to what it found;
     * one from elsewhere takes the slots in turn.
     */
    private final PacketBuffer[] floorHints = new PacketBuffer[FLOOR_HINTS];
    private static final int FLOOR_HINTS = 4;
    private int floorHintNext;
    /** xorshift32 state for priorities, seeded per scoreboard so that a peer cannot shape the tree. */
    private int random = System.identityHashCode(this) * 0x9E3779B9 | 1;

    // ------------------------------------------------------------------ the ACK

    /**
     * Records the SACK blocks of an ACK (Linux tcp_sacktag_write_queue with tcp_check_dsack and
     * tcp_is_sackblock_valid). Runs before the ACK's cumulative part cleans the queue; segments it covers are not
     * marked.
     *
     * @param o the ACK's options, with {@link TcpOptions#sackBlocks} blocks
     * @param ack the ACK's cumulative acknowledgement
     * @param sndUna SND.UNA before this ACK
     * @param sndNxt the highest sequence number sent (SND.MAX)
     * @param mss the sender MSS, bytes (segments D-SACKed count in it)
     * @param totalRetrans segments retransmitted so far (a D-SACK of more is dubious)
     * @return segments newly SACKed
     */
    int tag(TcpOptions o, int ack, int sndUna, int sndNxt, int mss, long totalRetrans, Mib mib) {
        int n = Math.min(o.sackBlocks, TcpOptions.MAX_SACK_BLOCKS);
        if (n == 0) return 0;
        int una = Tcp.seqGt(ack, sndUna) ? ack : sndUna; // Linux has moved snd_una to the ACK by now
        boolean dsack = checkDsack(o, n, ack, mss, totalRetrans, mib);
        if (dsack) {
            dsackThisAck = true;
            dsackStart = o.sackLeft[0];
            dsackEnd = o.sackRight[0];
            if (rack != null) rack.onDsack();
            if (undo != null) undo.onDsack(dsackEnd, sndUna, dsackSegs);
        }
        priorFack = fack(una);
        reordered = false;
        int newly = 0;
        for (int i = 0; i < n; i++) {
            int start = o.sackLeft[i];
            int end = o.sackRight[i];
            boolean dup = i == 0 && dsack;
            if (!valid(dup, start, end, una, sndNxt)) {
                if (dup) {
                    mib.inc(undoMarkerSet ? MibCounter.TcpExtTCPDSACKIgnoredOld : MibCounter.TcpExtTCPDSACKIgnoredNoUndo);
                } else if (ack == una || Tcp.seqGt(end, una)) {
                    mib.inc(MibCounter.TcpExtTCPSACKDiscard); // not an old block of a reordered ACK: counted
                }
                continue;
            }
            if (!Tcp.seqGt(end, sndUna) || root == null) continue; // nothing left to mark (very old)
            newly += mark(start, end, una, mss);
        }
        if (reordered) {
            // tcp_check_sack_reordering: data never retransmitted SACKed below what was SACKed before
            mib.inc(MibCounter.TcpExtTCPSACKReorder);
            if (rack != null) rack.onReordering();
        }
        return newly;
    }

    /** Linux tcp_check_dsack: is the first block a D-SACK (RFC 2883 section 4)? Counts as Linux does. */
    private boolean checkDsack(TcpOptions o, int n, int ack, int mss, long totalRetrans, Mib mib) {
        int s0 = o.sackLeft[0];
        int e0 = o.sackRight[0];
        if (Tcp.seqLt(s0, ack)) {
            mib.inc(MibCounter.TcpExtTCPDSACKRecv);
        } else if (n > 1) {
            if (Tcp.seqGt(e0, o.sackRight[1]) || Tcp.seqLt(s0, o.sackLeft[1])) return false;
            mib.inc(MibCounter.TcpExtTCPDSACKOfoRecv);
        } else {
            return false;
        }
        // tcp_dsack_seen: a reversed or huge block, or more duplicates than were ever retransmitted, is dubious
        long len = (e0 - s0) & 0xFFFFFFFFL;
        long segs = len == 0 || len > MAX_WINDOW ? 0 : (len + Math.max(1, mss) - 1) / Math.max(1, mss);
        if (segs > 0) dsackDups += segs;
        if (segs == 0 || dsackDups > totalRetrans) {
            mib.inc(MibCounter.TcpExtTCPDSACKIgnoredDubious);
            return false;
        }
        mib.add(MibCounter.TcpExtTCPDSACKRecvSegs, segs);
        dsackSegs = segs;
        dsacksSeen++;
        return true;
    }

    /** Linux tcp_is_sackblock_valid, with SND.UNA at {@code una} and SND.NXT at {@code sndNxt}. */
    private boolean valid(boolean dsack, int start, int end, int una, int sndNxt) {
        if (Tcp.seqGt(end, sndNxt) || !Tcp.seqLt(start, end)) return false; // beyond what was sent, or reversed
        if (!Tcp.seqLt(start, sndNxt)) return false; // start wrapped around
        if (Tcp.seqGt(start, una)) return true; // within the outstanding window
        if (!dsack || !undoMarkerSet) return false;
        if (Tcp.seqGt(end, una)) return false; // a D-SACK must lie below SND.UNA entirely
        if (!Tcp.seqLt(start, undoMarker)) return true;
        if (!Tcp.seqGt(end, undoMarker)) return false; // too old
        return true; // crosses the undo marker: Linux bounds it by max_window, which its end already is within
    }

    /** Marks the unSACKed segments that [start, end) covers whole and that lie above {@code una}. */
    private int mark(int start, int end, int una, int mss) {
        PacketBuffer seg = floor(start);
        seg = nextUnsacked(seg != null ? seg : first, end);
        int newly = 0;
        while (seg != null && Tcp.seqLt(seg.seq, end)) {
            if (Tcp.seqGeq(seg.seq, start) && Tcp.seqLeq(seg.endSeq, end) && Tcp.seqGt(seg.endSeq, una)) {
                if ((seg.flags & TcpOutput.RETRANSMITTED) == 0 && Tcp.seqLt(seg.seq, priorFack)) {
                    if (!reordered || Tcp.seqLt(seg.seq, reordLow)) reordLow = seg.seq;
                    reordered = true;
                }
                if ((seg.flags & TcpOutput.RETRANSMITTED) == 0 && undo != null) undo.noteOrigDelivered(seg.endSeq);
                if (rack != null) rack.advance(seg);
                setFlags(seg, SACKED_ACKED, TcpOutput.LOST | TcpOutput.RETRANS_OUT);
                if (seg.when > maxSackedWhen) maxSackedWhen = seg.when;
                sackedOut += pcount(seg, mss);
                sackedBytes += seg.endSeq - seg.seq;
                fixUp(seg);
                newly++;
                seg = unsackedAfter(seg, end);
            } else {
                seg = unsackedAfter(seg, end); // a block edge inside it, or already acknowledged: left as it is
            }
        }
        return newly;
    }

    // ------------------------------------------------------------------ the write queue

    /** A write-queue segment was sent for the first time (it joins Linux's retransmission queue). */
    void onSent(PacketBuffer seg) {
        if ((seg.flags & IN_TREE) != 0) return;
        seg.flags &= ~(TREE_BITS | SACKED_ACKED);
        insert(seg);
    }

    /**
     * A sent segment was split (tcp_fragment): {@code tail}, the new second part right after it, joins the tree with
     * the same SACK state; {@code pcountBefore} is what {@code seg} counted before.
     */
    void onSplit(PacketBuffer seg, PacketBuffer tail, int pcountBefore, int mss) {
        tail.flags &= ~TREE_BITS;
        if ((seg.flags & IN_TREE) == 0) {
            tail.flags &= ~SACKED_ACKED;
            return;
        }
        account(seg, -(tail.endSeq - tail.seq)); // seg has shrunk by what the tail now holds
        insert(tail);
        if ((tail.flags & SACKED_ACKED) != 0) highSackedValid = false; // the tail may be the highest now
        if ((seg.flags & SACKED_ACKED) != 0) sackedOut += pcount(seg, mss) + pcount(tail, mss) - pcountBefore;
    }

    /** A segment is acknowledged and leaves the write queue (tcp_clean_rtx_queue). */
    void onAcked(PacketBuffer seg, int mss) {
        if ((seg.flags & IN_TREE) == 0) return;
        if ((seg.flags & SACKED_ACKED) != 0) unaccount(pcount(seg, mss), seg.endSeq - seg.seq);
        account(seg, -(seg.endSeq - seg.seq));
        remove(seg);
        seg.flags &= ~(TREE_BITS | SACKED_ACKED);
    }

    /**
     * The head segment is partly acknowledged: its first {@code bytes} went (seq moved on), {@code pcountBefore}
     * was its count before.
     */
    void onPartialAck(PacketBuffer seg, int bytes, int pcountBefore, int mss) {
        if ((seg.flags & IN_TREE) != 0) account(seg, -bytes);
        if ((seg.flags & (IN_TREE | SACKED_ACKED)) == (IN_TREE | SACKED_ACKED)) {
            unaccount(pcountBefore - pcount(seg, mss), bytes);
        }
    }

    /** The write queue is purged: forgets every segment (their buffers are being released). */
    void clear() {
        root = first = last = null;
        highSacked = null;
        highSackedValid = false;
        Arrays.fill(floorHints, null);
        size = 0;
        sackedOut = 0;
        sackedBytes = 0;
        treeBytes = 0;
        lostBytes = 0;
        retransOutBytes = 0;
    }

    /**
     * Sets {@code set} and clears {@code clear} in {@code seg}'s flags, keeping the lost and retransmitted byte
     * counts ({@link #pipe}) right: every change of {@link TcpOutput#LOST} or {@link TcpOutput#RETRANS_OUT} on a
     * sent segment goes through here (Linux keeps lost_out and retrans_out with the TCPCB bits the same way).
     */
    void setFlags(PacketBuffer seg, int set, int clear) {
        if ((seg.flags & IN_TREE) == 0) {
            seg.flags = (seg.flags | set) & ~clear;
            return;
        }
        int len = seg.endSeq - seg.seq;
        int mask = TcpOutput.LOST | TcpOutput.RETRANS_OUT | SACKED_ACKED;
        boolean wasPending = (seg.flags & mask) == TcpOutput.LOST;
        countFlags(seg, -len);
        boolean wasSacked = (seg.flags & SACKED_ACKED) != 0;
        seg.flags = (seg.flags | set) & ~clear;
        countFlags(seg, len);
        boolean sacked = (seg.flags & SACKED_ACKED) != 0;
        if (sacked != wasSacked && highSackedValid) {
            if (sacked && (highSacked == null || Tcp.seqGt(seg.seq, highSacked.seq))) highSacked = seg;
            else if (!sacked && seg == highSacked) highSackedValid = false;
        }
        if (!wasPending && (seg.flags & mask) == TcpOutput.LOST) {
            // lost and not retransmitted: the recovery's retransmission walk must come back for it
            if (!newlyLostSet || Tcp.seqLt(seg.seq, newlyLostLow)) newlyLostLow = seg.seq;
            if (!newlyLostSet || Tcp.seqGt(seg.endSeq, newlyLostHigh)) newlyLostHigh = seg.endSeq;
            newlyLostSet = true;
        }
    }

    /**
     * Whether some segment became lost and not retransmitted (through {@link #setFlags}, whoever marked it) since the
     * last call; {@link #newlyLostLow} and {@link #newlyLostHigh} bound them. Clears the record.
     */
    boolean takeNewlyLost() {
        boolean any = newlyLostSet;
        newlyLostSet = false;
        return any;
    }

    /** The lowest start of the segments {@link #takeNewlyLost} reported. */
    int newlyLostLow() { return newlyLostLow; }

    /** The highest end of the segments {@link #takeNewlyLost} reported. */
    int newlyLostHigh() { return newlyLostHigh; }

    /** Adds {@code bytes} (negative: takes away) of {@code seg} to the tree's byte counts by its flags. */
    private void account(PacketBuffer seg, long bytes) {
        treeBytes += bytes;
        countFlags(seg, bytes);
    }

    private void countFlags(PacketBuffer seg, long bytes) {
        int f = seg.flags & (TcpOutput.LOST | TcpOutput.RETRANS_OUT | SACKED_ACKED);
        if ((f & (TcpOutput.LOST | SACKED_ACKED)) == TcpOutput.LOST) lostBytes += bytes;
        if ((f & (TcpOutput.RETRANS_OUT | SACKED_ACKED)) == TcpOutput.RETRANS_OUT) retransOutBytes += bytes;
    }

    /**
     * The retransmission timer expired with the first unacknowledged segment SACKed: the peer reneged on its SACKs
     * (Linux tcp_timeout_mark_lost, TcpExtTCPSACKReneging): every mark goes. O(n), as the timeout's own walk.
     *
     * @return whether it reneged
     */
    boolean checkReneging(Mib mib) {
        if (first == null || (first.flags & SACKED_ACKED) == 0) return false;
        mib.inc(MibCounter.TcpExtTCPSACKReneging);
        for (PacketBuffer n = first; n != null; n = next(n)) {
            setFlags(n, 0, SACKED_ACKED);
            n.flags &= ~(SUB_ALL | SUB_ANY);
        }
        sackedOut = 0;
        sackedBytes = 0;
        highSacked = null;
        highSackedValid = true;
        return true;
    }

    /** A recovery or timeout begins at {@code sndUna} (Linux tcp_init_undo sets undo_marker). */
    void setUndoMarker(int sndUna) {
        undoMarker = sndUna;
        undoMarkerSet = true;
    }

    private void unaccount(long segs, long bytes) {
        sackedBytes -= bytes;
        sackedOut = sackedBytes <= 0 ? 0 : Math.max(0, sackedOut - segs);
        if (sackedBytes < 0) sackedBytes = 0;
    }

    private static int pcount(PacketBuffer seg, int mss) {
        int len = seg.length();
        return mss <= 0 || len <= mss ? 1 : (len + mss - 1) / mss;
    }

    // ------------------------------------------------------------------ queries

    /** Segments D-SACKed so far (Linux dsack_dups, TCP_INFO tcpi_dsack_dups). */
    long dsackDups() { return dsackDups; }

    /** Segments SACKed and not yet acknowledged (Linux sacked_out, TCP_INFO tcpi_sacked). */
    long sackedOut() { return sackedOut; }

    /** Bytes SACKed and not yet acknowledged. */
    long sackedBytes() { return sackedBytes; }

    /**
     * RFC 6675 SetPipe from the counts, O(1): every unSACKed byte not taken for lost, plus every unSACKed byte
     * retransmitted and in flight (Linux tcp_packets_in_flight: packets_out - left_out + retrans_out, in bytes).
     */
    long pipe() { return treeBytes - sackedBytes - lostBytes + retransOutBytes; }

    /** Bytes of unSACKed segments taken for lost (Linux lost_out, in bytes). */
    long lostBytes() { return lostBytes; }

    /** Bytes of unSACKed retransmissions in flight (Linux retrans_out, in bytes). */
    long retransOutBytes() { return retransOutBytes; }

    /** The latest send time (ns) of a segment SACKed so far, 0 before any. */
    long maxSackedWhen() { return maxSackedWhen; }

    /** Sent segments not yet acknowledged that the scoreboard tracks. */
    int size() { return size; }

    /** D-SACK blocks accepted so far (for undo, which is not built yet). */
    long dsacksSeen() { return dsacksSeen; }

    /** The highest sent segment the scoreboard tracks (the last of Linux's tcp_rtx_queue), or null. */
    PacketBuffer lastSent() { return last; }

    /** Forgets the D-SACK of the previous ACK (called as an ACK's processing begins). */
    /**
     * Segments the current ACK's valid D-SACK block reports received twice, 0 without one: Linux counts them
     * delivered (tcp_dsack_seen's sack_delivered, added to tp->delivered), so they are in what the ACK delivered.
     */
    long dsackSegsThisAck() { return dsackThisAck ? dsackSegs : 0; }

    void clearAckState() {
        dsackThisAck = false;
        reordered = false;
    }

    /**
     * Linux tcp_highest_sack_seq: the end of the highest SACKed segment when it lies above {@code una}, else
     * {@code una}. Taken as an ACK's processing begins it is Linux's prior_fack: data cumulatively acknowledged below
     * it arrived after later data.
     */
    int fack(int una) {
        PacketBuffer high = sackedBytes > 0 ? highestSacked() : null;
        return high != null && Tcp.seqGt(high.endSeq, una) ? high.endSeq : una;
    }

    /** The last {@link #tag} SACKed data never retransmitted below what was SACKed before (reordering). */
    boolean reorderedThisAck() { return reordered; }

    /** The lowest sequence of that reordered data (Linux state-&gt;reord). */
    int reordLow() { return reordLow; }

    /**
     * Whether the current ACK carried an accepted D-SACK block overlapping [{@code seq}, {@code endSeq}) (Linux
     * FLAG_DSACK_TLP when the range is the tail loss probe's).
     */
    boolean dsackCovers(int seq, int endSeq) {
        return dsackThisAck && Tcp.seqLt(dsackStart, endSeq) && Tcp.seqGt(dsackEnd, seq);
    }

    /** Whether the current ACK carried an accepted D-SACK block (Linux FLAG_DSACKING_ACK). */
    boolean dsackThisAck() { return dsackThisAck; }

    /** Whether the peer SACKed {@code seg}. */
    static boolean isSacked(PacketBuffer seg) { return (seg.flags & SACKED_ACKED) != 0; }

    /** The first sent segment not SACKed (RFC 6675's first hole, from SND.UNA on), or null. O(log n). */
    PacketBuffer firstHole() { return nextUnsacked(first); }

    /** The first sent segment not SACKed at or after {@code seq}'s segment, or null. O(log n). */
    PacketBuffer nextHole(int seq) {
        PacketBuffer f = floor(seq);
        return nextUnsacked(f != null ? f : first);
    }

    /**
     * {@link #nextHole(int)} for a walk that stops at {@code end}: null too when that hole starts at or after
     * {@code end}, found without looking further.
     */
    PacketBuffer nextHole(int seq, int end) {
        PacketBuffer f = floor(seq);
        return before(nextUnsacked(f != null ? f : first, end), end);
    }

    /** The first segment not SACKed after {@code seg} in sequence order, or null. O(log n). */
    PacketBuffer nextHoleAfter(PacketBuffer seg) {
        return unsackedAfter(seg, seg.seq, false);
    }

    /** {@link #nextHoleAfter(PacketBuffer)} for a walk that stops at {@code end}, as {@link #nextHole(int, int)}. */
    PacketBuffer nextHoleAfter(PacketBuffer seg, int end) {
        return before(unsackedAfter(seg, end), end);
    }

    private static PacketBuffer before(PacketBuffer seg, int end) {
        return seg != null && Tcp.seqLt(seg.seq, end) ? seg : null;
    }

    /**
     * Where RFC 6675 IsLost begins to hold (Linux tcp_mark_head_lost's bound): the start of the highest SACKed
     * segment such that it and the SACKed segments above it are {@code dupThresh} segments or more than
     * (dupThresh - 1) * SMSS bytes; every unSACKed segment that starts below it is lost, none above. Walks down at
     * most {@code dupThresh} SACKed segments, O(dupThresh * log n).
     *
     * @return that sequence number, or {@code orElse} when IsLost holds nowhere
     */
    int lossEdge(int dupThresh, int smss, int orElse) {
        long bytes = 0;
        int count = 0;
        for (PacketBuffer s = highestSacked(); s != null; s = previousSacked(previous(s))) {
            count++;
            bytes += s.endSeq - s.seq;
            if (count >= dupThresh || bytes > (long) (dupThresh - 1) * smss) return s.seq;
        }
        return orElse;
    }

    /** The highest SACKed segment (Linux highest_sack), or null. O(log n). */
    PacketBuffer highestSacked() {
        if (!highSackedValid) {
            highSacked = root == null ? null : rightmostSacked(root);
            highSackedValid = true;
        }
        return highSacked;
    }

    /**
     * Bytes SACKed in segments starting at or after {@code seq} (RFC 6675's SACKed octets above a sequence number).
     * O(log n) per SACKed segment counted.
     */
    long sackedBytesAbove(int seq) {
        long bytes = 0;
        PacketBuffer s = ceilingSacked(seq);
        while (s != null) {
            bytes += s.endSeq - s.seq;
            s = nextSacked(next(s));
        }
        return bytes;
    }

    /**
     * RFC 6675 IsLost(SeqNum): {@code dupThresh} SACKed segments above {@code seq}, or more than
     * (dupThresh - 1) * SMSS bytes SACKed above it. Stops as soon as either is reached.
     */
    boolean isLost(int seq, int dupThresh, int smss) {
        long bytes = 0;
        int count = 0;
        for (PacketBuffer s = ceilingSacked(seq + 1); s != null; s = nextSacked(next(s))) {
            count++;
            bytes += s.endSeq - s.seq;
            if (count >= dupThresh || bytes > (long) (dupThresh - 1) * smss) return true;
        }
        return false;
    }

    /** The first SACKed segment starting at or after {@code seq}, or null. */
    private PacketBuffer ceilingSacked(int seq) {
        PacketBuffer f = floor(seq);
        if (f == null) return nextSacked(first);
        if (Tcp.seqLt(f.seq, seq)) f = next(f);
        return nextSacked(f);
    }

    // ------------------------------------------------------------------ the treap

    private static boolean all(PacketBuffer n) { return n == null || (n.flags & SUB_ALL) != 0; }

    private static boolean any(PacketBuffer n) { return n != null && (n.flags & SUB_ANY) != 0; }

    /** Recomputes {@code n}'s summary bits from its own state and its children's; returns whether they changed. */
    private static boolean pull(PacketBuffer n) {
        int old = n.flags & (SUB_ALL | SUB_ANY);
        boolean s = (n.flags & SACKED_ACKED) != 0;
        int bits = (s && all(n.treeLeft) && all(n.treeRight) ? SUB_ALL : 0)
                | (s || any(n.treeLeft) || any(n.treeRight) ? SUB_ANY : 0);
        n.flags = (n.flags & ~(SUB_ALL | SUB_ANY)) | bits;
        return bits != old;
    }

    /** Pulls {@code n} and its ancestors up to the first whose bits stay the same. */
    private static void fixUp(PacketBuffer n) {
        while (n != null && pull(n)) n = n.treeParent;
    }

    /** The first segment not SACKed at or after {@code n} in sequence order, or null. */
    private PacketBuffer nextUnsacked(PacketBuffer n) {
        if (n == null) return null;
        if ((n.flags & SACKED_ACKED) == 0) return n;
        return unsackedAfter(n, n.seq, false);
    }

    /**
     * The first segment not SACKed at or after {@code n} that starts before {@code end}, or null: the walk stops where
     * every segment left starts at or after {@code end} (a block's marking), so its cost grows with the distance to the
     * hole or to {@code end}, whichever is nearer, not with the distance to the next hole beyond the block.
     */
    private PacketBuffer nextUnsacked(PacketBuffer n, int end) {
        if (n == null) return null;
        if ((n.flags & SACKED_ACKED) == 0) return n;
        return unsackedAfter(n, end);
    }

    /** The first segment not SACKed after {@code n} that starts before {@code end}, or null. */
    private PacketBuffer unsackedAfter(PacketBuffer n, int end) {
        return unsackedAfter(n, end, true);
    }

    private PacketBuffer unsackedAfter(PacketBuffer n, int end, boolean bounded) {
        if (!all(n.treeRight)) return leftmostUnsacked(n.treeRight, end, bounded);
        for (PacketBuffer x = n; x.treeParent != null; x = x.treeParent) {
            visits++;
            PacketBuffer p = x.treeParent;
            if (p.treeLeft == x) {
                if (bounded && !Tcp.seqLt(p.seq, end)) return null; // p and all after it start at or after end
                if ((p.flags & SACKED_ACKED) == 0) return p;
                if (!all(p.treeRight)) return leftmostUnsacked(p.treeRight, end, bounded);
            }
        }
        return null;
    }

    /** The first segment not SACKed in {@code t}'s subtree, which has one (null: none before {@code end} when bounded). */
    private PacketBuffer leftmostUnsacked(PacketBuffer t, int end, boolean bounded) {
        while (true) {
            visits++;
            if (!all(t.treeLeft)) t = t.treeLeft;
            else if ((t.flags & SACKED_ACKED) == 0) return t;
            else if (bounded && !Tcp.seqLt(t.seq, end)) return null; // what is left lies after t
            else t = t.treeRight;
        }
    }

    /** The first SACKed segment at or after {@code n} in sequence order, or null. */
    private PacketBuffer nextSacked(PacketBuffer n) {
        if (n == null) return null;
        if ((n.flags & SACKED_ACKED) != 0) return n;
        if (any(n.treeRight)) return leftmostSacked(n.treeRight);
        for (PacketBuffer x = n; x.treeParent != null; x = x.treeParent) {
            visits++;
            PacketBuffer p = x.treeParent;
            if (p.treeLeft == x) {
                if ((p.flags & SACKED_ACKED) != 0) return p;
                if (any(p.treeRight)) return leftmostSacked(p.treeRight);
            }
        }
        return null;
    }

    private PacketBuffer leftmostSacked(PacketBuffer t) {
        while (true) {
            visits++;
            if (any(t.treeLeft)) t = t.treeLeft;
            else if ((t.flags & SACKED_ACKED) != 0) return t;
            else t = t.treeRight;
        }
    }

    /** The last SACKed segment at or before {@code n} in sequence order, or null. */
    private PacketBuffer previousSacked(PacketBuffer n) {
        if (n == null) return null;
        if ((n.flags & SACKED_ACKED) != 0) return n;
        if (any(n.treeLeft)) return rightmostSacked(n.treeLeft);
        for (PacketBuffer x = n; x.treeParent != null; x = x.treeParent) {
            visits++;
            PacketBuffer p = x.treeParent;
            if (p.treeRight == x) {
                if ((p.flags & SACKED_ACKED) != 0) return p;
                if (any(p.treeLeft)) return rightmostSacked(p.treeLeft);
            }
        }
        return null;
    }

    /** The last SACKed segment of {@code t}'s subtree, or null. */
    private PacketBuffer rightmostSacked(PacketBuffer t) {
        if (!any(t)) return null;
        while (true) {
            visits++;
            if (any(t.treeRight)) t = t.treeRight;
            else if ((t.flags & SACKED_ACKED) != 0) return t;
            else t = t.treeLeft;
        }
    }

    /**
     * The segment that starts last at or before {@code seq}, or null. The search starts from the nearest in sequence
     * of the first and last segments, the highest SACKed one and those recent searches found (a finger search, as Linux's
     * tcp_sacktag_skip goes on from where the previous block left off or from tcp_highest_sack): it climbs from there
     * to the lowest subtree that must hold the answer and goes down from it, O(log d) expected in a treap for d segments
     * between the finger and the answer rather than O(log n) from the root.
     */
    PacketBuffer floor(int seq) {
        PacketBuffer l = last;
        if (l == null) return null;
        if (Tcp.seqGeq(seq, l.seq)) return l;
        PacketBuffer h = first;
        if (Tcp.seqLt(seq, h.seq)) return null;
        long d = seq - h.seq; // first.seq <= seq < last.seq: both distances are non-negative
        long dl = l.seq - seq;
        if (dl < d) {
            h = l;
            d = dl;
        }
        PacketBuffer s = highSackedValid ? highSacked : null;
        if (s != null) {
            long ds = Math.abs((long) (seq - s.seq));
            if (ds < d) {
                h = s;
                d = ds;
            }
        }
        int slot = -1;
        for (int i = 0; i < FLOOR_HINTS; i++) {
            PacketBuffer f = floorHints[i];
            if (f == null) continue;
            long df = Math.abs((long) (seq - f.seq));
            if (df < d) {
                h = f;
                d = df;
                slot = i;
            }
        }
        PacketBuffer found = floorFrom(h, seq);
        if (slot < 0) {
            for (int i = 0; i < FLOOR_HINTS; i++) {
                if (floorHints[i] == found) return found;
            }
            slot = floorHintNext;
            floorHintNext = (slot + 1) % FLOOR_HINTS;
        }
        floorHints[slot] = found;
        return found;
    }

    /** {@link #floor} from the finger {@code h}, a segment of the tree, for {@code seq} within the tree's range. */
    private PacketBuffer floorFrom(PacketBuffer h, int seq) {
        if (h.seq == seq) return h;
        PacketBuffer x = h;
        PacketBuffer best = null;
        if (Tcp.seqGeq(seq, h.seq)) {
            // up to the first subtree with a bound above seq: the answer is in it (h is, and starts at or before seq)
            for (PacketBuffer p = x.treeParent; p != null && !(p.treeLeft == x && Tcp.seqGt(p.seq, seq)); p = x.treeParent) {
                visits++;
                x = p;
            }
        } else {
            // up to the first subtree with a bound at or below seq: that bound, or something in the subtree
            for (PacketBuffer p = x.treeParent; p != null; p = x.treeParent) {
                visits++;
                if (p.treeRight == x && Tcp.seqLeq(p.seq, seq)) {
                    best = p;
                    break;
                }
                x = p;
            }
        }
        for (PacketBuffer n = x; n != null; ) {
            visits++;
            if (Tcp.seqLeq(n.seq, seq)) {
                best = n;
                n = n.treeRight;
            } else {
                n = n.treeLeft;
            }
        }
        return best;
    }

    /** The segment after {@code b} in sequence order, or null. */
    private PacketBuffer next(PacketBuffer b) {
        PacketBuffer n = b.treeRight;
        if (n != null) {
            while (n.treeLeft != null) {
                visits++;
                n = n.treeLeft;
            }
            return n;
        }
        PacketBuffer p = b.treeParent;
        while (p != null && b == p.treeRight) {
            visits++;
            b = p;
            p = p.treeParent;
        }
        return p;
    }

    private PacketBuffer previous(PacketBuffer b) {
        PacketBuffer n = b.treeLeft;
        if (n != null) {
            while (n.treeRight != null) {
                visits++;
                n = n.treeRight;
            }
            return n;
        }
        PacketBuffer p = b.treeParent;
        while (p != null && b == p.treeLeft) {
            visits++;
            b = p;
            p = p.treeParent;
        }
        return p;
    }

    private void insert(PacketBuffer b) {
        b.treeLeft = null;
        b.treeRight = null;
        b.treePriority = nextPriority();
        b.flags |= IN_TREE;
        account(b, b.endSeq - b.seq);
        pull(b);
        PacketBuffer parent = null;
        boolean left = false;
        if (root != null) {
            if (Tcp.seqGt(b.seq, last.seq)) {
                parent = last; // the largest has no right child
            } else if (Tcp.seqLt(b.seq, first.seq)) {
                parent = first; // the smallest has no left child
                left = true;
            } else {
                for (PacketBuffer n = root; n != null; n = left ? n.treeLeft : n.treeRight) {
                    parent = n;
                    left = Tcp.seqLt(b.seq, n.seq);
                }
            }
        }
        b.treeParent = parent;
        if (parent == null) root = b;
        else if (left) parent.treeLeft = b;
        else parent.treeRight = b;
        if (first == null || Tcp.seqLt(b.seq, first.seq)) first = b;
        if (last == null || Tcp.seqGt(b.seq, last.seq)) last = b;
        fixUp(parent);
        while (b.treeParent != null && b.treePriority > b.treeParent.treePriority) rotateUp(b);
        size++;
    }

    private void remove(PacketBuffer b) {
        for (int i = 0; i < FLOOR_HINTS; i++) {
            if (floorHints[i] == b) floorHints[i] = null;
        }
        if (b == highSacked) highSackedValid = false;
        if (b == first) first = next(b);
        if (b == last) last = previous(b);
        while (b.treeLeft != null && b.treeRight != null) {
            rotateUp(b.treeLeft.treePriority > b.treeRight.treePriority ? b.treeLeft : b.treeRight);
        }
        PacketBuffer child = b.treeLeft != null ? b.treeLeft : b.treeRight;
        PacketBuffer p = b.treeParent;
        if (child != null) child.treeParent = p;
        if (p == null) root = child;
        else if (p.treeLeft == b) p.treeLeft = child;
        else p.treeRight = child;
        b.treeLeft = null;
        b.treeRight = null;
        b.treeParent = null;
        fixUp(p);
        size--;
    }

    /** Moves {@code x} above its parent, keeping the in-order sequence and the summary bits. */
    private void rotateUp(PacketBuffer x) {
        PacketBuffer p = x.treeParent;
        PacketBuffer g = p.treeParent;
        if (p.treeLeft == x) {
            p.treeLeft = x.treeRight;
            if (x.treeRight != null) x.treeRight.treeParent = p;
            x.treeRight = p;
        } else {
            p.treeRight = x.treeLeft;
            if (x.treeLeft != null) x.treeLeft.treeParent = p;
            x.treeLeft = p;
        }
        p.treeParent = x;
        x.treeParent = g;
        if (g == null) root = x;
        else if (g.treeLeft == p) g.treeLeft = x;
        else g.treeRight = x;
        pull(p);
        pull(x); // x now spans what p spanned: the ancestors' bits stay right
    }

    private int nextPriority() {
        int x = random;
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        random = x;
        return x;
    }

    /** Checks the tree against its invariants (tests): order, heap, parent links, summary bits, counts. */
    void check() {
        int[] count = {0};
        long[] bytes = {0};
        checkNode(root, null, count, bytes);
        long tree = 0;
        long lost = 0;
        long retrans = 0;
        for (PacketBuffer n = first; n != null; n = next(n)) {
            int len = n.endSeq - n.seq;
            tree += len;
            if ((n.flags & (TcpOutput.LOST | SACKED_ACKED)) == TcpOutput.LOST) lost += len;
            if ((n.flags & (TcpOutput.RETRANS_OUT | SACKED_ACKED)) == TcpOutput.RETRANS_OUT) retrans += len;
        }
        if (tree != treeBytes || lost != lostBytes || retrans != retransOutBytes) {
            throw new AssertionError("bytes: tree " + treeBytes + "/" + tree + ", lost " + lostBytes + "/" + lost
                    + ", retransmitted " + retransOutBytes + "/" + retrans);
        }
        if (count[0] != size) throw new AssertionError("size " + size + " but " + count[0] + " nodes");
        if (bytes[0] != sackedBytes) throw new AssertionError("sackedBytes " + sackedBytes + " but " + bytes[0]);
        PacketBuffer prev = null;
        for (PacketBuffer n = first; n != null; n = next(n)) {
            if (prev != null && !Tcp.seqLt(prev.seq, n.seq)) throw new AssertionError("out of order");
            prev = n;
        }
        if (prev != last) throw new AssertionError("last");
    }

    private static void checkNode(PacketBuffer n, PacketBuffer parent, int[] count, long[] bytes) {
        if (n == null) return;
        if (n.treeParent != parent) throw new AssertionError("parent link");
        if (parent != null && n.treePriority > parent.treePriority) throw new AssertionError("heap order");
        if ((n.flags & IN_TREE) == 0) throw new AssertionError("IN_TREE");
        count[0]++;
        if ((n.flags & SACKED_ACKED) != 0) bytes[0] += n.endSeq - n.seq;
        checkNode(n.treeLeft, n, count, bytes);
        checkNode(n.treeRight, n, count, bytes);
        int before = n.flags & (SUB_ALL | SUB_ANY);
        if (pull(n) || (n.flags & (SUB_ALL | SUB_ANY)) != before) throw new AssertionError("summary bits");
    }
}
