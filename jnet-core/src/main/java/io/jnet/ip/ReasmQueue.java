package io.jnet.ip;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.Timer;
import io.jnet.wire.Ipv4;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fragments received so far of one datagram (Linux {@code struct ipq}), with the RFC 815 hole
 * descriptor list: the byte ranges of the payload still missing. A queue starts with one hole
 * {@code [0, infinity)}; each fragment must fall entirely inside one hole, which it splits into at most
 * two; the final fragment (MF clear) ends the last hole at the datagram's length. The datagram is
 * complete when the final fragment has arrived and no hole is left.
 *
 * <p>Because a fragment must fit inside a hole, any overlap with data already held is detected (and,
 * following RFC 5722 and Linux since 4.19, fails the whole datagram), except an exact duplicate.
 *
 * <p>Not thread-safe: the owning {@link Ipv4Reassembler} guards it with its lock.
 */
final class ReasmQueue {

    /** What {@link #add} did with a fragment. */
    enum Outcome {
        /** Held; the queue now owns the buffer. */
        ADDED,
        /** Same offset and end as a held fragment: the caller drops it. */
        DUPLICATE,
        /** Overlaps held data: the datagram fails (IpExtReasmOverlaps). */
        OVERLAP,
        /** Contradicts the length fixed by the final fragment, or data lies past a final fragment: the datagram fails. */
        INCONSISTENT
    }

    private record Piece(int offset, int end, int payloadStart, PacketBuffer buffer) {}

    private static final int INFINITY = Integer.MAX_VALUE;

    final ReasmKey key;
    /** The ipfrag_time expiry timer; set once by the reassembler. */
    Timer timer;

    /** Hole descriptors: first byte -> one past the last byte, ordered by first byte. */
    private final TreeMap<Integer, Integer> holes = new TreeMap<>();
    private final TreeMap<Integer, Piece> pieces = new TreeMap<>();
    /** Highest end offset seen; the payload length once {@link #lastIn}. */
    private int length;
    private boolean lastIn;
    private boolean dropped;
    private long truesize;

    ReasmQueue(ReasmKey key) {
        this.key = key;
        holes.put(0, INFINITY);
    }

    /**
     * Adds the fragment carrying payload bytes {@code [offset, end)} (validated by the caller:
     * {@code offset < end}) starting at array index {@code payloadStart} of {@code buffer}.
     * Only on {@link Outcome#ADDED} does the queue take the buffer.
     */
    Outcome add(int offset, int end, boolean moreFragments, int payloadStart, PacketBuffer buffer) {
        // Length bookkeeping first, as Linux ip_frag_queue does.
        if (!moreFragments) {
            if (end < length || (lastIn && end != length)) return Outcome.INCONSISTENT;
            if (!lastIn) {
                lastIn = true;
                length = end;
                Map.Entry<Integer, Integer> tail = holes.lastEntry();
                if (tail != null && tail.getValue() == INFINITY) {
                    if (tail.getKey() >= end) holes.remove(tail.getKey());
                    else holes.put(tail.getKey(), end);
                }
            }
        } else if (end > length) {
            if (lastIn) return Outcome.INCONSISTENT;
            length = end;
        }
        // RFC 815 steps 1-6: find the hole holding the fragment and split it.
        Map.Entry<Integer, Integer> hole = holes.floorEntry(offset);
        if (hole != null && end <= hole.getValue()) {
            int first = hole.getKey();
            int last = hole.getValue();
            holes.remove(first);
            if (first < offset) holes.put(first, offset);
            if (end < last) holes.put(end, last);
            pieces.put(offset, new Piece(offset, end, payloadStart, buffer));
            truesize += buffer.truesize();
            return Outcome.ADDED;
        }
        Piece held = pieces.get(offset);
        if (held != null && held.end == end) return Outcome.DUPLICATE;
        return Outcome.OVERLAP;
    }

    boolean complete() { return lastIn && holes.isEmpty(); }

    /** True when the fragment at offset 0 is held (Linux INET_FRAG_FIRST_IN). */
    boolean firstIn() { return pieces.containsKey(0); }

    /** True once the datagram failed: later fragments of it are dropped until the queue expires. */
    boolean dropped() { return dropped; }

    /** Bytes charged for the held fragments (sum of their truesize). */
    long truesize() { return truesize; }

    /** Releases every held fragment. */
    void releaseAll() {
        for (Piece p : pieces.values()) p.buffer.release();
        pieces.clear();
        truesize = 0;
    }

    /** Fails the datagram: frees its fragments and remembers to drop the rest of it. */
    void markDropped() {
        releaseAll();
        dropped = true;
    }

    /** Removes and returns the fragment at offset 0 (the caller owns it then), or null. */
    PacketBuffer takeFirst() {
        Piece p = pieces.remove(0);
        if (p == null) return null;
        truesize -= p.buffer.truesize();
        return p.buffer;
    }

    /**
     * Builds the datagram of a {@link #complete()} queue: a new buffer with
     * {@link PacketBuffer#DEFAULT_HEADROOM} headroom; header of the first fragment (options included)
     * with MF and offset cleared, total length and checksum set; network and transport offsets, input
     * device of the first fragment; checksum-unnecessary only if every fragment had it.
     * Does not release the fragments.
     *
     * @return the datagram, or null when header plus payload would exceed 65535 bytes
     */
    PacketBuffer reassemble() {
        Piece head = pieces.get(0);
        byte[] hb = head.buffer.array();
        int hoff = head.buffer.dataStart();
        int headerLength = Ipv4.headerLength(hb, hoff);
        int total = headerLength + length;
        if (total > Ipv4.MAX_PACKET) return null;
        PacketBuffer d = PacketBuffer.allocate(PacketBuffer.DEFAULT_HEADROOM, total);
        int at = d.put(total);
        byte[] db = d.array();
        System.arraycopy(hb, hoff, db, at, headerLength);
        Ipv4.setTotalLength(db, at, total);
        Ipv4.setFlagsFragment(db, at, Ipv4.flagsFragment(hb, hoff) & ~(Ipv4.FLAG_MF | 0x1FFF));
        Ipv4.updateChecksum(db, at);
        boolean checksumUnnecessary = true;
        for (Piece p : pieces.values()) {
            System.arraycopy(p.buffer.array(), p.payloadStart, db, at + headerLength + p.offset, p.end - p.offset);
            checksumUnnecessary &= p.buffer.checksumUnnecessary();
        }
        d.setNetworkOffset(at);
        d.setTransportOffset(at + headerLength);
        d.setInputDevice(head.buffer.inputDevice());
        d.setChecksumUnnecessary(checksumUnnecessary);
        return d;
    }
}
