package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.buffer.PayloadRegion;
import io.jnet.ip.Route;
import io.jnet.socket.Errno;
import io.jnet.socket.MsgFlags;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.nio.ByteBuffer;

/**
 * TCP output (Linux tcp_output.c): building segments, the send loop with congestion window, receive
 * window, sender silly-window avoidance and Nagle (RFC 9293 3.7.4, 3.8.6.2.1), window selection with
 * receiver SWS avoidance (3.8.6.2.2), ACKs, FIN, RST and connection teardown.
 * Every method runs with the connection locked (owner or short lock).
 */
final class TcpOutput {
    /** Marks a write-queue segment that was retransmitted (Karn's algorithm); stays until it is acknowledged. */
    static final int RETRANSMITTED = 0x100;
    /**
     * Marks a write-queue segment taken for lost (Linux TCPCB_LOST): at a timeout, or when retransmitted. Set and
     * cleared through {@link SackScoreboard#setFlags}, which keeps the lost bytes counted.
     */
    static final int LOST = 0x200;
    /**
     * Marks a retransmission in flight (Linux TCPCB_SACKED_RETRANS); a timeout clears it. Set and cleared through
     * {@link SackScoreboard#setFlags}, which keeps the retransmitted bytes counted.
     */
    static final int RETRANS_OUT = 0x400;
    /**
     * Headroom of a write-queue segment (Linux MAX_TCP_HEADER): room for the TCP header with options and
     * everything below it, so a clone of the segment goes down the stack with its headers pushed in front of the
     * shared payload.
     */
    static final int TX_HEADROOM = PacketBuffer.DEFAULT_HEADROOM + Tcp.MAX_HEADER_LENGTH;
    /** Linux TCP_NAGLE_OFF: TCP_NODELAY is set, Nagle holds nothing. */
    static final int TCP_NAGLE_OFF = 1;
    /** Linux TCP_NAGLE_CORK: TCP_CORK is set (or a MSG_MORE send pushes): a partial last segment is held. */
    static final int TCP_NAGLE_CORK = 2;
    /** Linux TCP_NAGLE_PUSH: send a partial last segment now whatever the other bits say (one-shot in tp->nonagle). */
    static final int TCP_NAGLE_PUSH = 4;
    /**
     * jnet: a push after a MSG_SENDPAGE_NOTLAST write (Linux's do_tcp_sendpages skipped tcp_push then): the last
     * segment goes only once it reached the size goal; segments before it go as the window allows.
     */
    static final int TCP_NAGLE_NOTLAST = 8;
    /** TCP_TIMEWAIT_LEN. */
    static final long TIMEWAIT_NS = TimeWaitSock.TIMEWAIT_LEN_NS;

    private TcpOutput() {}

    // ---- connection setup ------------------------------------------------------------------------

    static int mssForMtu(int mtu) { return Math.min(mtu, 65535) - Ipv4.MIN_HEADER_LENGTH - Tcp.MIN_HEADER_LENGTH; }

    /** The MSS to advertise on a device of this MTU: capped by TCP_MAXSEG when set (Linux tcp_mss_clamp). */
    static int advMss(TcpConnection c, int mtu) {
        int m = mssForMtu(mtu);
        return c.userMss > 0 ? Math.min(m, c.userMss) : m;
    }

    /** Window scale to offer: enough for the largest receive buffer we may grow to (tcp_select_initial_window). */
    static int chooseWscale(TcpConnection c) {
        return chooseWscale(c.tcp, c.rcvbufLocked, c.rcvbuf);
    }

    /**
     * {@link #chooseWscale(TcpConnection)} for a connection whose receive buffer is {@code rcvbuf} when
     * {@code rcvbufLocked} (SO_RCVBUF), else autotuned; -1 with net.ipv4.tcp_window_scaling off.
     */
    static int chooseWscale(TcpProtocol tcp, boolean rcvbufLocked, int rcvbuf) {
        if (!tcp.sysctl.tcpWindowScaling.enabled()) return -1;
        long space = rcvbufLocked ? rcvbuf : Math.max(tcp.sysctl.tcpRmem.intValue(2), tcp.sysctl.rmemMax.intValue());
        int ws = 0;
        while (space > 65535 && ws < 14) {
            space >>= 1;
            ws++;
        }
        return ws;
    }

    /** The initial receive window (unscaled, as in SYN and SYN-ACK): a multiple of the MSS below 64 KiB. */
    static int initialWindow(TcpConnection c) {
        long space = Math.max(0, (long) c.rcvbuf - c.rmemAlloc()) / 2;
        long w = Math.min(space, 65535);
        if (w > c.advMss) w = w / c.advMss * c.advMss;
        return (int) w;
    }

    static void startConnect(TcpConnection c, Route r) {
        TcpProtocol tcp = c.tcp;
        c.advMss = advMss(c, r.itf().device().mtu());
        int ws = chooseWscale(c);
        c.wscaleEnabled = ws >= 0;
        c.rcvWscale = Math.max(ws, 0);
        c.tsEnabled = tcp.sysctl.tcpTimestamps.intValue() != 0;
        c.sackOk = tcp.sysctl.tcpSack.enabled();
        if (!c.seededFromTimeWait) c.iss = tcp.initialSequence(c.localAddr, c.localPort, c.remoteAddr, c.remotePort);
        c.tsOffset = tcp.timestampOffset(c.localAddr, c.localPort, c.remoteAddr, c.remotePort);
        c.sndUna = c.iss;
        c.sndNxt = c.iss + 1;
        c.sndMax = c.sndNxt;
        c.writeSeq = c.iss + 1;
        c.sndSml = c.iss;
        c.cwndUsageSeq = c.iss;
        c.pushedSeq = c.writeSeq;
        c.rcvWnd = initialWindow(c);
        c.rcvSsthresh = c.rcvWnd; // tcp_connect_init: the window starts at the one the SYN offers
        c.state = TcpState.SYN_SENT;
        c.retransmits = 0;
        sendSyn(c, false);
        c.retransStampNs = c.lastSynSentNs;
        c.rtoTimer.schedule(c.rtt.currentRtoUs() * 1000);
    }

    /**
     * Sends SYN (active open) or SYN-ACK (passive or simultaneous open) with our options in Linux's order
     * (tcp_syn_options, tcp_synack_options, tcp_options_write): MSS; SACK-permitted and timestamps packed in one word
     * ("SACK_PERM TS" instead of "NOP NOP TS"), or NOP NOP SACK_PERM without timestamps; NOP WS. SACK-permitted is
     * offered on a SYN when net.ipv4.tcp_sack is on, and answered on a SYN-ACK when the SYN offered it too.
     */
    static void sendSyn(TcpConnection c, boolean ack) {
        TcpOptions o = c.txOpts;
        o.clear();
        o.mss = c.advMss;
        if (c.tsEnabled) {
            o.hasTimestamp = true;
            o.tsVal = c.tcp.tsClock() + c.tsOffset;
            o.tsEcr = ack ? c.tsRecent : 0;
        }
        if (c.wscaleEnabled) o.windowScale = c.rcvWscale;
        o.sackPermitted = c.sackOk;
        int flags = ack ? Tcp.SYN | Tcp.ACK : Tcp.SYN;
        c.lastSynSentNs = c.tcp.ns.clock().nanoTime();
        emit(c, null, 0, c.iss, flags, Math.min(c.rcvWnd, 65535), o);
        if (ack) ackSent(c);
    }

    // ---- application data ------------------------------------------------------------------------

    /** Free send-buffer space in bytes (may be negative). */
    static long sendSpace(TcpConnection c) { return c.sndbuf - c.writeQueue.bytes(); }

    /**
     * Linux __sk_stream_is_writeable: free send-buffer space at least half of what is queued (a third of
     * the buffer free), so a writer woken for space can write a useful amount rather than one segment.
     */
    static boolean isWriteable(TcpConnection c) { return sendSpace(c) > c.sndbuf / 3; }

    /**
     * Bytes per write-queue segment (Linux tcp_send_mss size goal): the MSS, or a multiple of it up to
     * the device's GSO limit when the device takes large segments whole, and at most half the largest window
     * the peer offered (tcp_xmit_size_goal with tcp_bound_to_half_wnd), so that a small receive window still
     * holds two segments rather than one that it must acknowledge and reopen before the next may go; and no more
     * than about a millisecond of data at the pacing rate (Linux tcp_tso_autosize, {@link #tsoAutosize}), so that a
     * slow or long path gets segments of a few MSS that the congestion window can count and loss recovery resend.
     */
    static int sizeGoal(TcpConnection c) {
        io.jnet.ip.Route r = c.tcp.ip.route(c.remoteAddr, c.dst);
        int gso = r == null ? 0 : r.itf().device().gsoMaxSize();
        if (gso <= 0) return c.mss;
        int headers = Ipv4.MIN_HEADER_LENGTH + Tcp.MAX_HEADER_LENGTH;
        long goal = boundToHalfWindow(c, Math.min(gso - 1 - headers, tsoAutosize(c, gso)));
        return (int) Math.max(c.mss, goal / c.mss * c.mss);
    }

    /** Linux TSO_MIN_SEGS (tcp_min_tso_segs): segments a size goal holds at least. */
    static final int MIN_TSO_SEGS = 2;
    /** Linux sk_pacing_shift's default: a size goal is about 2^-10 s (1 ms) of data at the pacing rate. */
    static final int PACING_SHIFT = 10;
    /** Linux net.ipv4.tcp_tso_rtt_log's default: paths of min RTT below 2^9 µs get larger goals. */
    static final int TSO_RTT_LOG = 9;

    /**
     * Linux tcp_tso_autosize, in bytes: the pacing rate's worth of {@code 2^-PACING_SHIFT} s, plus {@code gso >> r}
     * for a path of min RTT {@code r << TSO_RTT_LOG} µs (about 2^-r of the GSO limit; nothing from 16 ms up), at
     * most {@code gso} and at least {@link #MIN_TSO_SEGS} MSS. No pacing rate yet (no RTT sample): {@code gso}.
     */
    static long tsoAutosize(TcpConnection c, int gso) {
        if (c.pacingRate < 0) return gso;
        long bytes = c.pacingRate >> PACING_SHIFT;
        long minRttUs = c.minRtt.get();
        long r = minRttUs >> TSO_RTT_LOG;
        if (r < Integer.SIZE) bytes += gso >> r;
        bytes = Math.min(bytes, gso);
        return Math.max(bytes / c.mss, MIN_TSO_SEGS) * c.mss;
    }

    /** TCP_MSS_DEFAULT: the MSS assumed when the peer offers none (RFC 9293 3.7.1), in bytes. */
    static final int TCP_MSS_DEFAULT = 536;

    /**
     * Linux tcp_bound_to_half_wnd: {@code bytes} cut to half the largest window the peer offered (the whole of
     * it when that is not above TCP_MSS_DEFAULT), but not below the payload of a 68-byte IPv4 minimum MTU
     * packet's TCP segment (68 - tcp_header_len, the header with its timestamps option); no cut before the peer
     * offered a window.
     */
    static long boundToHalfWindow(TcpConnection c, long bytes) {
        long cutoff = c.maxSndWnd > TCP_MSS_DEFAULT ? c.maxSndWnd >> 1 : c.maxSndWnd;
        if (cutoff > 0 && bytes > cutoff) return Math.max(cutoff, 68 - Tcp.MIN_HEADER_LENGTH - (c.tsEnabled ? 12 : 0));
        return bytes;
    }

    /**
     * Linux tcp_sync_mss, run when the peer's largest window grows (tcp_ack_update_window) and once the handshake
     * has set it (tcp_rcv_synsent_state_process, tcp_v4_syn_recv_sock): the MSS is the path MTU's (tcp_mtu_to_mss:
     * at most the peer's MSS option, at least net.ipv4.tcp_min_snd_mss, less the timestamps option) cut to half
     * the peer's largest window ({@link #boundToHalfWindow}), so that a peer with a tiny window still gets two
     * segments per window. cwnd keeps its number of segments.
     */
    static void syncMss(TcpConnection c) {
        int pathMss = mssForMtu(c.pmtu);
        int m = Math.min(c.peerMss, pathMss > 0 ? pathMss : c.peerMss);
        m = Math.max(m, c.tcp.sysctl.tcpMinSndMss.intValue()) - (c.tsEnabled ? 12 : 0);
        m = (int) boundToHalfWindow(c, m);
        if (m != c.mss) {
            c.mss = m;
            c.win.setMss(m);
        }
    }

    /**
     * Copies application bytes into the write queue (tcp_sendmsg): {@code len} bytes from {@code b} at
     * {@code off}, or from {@code bb} at its position (which moves on), or from {@code region} at
     * {@code off} when it is not null (a small sendfile call; faults read as zeros, counted). Returns how many
     * fitted.
     */
    static int appendToWriteQueue(TcpConnection c, byte[] b, long off, int len, ByteBuffer bb, PayloadRegion region) {
        if (c.memLimited) c.memLimited = false;
        int copied = 0;
        boolean notLast = (c.sendFlags & MsgFlags.MSG_SENDPAGE_NOTLAST) != 0;
        // tcp_send_mss: a MSG_OOB send builds segments of one MSS, without the large (GSO) size goal
        int mss = (c.sendFlags & MsgFlags.MSG_OOB) != 0 ? c.mss : sizeGoal(c);
        while (copied < len) {
            PacketBuffer tail = c.writeQueue.peekLast();
            if (tail != null && tail.when == 0 && (tail.flags & Tcp.FIN) == 0 && tail.payloadRegion() == null
                    && tail.tailroom() > 0 && tail.length() < mss && !tail.dataShared()) {
                int n = Math.min(len - copied, Math.min(tail.tailroom(), mss - tail.length()));
                if (copied == 0 && !c.sendCopied) tail.flags &= ~Tcp.PSH; // tcp_sendmsg_locked: the write's first bytes
                // a segment charged by use (below) is charged the bytes copied into it, as Linux charges page
                // fragments (sk_wmem_schedule, then skb->truesize += copy)
                int charge = tail.dataStart() + tail.length() + n - tail.truesize();
                if (charge > 0) {
                    if (!scheduleSend(c, charge)) break;
                    c.writeQueue.chargeTail(charge);
                }
                int at = tail.put(n);
                if (region != null) region.read(off + copied, tail.array(), at, n);
                else if (bb != null) bb.get(tail.array(), at, n);
                else System.arraycopy(b, (int) off + copied, tail.array(), at, n);
                c.tcp.mib.add(MibCounter.TcpExtJnetSndUserCopiedBytes, n);
                tail.endSeq += n;
                c.writeSeq += n;
                copied += n;
                if (copied < len && tail.length() >= mss) pushFullSegment(c, tail);
                continue;
            }
            if (sendSpace(c) <= 0) break;
            if (c.writeQueue.isEmpty()) c.chrono.start(TcpChrono.BUSY, c.tcp.ns.clock().nanoTime());
            int want = len - copied;
            // a MSG_SENDPAGE_NOTLAST write promises more bytes of the same message: the segment is made to grow to
            // the size goal (as Linux's skb takes page fragments up to size_goal) rather than to this call's bytes
            int cap = notLast ? mss : Math.min(mss, Math.max(want, Math.min(mss, 2048)));
            PacketBuffer nb = c.skbCache.allocTx(c, TX_HEADROOM, cap);
            // the size goal's array is charged by use: its headers now, its bytes as they are copied in, so that
            // a segment sent before it filled up is charged what it carries, here and at the receiver
            if (notLast) nb.recycle(TX_HEADROOM, 0);
            if (!scheduleSend(c, nb.truesize())) {
                nb.release();
                break;
            }
            nb.setOwner(c);
            nb.seq = c.writeSeq;
            nb.endSeq = c.writeSeq;
            nb.flags = 0;
            nb.when = 0;
            c.writeQueue.add(nb);
            if (c.sendHead == null) c.sendHead = nb;
            c.nonagle &= ~TCP_NAGLE_PUSH; // skb_entail: a push asked for earlier applied to the data queued then
        }
        return copied;
    }

    /**
     * Linux forced_push: more than half the peer's largest window was written since the last segment marked PSH,
     * so the write marks one now rather than only its last segment (a receiver that waits for PSH to deliver
     * gets data at least every half window).
     */
    static boolean forcedPush(TcpConnection c) {
        return Tcp.seqGt(c.writeSeq, c.pushedSeq + (int) Math.min(c.maxSndWnd >> 1, Integer.MAX_VALUE));
    }

    /**
     * tcp_sendmsg_locked once the write filled {@code seg}, the write queue's tail, to the size goal and has more
     * bytes to queue: when a push is forced ({@link #forcedPush}) it is marked PSH and everything that may go is
     * sent (__tcp_push_pending_frames with TCP_NAGLE_PUSH); otherwise, when it is the only unsent segment, it is
     * sent on its own (tcp_push_one). A MSG_OOB write pushes only at its end. So the segments a large write fills
     * leave while it goes on, before later ones are queued behind them (which {@link #growFlags} would merge).
     */
    static void pushFullSegment(TcpConnection c, PacketBuffer seg) {
        if ((c.sendFlags & MsgFlags.MSG_OOB) != 0) return;
        if (forcedPush(c)) {
            markPush(c, seg);
            push(c, TCP_NAGLE_PUSH);
        } else if (seg == c.sendHead) {
            push(c, TCP_NAGLE_PUSH);
        }
    }

    /** Linux tcp_mark_push: {@code seg} goes with PSH, and the bytes written so far count as pushed. */
    static void markPush(TcpConnection c, PacketBuffer seg) {
        seg.flags |= Tcp.PSH;
        c.pushedSeq = c.writeSeq;
    }

    /**
     * tcp_push's mark at the end of a write, or before it waits for room: the write queue's last segment, if not
     * yet sent, carries PSH unless more is promised ({@code more}: MSG_MORE) and no push is forced.
     */
    static void markTailPush(TcpConnection c, boolean more) {
        if (c.sendHead == null) return;
        if (!more || forcedPush(c)) markPush(c, c.writeQueue.peekLast());
    }

    /**
     * Queues {@code len} bytes of {@code region} from {@code offset} by reference (sendfile's zero-copy path,
     * as Linux's do_tcp_sendpages / MSG_SPLICE_PAGES puts page-cache pages into skbs): each write-queue segment
     * holds a reference on the region and is charged the bytes it stands for; nothing is copied. An unsent
     * tail segment that ends where these bytes start in the same region grows instead. Returns how many
     * bytes fitted in the send buffer.
     */
    static int appendRegionToWriteQueue(TcpConnection c, PayloadRegion region, long offset, int len) {
        if (c.memLimited) c.memLimited = false;
        int queued = 0;
        int goal = sizeGoal(c);
        while (queued < len) {
            PacketBuffer tail = c.writeQueue.peekLast();
            if (tail != null && tail.when == 0 && (tail.flags & Tcp.FIN) == 0 && tail.length() < goal
                    && tail.payloadRegion() == region && tail.headLength() == 0
                    && tail.payloadOffset() + tail.payloadLength() == offset + queued) {
                int n = Math.min(len - queued, goal - tail.length());
                if (!scheduleSend(c, n)) break;
                if (queued == 0 && !c.sendCopied) tail.flags &= ~Tcp.PSH; // tcp_sendmsg_locked: the write's first bytes
                c.writeQueue.extendTail(n);
                tail.endSeq += n;
                c.writeSeq += n;
                queued += n;
                if (queued < len && tail.length() >= goal) pushFullSegment(c, tail);
                continue;
            }
            if (sendSpace(c) <= 0) break;
            if (c.writeQueue.isEmpty()) c.chrono.start(TcpChrono.BUSY, c.tcp.ns.clock().nanoTime());
            int n = Math.min(len - queued, goal);
            PacketBuffer nb = c.tcp.ns.allocator().allocate(TX_HEADROOM, 0);
            if (!scheduleSend(c, (long) nb.truesize() + n)) {
                nb.release();
                break;
            }
            nb.attachPayload(region, offset + queued, n, true);
            nb.setOwner(c);
            nb.seq = c.writeSeq;
            nb.endSeq = c.writeSeq + n;
            nb.flags = 0;
            nb.when = 0;
            c.writeSeq += n;
            queued += n;
            c.writeQueue.add(nb);
            if (c.sendHead == null) c.sendHead = nb;
            c.nonagle &= ~TCP_NAGLE_PUSH; // skb_entail
            if (queued < len && n >= goal) pushFullSegment(c, nb);
        }
        return queued;
    }

    /**
     * Charges {@code size} more bytes of send queue to TCP memory (Linux sk_wmem_schedule; the first segment of an
     * empty queue is always charged, as tcp_stream_alloc_skb's forced schedule). A refusal sets
     * {@link TcpConnection#memLimited}, so the writer waits for memory rather than for ACKs.
     */
    static boolean scheduleSend(TcpConnection c, long size) {
        if (c.writeQueue.isEmpty()) {
            c.tcp.memory.forceSchedule(c, size);
            return true;
        }
        if (c.tcp.memory.schedule(c, size, TcpMemory.SEND)) return true;
        c.memLimited = true;
        return false;
    }

    /**
     * A MSG_OOB send pushes (Linux tcp_mark_urg): the urgent pointer goes after the last byte queued, and urgent
     * mode lasts until the peer acknowledges it ({@link TcpInput}). Meanwhile every segment sent before it carries
     * URG ({@link #emit}), and neither Nagle nor TCP_CORK holds a segment back ({@link #xmit}).
     */
    static void markUrg(TcpConnection c) {
        c.sndUp = c.writeSeq;
        c.sndUrg = true;
    }

    /**
     * Sends what may be sent now (Linux __tcp_push_pending_frames) with {@code nonagle} bits
     * ({@link #TCP_NAGLE_OFF}, {@link #TCP_NAGLE_CORK}, {@link #TCP_NAGLE_PUSH}) for the last segment.
     */
    static void push(TcpConnection c, int nonagle) {
        if (c.state == TcpState.SYN_SENT || c.state == TcpState.SYN_RECEIVED) return;
        xmit(c, nonagle);
    }

    /** The send loop with the connection's own Nagle and cork setting (tcp_push_pending_frames). */
    static boolean xmit(TcpConnection c) { return xmit(c, c.nonagle); }

    /**
     * The send loop (tcp_write_xmit). {@code nonagle} applies to the last segment of the queue (Linux passes
     * TCP_NAGLE_PUSH for the others: no later data can join them). When it holds a partial segment with nothing
     * in flight, the probe timer armed at the end sends it later (tcp_check_probe_timer; {@link TcpTimers}).
     * Returns true when something was sent.
     */
    static boolean xmit(TcpConnection c, int nonagle) {
        boolean sent = false;
        boolean rwndLimited = false;
        boolean cwndLimited = false;
        PacketBuffer seg;
        // urgent mode sends one MSS per segment (tcp_write_xmit: no tcp_mss_split_point beyond the MSS), so that
        // the urgent pointer of each is its own
        int goal = c.sndUrg ? c.mss : sizeGoal(c);
        int grownEnd = c.sndNxt; // the end of the segments merged by the last growFlags: they go as one
        while ((seg = c.sendHead) != null) {
            boolean fin = (seg.flags & Tcp.FIN) != 0;
            int len = seg.length();
            if (len > goal) {
                split(c, seg, goal);
                len = seg.length();
                fin = (seg.flags & Tcp.FIN) != 0;
            }
            // the congestion window (tcp_cwnd_test): a segment that does not fit waits for the next ACK (the size
            // goal keeps segments to about a millisecond of data, so little of the window goes unused: Linux's
            // tcp_tso_should_defer); with nothing in flight a segment larger than the window is cut to it
            // (tcp_mss_split_point), at least one MSS going
            long inflight = (c.sndNxt - c.sndUna) & 0xFFFFFFFFL;
            if (inflight > 0 && inflight - leftOut(c) + len > c.win.cwnd) {
                cwndLimited = true;
                break;
            }
            if (!Tcp.seqLt(seg.seq, grownEnd)) grownEnd = growFlags(c, seg, inflight);
            if (inflight == 0 && len > Math.max(c.win.cwnd, c.mss)) {
                split(c, seg, (int) Math.max(c.mss, c.win.cwnd / c.mss * c.mss));
                len = seg.length();
                fin = false;
            }
            int wndEnd = c.sndUna + (int) Math.min(c.sndWnd, Integer.MAX_VALUE);
            if (Tcp.seqGt(seg.seq + len, wndEnd)) {
                long usable = wndEnd - c.sndNxt;
                if (usable > 0 && len > usable && (usable >= c.mss || usable >= c.maxSndWnd / 2)) {
                    split(c, seg, (int) usable);
                    len = seg.length();
                    fin = false;
                } else {
                    rwndLimited = true;
                    break; // sender SWS avoidance: wait for a useful window
                }
            }
            // Nagle (RFC 896) with Minshall's refinement, and TCP_CORK / MSG_MORE, as Linux tcp_nagle_test: only
            // the last segment, never sent before, may be held (a retransmission never is), and none in urgent mode
            if (seg.next == null && seg.when == 0 && (nonagle & TCP_NAGLE_PUSH) == 0 && !fin) {
                if ((nonagle & TCP_NAGLE_NOTLAST) != 0 && len < goal) break; // more of it comes: wait for a full segment
                if (c.sndUrg) {
                    // tcp_nagle_test: urgent mode sends, whatever Nagle and the cork say
                } else if (len < c.mss) {
                    if (nagleCheck(c, nonagle, inflight)) break;
                } else if (len > c.mss && (nonagle & TCP_NAGLE_CORK) != 0 && len % c.mss != 0) {
                    // a segment of several MSS (GSO): send its full-sized part, hold the partial rest
                    // (tcp_mss_split_point with tcp_nagle_check)
                    split(c, seg, len - len % c.mss);
                    len = seg.length();
                }
            }
            transmitData(c, seg, false);
            c.sendHead = seg.next;
            c.sndNxt = seg.endSeq;
            if (Tcp.seqGt(c.sndNxt, c.sndMax)) c.sndMax = c.sndNxt;
            if (!c.rtoTimer.isPending()) c.rtoTimer.schedule(c.rtt.currentRtoUs() * 1000);
            sent = true;
        }
        if (sent && c.sackOk) c.rack.scheduleLossProbe(c, false); // tcp_write_xmit's tcp_schedule_loss_probe
        long inflight = (c.sndNxt - c.sndUna) & 0xFFFFFFFFL;
        cwndLimited |= inflight - leftOut(c) + c.mss > c.win.cwnd; // tcp_packets_in_flight >= tcp_snd_cwnd
        if (sent || cwndLimited) cwndValidate(c, cwndLimited, inflight);
        long now = c.tcp.ns.clock().nanoTime();
        if (rwndLimited) c.chrono.start(TcpChrono.RWND_LIMITED, now);
        else c.chrono.stop(TcpChrono.RWND_LIMITED, c.writeQueue.isEmpty(), now);
        if (sent && c.persistTimer.isPending()) {
            c.persistTimer.cancel(); // the window opened: probing is over (Linux clears icsk_backoff, icsk_probes_tstamp)
            c.persistBackoff = 0;
            c.probesTstampNs = 0;
        }
        if (c.sendHead != null && c.sndNxt == c.sndUna && !c.rtoTimer.isPending() && !c.persistTimer.isPending()) {
            c.persistTimer.schedule(persistTimeoutNs(c));
        }
        return sent;
    }

    /** Linux GSO_LEGACY_MAX_SIZE: the GSO limit of a device without segmentation offload, bytes. */
    static final int SOFTWARE_GSO_MAX_SIZE = 65536;

    /**
     * Linux tcp_grow_skb (6.10+), as far as flags go: before its window test tcp_write_xmit moves bytes of the
     * segment queued behind the head of the unsent data into the head, up to {@code min(cwnd quota, tcp_tso_segs)}
     * MSS in all, and when that empties the segment it joins the head with its flags. The merged segment leaves
     * whole, its PSH on its last packet (GSO), or cut to what the window takes, the PSH going with the rest
     * (tso_fragment). jnet keeps its segments and moves the PSH instead, from {@code head} to the segment merged.
     * Returns the end of the merged segment, which the loop sends without growing it again (the rest of a cut is
     * grown anew on the next round, as Linux grows the rest).
     */
    static int growFlags(TcpConnection c, PacketBuffer head, long inflight) {
        PacketBuffer next = head.next;
        if (next == null) return head.endSeq;
        int mss = Math.max(1, c.mss);
        long cwndSegs = c.win.cwnd / mss;
        long inflightSegs = (Math.max(0, inflight - leftOut(c)) + mss - 1) / mss;
        long quota = Math.max(1, Math.min(Math.max(cwndSegs >> 1, 1), cwndSegs - inflightSegs)); // tcp_cwnd_test
        io.jnet.ip.Route r = c.tcp.ip.route(c.remoteAddr, c.dst);
        int gso = r == null ? 0 : r.itf().device().gsoMaxSize();
        // tcp_tso_segs; Linux segments in software what a device cannot (GSO), so its limit applies to every device
        long maxSegs = tsoAutosize(c, gso > 0 ? gso : SOFTWARE_GSO_MAX_SIZE) / mss;
        long missing = Math.min(quota, maxSegs) * mss - head.length();
        int nlen = next.length();
        // a bare FIN is not merged (nothing to move); a segment only partly moved keeps its flags
        if (nlen == 0 || nlen > missing) return head.endSeq;
        if ((head.flags & Tcp.PSH) != 0) {
            head.flags &= ~Tcp.PSH;
            next.flags |= Tcp.PSH;
        }
        return next.endSeq;
    }

    /**
     * Bytes sent but taken to have left the network that the congestion window does not count (Linux's left_out in
     * tcp_packets_in_flight): without SACK, before fast recovery, one segment per duplicate ACK (tcp_add_reno_sack
     * counts them in sacked_out), which lets a new segment go per duplicate ACK (limited transmit, RFC 3042). In fast
     * recovery jnet inflates cwnd for them instead (RFC 5681 3.2). With SACK, the bytes SACKed or taken for lost
     * less those retransmitted and in flight, so that what is in flight is the pipe (RFC 6675 SetPipe) in every
     * state, a write during recovery included.
     */
    static long leftOut(TcpConnection c) {
        if (c.sackOk) return c.sack.sackedBytes() + c.sack.lostBytes() - c.sack.retransOutBytes();
        if (c.caState != io.jnet.socket.TcpInfo.TCP_CA_Disorder) return 0;
        return (long) c.recovery.dupAcks() * c.mss;
    }

    /**
     * Linux tcp_cwnd_validate's first part: remember whether the window was used up in the current round and the
     * most segments in flight in it; a new round begins once SND.UNA reaches the end of the last (cwnd_usage_seq),
     * or at once when the sender is cwnd-limited or has more in flight than before. Segments in flight are
     * counted as {@code inflight} bytes in MSS-sized segments.
     */
    static void cwndValidate(TcpConnection c, boolean cwndLimited, long inflight) {
        long packetsOut = (inflight + c.mss - 1) / Math.max(1, c.mss);
        if (Tcp.seqGeq(c.sndUna, c.cwndUsageSeq) || cwndLimited
                || (!c.isCwndLimited && packetsOut > c.maxPacketsOut)) {
            c.isCwndLimited = cwndLimited;
            c.maxPacketsOut = packetsOut;
            c.cwndUsageSeq = c.sndNxt;
        }
    }

    /**
     * Linux tcp_is_cwnd_limited: may an ACK grow cwnd? When the window was used up in this round, and in slow start
     * also while cwnd is below twice the most segments in flight in it (so cwnd grows to twice what was acked).
     */
    static boolean isCwndLimited(TcpConnection c) {
        if (c.isCwndLimited) return true;
        return c.win.inSlowStart() && c.win.cwnd < 2 * c.maxPacketsOut * c.mss;
    }

    /**
     * Sends the first unsent segment on its own, as far as the peer's window and Nagle allow but whatever the
     * congestion window says: loss recovery decides how much goes (RFC 6675 NextSeg rule 2, new data). Returns
     * the payload bytes sent, 0 when nothing could go.
     */
    static int sendNewSegment(TcpConnection c) {
        PacketBuffer seg = c.sendHead;
        if (seg == null) return 0;
        int goal = sizeGoal(c);
        if (seg.length() > goal) split(c, seg, goal);
        int len = seg.length();
        int wndEnd = c.sndUna + (int) Math.min(c.sndWnd, Integer.MAX_VALUE);
        if (Tcp.seqGt(seg.seq + len, wndEnd)) return 0; // the peer's window: xmit splits and waits as it should
        long inflight = (c.sndNxt - c.sndUna) & 0xFFFFFFFFL;
        if (seg.next == null && len < c.mss && (c.nonagle & TCP_NAGLE_PUSH) == 0 && (seg.flags & Tcp.FIN) == 0
                && !c.sndUrg && nagleCheck(c, c.nonagle, inflight)) {
            return 0;
        }
        transmitData(c, seg, false);
        c.sendHead = seg.next;
        c.sndNxt = seg.endSeq;
        if (Tcp.seqGt(c.sndNxt, c.sndMax)) c.sndMax = c.sndNxt;
        if (!c.rtoTimer.isPending()) c.rtoTimer.schedule(c.rtt.currentRtoUs() * 1000);
        return Math.max(1, len);
    }

    /**
     * Linux tcp_nagle_check for a partial segment: hold it when corked (TCP_CORK, MSG_MORE), or, with Nagle on
     * ({@code nonagle} 0), while data is in flight and an earlier partial segment is unacknowledged (Minshall).
     */
    static boolean nagleCheck(TcpConnection c, int nonagle, long inflight) {
        return (nonagle & TCP_NAGLE_CORK) != 0 || (nonagle == 0 && inflight > 0 && minshallCheck(c));
    }

    /**
     * Minshall's check (Linux tcp_minshall_check): a partial segment sent earlier is still in flight, i.e.
     * {@code sndSml} lies after SND.UNA and not after SND.NXT. {@code sndSml} starts at the initial send
     * sequence (Linux tcp_connect_init, tcp_create_openreq_child), so no partial segment is in flight until
     * one is sent (starting at 0 would count one in flight for every ISS in the half of the sequence space
     * below 0, and hold a large write's partial tail until the peer's delayed ACK).
     */
    static boolean minshallCheck(TcpConnection c) {
        return Tcp.seqGt(c.sndSml, c.sndUna) && Tcp.seqLeq(c.sndSml, c.sndNxt);
    }

    /**
     * The persist timer's next timeout: the RTO backed off, not beyond what is left of TCP_USER_TIMEOUT since the
     * first probe, at least 2 ms (Linux tcp_probe0_when, tcp_clamp_probe0_to_user_timeout).
     */
    static long persistTimeoutNs(TcpConnection c) {
        long rto = Math.max(c.rtt.rtoUs, c.tcp.sysctl.tcpRtoMinUs.intValue());
        long ns = Math.min(RttEstimator.MAX_RTO_US, rto << Math.min(c.persistBackoff, 20)) * 1000;
        if (c.userTimeoutMs == 0 || c.probesTstampNs == 0) return ns;
        long elapsed = Math.max(0, c.tcp.ns.clock().nanoTime() - c.probesTstampNs);
        long remaining = Math.max(c.userTimeoutMs * 1_000_000L - elapsed, 2_000_000L); // TCP_TIMEOUT_MIN
        return Math.min(remaining, ns);
    }

    /**
     * Splits a not-yet-sent or retransmitted segment so that its first part holds {@code n} payload bytes (Linux
     * tcp_fragment). The new second part carries its bytes by reference, nothing is copied: bytes of the
     * segment's array through {@link PacketBuffer#shareArray()}, bytes it carries by reference itself through the
     * same region (as skb_split moves page fragments). Only a segment with bytes of both kinds after the split
     * point, which TCP does not build, would have its array bytes copied.
     *
     * <p>The charge goes with the bytes, as tcp_fragment moves truesize: the second part is charged what it holds,
     * and the first part's charge drops by as much (never below its own bytes). Otherwise a segment cut down to
     * what a small window takes would still be charged its whole array, and the receiver that this buffer reaches
     * through a veth (which hands the sent buffer over as it is) would be charged many times the bytes its window
     * allowed for.
     */
    static void split(TcpConnection c, PacketBuffer seg, int n) {
        int len = seg.length();
        int pcountBefore = segmentCount(c, seg);
        int head = seg.headLength();
        int fromArray = Math.max(0, head - n); // the second part's bytes that lie in the array
        boolean byRef = fromArray == 0 || seg.payloadRegion() == null;
        PacketBuffer tail = c.tcp.ns.allocator().allocate(TX_HEADROOM, byRef ? 0 : fromArray);
        tail.setOwner(c);
        if (fromArray > 0) {
            if (byRef) {
                io.jnet.buffer.PayloadRegion r = seg.shareArray();
                tail.attachPayload(r, seg.dataStart() + n, fromArray, true);
                r.release(); // the tail holds its own reference now
            } else {
                seg.copyData(n, tail.array(), tail.put(fromArray), fromArray);
                c.tcp.mib.add(MibCounter.TcpExtJnetSndCopiedBytes, fromArray);
            }
        }
        if (seg.payloadRegion() != null) {
            long skip = Math.max(0, n - head);
            tail.attachPayload(seg.payloadRegion(), seg.payloadOffset() + skip, (int) (seg.payloadLength() - skip), true);
        }
        tail.seq = seg.seq + n;
        tail.endSeq = seg.endSeq;
        tail.flags = seg.flags;
        tail.when = seg.when;
        tail.txDelivered = seg.txDelivered;
        tail.txDeliveredNs = seg.txDeliveredNs;
        tail.txFirstTxNs = seg.txFirstTxNs;
        seg.trim(n);
        seg.endSeq = seg.seq + n;
        seg.flags &= ~(Tcp.FIN | Tcp.PSH);
        c.writeQueue.uncharge(seg, Math.max(0, Math.min(len - n, seg.truesize() - n)));
        c.writeQueue.insertAfter(seg, tail);
        c.sack.onSplit(seg, tail, pcountBefore, c.mss);
        c.tcp.memory.forceSchedule(c, 0); // the split's new buffer (tcp_fragment charges it, sk_mem_charge)
    }

    /** Sends one data segment of the write queue (first transmission or retransmission). */
    static void transmitData(TcpConnection c, PacketBuffer seg, boolean retransmission) {
        int len = seg.length();
        int flags = Tcp.ACK;
        if ((seg.flags & Tcp.FIN) != 0) flags |= Tcp.FIN;
        if (len > 0 && (seg.flags & Tcp.PSH) != 0) flags |= Tcp.PSH; // marked by the write (tcp_mark_push)
        TcpOptions o = establishedOptions(c, c.mss - len);
        long now = c.tcp.ns.clock().nanoTime();
        if (seg.when != 0 || retransmission) {
            // a retransmission is of a segment taken for lost, and is in flight until acknowledged
            c.sack.setFlags(seg, RETRANSMITTED | LOST | RETRANS_OUT, 0);
            c.tcp.mib.inc(MibCounter.TcpRetransSegs);
            c.totalRetrans += segmentCount(c, seg);
            c.undo.onRetransmit(c, segmentCount(c, seg));
            c.bytesRetrans += len;
        } else if (len > 0) {
            c.tcp.mib.inc(MibCounter.TcpExtTCPOrigDataSent);
        }
        c.rate.sent(seg, now, c.sndUna == c.sndMax);
        seg.when = now;
        if (c.sackOk) c.sack.onSent(seg); // sent segments are what SACK blocks refer to
        if (len < c.mss) c.sndSml = seg.endSeq;
        if (len > 0) { // tcp_event_data_sent
            // a reply within the delayed-ACK timeout of the last data received, its ACK sent already or not, is
            // interactive: pingpong mode (inet_csk_inc_pingpong_cnt; net.ipv4.tcp_pingpong_thresh 1)
            if (c.pingpong == 0 && now - c.lrcvtimeNs < c.atoNs) c.pingpong = 1;
            idleRestart(c, now);
            c.lastSendNs = now;
        }
        emit(c, seg, len, seg.seq, flags, -1, o);
        ackSent(c);
    }

    /** Segments of at most one MSS that {@code seg} stands for (Linux tcp_skb_pcount); a bare FIN is one. */
    static int segmentCount(TcpConnection c, PacketBuffer seg) {
        int len = seg.length();
        return len <= c.mss ? 1 : (len + c.mss - 1) / c.mss;
    }

    /**
     * At the start of a write (tcp_rate_check_app_limited): the connection is app-limited when less than a
     * segment waits unsent, the congestion window is not full and no loss awaits its retransmission.
     */
    static void checkAppLimited(TcpConnection c) {
        long notSent = (c.writeSeq - c.sndMax) & 0xFFFFFFFFL;
        int mss = Math.max(1, c.mss);
        long inFlight = (((c.sndNxt - c.sndUna) & 0xFFFFFFFFL) + mss - 1) / mss;
        c.rate.checkAppLimited(notSent, mss, inFlight, c.win.cwnd / mss, c.recovery.lostRetransmitted(c));
    }

    private static void idleRestart(TcpConnection c, long now) {
        if (c.tcp.sysctl.tcpSlowStartAfterIdle.enabled() && c.sndNxt == c.sndUna && c.lastSendNs != 0
                && now - c.lastSendNs > c.rtt.currentRtoUs() * 1000) {
            c.cc.onRestartAfterIdle(c.win);
        }
    }

    /**
     * Builds and sends one segment with the first {@code plen} data bytes of {@code data} (null when
     * {@code plen} is 0). {@code window} &lt; 0 selects the window now (scaled); otherwise it is the raw field
     * value (SYN segments).
     *
     * <p>The payload goes down without a copy when it can (Linux tcp_transmit_skb's skb_clone): the frame is a
     * clone of {@code data} with the headers pushed into its headroom, when no earlier clone of {@code data} is
     * alive (a first transmission's, still queued somewhere when the segment is retransmitted) and the device takes what
     * {@code data} carries by reference, if anything ({@link io.jnet.link.NetDevice#scatterGather()}); the bytes
     * are freed when the ACK and the device or receiver are both done with them. Otherwise a new frame gets a
     * copy (counted in TcpExtJnetSndCopiedBytes), except for bytes carried by reference that the device takes as
     * they are; that frame is allocated, and charged, with room for all of its data, so that it can be made linear
     * in place. A segment with ACK set acknowledges RCV.NXT as it stands after the data path's
     * {@link TcpDataPath#sync}.
     */
    static void emit(TcpConnection c, PacketBuffer data, int plen, int seq, int flags, int window, TcpOptions o) {
        c.dataPath.sync(c); // the ACK field must cover what a friend has put in the receive pipe
        int ack = (flags & Tcp.ACK) != 0 ? c.rcvNxt : 0;
        int optLen = o == null ? 0 : o.writtenLength();
        int hl = Tcp.MIN_HEADER_LENGTH + optLen;
        io.jnet.ip.Route r = c.tcp.ip.route(c.remoteAddr, c.dst);
        io.jnet.link.NetDevice dev = r == null ? null : r.itf().device();
        boolean offload = dev != null && dev.checksumOffload();
        boolean sg = offload && dev.scatterGather();
        PacketBuffer f;
        int off;
        if (plen > 0 && data.headroom() >= hl + PacketBuffer.DEFAULT_HEADROOM && !data.isClone() && !data.cloned()
                && (data.payloadRegion() == null || sg)) {
            f = data.cloneShared();
            if (plen < f.length()) f.trim(plen);
            f.setChecksumPartial(false);
            f.setChecksumUnnecessary(false);
            f.setGsoSize(0);
            off = f.push(hl);
            c.tcp.mib.inc(MibCounter.TcpExtJnetSndClonedSegs);
        } else {
            f = c.tcp.ns.allocator().allocate(PacketBuffer.DEFAULT_HEADROOM, hl + plen);
            int byRef = plen > 0 && sg && data.payloadRegion() != null ? Math.min(plen, data.payloadLength()) : 0;
            int copy = plen - byRef; // a segment's bytes in the array come first, those by reference after them
            off = f.put(hl + copy);
            if (copy > 0) {
                data.copyData(0, f.array(), off + hl, copy);
                c.tcp.mib.add(MibCounter.TcpExtJnetSndCopiedBytes, copy);
            }
            if (byRef > 0) f.attachPayload(data.payloadRegion(), data.payloadOffset(), byRef, false);
        }
        if (c.friendTag != null) f.setFriend(c.friendTag); // TCP friends' handshake metadata (TcpFriends)
        byte[] b = f.array();
        int wnd = window >= 0 ? window : selectWindow(c);
        Tcp.writeHeader(b, off, c.localPort, c.remotePort, seq, ack, hl, flags, wnd);
        if (c.sndUrg && Tcp.seqLt(seq, c.sndUp)) urgentPointer(c, b, off, seq);
        if (o != null) o.write(b, off + Tcp.MIN_HEADER_LENGTH);
        if (offload) {
            // loopback checksum offload (Linux: CHECKSUM_PARTIAL out, CHECKSUM_UNNECESSARY in)
            f.setChecksumPartial(true);
            f.setChecksumUnnecessary(true);
        } else {
            Tcp.fillChecksum(b, off, hl + plen, c.localAddr, c.remoteAddr);
        }
        c.tcp.mib.inc(MibCounter.TcpOutSegs);
        c.segsOut++;
        if (plen > 0) {
            c.dataSegsOut++;
            c.bytesSent += plen;
        }
        if ((flags & Tcp.RST) != 0) c.tcp.mib.inc(MibCounter.TcpOutRsts);
        if (plen > c.mss && c.mss > 0) f.setGsoSize(c.mss); // several segments in one (sizeGoal): Linux's gso_size
        int err = c.tcp.ip.output(f, c.localAddr, c.remoteAddr, Ipv4.PROTO_TCP, 0, 0, true, c.dst);
        if (err < 0) c.softError = -err;
    }

    /**
     * URG and the urgent pointer of a segment sent in urgent mode before the urgent data's end (Linux
     * __tcp_transmit_skb): the distance from {@code seq} to {@link TcpConnection#sndUp}, which points one past the
     * last urgent byte as BSD's (RFC 6093; net.ipv4.tcp_stdurg changes only how a received pointer is read). When
     * that end lies 64 KiB or more ahead, 0xFFFF marks the segment urgent, provided 0xFFFF bytes from it reach
     * beyond the highest byte sent; otherwise the segment goes without URG. Window probes and ACKs get it too, as any segment.
     */
    private static void urgentPointer(TcpConnection c, byte[] b, int off, int seq) {
        int up = c.sndUp - seq;
        if (Integer.compareUnsigned(up, 0x10000) < 0) {
            Tcp.setUrgent(b, off, up);
        } else if (Tcp.seqGt(seq + 0xFFFF, c.sndMax)) { // Linux's snd_nxt, never rewound: jnet's SND.MAX
            Tcp.setUrgent(b, off, 0xFFFF);
        }
    }

    /** After any segment carrying an ACK: no ACK is pending any more (tcp_event_ack_sent). */
    static void ackSent(TcpConnection c) {
        c.ackPending = false;
        c.ackPushed = false;
        c.ackPushed2 = false;
        c.lastAckSent = c.rcvNxt;
        if (c.delackTimer.isPending()) c.delackTimer.cancel();
        if (c.quickAcks > 0) c.quickAcks--;
    }

    /**
     * The window to advertise, as the header field (scaled): half the free receive buffer
     * (tcp_adv_win_scale 1), zero below min(rcvbuf/2, rcv_mss) (receiver SWS avoidance), never
     * moving the right edge left (RFC 9293 3.8.6). Records rcvWnd and rcvWup.
     */
    static int selectWindow(TcpConnection c) {
        long win = candidateWindow(c);
        int cur = c.receiveWindow();
        if (win < cur) win = cur;
        int field = (int) Math.min(65535, win >> c.rcvWscale);
        if (((long) field << c.rcvWscale) < cur && field < 65535) field++;
        if (field == 0 && c.rcvWnd != 0) c.tcp.mib.inc(MibCounter.TcpExtTCPToZeroWindowAdv);
        if (field != 0 && c.rcvWnd == 0) c.tcp.mib.inc(MibCounter.TcpExtTCPFromZeroWindowAdv);
        c.rcvWnd = field << c.rcvWscale;
        c.rcvWup = c.rcvNxt;
        return field;
    }

    /** Window the free buffer allows now, before the never-shrink rule. */
    static long candidateWindow(TcpConnection c) {
        if (c.rcvShutdown && c.userClosed) return 0;
        long free = Math.max(0, (long) c.rcvbuf - c.rmemAlloc());
        // __tcp_select_window: under TCP memory pressure, a buffer less than half free stops the window's growth
        if (free < c.rcvbuf >> 1 && c.tcp.memory.underPressure()) ReceiveMemory.adjustRcvSsthresh(c);
        long win = Math.min(free >> 1, c.rcvSsthresh);
        win = Math.min(win, 65535L << c.rcvWscale);
        if (win < swsThreshold(c)) win = 0;
        return win;
    }

    /**
     * Receiver SWS threshold: min(Fr * RCV.BUFF, MSS) with Fr = 1/2 (RFC 9293 3.8.6.2.2), where the MSS is
     * the peer's segment size as measured (Linux icsk_ack.rcv_mss). Like Linux, it gates the size of a
     * window that is opened, not how far an open window's right edge moves: gating the edge as well
     * stalls a connection whose buffer holds only two segments (loopback's 64 KiB MSS).
     */
    static int swsThreshold(TcpConnection c) {
        return Math.min(c.rcvbuf / 2, c.rcvMss);
    }

    /**
     * The options of a segment after the handshake (Linux tcp_established_options): the timestamp option when
     * negotiated (RFC 7323 3), then with SACK the pending D-SACK block and the SACK blocks (RFC 2018 4, RFC 2883),
     * as many as fit in the option space and in {@code room} bytes ({@link SackBlocks#fill}).
     *
     * @param room bytes the segment may still grow by within the MSS: the MSS for a segment without data, the MSS
     *     less the payload for a data segment
     */
    static TcpOptions establishedOptions(TcpConnection c, int room) {
        TcpOptions o = c.txOpts;
        o.clear();
        if (c.tsEnabled) {
            o.hasTimestamp = true;
            o.tsVal = c.tcp.tsClock() + c.tsOffset;
            o.tsEcr = c.tsRecent;
        }
        if (c.sackOk) c.rcvSacks.fill(o, room);
        return o;
    }

    /** Sends a pure ACK now. */
    static void sendAck(TcpConnection c) {
        if (c.state == TcpState.CLOSED || c.state == TcpState.SYN_SENT || c.state == TcpState.LISTEN) return;
        TcpOptions o = establishedOptions(c, c.mss);
        // SND.MAX, not SND.NXT: after a go-back-N rewind an ACK must not carry an old sequence number
        // (the peer would find it unacceptable and answer with a duplicate ACK; BSD's tcp_output does this)
        emit(c, null, 0, c.sndMax, Tcp.ACK, -1, o);
        ackSent(c);
    }

    /** A window probe or keepalive: an ACK with an old sequence number to elicit an ACK (tcp_xmit_probe_skb). */
    static void sendProbe(TcpConnection c) {
        TcpOptions o = establishedOptions(c, c.mss);
        emit(c, null, 0, c.sndUna - 1, Tcp.ACK, -1, o);
        ackSent(c);
    }

    /**
     * Schedules a delayed ACK (tcp_send_delayed_ack) after the ato, at most tcp_delack_max_ms. The ato is
     * not raised to tcp_delack_min_ms: before any data it is 0 (a FIN acknowledged in pingpong mode on a
     * connection that received nothing yet is acknowledged at the next tick).
     */
    static void scheduleDelayedAck(TcpConnection c) {
        c.ackPending = true;
        if (c.delackTimer.isPending()) return;
        long max = c.tcp.sysctl.tcpDelackMaxMs.intValue() * 1_000_000L;
        long ato = Math.min(max, c.atoNs);
        c.delackTimer.schedule(ato);
    }

    /**
     * After the application read {@code copied} bytes (tcp_cleanup_rbuf): ACK now if a delayed ACK is
     * pending and a full segment was consumed, or if the read lets the window open to at least twice what
     * the peer may send now (a window update: the new window is non-zero, so receiver SWS avoidance has
     * already passed it, and Linux asks nothing more of it). A window left small by a segment that filled
     * most of it (loopback: a 65483-byte segment in a 65536-byte window leaves 53 bytes, advertised as 128
     * with window scale 7) is reopened here, although the read frees less than one more MSS; otherwise the
     * sender, whose SWS avoidance will not send into the small window, waits for its persist timer.
     */
    static void cleanupRbuf(TcpConnection c, int copied) {
        if (!c.state.isSynchronized() || c.state == TcpState.CLOSED) return;
        boolean ack = false;
        if (c.ackPending && (c.rcvNxt - c.rcvWup > c.rcvMss || (copied > 0 && c.receiveQueue.isEmpty()
                && (c.ackPushed2 || (c.ackPushed && c.pingpong == 0))))) ack = true;
        if (!ack && copied > 0 && !c.finReceived) {
            int cur = c.receiveWindow();
            long next = candidateWindow(c);
            if (next > 0 && next >= 2L * cur) ack = true;
        }
        if (ack) sendAck(c);
    }

    // ---- FIN, RST, teardown ------------------------------------------------------------------------

    /** Queues our FIN after the data and moves the state on (RFC 9293 CLOSE / shutdown). */
    static void sendFin(TcpConnection c) {
        switch (c.state) {
            case ESTABLISHED, SYN_RECEIVED -> TcpInput.setState(c, TcpState.FIN_WAIT_1);
            case CLOSE_WAIT -> TcpInput.setState(c, TcpState.LAST_ACK);
            default -> { return; }
        }
        if (c.finQueued) return;
        c.finQueued = true;
        if (c.writeQueue.isEmpty()) c.chrono.start(TcpChrono.BUSY, c.tcp.ns.clock().nanoTime());
        PacketBuffer tail = c.writeQueue.peekLast();
        if (tail != null && tail.when == 0 && (tail.flags & Tcp.FIN) == 0) {
            tail.flags |= Tcp.FIN;
            tail.endSeq++;
        } else {
            PacketBuffer f = c.tcp.ns.allocator().allocate(0, 0);
            f.setOwner(c);
            f.seq = c.writeSeq;
            f.endSeq = c.writeSeq + 1;
            f.flags = Tcp.FIN;
            f.when = 0;
            c.writeQueue.add(f);
            c.tcp.memory.forceSchedule(c, 0); // tcp_send_fin: sk_forced_mem_schedule
            if (c.sendHead == null) c.sendHead = f;
        }
        c.writeSeq++;
        xmit(c);
    }

    /** close(2) (tcp_close). */
    static void closeByUser(TcpConnection c) {
        switch (c.state) {
            case CLOSED -> done(c);
            case SYN_SENT -> done(c);
            default -> {
                // unread() rather than hasUnread(), which says no for a friends connection being closed
                boolean unread = c.dataPath.unread(c) > 0;
                if (unread) {
                    c.tcp.mib.inc(MibCounter.TcpExtTCPAbortOnClose);
                    abort(c, 0, true);
                } else if (c.lingerNs == 0) {
                    c.tcp.mib.inc(MibCounter.TcpExtTCPAbortOnData);
                    abort(c, 0, true);
                } else {
                    sendFin(c);
                    if (c.state == TcpState.FIN_WAIT_2) armFinWait2(c);
                }
            }
        }
    }

    static void armFinWait2(TcpConnection c) {
        if (c.userClosed) c.finWait2Timer.schedule(c.tcp.sysctl.tcpFinTimeout.intValue() * 1_000_000_000L);
    }

    /** Sends RST for this connection (seq = SND.NXT before any rewind, i.e. SND.MAX; RFC 9293 ABORT). */
    static void sendRst(TcpConnection c) {
        emit(c, null, 0, c.sndMax, Tcp.RST | Tcp.ACK, -1, null);
    }

    /**
     * Aborts: optionally sends RST (in synchronized states), reports {@code errno} (0 = none) to the
     * application, and closes (tcp_done).
     */
    static void abort(TcpConnection c, int errno, boolean rst) {
        if (rst && c.state.isSynchronized() && c.state != TcpState.CLOSED) sendRst(c);
        if (c.state == TcpState.ESTABLISHED || c.state == TcpState.CLOSE_WAIT) c.tcp.mib.inc(MibCounter.TcpEstabResets);
        if (errno != 0) c.soError = errno;
        done(c);
    }

    static void abort(TcpConnection c, Errno errno, boolean rst) { abort(c, errno.number(), rst); }

    /**
     * tcp_done: CLOSED and shut both ways (sk_shutdown = SHUTDOWN_MASK, which poll reports), out of the tables,
     * timers stopped, queues freed, waiters woken.
     */
    static void done(TcpConnection c) {
        TcpState old = c.state;
        if (old == TcpState.ESTABLISHED || old == TcpState.CLOSE_WAIT) c.tcp.mib.dec(MibCounter.TcpCurrEstab);
        if (old == TcpState.SYN_SENT || old == TcpState.SYN_RECEIVED) c.tcp.mib.inc(MibCounter.TcpAttemptFails);
        c.state = TcpState.CLOSED;
        c.rcvShutdown = true;
        c.sndShutdown = true;
        stopTimers(c);
        if (c.hashed) c.tcp.table.remove(c);
        if (c.portHeld) {
            c.tcp.unbind(c, c.localPort);
            c.portHeld = false;
        }
        c.sack.clear();
        c.writeQueue.purge();
        c.skbCache.purge(c);
        c.sendHead = null;
        c.chrono.stop(TcpChrono.BUSY, true, c.tcp.ns.clock().nanoTime());
        if (c.userClosed) {
            c.dataPath.purgeReceived(c);
            c.dataPath.release(c);
        }
        c.oooQueue.purge();
        c.tcp.memory.reclaim(c);
        if (c.parent != null && !c.accepted) c.parent.childGone(c);
        c.wakeUp();
    }

    /**
     * Stops a closing connection's timers and takes them out of the wheel (inet_csk_clear_xmit_timers,
     * del_timer): a timer only cancelled would stay queued until its old deadline and keep the whole
     * connection reachable, e.g. for the 60 s of an orphan's FIN-WAIT-2 timer after TIME-WAIT took over.
     */
    static void stopTimers(TcpConnection c) {
        c.rtoTimer.delete();
        c.delackTimer.delete();
        c.keepaliveTimer.delete();
        c.finWait2Timer.delete();
        c.persistTimer.delete();
        c.lossTimer.delete();
    }

    /**
     * Enters TIME-WAIT (tcp_time_wait): a remnant takes the tuple and port for 60 s; the socket closes, shut both
     * ways (tcp_time_wait ends with tcp_done).
     */
    static void enterTimeWait(TcpConnection c) {
        TcpProtocol tcp = c.tcp;
        if (c.hashed && tcp.admitTimeWait()) {
            TimeWaitSock tw = new TimeWaitSock(tcp, c, TIMEWAIT_NS);
            if (tcp.table.replace(c, tw)) {
                if (c.portHeld) {
                    tcp.rebind(c, tw, c.localPort);
                    c.portHeld = false;
                } else {
                    tcp.rebind(c, tw, c.localPort);
                }
            } else {
                tw.timer.cancel();
                tcp.timeWaitGone();
            }
        }
        if (c.state == TcpState.ESTABLISHED || c.state == TcpState.CLOSE_WAIT) tcp.mib.dec(MibCounter.TcpCurrEstab);
        c.state = TcpState.CLOSED;
        c.rcvShutdown = true;
        c.sndShutdown = true;
        stopTimers(c);
        if (c.hashed) tcp.table.remove(c);
        if (c.portHeld) {
            tcp.unbind(c, c.localPort);
            c.portHeld = false;
        }
        c.sack.clear();
        c.writeQueue.purge();
        c.skbCache.purge(c);
        c.sendHead = null;
        c.chrono.stop(TcpChrono.BUSY, true, c.tcp.ns.clock().nanoTime());
        if (c.userClosed) {
            c.dataPath.purgeReceived(c);
            c.dataPath.release(c);
        }
        c.oooQueue.purge();
        c.tcp.memory.reclaim(c);
        c.wakeUp();
    }
}
