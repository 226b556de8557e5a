package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.buffer.PacketQueue;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;

/**
 * Keeps the memory a connection's receive queues are charged (the truesize of their buffers, in bytes)
 * within its receive buffer {@code rcvbuf} (SO_RCVBUF), as Linux's tcp_try_rmem_schedule and
 * tcp_prune_queue: a segment is queued while the queues are within the buffer; past it, the buffer first
 * grows where autotuning may (tcp_clamp_window), then runs of bloated buffers (much more charge than text,
 * such as one-byte segments) are copied into compact ones (tcp_collapse_ofo_queue, tcp_collapse), and last
 * out-of-order data is dropped from the highest sequence down (tcp_prune_ofo_queue), so that in-order data
 * always finds room before out-of-order data keeps it.
 *
 * <p>Every queued segment is also charged to the namespace's TCP memory ({@link TcpMemory}, net.ipv4.tcp_mem):
 * under its pressure the window stops growing and the queues are pruned when their pages are refused.
 *
 * <p>Runs under the socket lock. Counters: TcpExtPruneCalled, TcpExtTCPRcvCollapsed, TcpExtOfoPruned,
 * TcpExtRcvPruned.
 */
final class ReceiveMemory {
    /** Most bytes a collapse copies into one buffer (Linux copies into buffers of about a page). */
    static final int COLLAPSE_CHUNK = 16384;
    /**
     * Least charge of a buffer a collapse makes, in bytes: a small buffer still costs an object and an
     * array, as Linux charges sk_buff and skb_shared_info with every buffer. A run is only collapsed when
     * that lowers its charge, so tiny runs (two one-byte segments) are left to pruning.
     */
    static final int MIN_COLLAPSED_TRUESIZE = 512;

    private ReceiveMemory() {}

    /** True while the queues are within the receive buffer (Linux tcp_can_ingest): one more buffer may come. */
    static boolean canIngest(TcpConnection c) {
        return c.rmemAlloc() <= c.rcvbuf;
    }

    /**
     * Makes room for {@code in}, a segment about to be queued (Linux tcp_try_rmem_schedule): within the
     * receive buffer and with its pages granted by the namespace's TCP memory ({@link TcpMemory}, Linux
     * sk_rmem_schedule), or after {@link #pruneQueue}; when TCP memory still refuses the pages, both queues are
     * collapsed (jnet: before Linux's next step, so that a bloated queue gives memory back before data goes)
     * and then out-of-order data is pruned until they are granted.
     *
     * @return true when it may be queued; false when the queues stay over the buffer (TcpExtRcvPruned) or TCP
     *     memory refuses the pages
     */
    static boolean schedule(TcpConnection c, PacketBuffer in) {
        TcpMemory mem = c.tcp.memory;
        int size = in.truesize();
        if (canIngest(c) && mem.schedule(c, size, TcpMemory.RECV)) return true;
        if (!pruneQueue(c, in)) return false;
        if (mem.schedule(c, size, TcpMemory.RECV)) return true;
        collapseOfoQueue(c);
        collapseReceiveQueue(c);
        mem.reclaim(c);
        while (!mem.schedule(c, size, TcpMemory.RECV)) {
            if (!pruneOfoQueue(c, in)) return false;
        }
        return true;
    }

    /**
     * Linux tcp_prune_queue: grow the buffer where allowed (or, under TCP memory pressure, stop the window's
     * growth), collapse both queues, then prune the out-of-order queue above {@code in}. Returns true when the
     * queues are within the buffer again.
     */
    static boolean pruneQueue(TcpConnection c, PacketBuffer in) {
        c.tcp.mib.inc(MibCounter.TcpExtPruneCalled);
        if (c.rmemAlloc() >= c.rcvbuf) clampWindow(c);
        else if (c.tcp.memory.underPressure()) adjustRcvSsthresh(c);
        if (canIngest(c)) return true;
        collapseOfoQueue(c);
        collapseReceiveQueue(c);
        c.tcp.memory.reclaim(c);
        if (canIngest(c)) return true;
        pruneOfoQueue(c, in);
        c.tcp.memory.reclaim(c);
        if (canIngest(c)) return true;
        c.tcp.mib.inc(MibCounter.TcpExtRcvPruned);
        return false;
    }

    /**
     * Linux tcp_clamp_window: the queues outgrew the buffer, so their segments carry more overhead than the
     * window allowed for. Unless SO_RCVBUF fixed it, TCP memory is under pressure or at net.ipv4.tcp_mem[0], the
     * buffer grows to what is charged, up to net.ipv4.tcp_rmem[2]; otherwise the window stops growing beyond
     * two MSS (rcv_ssthresh). Quick ACKs stop.
     */
    static void clampWindow(TcpConnection c) {
        c.quickAcks = 0;
        int max = c.tcp.sysctl.tcpRmem.intValue(2);
        TcpMemory mem = c.tcp.memory;
        if (c.rcvbuf < max && !c.rcvbufLocked && !mem.underPressure() && !mem.aboveMin()) {
            c.rcvbuf = (int) Math.max(c.rcvbuf, Math.min(c.rmemAlloc(), max));
        }
        if (c.rmemAlloc() > c.rcvbuf) c.rcvSsthresh = (int) Math.min(c.rcvSsthresh, 2L * c.advMss);
    }

    /** Linux tcp_adjust_rcv_ssthresh (TCP memory pressure): the window offered stops at four MSS. */
    static void adjustRcvSsthresh(TcpConnection c) {
        c.rcvSsthresh = (int) Math.min(c.rcvSsthresh, 4L * c.advMss);
    }

    /**
     * Linux tcp_win_from_space with tcp_adv_win_scale 1 (jnet measures no scaling_ratio): the window, in bytes,
     * that {@code space} bytes of buffer allow for, half of it.
     */
    static long winFromSpace(long space) {
        return space >> 1;
    }

    /** Linux tcp_space_from_win, the inverse of {@link #winFromSpace}: the buffer a window of {@code win} bytes needs. */
    static long spaceFromWin(long win) {
        return win << 1;
    }

    /**
     * Linux tcp_rmem_pressure: TCP memory is under pressure, or the receive queues are charged more than seven
     * eighths of the receive buffer. Callable without the lock (a poll's racy look, as Linux's).
     */
    static boolean rmemPressure(TcpConnection c) {
        if (c.tcp.memory.underPressure()) return true;
        int rcvbuf = c.rcvbuf;
        return c.rmemAlloc() > rcvbuf - (rcvbuf >> 3);
    }

    /**
     * Linux tcp_grow_window, as far as jnet keeps rcv_ssthresh: after a data segment {@code in} of at least 128
     * bytes (tcp_event_data_recv), a clamped window grows unless TCP memory is under pressure, and is unclamped
     * once it covers the receive buffer. Only a segment whose charge the window allows for (check #2:
     * tcp_win_from_space(truesize) &lt;= len) grows it by two advertised MSS or twice its bytes; a bloated one
     * (much more charge than bytes, such as a small segment in a large buffer) only while the window is still
     * small against the largest buffer, by two received MSS ({@link #growWindowBloated}), else not at all: a
     * window grown for such segments would let in more charge than the buffer has room for.
     */
    static void growWindow(TcpConnection c, PacketBuffer in) {
        if (c.rcvSsthresh == Integer.MAX_VALUE || c.tcp.memory.underPressure()) return;
        int len = in.length();
        if (len < 128) return;
        long incr = winFromSpace(in.truesize()) <= len ? 2L * c.advMss : growWindowBloated(c, len, in.truesize());
        if (incr == 0) return;
        long next = (long) c.rcvSsthresh + Math.max(incr, 2L * len);
        c.rcvSsthresh = next >= c.rcvbuf ? Integer.MAX_VALUE : (int) next;
    }

    /**
     * Linux __tcp_grow_window: for a segment of {@code len} bytes charged {@code truesize}, two received MSS when
     * half the window its charge stands for fits its bytes while rcv_ssthresh is at most half the window of the
     * largest buffer (net.ipv4.tcp_rmem[2]); each halving of the former allows half as much of the latter. 0 when
     * none does (a 64 KiB buffer holding one MSS grows a window of at most 96 KiB with tcp_rmem[2] = 6 MiB).
     */
    static long growWindowBloated(TcpConnection c, int len, long truesize) {
        long charge = winFromSpace(truesize) >> 1;
        long window = winFromSpace(c.tcp.sysctl.tcpRmem.intValue(2)) >> 1;
        while (c.rcvSsthresh <= window) {
            if (charge <= len) return 2L * c.rcvMss;
            charge >>= 1;
            window >>= 1;
        }
        return 0;
    }

    /**
     * Linux tcp_prune_ofo_queue: drops out-of-order buffers from the highest sequence down, an eighth of the
     * buffer at a time, until the queues are within the buffer; never a buffer below where {@code in} would
     * go (the newest arrival lands last, so it is the one to drop). Counts TcpExtOfoPruned when it dropped
     * anything.
     *
     * @return true when it dropped anything
     */
    static boolean pruneOfoQueue(TcpConnection c, PacketBuffer in) {
        OfoQueue q = c.oooQueue;
        long goal = c.rcvbuf >> 3;
        boolean pruned = false;
        for (PacketBuffer p = q.last(); p != null; ) {
            if (Tcp.seqGt(in.seq, p.seq)) break;
            PacketBuffer prev = OfoQueue.previous(p);
            q.remove(p);
            goal -= p.truesize();
            p.release();
            pruned = true;
            if (prev == null || goal <= 0) {
                if (canIngest(c)) break;
                goal = c.rcvbuf >> 3;
            }
            p = prev;
        }
        if (pruned) {
            c.tcp.mib.inc(MibCounter.TcpExtOfoPruned);
            c.rcvSacks.reset(); // the blocks may describe what went (tcp_prune_ofo_queue: tcp_sack_reset)
        }
        return pruned;
    }

    /**
     * Linux tcp_collapse_ofo_queue: copies each run of adjacent out-of-order buffers (no hole between them)
     * into compact buffers, from its first bloated buffer on, when that lowers its charge. A run of one
     * small buffer is not worth it; after an eighth of the receive buffer of such runs the scan stops
     * (a peer sending one-byte segments with holes between them gets them pruned instead).
     */
    static void collapseOfoQueue(TcpConnection c) {
        OfoQueue q = c.oooQueue;
        long sumTiny = 0;
        PacketBuffer head = q.first();
        while (head != null) {
            PacketBuffer next = OfoQueue.next(head);
            // compact buffers at the start of a run stay as they are
            while (next != null && !bloated(head) && next.seq == head.endSeq && (head.flags & Tcp.FIN) == 0) {
                head = next;
                next = OfoQueue.next(head);
            }
            int count = 1;
            long charge = head.truesize();
            PacketBuffer p = head;
            while (next != null && next.seq == p.endSeq && (p.flags & Tcp.FIN) == 0) {
                count++;
                charge += next.truesize();
                p = next;
                next = OfoQueue.next(p);
            }
            int len = p.endSeq - head.seq;
            if ((count > 1 || len >= COLLAPSE_CHUNK) && collapsedCharge(len) < charge) {
                collapseRun(c, head, next, len);
            } else {
                sumTiny += charge;
                if (sumTiny > c.rcvbuf >> 3) return;
            }
            head = next;
        }
    }

    /** Copies the run from {@code head} up to {@code stop} (exclusive), {@code len} bytes, into compact buffers. */
    private static void collapseRun(TcpConnection c, PacketBuffer head, PacketBuffer stop, int len) {
        OfoQueue q = c.oooQueue;
        PacketBuffer src = head;
        int seq = head.seq;
        while (len > 0) {
            int n = Math.min(COLLAPSE_CHUNK, len);
            PacketBuffer chunk = newChunk(c, n);
            chunk.seq = seq;
            int fin = 0;
            while (chunk.length() < n) {
                int k = Math.min(n - chunk.length(), src.length());
                src.copyData(0, chunk.array(), chunk.put(k), k);
                if (k < src.length()) {
                    src.pull(k);
                    src.seq += k; // still after the chunk: the tree's order holds
                } else {
                    PacketBuffer nx = OfoQueue.next(src);
                    fin = src.flags & Tcp.FIN;
                    q.remove(src);
                    src.release();
                    c.tcp.mib.inc(MibCounter.TcpExtTCPRcvCollapsed);
                    src = nx;
                }
            }
            seq += n;
            len -= n;
            // buffers without text left at the end of the run (a FIN on its own) go into the last chunk
            while (len == 0 && src != stop && src.length() == 0) {
                PacketBuffer nx = OfoQueue.next(src);
                fin |= src.flags & Tcp.FIN;
                q.remove(src);
                src.release();
                c.tcp.mib.inc(MibCounter.TcpExtTCPRcvCollapsed);
                src = nx;
            }
            chunk.endSeq = seq;
            chunk.flags = fin;
            q.insert(chunk);
        }
    }

    /**
     * Linux tcp_collapse on the receive queue: copies the unread data, from the first bloated buffer on,
     * into compact buffers when that lowers its charge.
     */
    static void collapseReceiveQueue(TcpConnection c) {
        PacketQueue q = c.receiveQueue;
        PacketBuffer prev = null;
        PacketBuffer p = q.peek();
        while (p != null && !bloated(p)) {
            prev = p;
            p = p.next;
        }
        if (p == null || p.next == null) return;
        long len = 0;
        long charge = 0;
        for (PacketBuffer b = p; b != null; b = b.next) {
            len += b.length();
            charge += b.truesize();
        }
        if (collapsedCharge(len) >= charge) return;
        PacketBuffer src = q.takeAfter(prev);
        int seq = src.seq;
        while (len > 0) {
            int n = (int) Math.min(COLLAPSE_CHUNK, len);
            PacketBuffer chunk = newChunk(c, n);
            chunk.seq = seq;
            while (chunk.length() < n) {
                int k = Math.min(n - chunk.length(), src.length());
                src.copyData(0, chunk.array(), chunk.put(k), k);
                if (k < src.length()) {
                    src.pull(k);
                    src.seq += k;
                } else {
                    PacketBuffer nx = src.next;
                    src.next = null;
                    src.release();
                    c.tcp.mib.inc(MibCounter.TcpExtTCPRcvCollapsed);
                    src = nx;
                }
            }
            seq += n;
            len -= n;
            q.add(chunk);
        }
        while (src != null) { // buffers without text, if any
            PacketBuffer nx = src.next;
            src.next = null;
            src.release();
            src = nx;
        }
    }

    /**
     * True when a buffer holds less text than half its charge (Linux: tcp_win_from_space(truesize) &gt; len,
     * with jnet's window of half the free buffer).
     */
    static boolean bloated(PacketBuffer b) {
        return winFromSpace(b.truesize()) > b.length();
    }

    /** What the compact buffers for {@code len} bytes are charged. */
    static long collapsedCharge(long len) {
        long full = len / COLLAPSE_CHUNK * COLLAPSE_CHUNK;
        long rest = len - full;
        return full + (rest == 0 ? 0 : Math.max(rest, MIN_COLLAPSED_TRUESIZE));
    }

    private static PacketBuffer newChunk(TcpConnection c, int n) {
        return c.tcp.ns.allocator().allocate(0, Math.max(n, MIN_COLLAPSED_TRUESIZE));
    }
}
