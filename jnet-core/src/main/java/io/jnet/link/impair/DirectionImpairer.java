package io.jnet.link.impair;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.Clock;
import io.jnet.stack.Timer;
import io.jnet.stack.TimerWheel;
import io.jnet.wire.Ethernet;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The impairment pipeline of one direction: decides each frame's fate with its own random stream and
 * passes surviving frames to a sink, at once or later from a timer on the namespace's wheel.
 *
 * <p>Decisions are taken under a lock; frames are handed to the sink after the lock is released, in the
 * order decided, so the sink may re-enter the device (a received frame's reply transmitted through it).
 */
final class DirectionImpairer {
    /** A frame waiting in the delay queue until {@code releaseAt} (ns); release times never decrease. */
    private record Queued(PacketBuffer frame, long frameNo, long releaseAt) {}

    /** A frame held for reordering until frame {@code releaseAfter} arrived or the clock reached {@code releaseAt}. */
    private record Held(PacketBuffer frame, long frameNo, long releaseAfter, long releaseAt) {}

    private final Direction direction;
    private final DirectionConfig cfg;
    /** Frames passed straight on when {@link #cfg} impairs nothing (each is also delivered). */
    private final java.util.concurrent.atomic.LongAdder passed = new java.util.concurrent.atomic.LongAdder();
    private final SplittableRandom random;
    private final Consumer<PacketBuffer> sink;
    private final ImpairmentLog log;
    private final Clock clock;
    private final Timer timer;
    private final ReentrantLock lock = new ReentrantLock();

    private final ArrayDeque<Queued> queue = new ArrayDeque<>();
    private final List<Held> held = new ArrayList<>();
    private long lastReleaseAt = Long.MIN_VALUE;
    private long linkFreeAt = Long.MIN_VALUE;
    private boolean closed;

    private long frames, delivered, dropped, overlimit, flushed, duplicated, corrupted, reordered, delayed;

    DirectionImpairer(Direction direction, DirectionConfig cfg, SplittableRandom random, TimerWheel timers,
            ImpairmentLog log, Consumer<PacketBuffer> sink) {
        this.direction = direction;
        this.cfg = cfg;
        this.random = random;
        this.sink = sink;
        this.log = log;
        this.clock = timers.clock();
        this.timer = timers.newTimer(this::onTimer);
    }

    /** Takes ownership of {@code frame}: drops, alters, holds or passes it (and frames it releases) on. */
    void accept(PacketBuffer frame) {
        if (cfg.isNone()) { // nothing to decide: keep the fast path free of locking
            passed.increment();
            sink.accept(frame);
            return;
        }
        List<PacketBuffer> ready = new ArrayList<>(2);
        lock.lock();
        try {
            if (closed) {
                ready.add(frame);
            } else {
                decide(frame, clock.nanoTime(), ready);
            }
        } finally {
            lock.unlock();
        }
        for (PacketBuffer f : ready) sink.accept(f);
    }

    private void decide(PacketBuffer frame, long now, List<PacketBuffer> ready) {
        long n = ++frames;
        if (cfg.loss() > 0 && random.nextDouble() < cfg.loss()) {
            dropped++;
            record(now, n, ImpairmentAction.DROP, -1, 0, 0);
            frame.release();
        } else {
            PacketBuffer copy = null;
            if (cfg.duplicate() > 0 && random.nextDouble() < cfg.duplicate()) {
                copy = frame.copy();
                duplicated++;
                record(now, n, ImpairmentAction.DUP, -1, 0, 0);
            }
            if (cfg.corrupt() > 0 && random.nextDouble() < cfg.corrupt()) frame = corrupt(frame, n, now);
            if (cfg.reorder() > 0 && random.nextDouble() < cfg.reorder()) {
                long after = cfg.reorderGap() > 0 ? n + cfg.reorderGap() : Long.MAX_VALUE;
                long at = cfg.reorderDelayNanos() > 0 ? now + cfg.reorderDelayNanos() : Long.MAX_VALUE;
                held.add(new Held(frame, n, after, at));
                reordered++;
                record(now, n, ImpairmentAction.REORDER, -1, cfg.reorderGap(), cfg.reorderDelayNanos());
            } else {
                schedule(frame, n, now, ready);
            }
            if (copy != null) schedule(copy, n, now, ready);
        }
        releaseHeldByCount(n, now, ready);
        rearm();
    }

    /**
     * Flips one byte beyond the Ethernet header (XOR with a random non-zero value) so checksums no longer match,
     * and returns the frame to pass on: a private copy when the frame's bytes are shared with a clone (a TCP
     * segment still in its sender's write queue must not change; Linux's skb_cow), else the frame itself.
     */
    private PacketBuffer corrupt(PacketBuffer frame, long n, long now) {
        int len = frame.length();
        if (len <= Ethernet.HEADER_LENGTH) return frame; // nothing beyond the link header to damage
        int offset = Ethernet.HEADER_LENGTH + random.nextInt(len - Ethernet.HEADER_LENGTH);
        int flip = 1 + random.nextInt(255);
        frame = frame.unshare();
        frame.linearize(); // the byte may lie in data carried by reference, which is read-only
        frame.array()[frame.dataStart() + offset] ^= (byte) flip;
        frame.setChecksumUnnecessary(false); // the receiver must verify, and will find the damage
        corrupted++;
        record(now, n, ImpairmentAction.CORRUPT, offset, 0, 0);
        return frame;
    }

    /** Sends the frame now, or queues it behind earlier frames for delay, jitter and the link rate. */
    private void schedule(PacketBuffer frame, long n, long now, List<PacketBuffer> ready) {
        long releaseAt = now;
        long linkFree = linkFreeAt;
        if (cfg.rateBitsPerSecond() > 0) {
            long start = Math.max(now, linkFree);
            linkFree = start + (long) frame.length() * 8_000_000_000L / cfg.rateBitsPerSecond();
            releaseAt = linkFree;
        }
        if (cfg.delayNanos() > 0 || cfg.jitterNanos() > 0) {
            long d = cfg.delayNanos();
            if (cfg.jitterNanos() > 0) d += random.nextLong(-cfg.jitterNanos(), cfg.jitterNanos() + 1);
            releaseAt += Math.max(0, d);
        }
        releaseAt = Math.max(releaseAt, lastReleaseAt); // first in, first out
        if (releaseAt <= now && queue.isEmpty()) {
            lastReleaseAt = releaseAt;
            linkFreeAt = linkFree;
            delivered++;
            ready.add(frame);
            return;
        }
        if (queue.size() >= cfg.limit()) {
            overlimit++;
            record(now, n, ImpairmentAction.OVERLIMIT, -1, 0, 0);
            frame.release();
            return;
        }
        lastReleaseAt = releaseAt;
        linkFreeAt = linkFree;
        queue.add(new Queued(frame, n, releaseAt));
        delayed++;
        record(now, n, ImpairmentAction.DELAY, -1, 0, releaseAt - now);
    }

    private void releaseHeldByCount(long n, long now, List<PacketBuffer> ready) {
        if (held.isEmpty()) return;
        for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (h.releaseAfter() <= n) {
                it.remove();
                schedule(h.frame(), h.frameNo(), now, ready);
            }
        }
    }

    /** Timer expiry (bottom-half context): releases held frames whose time is up, then due queued frames. */
    private void onTimer() {
        List<PacketBuffer> ready = new ArrayList<>();
        lock.lock();
        try {
            if (closed) return;
            long now = clock.nanoTime();
            for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
                Held h = it.next();
                if (h.releaseAt() <= now) {
                    it.remove();
                    schedule(h.frame(), h.frameNo(), now, ready);
                }
            }
            while (!queue.isEmpty() && queue.peekFirst().releaseAt() <= now) {
                ready.add(queue.pollFirst().frame());
                delivered++;
            }
            rearm();
        } finally {
            lock.unlock();
        }
        for (PacketBuffer f : ready) sink.accept(f);
    }

    /** Arms the timer for the earliest pending release, if it is not armed earlier already. */
    private void rearm() {
        long next = queue.isEmpty() ? Long.MAX_VALUE : queue.peekFirst().releaseAt();
        for (Held h : held) next = Math.min(next, h.releaseAt());
        if (next == Long.MAX_VALUE) return;
        long armed = timer.deadline();
        if (armed < 0 || next < armed) timer.scheduleAt(next);
    }

    /** Discards every held and queued frame (counted as flushed) and stops the timer. Idempotent. */
    void close() {
        lock.lock();
        try {
            if (closed) return;
            closed = true;
            timer.cancel();
            long now = clock.nanoTime();
            for (Held h : held) flush(h.frame(), h.frameNo(), now);
            held.clear();
            for (Queued q : queue) flush(q.frame(), q.frameNo(), now);
            queue.clear();
        } finally {
            lock.unlock();
        }
    }

    private void flush(PacketBuffer frame, long n, long now) {
        flushed++;
        record(now, n, ImpairmentAction.FLUSH, -1, 0, 0);
        frame.release();
    }

    private void record(long now, long n, ImpairmentAction action, int offset, int gap, long nanos) {
        log.record(new ImpairmentEvent(now, direction, n, action, offset, gap, nanos));
    }

    ImpairmentCounts counts() {
        lock.lock();
        try {
            long p = passed.sum();
            return new ImpairmentCounts(frames + p, delivered + p, dropped, overlimit, flushed, duplicated, corrupted,
                    reordered, delayed, held.size() + queue.size());
        } finally {
            lock.unlock();
        }
    }
}
