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
import org.openjdk.jmh.runner.IterationType;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Control;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * {@link PacketPool}'s two designs when a buffer is allocated on one thread and released on another, as on
 * the TCP paths (the writer allocates a segment and the ACK path frees it; the receive path allocates
 * and the reader frees). Every buffer is a 1500-byte frame with 128 bytes of headroom, i.e. the
 * pool's 1792-byte size class (64 rounds per magazine).
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
 * {@code mode=magazines} uses a {@link PacketPool#PacketPool() PacketPool} (per-thread magazines in front of the
 * classes' depots, one lock entry per 64 buffers); {@code mode=pool} uses {@link PacketPool#sharedClasses()} (one
 * lock per class that every allocation and release takes); {@code mode=plain} uses {@link PacketAllocator#HEAP}
 * (a new buffer and array per call, the garbage collector frees them), the cost the pools save.
 * Once warm, the pools allocate nothing: {@code -prof gc} shows about 0 B/op for {@code magazines} and {@code pool}
 * (the ring, the spin/yield waits and the counters allocate nothing either). {@code plain} allocates about 1.8 KB per
 * buffer; in the hand-off groups {@code gc.alloc.rate.norm} divides by the group's ops (producer plus
 * consumer calls), so it shows about 900 B/op there.
 *
 * <p>For the pools, the last trial teardown prints the lock entries and contended lock entries
 * ({@link PacketAllocator#lockEntries()}, {@link PacketAllocator#contendedLockEntries()}) per buffer over the
 * measurement iterations, as a line starting with {@code locks:}; a buffer is one allocation and one release.
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
    /** Slots per ring: T rings of this many in flight (plus the threads' magazines) stay well below the class's 2048 free buffers. */
    static final int RING_SLOTS = 256;
    /** Busy-wait rounds before a waiting thread yields. */
    static final int SPINS = 64;

    /** The allocator, shared by all threads of a run. */
    @State(Scope.Benchmark)
    public static class Allocator {
        @Param({"magazines", "pool", "plain"})
        public String mode;

        PacketAllocator allocator;
        /** The threads' buffer counts; registered at set-up, read at iteration teardown when the threads are quiet. */
        final java.util.List<Buffers> counters = new java.util.concurrent.CopyOnWriteArrayList<>();
        /** Buffers and lock entries (all, contended) at the start of the iteration, and sums over measurement iterations. */
        long buffersAtStart, locksAtStart, contendedAtStart;
        long buffers, locks, contended;

        @Setup(Level.Trial)
        public void setup() {
            allocator = switch (mode) {
                case "magazines" -> new PacketPool();
                case "pool" -> PacketPool.sharedClasses();
                case "plain" -> PacketAllocator.HEAP;
                default -> throw new IllegalArgumentException("mode: magazines, pool or plain, not " + mode);
            };
        }

        private long buffersSoFar() {
            long n = 0;
            for (Buffers b : counters) n += b.count;
            return n;
        }

        @Setup(Level.Iteration)
        public void startIteration() {
            buffersAtStart = buffersSoFar();
            locksAtStart = allocator.lockEntries();
            contendedAtStart = allocator.contendedLockEntries();
        }

        @TearDown(Level.Iteration)
        public void endIteration(IterationParams iteration) {
            if (iteration.getType() != IterationType.MEASUREMENT) return;
            buffers += buffersSoFar() - buffersAtStart;
            locks += allocator.lockEntries() - locksAtStart;
            contended += allocator.contendedLockEntries() - contendedAtStart;
        }

        @TearDown(Level.Trial)
        public void report(BenchmarkParams params) {
            if (allocator == PacketAllocator.HEAP || buffers == 0) return;
            String group = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
            System.out.printf("%nlocks: %s mode=%s threads=%d: %.4f lock entries/buffer, %.4f contended/buffer (%d buffers)%n",
                    group, mode, params.getThreads(), (double) locks / buffers, (double) contended / buffers, buffers);
        }
    }

    /** Buffers a thread allocated (producers and same-thread loops), for the lock entries per buffer. */
    @State(Scope.Thread)
    public static class Buffers {
        long count;

        @Setup(Level.Trial)
        public void register(Allocator a) {
            a.counters.add(this);
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
    private static void produce(Allocator a, Buffers n, Rings rings, ThreadParams params, Control control) {
        Ring ring = rings.ring(params);
        PacketBuffer b = a.allocator.allocate(HEADROOM, SIZE);
        n.count++;
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
    public void produce1(Allocator a, Buffers n, Rings rings, ThreadParams params, Control control) {
        produce(a, n, rings, params, control);
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
    public void produce2(Allocator a, Buffers n, Rings rings, ThreadParams params, Control control) {
        produce(a, n, rings, params, control);
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
    public PacketBuffer sameThread1(Allocator a, Buffers n) {
        PacketBuffer b = a.allocator.allocate(HEADROOM, SIZE);
        n.count++;
        b.release();
        return b; // escapes to JMH, so plain mode really allocates
    }

    @Benchmark
    @Group("sameThreadT2")
    @GroupThreads(2)
    public PacketBuffer sameThread2(Allocator a, Buffers n) {
        PacketBuffer b = a.allocator.allocate(HEADROOM, SIZE);
        n.count++;
        b.release();
        return b; // escapes to JMH, so plain mode really allocates
    }
}
