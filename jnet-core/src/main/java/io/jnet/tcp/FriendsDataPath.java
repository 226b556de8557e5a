package io.jnet.tcp;

import io.jnet.buffer.PayloadRegion;
import io.jnet.buffer.StreamPipe;
import io.jnet.stack.MibCounter;
import java.nio.ByteBuffer;

/**
 * One end of a friends connection (see {@link TcpFriends}): writes go straight into the friend's receive pipe,
 * reads come from ours, and the sequence variables advance as if segments had flowed, so TCP_INFO, SIOCINQ,
 * SIOCOUTQ, readiness and the FIN and RST that still travel as segments all agree with the bytes moved.
 *
 * <p>No contention between writer and reader: each direction is a {@link StreamPipe}, a single-producer
 * single-consumer queue whose ends share no lock and no buffer (the Linux patch appended to the tail buffer of
 * the peer's receive queue under the peer's lock, and lost up to 70 % of small-message TCP_STREAM to that). The
 * writer holds only its own socket; it touches the reader's socket only to wake it, and only when the reader
 * announced it sleeps ({@link StreamPipe#consumerWaits}) or a poller watches it. The reader likewise wakes the
 * writer only when the writer waits for room.
 *
 * <p>Memory: the writer is charged against the reader's receive buffer plus its own send buffer (what plain TCP
 * holds in the peer's receive queue and its own write queue): a write copies at most the reader's SO_RCVBUF plus
 * the writer's SO_SNDBUF minus what the reader has not read, then blocks (or returns EAGAIN) until the reader has
 * at most three quarters of its SO_RCVBUF unread. Nothing else is queued: the send queue stays empty, so SIOCOUTQ
 * is 0 as for data the peer has acknowledged.
 */
final class FriendsDataPath implements TcpDataPath {
    /** The connection this end belongs to. */
    final TcpConnection owner;
    /** The other end. */
    final TcpConnection friend;
    private final StreamPipe in;
    private final StreamPipe out;
    /** How much of {@code in}'s tail rcvNxt covers already (owner's lock). */
    private long rcvSynced;
    private boolean released;
    /** The other end, for publishing our receive buffer to it. */
    private FriendsDataPath friendEnd;
    /**
     * The friend's receive buffer as it last published it (its SO_RCVBUF, autotuned): what our writes are charged
     * against. Kept here rather than read from the friend's socket, whose fields its reads write all the time.
     */
    private volatile int friendRcvbuf;
    /** Bytes went out since the last read that returned data (owner's lock). */
    private boolean sentSinceRead;
    /** Our receive buffer as last published to the friend. */
    private int rcvbufPublished;
    /** The friend's SO_RCVLOWAT, as it last published it ({@link #publishRcvLowat}): when our writes wake it. */
    private volatile int friendRcvLowat = 1;
    /** Bytes moved and not yet added to TcpExtJnetFriendsBytes (added every 64 KiB and at release). */
    private long unaccountedBytes;
    /**
     * The friend shut down reading (SHUT_RD): once it has sent its FIN too, our writes reset it, as plain TCP's data
     * reaching FIN-WAIT-1 or FIN-WAIT-2 with RCV_SHUTDOWN does (TcpInput). Set by the friend, read by our writes.
     */
    private volatile boolean friendInputShut;
    /**
     * When bytes last moved in each direction (ns, namespace clock): what TCP_INFO's last-data times and keepalive's
     * idle time read, which plain TCP takes from segments. Each direction's stamp is shared by its two ends and sits
     * on a line of its own; it is written by the reader when a refresh finds bytes, by the writer when it wakes
     * the reader and every 64 KiB, and on every write while either end has SO_KEEPALIVE, so a stamp is late by at
     * most the time its reader took to look.
     */
    private MovedAt inMoved, outMoved;

    /** A time stamp alone on its cache lines (see {@link #inMoved}). */
    @SuppressWarnings("unused")
    private static final class MovedAt {
        long p00, p01, p02, p03, p04, p05, p06, p07;
        volatile long ns;
        long p10, p11, p12, p13, p14, p15, p16, p17;
    }

    private FriendsDataPath(TcpConnection owner, TcpConnection friend, StreamPipe in, StreamPipe out) {
        this.owner = owner;
        this.friend = friend;
        this.in = in;
        this.out = out;
    }

    /** The two ends of a new pairing: [0] for {@code a}, [1] for {@code b}. */
    static FriendsDataPath[] pair(TcpConnection a, TcpConnection b) {
        StreamPipe aToB = new StreamPipe();
        StreamPipe bToA = new StreamPipe();
        FriendsDataPath ea = new FriendsDataPath(a, b, bToA, aToB);
        FriendsDataPath eb = new FriendsDataPath(b, a, aToB, bToA);
        ea.friendEnd = eb;
        eb.friendEnd = ea;
        MovedAt aToBMoved = new MovedAt(), bToAMoved = new MovedAt();
        ea.outMoved = aToBMoved;
        eb.inMoved = aToBMoved;
        eb.outMoved = bToAMoved;
        ea.inMoved = bToAMoved;
        // the peer's MSS as plain TCP's receiver learns it from the first full segment (no segments come here)
        a.rcvMss = Math.min(b.mss, a.advMss);
        b.rcvMss = Math.min(a.mss, b.advMss);
        ea.friendRcvbuf = b.rcvbuf;
        eb.friendRcvbuf = a.rcvbuf;
        ea.rcvbufPublished = a.rcvbuf;
        eb.rcvbufPublished = b.rcvbuf;
        ea.friendRcvLowat = b.rcvLowat;
        eb.friendRcvLowat = a.rcvLowat;
        ea.friendInputShut = b.rcvShutdown; // shutdown(SHUT_RD) before the handshake completed
        eb.friendInputShut = a.rcvShutdown;
        return new FriendsDataPath[] {ea, eb};
    }

    /**
     * Tells the friend our SO_RCVLOWAT (set under our lock), which decides when its writes wake us, and our receive
     * buffer, which the mark may have grown.
     */
    void publishRcvLowat(TcpConnection c) {
        friendEnd.friendRcvLowat = c.rcvLowat;
        publishRcvbuf(c);
    }

    /** Tells the friend our receive buffer when it changed (SO_RCVBUF, autotuning). */
    private void publishRcvbuf(TcpConnection c) {
        int r = c.rcvbuf;
        if (r != rcvbufPublished) {
            rcvbufPublished = r;
            friendEnd.friendRcvbuf = r;
        }
    }

    /** With the lock; 0 once released (the pipe may hold bytes the friend wrote after our close, never read). */
    @Override
    public long unread(TcpConnection c) { return released ? 0 : in.available(); }

    /**
     * False once the application closed (from {@link #userClosing}): plain TCP's closed socket queues nothing more
     * and a read returns end of stream, while the friend may still put bytes into the pipe until its RST; and a
     * read that raced with the close must not touch a pipe that {@link #release} may have given up.
     */
    @Override
    public boolean hasUnread(TcpConnection c) { return in.available() > 0 && !in.consumerClosed(); }

    /**
     * {@link #hasUnread} from the pipe's count as the reader last read it, refreshed only when that shows nothing.
     * A reader of a stream that keeps finding only a few bytes at each refresh waits a moment before the next
     * ({@link #refillPauseNs}): a reader that keeps up with a writer of small pieces pulls the writer's cache line
     * for every piece, both run at the speed of that line moving between cores, and plain TCP, whose reader gets
     * Nagle's whole segments, was faster (TCP_STREAM 1-64 B, BENCHMARKS.md); a reader a little behind reads
     * from its own cache and leaves the writer's alone.
     */
    @Override
    public boolean readable(TcpConnection c) {
        if (released || in.consumerClosed()) return false;
        if (in.seen() > 0) return true;
        boolean stream = MULTI_CORE && !sentSinceRead;
        // only between refreshes that both find data: a reader that found the pipe empty, looked, or slept reads
        // at once what woke it
        if (stream && refilling && refillPauseNs > 0) pause(refillPauseNs);
        long batch = in.refresh();
        refilling = batch > 0;
        if (batch > 0) inMoved.ns = c.tcp.ns.clock().nanoTime();
        if (stream && batch > 0) {
            if (batch < SMALL_BATCH) refillPauseNs = Math.min(PAUSE_MAX_NANOS, Math.max(PAUSE_MIN_NANOS, refillPauseNs * 2));
            else refillPauseNs = refillPauseNs / 2 < PAUSE_MIN_NANOS ? 0 : refillPauseNs / 2;
        }
        return batch > 0;
    }

    /**
     * A refresh that found fewer bytes than this doubles the pause before the next one; a larger one halves it
     * (measured against 1024: TCP_STREAM with 256 B and 1 KiB messages went from 5-11 and 12-30 to 8-13 and 26-43
     * Gbit/s).
     */
    static final int SMALL_BATCH = 4096;
    /** The pause's bounds (ns): the longest is a small part of a wake-up's cost. */
    static final long PAUSE_MIN_NANOS = 250, PAUSE_MAX_NANOS = 8_000;
    /** The reader's pause before its next refresh (owner's lock). */
    private long refillPauseNs;
    /** The last refresh found data (owner's lock). */
    private boolean refilling;

    private static void pause(long nanos) {
        long end = System.nanoTime() + nanos;
        do {
            for (int i = 0; i < 8; i++) Thread.onSpinWait();
        } while (System.nanoTime() - end < 0);
    }

    @Override
    public int read(TcpConnection c, byte[] b, int off, int len, ByteBuffer bb) {
        int n = bb != null ? in.read(bb, len) : in.read(b, off, len);
        if (n > 0) sentSinceRead = false;
        TcpInput.rcvSpaceAdjust(c, n); // receive-buffer autotuning, as for segments read
        publishRcvbuf(c);
        int limit = c.rcvbuf;
        // wake a writer waiting for room once a quarter of the buffer is free: later (as TCP's third) makes a
        // streaming writer wait longer per round; earlier wakes it for crumbs (TCP_STREAM 4-64 KiB, BENCHMARKS.md)
        if (in.takeProducerWaiting(limit, limit / 4)) friend.wakeUp();
        return n;
    }

    @Override
    public int peek(TcpConnection c, int skip, byte[] b, int off, int len, ByteBuffer bb) {
        if (released || in.consumerClosed()) return 0;
        return bb != null ? in.peek(skip, bb, len) : in.peek(skip, b, off, len);
    }

    /**
     * tcp_epollin_ready over the pipe: {@code target} bytes unread, or more than seven eighths of the receive
     * buffer the friend was last told of (tcp_rmem_pressure; the friend may fill at least that much, so the mark
     * is always reached). No window limits a friend.
     */
    @Override
    public boolean epollinReady(TcpConnection c, int target) {
        int avail = in.available();
        if (avail <= 0 || in.consumerClosed()) return false;
        int rcvbuf = rcvbufPublished;
        return avail >= target || avail > rcvbuf - (rcvbuf >> 3);
    }

    @Override
    public int append(TcpConnection c, byte[] b, long off, int len, ByteBuffer bb, PayloadRegion region, boolean byReference) {
        long limit = limit(c);
        int n;
        if (friendInputShut && friend.sndShutdown && !out.consumerClosed()) {
            // the friend shut down both ways: the bytes reset it, as plain TCP's segment would (TCPAbortOnData),
            // and go nowhere, as that segment's payload. Queued as a send is, so the writer learns of it next call
            n = (int) Math.max(0, Math.min(len, limit - out.used()));
            if (n == 0) return 0;
            if (bb != null && region == null) bb.position(bb.position() + n); // as a copy would
            TcpFriends.dataToClosedFriend(friend);
        } else if (region != null) n = out.write(region, off, len, limit); // by reference or not: the pipe holds a copy
        else if (bb != null) n = out.write(bb, len, limit);
        else n = out.write(b, (int) off, len, limit);
        if (n == 0) return 0;
        sentSinceRead = true;
        // delivered and, as the friend's receive queue holds it, acknowledged
        c.writeSeq += n;
        c.sndNxt = c.writeSeq;
        c.sndMax = c.writeSeq;
        c.sndUna = c.writeSeq;
        c.sndSml = c.writeSeq;
        c.bytesSent += n;
        c.bytesAcked += n;
        boolean stamp = c.keepalive || friend.keepalive; // a racy read of the friend's flag costs at most one early probe
        if ((unaccountedBytes += n) >= 65536) {
            accountBytes(c);
            stamp = true;
        }
        // tcp_data_ready: the friend's reader and pollers hear of the bytes once its SO_RCVLOWAT is reached
        int lowat = friendRcvLowat;
        boolean ready = lowat <= 1 || friendEnd.epollinReady(friend, lowat);
        boolean wake = ready && out.takeConsumerWaiting();
        if (stamp || wake) outMoved.ns = c.tcp.ns.clock().nanoTime();
        if (wake || (ready && friend.hasReadinessListeners())) friend.wakeUp(); // sk_data_ready
        // data the friend's application will never read, as it closed before reading it: reset (TCPAbortOnData).
        // A friend that read everything and then closed is no reason; one that closes with these bytes unread
        // resets us itself (TcpOutput.closeByUser)
        if (out.consumerClosed() && out.finalHead() < out.tail()) TcpFriends.dataToClosedFriend(friend);
        return n;
    }

    /** Appended bytes are in the friend's pipe already. */
    @Override
    /**
     * Nothing to push: {@link #append} put the bytes in the friend's pipe already. TCP_CORK and MSG_MORE are
     * accepted and hold nothing (Linux's TCP friends patch had no Nagle either): a friend's reader sees the bytes
     * of a corked write at once.
     */
    public void push(TcpConnection c, int nonagle) {}

    @Override
    public long sendSpace(TcpConnection c) { return limit(c) - out.used(); }

    /**
     * What the writer may have unread at its friend: the friend's receive buffer plus its own send buffer, what plain
     * TCP would hold in the peer's receive queue and its own write queue (a writer that had only the friend's
     * buffer waited for the reader four times as often: TCP_CRR with 1 MiB messages at 108 % of plain TCP, 181 %
     * with both).
     */
    private long limit(TcpConnection c) { return (long) friendRcvbuf + c.sndbuf; }

    @Override
    public boolean isWriteable(TcpConnection c) { return sendSpace(c) >= limit(c) / 4; }

    @Override
    public void writerWaits(TcpConnection c) { out.producerWaits(); }

    /**
     * How long a reader that found the pipe empty keeps looking before it announces that it sleeps, and how far
     * apart its looks are (ns). A wake-up costs the writer the reader's lock and a futex call and the reader a
     * context switch, several microseconds together; a writer of small pieces usually adds more within this
     * time, and the looks are spaced so that the reader does not pull the writer's cache line on every piece
     * (measured: TCP_STREAM with 1-byte and 64-byte messages, BENCHMARKS.md). Multi-core only, as a lock's spin.
     */
    static final long LOOK_NANOS = 2_000, LOOK_EVERY_NANOS = 500;
    private static final boolean MULTI_CORE = Runtime.getRuntime().availableProcessors() > 1;

    @Override
    public void readerWaits(TcpConnection c) {
        // only a reader of a stream looks: one that has sent since it last read waits for an answer, a round trip
        // away, and its spin would only take the core from the threads making that answer
        if (MULTI_CORE && !sentSinceRead && lookBeforeSleeping()) return; // data came: the caller's re-check finds it
        in.consumerWaits();
    }

    /** Watches the pipe for {@link #LOOK_NANOS}; true as soon as it has data. */
    private boolean lookBeforeSleeping() {
        long start = System.nanoTime();
        long next = start + LOOK_EVERY_NANOS;
        while (true) {
            for (int i = 0; i < 8; i++) Thread.onSpinWait();
            long now = System.nanoTime();
            if (now - next >= 0) {
                if (in.available() > 0) return true;
                if (now - start >= LOOK_NANOS) return false;
                next = now + LOOK_EVERY_NANOS;
            }
        }
    }

    /** rcvNxt (and rcv_wup, so the advertised window stays what it was) over the bytes the friend has written. */
    @Override
    public void sync(TcpConnection c) {
        long t = in.tail();
        long delta = t - rcvSynced;
        if (delta == 0) return;
        rcvSynced = t;
        long now = c.tcp.ns.clock().nanoTime();
        if (now - inMoved.ns > 0) inMoved.ns = now; // moved by now at the latest
        c.rcvNxt += (int) delta;
        c.rcvWup += (int) delta;
        c.lastAckSent = c.rcvNxt;
        c.bytesReceived += delta;
    }

    /** The friend's writes still come; once we have sent our FIN too, they reset us ({@link #append}). */
    @Override
    public void shutdownInput(TcpConnection c) { friendEnd.friendInputShut = true; }

    @Override
    public long lastDataNs(TcpConnection c) { return Math.max(inMoved.ns, outMoved.ns); }

    @Override
    public long lastDataSentNs(TcpConnection c) { return Math.max(c.lastSendNs, outMoved.ns); }

    /** Bytes moved to the friend are acknowledged as they move. */
    @Override
    public long lastAckRecvNs(TcpConnection c) { return Math.max(c.lastAckRecvNs, outMoved.ns); }

    @Override
    public long lastDataRecvNs(TcpConnection c) { return Math.max(c.lrcvtimeNs, inMoved.ns); }

    /** The friend's writes from now on are data to a closed socket ({@link #append}). */
    @Override
    public void userClosing(TcpConnection c) { in.markConsumerClosed(); }

    @Override
    public void purgeReceived(TcpConnection c) {
        in.markConsumerClosed();
        in.skip(Long.MAX_VALUE);
        int limit = c.rcvbuf;
        if (in.takeProducerWaiting(limit, 0)) friend.wakeUp();
    }

    @Override
    public void release(TcpConnection c) {
        if (released) return;
        released = true;
        accountBytes(c);
        in.detachConsumer();
        out.detachProducer();
    }

    private void accountBytes(TcpConnection c) {
        if (unaccountedBytes == 0) return;
        c.tcp.mib.add(MibCounter.TcpExtJnetFriendsBytes, unaccountedBytes);
        unaccountedBytes = 0;
    }

    @Override
    public String toString() { return "friends[in " + in + ", out " + out + "]"; }
}
