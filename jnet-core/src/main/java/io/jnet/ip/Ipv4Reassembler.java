package io.jnet.ip;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.stack.Sysctls;
import io.jnet.stack.TimerWheel;
import io.jnet.wire.Ipv4;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * IPv4 reassembly on input (RFC 791 section 3.2 "Reassembly", RFC 815 hole descriptors, Linux
 * {@code ip_defrag} limits).
 *
 * <p>Fragments are queued per datagram, keyed by (source, destination, protocol, identification). A
 * queue lives at most {@code net.ipv4.ipfrag_time} seconds from its first fragment; if it is not complete
 * by then its fragments are freed, IpReasmTimeout and IpReasmFails are counted and, if the fragment at
 * offset 0 was received, the time-exceeded sender ({@link #setTimeExceededSender}) is handed that
 * fragment so the caller can send ICMP time exceeded / fragment reassembly time exceeded (RFC 792).
 *
 * <p>Memory: every held fragment is charged its {@link PacketBuffer#truesize()}, and every queue
 * {@link #QUEUE_TRUESIZE}. A fragment that arrives while the charge exceeds
 * {@code net.ipv4.ipfrag_high_thresh} is dropped (IpReasmFails), and the oldest queues are evicted
 * (IpReasmFails for each incomplete one, no ICMP) until the charge is at most
 * {@code net.ipv4.ipfrag_low_thresh}, as the Linux frag evictor did before 4.17. The charge thus never
 * exceeds the high threshold by more than one fragment's truesize plus one queue. A high threshold of 0
 * disables reassembly (every fragment dropped), as on Linux.
 *
 * <p>Fragment rules (each violation drops the fragment, counted in IpReasmFails):
 * <ul>
 *   <li>an invalid IPv4 header (see {@link Ipv4#validate}; the checksum is the caller's to verify);</li>
 *   <li>a fragment with MF set whose payload is not a multiple of 8 bytes;</li>
 *   <li>a fragment with no payload (Linux drops zero-length fragments whether MF is set or not);</li>
 *   <li>a fragment ending past byte 65515 of the payload (a datagram of at least 20 header bytes could
 *       not hold it: the "ping of death" check); a reassembled header plus payload above 65535 bytes
 *       also fails the datagram;</li>
 *   <li>a fragment of a datagram that already failed (the queue stays, marked, until it expires).</li>
 * </ul>
 * A fragment that overlaps data already held, other than an exact duplicate (same offset and length),
 * fails the whole datagram (RFC 5722 in spirit, Linux since 4.19): IpExtReasmOverlaps and IpReasmFails
 * are counted, the held fragments freed and the queue marked so later fragments of the datagram are
 * dropped until it expires (silently, no further timeout counts or ICMP). A final fragment (MF clear)
 * fixes the datagram length; a final fragment ending before data already held, a second final fragment
 * with another length, or a fragment past the fixed length fails the datagram likewise (IpReasmFails
 * only). Exact duplicates are dropped without any count and leave the queue intact.
 *
 * <p>IpReasmReqds counts every fragment given to {@link #accept}, IpReasmOKs every datagram rebuilt.
 *
 * <p>Thread-safe: {@link #accept} may be called from several receive threads at once; one lock guards
 * the queues (fragments are rare). Expiry runs on the namespace's {@link TimerWheel}.
 */
public final class Ipv4Reassembler {

    /** Bytes charged per fragment queue for its bookkeeping (Linux charges {@code sizeof(struct ipq)}). */
    public static final int QUEUE_TRUESIZE = 256;

    /** Highest payload end offset of a fragment: 65535 minus a minimal 20-byte header. */
    public static final int MAX_PAYLOAD_END = Ipv4.MAX_PACKET - Ipv4.MIN_HEADER_LENGTH;

    private final Sysctls sysctls;
    private final Mib mib;
    private final TimerWheel timers;
    private final ReentrantLock lock = new ReentrantLock();
    /** Queues in creation order: the eviction order (oldest first). */
    private final LinkedHashMap<ReasmKey, ReasmQueue> queues = new LinkedHashMap<>();
    private long memory;
    private volatile Consumer<PacketBuffer> timeExceededSender;

    /**
     * @param sysctls reads net.ipv4.ipfrag_high_thresh, ipfrag_low_thresh (bytes) and ipfrag_time (seconds)
     * @param mib counts IpReasmReqds, IpReasmOKs, IpReasmFails, IpReasmTimeout, IpExtReasmOverlaps
     * @param timers runs the per-queue expiry timers
     */
    public Ipv4Reassembler(Sysctls sysctls, Mib mib, TimerWheel timers) {
        this.sysctls = Objects.requireNonNull(sysctls, "sysctls");
        this.mib = Objects.requireNonNull(mib, "mib");
        this.timers = Objects.requireNonNull(timers, "timers");
    }

    /**
     * Sets the hook called when an incomplete queue whose fragment at offset 0 was received expires
     * (Linux {@code ip_expire} sending ICMP_TIME_EXCEEDED / ICMP_EXC_FRAGTIME). It receives that first
     * fragment, data at its IPv4 header, on the timer thread and outside any reassembler lock; it may
     * read it only during the call (the reassembler releases it afterwards). Null disables it.
     */
    public void setTimeExceededSender(Consumer<PacketBuffer> sender) {
        this.timeExceededSender = sender;
    }

    /**
     * Takes one received fragment.
     *
     * <p>{@code fragment}'s data starts at its IPv4 header; bytes past its total length are ignored. The
     * reassembler takes ownership of it in every case but one: a packet that is not a fragment (MF clear
     * and offset 0) is returned as is, uncounted.
     *
     * @return null while the datagram is incomplete or when the fragment was dropped (it is then
     *         released); otherwise the reassembled datagram: a new buffer with
     *         {@link PacketBuffer#DEFAULT_HEADROOM} headroom, data at the header of the first fragment
     *         (its options included) with MF and offset cleared and total length and header checksum
     *         set, network and transport offsets set, input device of the first fragment. All fragments
     *         of it are released.
     */
    public PacketBuffer accept(PacketBuffer fragment) {
        Objects.requireNonNull(fragment, "fragment");
        fragment.linearize(); // fragments are copied from the array
        byte[] b = fragment.array();
        int off = fragment.dataStart();
        if (Ipv4.validate(b, off, fragment.length(), false) != Ipv4.OK) {
            mib.inc(MibCounter.IpReasmReqds);
            return drop(fragment);
        }
        if (!Ipv4.isFragment(b, off)) return fragment;
        mib.inc(MibCounter.IpReasmReqds);

        int headerLength = Ipv4.headerLength(b, off);
        int payload = Ipv4.totalLength(b, off) - headerLength;
        int offset = Ipv4.fragmentOffset(b, off);
        int end = offset + payload;
        boolean more = Ipv4.moreFragments(b, off);
        if (payload == 0 || end > MAX_PAYLOAD_END || (more && (payload & 7) != 0)) return drop(fragment);
        ReasmKey key = ReasmKey.of(b, off);

        lock.lock();
        try {
            int high = sysctls.ipfragHighThresh.intValue();
            if (high == 0 || memory > high) {
                evict(Math.min(high, sysctls.ipfragLowThresh.intValue()));
                return drop(fragment);
            }
            ReasmQueue q = queues.get(key);
            if (q == null) q = create(key);
            if (q.dropped()) return drop(fragment);
            ReasmQueue.Outcome outcome = q.add(offset, end, more, off + headerLength, fragment);
            switch (outcome) {
                case ADDED -> memory += fragment.truesize();
                case DUPLICATE -> fragment.release();
                case OVERLAP -> {
                    mib.inc(MibCounter.IpExtReasmOverlaps);
                    fail(q);
                    return drop(fragment);
                }
                case INCONSISTENT -> {
                    fail(q);
                    return drop(fragment);
                }
            }
            if (!q.complete()) return null;
            PacketBuffer datagram = q.reassemble();
            if (datagram == null) {
                fail(q);
                mib.inc(MibCounter.IpReasmFails);
                return null;
            }
            remove(q);
            q.releaseAll();
            mib.inc(MibCounter.IpReasmOKs);
            return datagram;
        } finally {
            lock.unlock();
        }
    }

    /** Number of fragment queues held (incomplete datagrams, and failed ones waiting to expire). */
    public int queueCount() {
        lock.lock();
        try {
            return queues.size();
        } finally {
            lock.unlock();
        }
    }

    /** Bytes charged: truesize of every held fragment plus {@link #QUEUE_TRUESIZE} per queue. */
    public long memoryBytes() {
        lock.lock();
        try {
            return memory;
        } finally {
            lock.unlock();
        }
    }

    /** Frees every queue and fragment without counting (namespace close, Linux {@code fqdir_exit}). */
    public void clear() {
        lock.lock();
        try {
            for (ReasmQueue q : queues.values()) {
                q.timer.cancel();
                q.releaseAll();
            }
            queues.clear();
            memory = 0;
        } finally {
            lock.unlock();
        }
    }

    private ReasmQueue create(ReasmKey key) {
        ReasmQueue q = new ReasmQueue(key);
        q.timer = timers.newTimer(() -> expire(q));
        q.timer.schedule(sysctls.ipfragTime.intValue() * 1_000_000_000L);
        queues.put(key, q);
        memory += QUEUE_TRUESIZE;
        return q;
    }

    /** Unlinks a queue and uncharges it (its fragments stay until the caller releases them). Lock held. */
    private void remove(ReasmQueue q) {
        queues.remove(q.key);
        q.timer.cancel();
        memory -= QUEUE_TRUESIZE + q.truesize();
    }

    /** Fails a datagram: frees its fragments and marks the queue. Lock held. */
    private void fail(ReasmQueue q) {
        memory -= q.truesize();
        q.markDropped();
    }

    /** Removes the oldest queues until at most {@code target} bytes are charged. Lock held. */
    private void evict(long target) {
        Iterator<ReasmQueue> it = queues.values().iterator();
        while (memory > target && it.hasNext()) {
            ReasmQueue q = it.next();
            it.remove();
            q.timer.cancel();
            memory -= QUEUE_TRUESIZE + q.truesize();
            if (!q.dropped()) mib.inc(MibCounter.IpReasmFails);
            q.releaseAll();
        }
    }

    /** ipfrag_time expiry of one queue (timer thread). */
    private void expire(ReasmQueue q) {
        PacketBuffer head = null;
        Consumer<PacketBuffer> sender = timeExceededSender;
        lock.lock();
        try {
            if (queues.get(q.key) != q) return; // completed, evicted or cleared meanwhile
            remove(q);
            if (!q.dropped()) {
                mib.inc(MibCounter.IpReasmFails);
                mib.inc(MibCounter.IpReasmTimeout);
                if (sender != null) head = q.takeFirst();
            }
            q.releaseAll();
        } finally {
            lock.unlock();
        }
        if (head != null) {
            try {
                sender.accept(head);
            } finally {
                head.release();
            }
        }
    }

    private PacketBuffer drop(PacketBuffer fragment) {
        mib.inc(MibCounter.IpReasmFails);
        fragment.release();
        return null;
    }
}
