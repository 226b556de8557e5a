package io.jnet.bench;

import io.jnet.buffer.PacketAllocator;
import io.jnet.buffer.PacketBuffer;
import io.jnet.buffer.PacketPool;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Today's {@link PacketPool} when a buffer is allocated on one thread and released on another, as on
 * the TCP paths (the writer allocates a segment and the ACK path frees it; the receive path allocates
 * and the reader frees). Every buffer is a 1500-byte frame with 128 bytes of headroom, i.e. the
 * pool's 1792-byte size class.
 *
 * <p>Groups:
 * <ul>
 *   <li>{@code handoffT1}, {@code handoffT2}: T = 1 or 2 producer/consumer pairs. Producer i allocates a
 *       buffer and puts it on ring i (a bounded single-producer/single-consumer array ring, 256 slots,
 *       allocation-free); consumer i takes it off and releases it. All pairs share one pool, so at T = 2
 *       two allocating and two releasing threads meet on the size class's monitor.
 *       The {@code :produce1} or {@code :produce2} sub-score is the figure: buffers allocated, handed over and released per
 *       microsecond, summed over the T producers (the ring is bounded, so consumers release at the same
 *       rate). The group's own score adds the consumers' calls and so counts each buffer twice.</li>
 *   <li>{@code sameThreadT1}, {@code sameThreadT2}: for reference, T threads each allocating and
 *       releasing the buffer on the same thread with nothing in between; score in allocate+release
 *       pairs per microsecond, summed over the T threads.</li>
 * </ul>
 * {@code mode=pool} uses a {@link PacketPool}; {@code mode=plain} uses {@link PacketAllocator#HEAP}
 * (a new buffer and array per call, the garbage collector frees them), the cost the pool saves.
 * Once warm, the pool allocates nothing: {@code -prof gc} shows about 0 B/op for {@code mode=pool}
 * (the ring and the spin/yield waits allocate nothing either). {@code plain} allocates about 1.8 KB per
 * buffer; in the hand-off groups {@code gc.alloc.rate.norm} divides by the group's ops (producer plus
 * consumer calls), so it shows about 900 B/op there.
 *
 * <p>Waiting threads spin briefly and then {@link Thread#yield() yield}, so runs with more threads than
 * cores (T = 2 needs four) still progress; on such machines the T = 2 figures include scheduling.
 *
 * <p>Run: {@code ./bench.sh 'PacketPoolBenchmark' -prof gc}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PacketPoolBenchmark {
    static final int HEADROOM = 128;
    static final int SIZE = 1500;
    /** Slots per ring: T rings of this many in flight stay well below the class's 2048 free buffers. */
    static final int RING_SLOTS = 256;
    /** Busy-wait rounds before a waiting thread yields. */
    static final int SPINS = 64;

    /** The allocator, shared by all threads of a run. */
    @State(Scope.Benchmark)
    public static class Allocator {
        @Param({"pool", "plain"})
        public String mode;

        PacketAllocator allocator;

        @Setup(Level.Trial)
        public void setup() {
            allocator = switch (mode) {
                case "pool" -> new PacketPool();
                case "plain" -> PacketAllocator.HEAP;
                default -> throw new IllegalArgumentException("mode: pool or plain, not " + mode);
            };
        }
    }

    /** One ring per producer/consumer pair of a group. */
    @State(Scope.Group)
    public static class Rings {
        final Ring[] rings = new Ring[2];

        @Setup(Level.Trial)
        public void setup() {
            for (int i = 0; i < rings.length; i++) rings[i] = new Ring(RING_SLOTS);
        }

        /** Releases what the producers left behind when a measurement stopped. */
        @TearDown(Level.Iteration)
        public void drain() {
            for (Ring r : rings) {
                PacketBuffer b;
                while ((b = r.poll()) != null) b.release();
            }
        }

        Ring ring(ThreadParams params) {
            return rings[params.getSubgroupThreadIndex()];
        }
    }

    /**
     * Bounded single-producer/single-consumer ring: the producer owns {@code tail}, the consumer
     * {@code head}; the slot write is published by the release store of {@code tail} and the slot is
     * handed back by the release store of {@code head}. Indices are padded apart to avoid false sharing.
     */
    static final class Ring {
        private static final VarHandle HEAD;
        private static final VarHandle TAIL;

        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                HEAD = l.findVarHandle(Ring.class, "head", long.class);
                TAIL = l.findVarHandle(Ring.class, "tail", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final PacketBuffer[] slots;
        private final int mask;
        long p00, p01, p02, p03, p04, p05, p06, p07;
        private long head;
        long p10, p11, p12, p13, p14, p15, p16, p17;
        private long tail;
        long p20, p21, p22, p23, p24, p25, p26, p27;

        Ring(int capacity) {
            if (Integer.bitCount(capacity) != 1) throw new IllegalArgumentException("capacity not a power of two");
            slots = new PacketBuffer[capacity];
            mask = capacity - 1;
        }

        /** Producer side: false when full. */
        boolean offer(PacketBuffer b) {
            long t = tail;
            if (t - (long) HEAD.getAcquire(this) == slots.length) return false;
            slots[(int) t & mask] = b;
            TAIL.setRelease(this, t + 1);
            return true;
        }

        /** Consumer side: null when empty. */
        PacketBuffer poll() {
            long h = head;
            if (h == (long) TAIL.getAcquire(this)) return null;
            int i = (int) h & mask;
            PacketBuffer b = slots[i];
            slots[i] = null;
            HEAD.setRelease(this, h + 1);
            return b;
        }
    }

    private static void pause(int spins) {
        if (spins < SPINS) Thread.onSpinWait();
        else Thread.yield();
    }

    /** Allocates a buffer and hands it to the paired consumer; waits while the ring is full. */
    private static void produce(Allocator a, Rings rings, ThreadParams params, Control control) {
        Ring ring = rings.ring(params);
        PacketBuffer b = a.allocator.allocate(HEADROOM, SIZE);
        for (int spins = 0; !ring.offer(b); spins++) {
            if (control.stopMeasurement) {
                b.release();
                return;
            }
            pause(spins);
        }
    }

    /** Takes a buffer from the paired producer and releases it; waits while the ring is empty. */
    private static void consume(Rings rings, ThreadParams params, Control control) {
        Ring ring = rings.ring(params);
        PacketBuffer b;
        for (int spins = 0; (b = ring.poll()) == null; spins++) {
            if (control.stopMeasurement) return;
            pause(spins);
        }
        b.release();
    }

    @Benchmark
    @Group("handoffT1")
    @GroupThreads(1)
    public void produce1(Allocator a, Rings rings, ThreadParams params, Control control) {
        produce(a, rings, params, control);
    }

    @Benchmark
    @Group("handoffT1")
    @GroupThreads(1)
    public void consume1(Rings rings, ThreadParams params, Control control) {
        consume(rings, params, control);
    }

    @Benchmark
    @Group("handoffT2")
    @GroupThreads(2)
    public void produce2(Allocator a, Rings rings, ThreadParams params, Control control) {
        produce(a, rings, params, control);
    }

    @Benchmark
    @Group("handoffT2")
    @GroupThreads(2)
    public void consume2(Rings rings, ThreadParams params, Control control) {
        consume(rings, params, control);
    }

    @Benchmark
    @Group("sameThreadT1")
    @GroupThreads(1)
    public PacketBuffer sameThread1(Allocator a) {
        PacketBuffer b = a.allocator.allocate(HEADROOM, SIZE);
        b.release();
        return b; // escapes to JMH, so plain mode really allocates
    }

    @Benchmark
    @Group("sameThreadT2")
    @GroupThreads(2)
    public PacketBuffer sameThread2(Allocator a) {
        PacketBuffer b = a.allocator.allocate(HEADROOM, SIZE);
        b.release();
        return b; // escapes to JMH, so plain mode really allocates
    }
}
