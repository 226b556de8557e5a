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
 * consumer moves the head ({@code head}); each side reads the other's count to know how much it may copy.
 * Each count sits on its own cache line. Drained chunks go back to the producer through a small ring of
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

    /** The consumer's published state, alone on its cache lines. */
    @SuppressWarnings("unused")
    private static final class ConsumerSide {
        long p00, p01, p02, p03, p04, p05, p06, p07;
        /** Bytes ever consumed. */
        volatile long head;
        volatile boolean waiting;
        /** Spares handed back, written by the consumer only. */
        volatile int sparesIn;
        long p10, p11, p12, p13, p14, p15, p16, p17;
    }

    /** The producer's published state, alone on its cache lines. */
    @SuppressWarnings("unused")
    private static final class ProducerSide {
        long p00, p01, p02, p03, p04, p05, p06, p07;
        /** Bytes ever produced. */
        volatile long tail;
        volatile boolean waiting;
        /** Spares taken, written by the producer only. */
        volatile int sparesOut;
        long p10, p11, p12, p13, p14, p15, p16, p17;
    }

    private final ConsumerSide consumer = new ConsumerSide();
    private final ProducerSide producer = new ProducerSide();
    private final Chunk[] spares = new Chunk[SPARES];
    /** Producer-private: where the next byte goes. */
    private Chunk tailChunk;
    private int tailPos;
    /** Consumer-private: where the next byte comes from. */
    private Chunk headChunk;
    private int headPos;
    private final AtomicInteger ends = new AtomicInteger(2);
    /** The consumer's head when it stopped reading for good ({@link #markConsumerClosed}), -1 before. */
    private volatile long consumerClosedAt = -1;

    public StreamPipe() {
        Chunk c = ChunkPool.take();
        tailChunk = c;
        headChunk = c;
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
        int done = 0;
        while (done < n) {
            int k = Math.min(n - done, reserve());
            System.arraycopy(src, off + done, tailChunk.data, tailPos, k);
            tailPos += k;
            done += k;
        }
        return publish(n);
    }

    /** {@link #write(byte[], int, int, long)} from {@code src}'s position, which advances by the count. */
    public int write(ByteBuffer src, int len, long limit) {
        int n = room(Math.min(len, src.remaining()), limit);
        int done = 0;
        while (done < n) {
            int k = Math.min(n - done, reserve());
            src.get(tailChunk.data, tailPos, k);
            tailPos += k;
            done += k;
        }
        return publish(n);
    }

    /** {@link #write(byte[], int, int, long)} from a file mapping (sendfile): {@code len} bytes at {@code offset}. */
    public int write(PayloadRegion src, long offset, int len, long limit) {
        int n = room(len, limit);
        int done = 0;
        while (done < n) {
            int k = Math.min(n - done, reserve());
            src.read(offset + done, tailChunk.data, tailPos, k);
            tailPos += k;
            done += k;
        }
        return publish(n);
    }

    private int room(int len, long limit) {
        long free = limit - used();
        if (free <= 0 || len <= 0) return 0;
        return (int) Math.min(len, free);
    }

    /** Room left in the tail chunk, linking a new chunk when it is full. */
    private int reserve() {
        int room = CHUNK - tailPos;
        if (room > 0) return room;
        Chunk c = takeSpare();
        tailChunk.next = c; // published to the consumer by the tail count written after it
        tailChunk = c;
        tailPos = 0;
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
    public void producerWaits() { producer.waiting = true; }

    /** True (once) when the consumer announced it waits for data ({@link #consumerWaits}): wake it. */
    public boolean takeConsumerWaiting() {
        if (!consumer.waiting) return false;
        consumer.waiting = false;
        return true;
    }

    /** Ends the producer's side: it writes no more. */
    public void detachProducer() { detach(); }

    // ------------------------------------------------------------------------------------------ consumer

    /** Copies up to {@code len} available bytes into {@code dst} at {@code off}; returns how many. */
    public int read(byte[] dst, int off, int len) {
        int n = (int) Math.min(len, used());
        int done = 0;
        while (done < n) {
            int k = Math.min(n - done, advanceHead());
            System.arraycopy(headChunk.data, headPos, dst, off + done, k);
            headPos += k;
            done += k;
        }
        return consume(n);
    }

    /** {@link #read(byte[], int, int)} into {@code dst} at its position, which advances by the count. */
    public int read(ByteBuffer dst, int len) {
        int n = (int) Math.min(Math.min(len, dst.remaining()), used());
        int done = 0;
        while (done < n) {
            int k = Math.min(n - done, advanceHead());
            dst.put(headChunk.data, headPos, k);
            headPos += k;
            done += k;
        }
        return consume(n);
    }

    /** Drops up to {@code len} available bytes unread; returns how many. */
    public long skip(long len) {
        long n = Math.min(len, used());
        long done = 0;
        while (done < n) {
            int k = (int) Math.min(n - done, advanceHead());
            headPos += k;
            done += k;
        }
        consumer.head = consumer.head + n;
        return n;
    }

    /** Bytes readable in the head chunk, moving to the next chunk (and recycling this one) when it is drained. */
    private int advanceHead() {
        int left = CHUNK - headPos;
        if (left > 0) return left;
        Chunk old = headChunk;
        headChunk = old.next; // linked before the tail count that made these bytes available
        headPos = 0;
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
    public void consumerWaits() { consumer.waiting = true; }

    /**
     * True (once) when the producer announced it waits for room and at least {@code minFree} bytes are free
     * under {@code limit}: wake it.
     */
    public boolean takeProducerWaiting(long limit, long minFree) {
        if (!producer.waiting || limit - used() < minFree) return false;
        producer.waiting = false;
        return true;
    }

    /**
     * Records that the consumer will read no more, before it drops what is left: {@link #finalHead()} then tells
     * the producer which of its bytes were read.
     */
    public void markConsumerClosed() {
        if (consumerClosedAt < 0) consumerClosedAt = consumer.head;
    }

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
        for (Chunk c = headChunk; c != null; ) {
            Chunk next = c.next;
            c.next = null;
            ChunkPool.give(c);
            c = next;
        }
        headChunk = null;
        tailChunk = null;
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
