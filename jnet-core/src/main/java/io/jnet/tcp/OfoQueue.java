package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;

/**
 * A connection's out-of-order queue (Linux {@code tp->out_of_order_queue}): segments that arrived beyond
 * RCV.NXT, held until the hole before them fills. A queued buffer's data is its segment's text; its control
 * block gives the span, {@code seq} up to {@code endSeq} (text only), and {@code flags} is {@link Tcp#FIN}
 * when the peer's FIN follows the text. Spans are disjoint, so no two buffers start at the same sequence
 * number.
 *
 * <p>The buffers sit in a treap, a binary search tree kept balanced (in expectation) by random heap
 * priorities, threaded through their tree links: whatever order a peer sends segments in, queueing one
 * costs O(log n) and allocates nothing (Linux keeps this queue in a red-black tree for the same reason).
 * A segment that extends the queue, the common case, is placed from the cached last buffer without a
 * search (Linux {@code ooo_last_skb}).
 *
 * <p>Sequence numbers compare in sequence space (RFC 9293 3.4); every span lies within one receive window.
 * {@link #bytes()} is the memory charged for the queue (the sum of the buffers' truesize). Not
 * thread-safe: used under the socket lock.
 */
final class OfoQueue {
    private PacketBuffer root;
    private PacketBuffer first;
    private PacketBuffer last;
    private int size;
    private long bytes;
    /** The last {@link #queue} call met bytes already queued: [dupStart, dupEnd) is what to report as D-SACK. */
    private boolean dupFound;
    private int dupStart;
    private int dupEnd;
    /** xorshift32 state for priorities, seeded per queue so that a peer cannot shape the tree. */
    private int random = System.identityHashCode(this) * 0x9E3779B9 | 1;

    /**
     * Queues an out-of-order segment (Linux tcp_data_queue_ofo): its span starts at {@code pkt.seq} and
     * holds its {@code pkt.length()} bytes, with the peer's FIN behind them when {@code fin}. Bytes already
     * queued are not queued twice: a segment whose bytes are all present is dropped, one that covers queued
     * segments replaces them (each segment dropped this way counts TcpExtTCPOFOMerge) and one that overlaps
     * a neighbour is trimmed to what is new. A segment that continues its predecessor is copied into the
     * predecessor's tailroom when it fits (tcp_try_coalesce, TcpExtTCPRcvCoalesce). Text beyond a queued
     * FIN is dropped (Linux discards it when the FIN is processed).
     *
     * <p>What was queued already is recorded as Linux's tcp_data_queue_ofo reports it in a D-SACK block
     * ({@link #dupFound()}): the whole segment when all of it was present, the part a predecessor overlaps, or the
     * queued segments it covers.
     *
     * @return true when {@code pkt} was kept in the queue; false when nothing of it was (its bytes were
     *     present already or were copied into a neighbour), and the caller releases it
     */
    boolean queue(PacketBuffer pkt, boolean fin, Mib mib) {
        dupFound = false;
        pkt.flags = fin ? Tcp.FIN : 0;
        pkt.endSeq = pkt.seq + pkt.length();
        if (root == null) {
            insert(pkt);
            return true;
        }
        PacketBuffer prev = Tcp.seqGeq(pkt.seq, last.seq) ? last : floor(pkt.seq);
        if (prev != null) {
            if ((prev.flags & Tcp.FIN) != 0 && Tcp.seqGeq(pkt.seq, prev.endSeq)) return false;
            if (Tcp.seqGt(prev.endSeq, pkt.seq)) {
                if (Tcp.seqLeq(pkt.endSeq, prev.endSeq)) {
                    // every byte is present (a FIN right behind them is news, kept on prev)
                    if (fin && pkt.endSeq == prev.endSeq) prev.flags |= Tcp.FIN;
                    mib.inc(MibCounter.TcpExtTCPOFOMerge);
                    dupSet(pkt.seq, pkt.endSeq);
                    return false;
                }
                if (prev.seq == pkt.seq) {
                    // the same start and more: the segment replaces prev
                    PacketBuffer before = previous(prev);
                    dupExtend(prev.seq, prev.endSeq);
                    remove(prev);
                    prev.release();
                    mib.inc(MibCounter.TcpExtTCPOFOMerge);
                    prev = before;
                } else {
                    int cut = prev.endSeq - pkt.seq;
                    dupSet(pkt.seq, prev.endSeq);
                    pkt.pull(cut);
                    pkt.seq += cut;
                }
            }
        }
        // segments the new one covers go; one it reaches into trims it
        PacketBuffer next = prev == null ? first : next(prev);
        while (next != null && Tcp.seqLt(next.seq, pkt.endSeq)) {
            if (Tcp.seqGt(next.endSeq, pkt.endSeq)) {
                pkt.trim(next.seq - pkt.seq);
                pkt.endSeq = next.seq;
                pkt.flags = 0;
                break;
            }
            if ((next.flags & Tcp.FIN) != 0 && next.endSeq == pkt.endSeq) pkt.flags = Tcp.FIN;
            dupExtend(next.seq, next.endSeq);
            PacketBuffer after = next(next);
            remove(next);
            next.release();
            mib.inc(MibCounter.TcpExtTCPOFOMerge);
            next = after;
        }
        if (prev != null && prev.endSeq == pkt.seq && (prev.flags & Tcp.FIN) == 0 && prev.tryCoalesce(pkt)) {
            prev.endSeq = pkt.endSeq;
            prev.flags = pkt.flags;
            mib.inc(MibCounter.TcpExtTCPRcvCoalesce);
            return false;
        }
        insert(pkt);
        return true;
    }

    /** The last {@link #queue} found some of the segment's bytes queued already (Linux calls tcp_dsack_set). */
    boolean dupFound() { return dupFound; }

    /** Start of the duplicate span of the last {@link #queue}, when {@link #dupFound()}. */
    int dupStart() { return dupStart; }

    /** End (exclusive) of the duplicate span of the last {@link #queue}, when {@link #dupFound()}. */
    int dupEnd() { return dupEnd; }

    /** tcp_dsack_set within one queueing: the span replaces what was recorded. */
    private void dupSet(int seq, int endSeq) {
        dupFound = true;
        dupStart = seq;
        dupEnd = endSeq;
    }

    /** tcp_dsack_extend within one queueing: sets a span when none is recorded, else widens it when they touch. */
    private void dupExtend(int seq, int endSeq) {
        if (!dupFound) {
            dupSet(seq, endSeq);
        } else if (!Tcp.seqGt(seq, dupEnd) && !Tcp.seqGt(dupStart, endSeq)) {
            if (Tcp.seqLt(seq, dupStart)) dupStart = seq;
            if (Tcp.seqGt(endSeq, dupEnd)) dupEnd = endSeq;
        }
    }

    boolean isEmpty() { return root == null; }

    /** Buffers queued. */
    int size() { return size; }

    /** Memory charged for the queue in bytes: the sum of the buffers' truesize. */
    long bytes() { return bytes; }

    /** The buffer with the lowest sequence number, or null. */
    PacketBuffer first() { return first; }

    /** The buffer with the highest sequence number, or null. */
    PacketBuffer last() { return last; }

    /** The buffer that starts last at or before {@code seq}, or null. */
    PacketBuffer floor(int seq) {
        PacketBuffer best = null;
        for (PacketBuffer n = root; n != null; ) {
            if (Tcp.seqLeq(n.seq, seq)) {
                best = n;
                n = n.treeRight;
            } else {
                n = n.treeLeft;
            }
        }
        return best;
    }

    /** The queued buffer after {@code b} in sequence order, or null. */
    static PacketBuffer next(PacketBuffer b) {
        PacketBuffer n = b.treeRight;
        if (n != null) {
            while (n.treeLeft != null) n = n.treeLeft;
            return n;
        }
        PacketBuffer p = b.treeParent;
        while (p != null && b == p.treeRight) {
            b = p;
            p = p.treeParent;
        }
        return p;
    }

    /** The queued buffer before {@code b} in sequence order, or null. */
    static PacketBuffer previous(PacketBuffer b) {
        PacketBuffer n = b.treeLeft;
        if (n != null) {
            while (n.treeRight != null) n = n.treeRight;
            return n;
        }
        PacketBuffer p = b.treeParent;
        while (p != null && b == p.treeLeft) {
            b = p;
            p = p.treeParent;
        }
        return p;
    }

    /**
     * Adds {@code b} at its place by {@code b.seq}; its span ({@code seq}, {@code endSeq}, {@code flags})
     * must be set and must not overlap a queued one.
     */
    void insert(PacketBuffer b) {
        b.treeLeft = null;
        b.treeRight = null;
        b.treePriority = nextPriority();
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
        while (b.treeParent != null && b.treePriority > b.treeParent.treePriority) rotateUp(b);
        size++;
        bytes += b.truesize();
    }

    /** Unlinks {@code b}, which must be queued here; the caller owns it afterwards. */
    void remove(PacketBuffer b) {
        if (b == first) first = next(b);
        if (b == last) last = previous(b);
        // rotate b down until it has at most one child, keeping the heap order of priorities
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
        size--;
        bytes -= b.truesize();
    }

    /** Unlinks and returns the buffer with the lowest sequence number, or null when the queue is empty. */
    PacketBuffer pollFirst() {
        PacketBuffer b = first;
        if (b != null) remove(b);
        return b;
    }

    /** Releases every queued buffer. */
    void purge() {
        PacketBuffer b;
        while ((b = pollFirst()) != null) b.release();
    }

    /** Moves {@code x} above its parent, keeping the in-order sequence of the tree. */
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
    }

    private int nextPriority() {
        int x = random;
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        random = x;
        return x;
    }
}
