package io.jnet.buffer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@link PacketPool}'s per-thread magazines: reuse, cross-thread hand-off, dead threads, virtual threads, double release. */
class PacketPoolMagazineTest {
    /** A 1500-byte frame with headroom: the 1792-byte class, 64 rounds per magazine. */
    static final int HEADROOM = 128, SIZE = 1500;

    @Test
    void defaultPoolAndAllocatorNamesUseMagazines() {
        assertThat(new PacketPool().usesMagazines()).isTrue();
        assertThat(PacketPool.sharedClasses().usesMagazines()).isFalse();
        assertThat(PacketAllocators.DEFAULT).isEqualTo("magazines");
        assertThat(PacketAllocators.names()).containsExactly("magazines", "pool", "heap");
        assertThat(((PacketPool) PacketAllocators.create("magazines")).usesMagazines()).isTrue();
        assertThat(((PacketPool) PacketAllocators.create("pool")).usesMagazines()).isFalse();
        assertThat(PacketAllocators.create("heap")).isSameAs(PacketAllocator.HEAP);
    }

    @Test
    void sameThreadReusesBuffersWithoutLocksOnceWarm() {
        PacketPool pool = new PacketPool();
        List<PacketBuffer> held = new ArrayList<>();
        for (int i = 0; i < 100; i++) held.add(pool.allocate(HEADROOM, SIZE));
        held.forEach(PacketBuffer::release);
        long created = pool.created();
        long locks = pool.lockEntries();
        for (int round = 0; round < 1000; round++) {
            held.clear();
            for (int i = 0; i < 50; i++) held.add(pool.allocate(HEADROOM, SIZE));
            held.forEach(PacketBuffer::release);
        }
        assertThat(pool.created()).isEqualTo(created);
        assertThat(pool.lockEntries()).isEqualTo(locks);
        assertThat(pool.freeBuffers()).isEqualTo(100);
    }

    @Test
    void crossThreadHandOffReusesBuffersWithAboutOneLockEntryPerMagazine() throws Exception {
        PacketPool pool = new PacketPool();
        int pairs = 3, perProducer = 200_000;
        List<Thread> threads = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int p = 0; p < pairs; p++) {
            BlockingQueue<PacketBuffer> q = new ArrayBlockingQueue<>(256);
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < perProducer; i++) q.put(pool.allocate(HEADROOM, SIZE));
                } catch (Throwable e) {
                    failure.set(e);
                }
            }));
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < perProducer; i++) q.take().release();
                } catch (Throwable e) {
                    failure.set(e);
                }
            }));
        }
        for (Thread t : threads) t.join();
        assertThat(failure.get()).isNull();
        long buffers = (long) pairs * perProducer;
        // in flight at most 3 queues of 256 plus each thread's two magazines and the depot
        assertThat(pool.created()).isLessThan(pairs * (256 + 4 * 64) + 2048);
        assertThat((double) pool.lockEntries() / buffers).isLessThan(0.1);
        pool.reclaimDeadThreads();
        assertThat(pool.freeBuffers()).isLessThanOrEqualTo((int) pool.created()).isPositive();
    }

    @Test
    void sharedClassesTakeALockPerAllocationAndRelease() {
        PacketPool pool = PacketPool.sharedClasses();
        for (int i = 0; i < 100; i++) pool.allocate(HEADROOM, SIZE).release();
        assertThat(pool.lockEntries()).isEqualTo(200);
        assertThat(pool.created()).isEqualTo(1);
        assertThat(pool.freeBuffers()).isEqualTo(1);
    }

    @Test
    void aThreadThatEndsReturnsItsBuffers() throws Exception {
        PacketPool pool = new PacketPool();
        Thread t = Thread.ofPlatform().start(() -> {
            List<PacketBuffer> held = new ArrayList<>();
            for (int i = 0; i < 100; i++) held.add(pool.allocate(HEADROOM, SIZE)); // 1792-byte class
            for (int i = 0; i < 10; i++) held.add(pool.allocate(0, 100)); // 512-byte class
            held.forEach(PacketBuffer::release);
        });
        t.join();
        assertThat(pool.created()).isEqualTo(110);
        assertThat(pool.reclaimDeadThreads()).isEqualTo(1);
        assertThat(pool.reclaimDeadThreads()).isZero();
        assertThat(pool.freeBuffers()).isEqualTo(110);
        // this thread gets them from the depot instead of creating new ones
        List<PacketBuffer> again = new ArrayList<>();
        for (int i = 0; i < 100; i++) again.add(pool.allocate(HEADROOM, SIZE));
        for (int i = 0; i < 10; i++) again.add(pool.allocate(0, 100));
        assertThat(pool.created()).isEqualTo(110);
        again.forEach(PacketBuffer::release);
    }

    @Test
    void aPoolNoLongerUsedIsNotKeptByTheThreadsThatUsedIt() {
        java.lang.ref.WeakReference<PacketPool> ref = useAndDropAPool();
        for (int i = 0; i < 50 && ref.get() != null; i++) System.gc();
        assertThat(ref.get()).isNull();
    }

    private static java.lang.ref.WeakReference<PacketPool> useAndDropAPool() {
        PacketPool pool = new PacketPool();
        List<PacketBuffer> held = new ArrayList<>();
        for (int i = 0; i < 10; i++) held.add(pool.allocate(HEADROOM, SIZE));
        held.forEach(PacketBuffer::release); // now in this thread's magazines
        return new java.lang.ref.WeakReference<>(pool);
    }

    @Test
    void virtualThreadsUseTheDepot() throws Exception {
        PacketPool pool = new PacketPool();
        int threads = 50, each = 1000;
        Set<PacketBuffer> seen = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
        List<Thread> vts = new ArrayList<>();
        for (int v = 0; v < threads; v++) {
            vts.add(Thread.ofVirtual().start(() -> {
                for (int i = 0; i < each; i++) {
                    PacketBuffer b = pool.allocate(HEADROOM, SIZE);
                    seen.add(b);
                    b.put(new byte[] {1, 2, 3}, 0, 3);
                    b.release();
                }
            }));
        }
        for (Thread t : vts) t.join();
        assertThat(pool.created()).isLessThanOrEqualTo(threads).isEqualTo(seen.size());
        assertThat(pool.freeBuffers()).isEqualTo(seen.size());
        // one lock entry per allocation and per release
        assertThat(pool.lockEntries()).isEqualTo(2L * threads * each);
        assertThat(pool.reclaimDeadThreads()).isZero();
    }

    @Test
    void doubleReleaseIsCaughtAndTheBufferHandedOutOnce() {
        for (boolean[] design : new boolean[][] {{true, true}, {false, true}, {true, false}}) {
            boolean debug = design[1];
            List<Throwable> reported = new ArrayList<>(); // debug mode's report, instead of standard error
            PacketPool pool = new PacketPool(design[0], debug, reported::add);
            PacketBuffer b = pool.allocate(HEADROOM, SIZE);
            b.release();
            b.release(); // the buffer's own guard: a no-op
            assertThat(pool.doubleReleases()).isZero();
            b.reset(0); // wrongly reused after release, then released again: reaches the pool twice
            b.release();
            assertThat(pool.doubleReleases()).as("magazines %s", pool.usesMagazines()).isEqualTo(1);
            if (debug) {
                assertDoubleReleaseReport(reported);
            } else {
                assertThat(reported).as("no report without debug mode").isEmpty();
            }
            assertThat(pool.freeBuffers()).isEqualTo(1);
            PacketBuffer x = pool.allocate(HEADROOM, SIZE);
            PacketBuffer y = pool.allocate(HEADROOM, SIZE);
            assertThat(x).isSameAs(b);
            assertThat(y).isNotSameAs(b);
        }
    }

    @Test
    void doubleReleaseFromAVirtualThreadIsCaught() throws Exception {
        List<Throwable> reported = Collections.synchronizedList(new ArrayList<>());
        PacketPool pool = new PacketPool(true, true, reported::add);
        Thread.ofVirtual().start(() -> {
            PacketBuffer b = pool.allocate(HEADROOM, SIZE);
            b.release();
            b.reset(0);
            b.release();
        }).join();
        assertThat(pool.doubleReleases()).isEqualTo(1);
        assertThat(pool.freeBuffers()).isEqualTo(1);
        assertDoubleReleaseReport(reported);
    }

    /** Debug mode reported one double release, with where the first release happened. */
    private static void assertDoubleReleaseReport(List<Throwable> reported) {
        assertThat(reported).singleElement().satisfies(t -> {
            assertThat(t).hasMessage("double release; first:");
            assertThat(t.getCause()).as("the first release").isNotNull().hasMessage("released here");
        });
    }

    @Test
    void nothingIsHandedOutTwiceAcrossThreads() throws Exception {
        PacketPool pool = new PacketPool();
        Set<PacketBuffer> live = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
        AtomicReference<String> failure = new AtomicReference<>();
        int workers = 4, rounds = 2000;
        CountDownLatch start = new CountDownLatch(1);
        List<Queue<PacketBuffer>> queues = new ArrayList<>();
        for (int w = 0; w < workers; w++) queues.add(new ConcurrentLinkedQueue<>());
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            int me = w;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    for (int r = 0; r < rounds; r++) {
                        int n = 1 + (r * 7 + me) % 100;
                        for (int i = 0; i < n; i++) {
                            PacketBuffer b = pool.allocate(i % 3 == 0 ? 0 : HEADROOM, i % 3 == 0 ? 100 : SIZE);
                            if (!live.add(b)) failure.set("handed out twice: " + b);
                            queues.get((me + 1 + i) % workers).offer(b); // another thread releases it
                        }
                        PacketBuffer b;
                        while ((b = queues.get(me).poll()) != null) {
                            if (!live.remove(b)) failure.set("released a buffer not live: " + b);
                            b.release();
                        }
                    }
                } catch (InterruptedException e) {
                    failure.set(e.toString());
                }
            }));
        }
        start.countDown();
        for (Thread t : threads) t.join();
        assertThat(failure.get()).isNull();
        for (Queue<PacketBuffer> q : queues) {
            PacketBuffer b;
            while ((b = q.poll()) != null) {
                assertThat(live.remove(b)).isTrue();
                b.release();
            }
        }
        assertThat(live).isEmpty();
        assertThat(pool.doubleReleases()).isZero();
        pool.reclaimDeadThreads();
        assertThat(pool.freeBuffers()).isLessThanOrEqualTo((int) pool.created());
    }
}
