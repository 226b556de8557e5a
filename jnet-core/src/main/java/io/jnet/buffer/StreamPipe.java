package io.jnet.buffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A byte stream from one producer to one consumer (a single-producer/single-consumer queue of bytes), the
 * data path of TCP friends and of local stream sockets: the writer copies into it, the reader copies out.
 *
 * <p>Why not a queue of packet buffers under the reader's lock: the Linux friends patch appended to the tail
 * buffer of the peer's receive queue under the peer's lock, so a small-message writer and its reader took one
 * lock and one cache line in turns, and TCP_STREAM lost up to 70 % at small sizes. Here the writer and the
 * reader share no lock and no buffer end: the bytes live in a chain of fixed chunks; only the producer moves
 * the tail (its own chunk and offset, published through the volatile byte count {@code tail}), only the
 * consumer moves the head ({@code head}). Each side's state sits on cache lines of its own, and a side reads the
 * other's count only when the count it read last does not cover what it wants (a small write touches the
 * reader's line only when the room it knew of is used up, a small read the writer's only when the bytes it knew
 * of are read). The wait flags each side sets before it sleeps also have lines of their own, so the other side's
 * check of them on every call stays a cache hit. Drained chunks go back to the producer through a small ring of
 * spares, so a warm stream allocates nothing.
 *
 * <p>Threads: at most one thread at a time may call the producer methods ({@code write*}, {@link #producerWaits},
 * {@link #takeConsumerWaiting}) and at most one the consumer methods ({@code read}, {@link #skip},
 * {@link #consumerWaits}, {@link #takeProducerWaiting}); callers serialize each side (a socket's lock).
 * {@link #available()}, {@link #used()}, {@link #head()} and {@link #tail()} may be read from any thread.
 *
 * <p>Memory: a write copies at most {@code limit - used()} bytes, so the bytes held never exceed the limit the
 * producer passes (the reader's receive buffer); the chunks held are that, rounded up to {@link #CHUNK}, plus
 * up to {@link #SPARES} spare chunks. {@link #detachProducer()} and {@link #detachConsumer()} end each side;
 * after both, the chunks return to a shared pool.
 */
public final class StreamPipe {
    /** Bytes per chunk. */
    public static final int CHUNK = 16384;
    /** Drained chunks kept for the producer's reuse. */
    public static final int SPARES = 4;

    private static final class Chunk {
        final byte[] data = new byte[CHUNK];
        volatile Chunk next;
    }

    /**
     * The consumer's state, alone on its cache lines: its published count, the producer's count as last read
     * (so a read touches the producer's line only when what it saw is used up), and where it reads.
     */
    @SuppressWarnings("unused")
    private static final class ConsumerSide {
        long p00, p01, p02, p03, p04, p05, p06, p07;
        /** Bytes ever consumed. */
        volatile long head;
        /** The producer's tail as last read. */
        long tailSeen;
        Chunk chunk;
        int pos;
        /** Spares handed back, written by the consumer only. */
        volatile int sparesIn;
        long p10, p11, p12, p13, p14, p15, p16, p17;
    }

    /** The producer's state, alone on its cache lines (as {@link ConsumerSide}). */
    @SuppressWarnings("unused")
    private static final class ProducerSide {
        long p00, p01, p02, p03, p04, p05, p06, p07;
        /** Bytes ever produced. */
        volatile long tail;
        /** The consumer's head as last read. */
        long headSeen;
        Chunk chunk;
        int pos;
        /** Spares taken, written by the producer only. */
        volatile int sparesOut;
        long p10, p11, p12, p13, p14, p15, p16, p17;
    }

    /** A flag one side sets rarely and the other reads often: on a line of its own, so reading it stays a cache hit. */
    @SuppressWarnings("unused")
    private static final class Flag {
        long p00, p01, p02, p03, p04, p05, p06, p07;
        volatile boolean set;
        long p10, p11, p12, p13, p14, p15, p16, p17;
    }

    private final ConsumerSide consumer = new ConsumerSide();
    private final ProducerSide producer = new ProducerSide();
    /** The consumer sleeps until data comes. */
    private final Flag consumerWaiting = new Flag();
    /** The producer sleeps until room appears. */
    private final Flag producerWaiting = new Flag();
    private final Chunk[] spares = new Chunk[SPARES];
    private final AtomicInteger ends = new AtomicInteger(2);
    /** The consumer's head when it stopped reading for good ({@link #markConsumerClosed}), -1 before. */
    private volatile long consumerClosedAt = -1;
    /** Set with {@link #consumerClosedAt}; what the producer checks on every write. */
    private final Flag consumerClosed = new Flag();

    public StreamPipe() {
        Chunk c = ChunkPool.take();
        producer.chunk = c;
        consumer.chunk = c;
    }

    // ------------------------------------------------------------------------------------------ either side

    /** Bytes written and not yet read. */
    public int available() {
        return (int) (producer.tail - consumer.head);
    }

    /** Bytes held for the reader: {@link #available()} (named for the producer's accounting). */
    public long used() {
        return producer.tail - consumer.head;
    }

    /** Bytes ever read. */
    public long head() { return consumer.head; }

    /** Bytes ever written. */
    public long tail() { return producer.tail; }

    // ------------------------------------------------------------------------------------------ producer

    /**
     * Copies up to {@code len} bytes of {@code src} from {@code off}, as many as keep {@link #used()} within
     * {@code limit}; returns how many (0 when the pipe holds {@code limit} bytes already).
     */
    public int write(byte[] src, int off, int len, long limit) {
        int n = room(len, limit);
        ProducerSide p = producer;
        int done = 0;
        while (done < n) {
            int k = Math.min(n - done, reserve(p));
            System.arraycopy(src, off + done, p.chunk.data, p.pos, k);
            p.pos += k;
            done += k;
        }
        return publish(n);
    }

    /** {@link #write(byte[], int, int, long)} from {@code src}'s position, which advances by the count. */
    public int write(ByteBuffer src, int len, long limit) {
        int n = room(Math.min(len, src.remaining()), limit);
        ProducerSide p = producer;
        int done = 0;
        while (done < n) {
            int k = Math.min(n - done, reserve(p));
            src.get(p.chunk.data, p.pos, k);
            p.pos += k;
            done += k;
        }
        return publish(n);
    }

    /** {@link #write(byte[], int, int, long)} from a file mapping (sendfile): {@code len} bytes at {@code offset}. */
    public int write(PayloadRegion src, long offset, int len, long limit) {
        int n = room(len, limit);
        ProducerSide p = producer;
        int done = 0;
        while (done < n) {
            int k = Math.min(n - done, reserve(p));
            src.read(offset + done, p.chunk.data, p.pos, k);
            p.pos += k;
            done += k;
        }
        return publish(n);
    }

    /** How many of {@code len} bytes fit under {@code limit}, reading the consumer's count only when the last one read is not enough. */
    private int room(int len, long limit) {
        if (len <= 0) return 0;
        ProducerSide p = producer;
        long tail = p.tail;
        long free = limit - (tail - p.headSeen);
        if (free < len) {
            p.headSeen = consumer.head;
            free = limit - (tail - p.headSeen);
        }
        if (free <= 0) return 0;
        return (int) Math.min(len, free);
    }

    /** Room left in the tail chunk, linking a new chunk when it is full. */
    private int reserve(ProducerSide p) {
        int room = CHUNK - p.pos;
        if (room > 0) return room;
        Chunk c = takeSpare();
        p.chunk.next = c; // published to the consumer by the tail count written after it
        p.chunk = c;
        p.pos = 0;
        return CHUNK;
    }

    private int publish(int n) {
        if (n > 0) producer.tail = producer.tail + n;
        return n;
    }

    private Chunk takeSpare() {
        int out = producer.sparesOut;
        if (out != consumer.sparesIn) {
            int i = out & (SPARES - 1);
            Chunk c = spares[i];
            spares[i] = null;
            producer.sparesOut = out + 1;
            return c;
        }
        return ChunkPool.take();
    }

    /**
     * The producer is about to wait for room: the consumer's next read that frees room reports it through
     * {@link #takeProducerWaiting}. The caller re-checks {@link #used()} after this call, before it sleeps.
     */
    public void producerWaits() { producerWaiting.set = true; }

    /** True (once) when the consumer announced it waits for data ({@link #consumerWaits}): wake it. */
    public boolean takeConsumerWaiting() {
        Flag f = consumerWaiting;
        if (!f.set) return false;
        f.set = false;
        return true;
    }

    /** Ends the producer's side: it writes no more. */
    public void detachProducer() { detach(); }

    // ------------------------------------------------------------------------------------------ consumer

    /** Copies up to {@code len} available bytes into {@code dst} at {@code off}; returns how many. */
    public int read(byte[] dst, int off, int len) {
        int n = (int) Math.min(len, readable(len));
        ConsumerSide c = consumer;
        int done = 0;
        while (done < n) {
            int k = Math.min(n - done, advanceHead(c));
            System.arraycopy(c.chunk.data, c.pos, dst, off + done, k);
            c.pos += k;
            done += k;
        }
        return consume(n);
    }

    /** {@link #read(byte[], int, int)} into {@code dst} at its position, which advances by the count. */
    public int read(ByteBuffer dst, int len) {
        int want = Math.min(len, dst.remaining());
        int n = (int) Math.min(want, readable(want));
        ConsumerSide c = consumer;
        int done = 0;
        while (done < n) {
            int k = Math.min(n - done, advanceHead(c));
            dst.put(c.chunk.data, c.pos, k);
            c.pos += k;
            done += k;
        }
        return consume(n);
    }

    /**
     * Copies up to {@code len} of the available bytes that follow the first {@code skip} into {@code dst} at
     * {@code off}, leaving them to be read (recv with MSG_PEEK); returns how many, 0 when none follow. Consumer
     * only.
     */
    public int peek(long skip, byte[] dst, int off, int len) {
        int n = peekable(skip, len);
        if (n == 0) return 0;
        Chunk chunk = consumer.chunk;
        long at = consumer.pos + skip;
        for (; at >= CHUNK; at -= CHUNK) chunk = chunk.next; // linked before the count that made the bytes available
        int pos = (int) at;
        for (int done = 0; done < n; ) {
            if (pos == CHUNK) {
                chunk = chunk.next;
                pos = 0;
            }
            int k = Math.min(n - done, CHUNK - pos);
            System.arraycopy(chunk.data, pos, dst, off + done, k);
            pos += k;
            done += k;
        }
        return n;
    }

    /** {@link #peek(long, byte[], int, int)} into {@code dst} at its position, which advances by the count. */
    public int peek(long skip, ByteBuffer dst, int len) {
        int n = peekable(skip, Math.min(len, dst.remaining()));
        if (n == 0) return 0;
        Chunk chunk = consumer.chunk;
        long at = consumer.pos + skip;
        for (; at >= CHUNK; at -= CHUNK) chunk = chunk.next;
        int pos = (int) at;
        for (int done = 0; done < n; ) {
            if (pos == CHUNK) {
                chunk = chunk.next;
                pos = 0;
            }
            int k = Math.min(n - done, CHUNK - pos);
            dst.put(chunk.data, pos, k);
            pos += k;
            done += k;
        }
        return n;
    }

    /** How many of {@code len} bytes follow the first {@code skip} available ones, by the producer's count now. */
    private int peekable(long skip, int len) {
        ConsumerSide c = consumer;
        c.tailSeen = producer.tail;
        long after = c.tailSeen - c.head - skip;
        return after <= 0 ? 0 : (int) Math.min(len, after);
    }

    /** Drops up to {@code len} available bytes unread; returns how many. */
    public long skip(long len) {
        long n = Math.min(len, used());
        ConsumerSide c = consumer;
        long done = 0;
        while (done < n) {
            int k = (int) Math.min(n - done, advanceHead(c));
            c.pos += k;
            done += k;
        }
        c.head = c.head + n;
        return n;
    }

    /**
     * Bytes the consumer can read by the producer's count as it last read it ({@link #refresh}): no access to the
     * producer's line. Consumer only.
     */
    public long seen() {
        ConsumerSide c = consumer;
        return c.tailSeen - c.head;
    }

    /** Reads the producer's count again and returns the bytes readable by it (see {@link #seen}). Consumer only. */
    public long refresh() {
        ConsumerSide c = consumer;
        c.tailSeen = producer.tail;
        return c.tailSeen - c.head;
    }

    /** Bytes readable, reading the producer's count only when the last one read does not cover {@code want}. */
    private long readable(int want) {
        ConsumerSide c = consumer;
        long avail = c.tailSeen - c.head;
        if (avail < want) {
            c.tailSeen = producer.tail;
            avail = c.tailSeen - c.head;
        }
        return avail;
    }

    /** Bytes readable in the head chunk, moving to the next chunk (and recycling this one) when it is drained. */
    private int advanceHead(ConsumerSide c) {
        int left = CHUNK - c.pos;
        if (left > 0) return left;
        Chunk old = c.chunk;
        c.chunk = old.next; // linked before the tail count that made these bytes available
        c.pos = 0;
        old.next = null;
        recycle(old);
        return CHUNK;
    }

    private int consume(int n) {
        if (n > 0) consumer.head = consumer.head + n;
        return n;
    }

    private void recycle(Chunk c) {
        int in = consumer.sparesIn;
        if (in - producer.sparesOut < SPARES) {
            spares[in & (SPARES - 1)] = c;
            consumer.sparesIn = in + 1;
        } else {
            ChunkPool.give(c);
        }
    }

    /**
     * The consumer is about to wait for data: the producer's next write reports it through
     * {@link #takeConsumerWaiting}. The caller re-checks {@link #available()} after this call, before it sleeps.
     */
    public void consumerWaits() { consumerWaiting.set = true; }

    /**
     * True (once) when the producer announced it waits for room and at least {@code minFree} bytes are free
     * under {@code limit}: wake it.
     */
    public boolean takeProducerWaiting(long limit, long minFree) {
        Flag f = producerWaiting;
        if (!f.set || limit - used() < minFree) return false;
        f.set = false;
        return true;
    }

    /**
     * Records that the consumer will read no more, before it drops what is left: {@link #finalHead()} then tells
     * the producer which of its bytes were read.
     */
    public void markConsumerClosed() {
        if (consumerClosedAt >= 0) return;
        consumerClosedAt = consumer.head;
        consumerClosed.set = true;
    }

    /** True once the consumer said it reads no more ({@link #markConsumerClosed}); a cheap check for every write. */
    public boolean consumerClosed() { return consumerClosed.set; }

    /**
     * The consumer's head when it stopped reading ({@link #markConsumerClosed}), else its head now: bytes of the
     * producer beyond it were never read. Either side.
     */
    public long finalHead() {
        long h = consumer.head; // read first: a close after it is seen below with the head it recorded
        long closedAt = consumerClosedAt;
        return closedAt >= 0 ? closedAt : h;
    }

    /** Ends the consumer's side: it reads no more (unread bytes are dropped with the chunks). */
    public void detachConsumer() { detach(); }

    private void detach() {
        int left = ends.decrementAndGet();
        if (left < 0) throw new IllegalStateException("StreamPipe side detached twice");
        if (left > 0) return;
        // both sides are gone: no thread touches the chunks any more
        for (Chunk c = consumer.chunk; c != null; ) {
            Chunk next = c.next;
            c.next = null;
            ChunkPool.give(c);
            c = next;
        }
        consumer.chunk = null;
        producer.chunk = null;
        for (int i = 0; i < SPARES; i++) {
            if (spares[i] != null) ChunkPool.give(spares[i]);
            spares[i] = null;
        }
    }

    @Override
    public String toString() {
        return "StreamPipe[" + used() + " bytes held, " + tail() + " written]";
    }

    /**
     * Chunks shared by all pipes of the process: taken when a pipe starts or its spares run out, given back when
     * both of its ends are gone or its spares overflow. Bounded, so an idle process does not keep a burst's
     * memory.
     */
    private static final class ChunkPool {
        private static final int MAX = 256;
        private static final Chunk[] FREE = new Chunk[MAX];
        private static int count;

        static Chunk take() {
            synchronized (FREE) {
                if (count > 0) {
                    Chunk c = FREE[--count];
                    FREE[count] = null;
                    return c;
                }
            }
            return new Chunk();
        }

        static void give(Chunk c) {
            synchronized (FREE) {
                if (count < MAX) FREE[count++] = c;
            }
        }
    }
}
