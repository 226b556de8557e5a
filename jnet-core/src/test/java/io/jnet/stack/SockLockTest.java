package io.jnet.stack;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** SockLock: lock_sock/release_sock with a backlog, deferred timer work and sk_wait_event. */
class SockLockTest {
    final SockLock lock = new SockLock();
    final List<String> processed = Collections.synchronizedList(new ArrayList<>());
    final List<Integer> deferred = Collections.synchronizedList(new ArrayList<>());

    SockLockTest() {
        lock.setProcessor(p -> processed.add("pkt" + p.seq + (lock.isOwned() ? "@owner" : "@bh")));
        lock.setDeferredWork(deferred::add);
    }

    static PacketBuffer packet(int seq, int size) {
        PacketBuffer p = PacketBuffer.allocate(0, size);
        p.put(size);
        p.seq = seq;
        return p;
    }

    @Test
    void packetsAreProcessedAtOnceWhenNobodyOwnsTheSocket() {
        assertThat(lock.backlogOrProcess(packet(1, 10), 1000)).isTrue();
        assertThat(processed).containsExactly("pkt1@bh");
    }

    @Test
    void packetsArrivingWhileOwnedWaitInTheBacklogUntilRelease() {
        lock.lock();
        assertThat(lock.backlogOrProcess(packet(1, 10), 1000)).isTrue();
        assertThat(lock.backlogOrProcess(packet(2, 10), 1000)).isTrue();
        assertThat(processed).isEmpty();
        lock.release();
        assertThat(processed).as("in arrival order, by the releasing owner").containsExactly("pkt1@owner", "pkt2@owner");
        lock.backlogOrProcess(packet(3, 10), 1000);
        assertThat(processed).last().isEqualTo("pkt3@bh");
    }

    @Test
    void theBacklogIsBoundedByTruesize() {
        lock.lock();
        assertThat(lock.backlogOrProcess(packet(1, 600), 1000)).isTrue();
        PacketBuffer big = packet(2, 600);
        assertThat(lock.backlogOrProcess(big, 1000)).as("over the limit: dropped").isFalse();
        assertThat(big.isReleased()).isTrue();
        lock.release();
        assertThat(processed).containsExactly("pkt1@owner");
    }

    @Test
    void timerWorkIsDeferredToReleaseWhileOwnedAndFlagsMerge() {
        lock.deferOrRun(1);
        assertThat(deferred).containsExactly(1);
        lock.lock();
        lock.deferOrRun(2);
        lock.deferOrRun(4);
        lock.deferOrRun(2);
        assertThat(deferred).containsExactly(1);
        lock.release();
        assertThat(deferred).containsExactly(1, 6);
    }

    @Test
    void runIfNotOwnedSkipsWhileOwned() {
        AtomicBoolean ran = new AtomicBoolean();
        lock.lock();
        assertThat(lock.runIfNotOwned(() -> ran.set(true))).isFalse();
        lock.release();
        assertThat(lock.runIfNotOwned(() -> ran.set(true))).isTrue();
        assertThat(ran).isTrue();
    }

    @Test
    void awaitGivesUpOwnershipSoThePacketIsProcessedAtOnceAndWakesTheWaiter() throws Exception {
        CountDownLatch waiting = new CountDownLatch(1);
        AtomicBoolean woke = new AtomicBoolean();
        SockLock l = new SockLock();
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        l.setProcessor(p -> {
            seen.add("pkt" + p.seq);
            l.wakeUp();
        });
        l.setDeferredWork(f -> { });
        Thread owner = Thread.ofPlatform().start(() -> {
            l.lock();
            try {
                waiting.countDown();
                while (seen.isEmpty()) woke.set(l.await(TimeUnit.SECONDS.toNanos(10)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                l.release();
            }
        });
        assertThat(waiting.await(5, TimeUnit.SECONDS)).isTrue();
        // the owner may not be asleep yet: either way the packet must be processed and the owner woken
        assertThat(l.backlogOrProcess(packet(7, 10), 1000)).isTrue();
        owner.join(5000);
        assertThat(owner.isAlive()).isFalse();
        assertThat(woke).isTrue();
        assertThat(seen).containsExactly("pkt7");
    }

    @Test
    void awaitTimesOut() throws Exception {
        lock.lock();
        try {
            long t0 = System.nanoTime();
            assertThat(lock.await(TimeUnit.MILLISECONDS.toNanos(20))).isFalse();
            assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
            assertThat(lock.isOwned()).as("owned again after the wait").isTrue();
        } finally {
            lock.release();
        }
    }

    @Test
    void lockIsExclusiveBetweenApplicationThreads() throws Exception {
        int[] counter = {0};
        Thread[] ts = new Thread[4];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = Thread.ofPlatform().start(() -> {
                for (int k = 0; k < 10_000; k++) {
                    lock.lock();
                    try {
                        counter[0]++;
                    } finally {
                        lock.release();
                    }
                }
            });
        }
        for (Thread t : ts) t.join();
        assertThat(counter[0]).isEqualTo(40_000);
    }

    @Test
    void aWakeUpFromTheReceivePathUnparksTheWaiterOnlyAfterTheShortLockIsReleased() throws Exception {
        SockLock l = new SockLock();
        AtomicBoolean woke = new AtomicBoolean();
        CountDownLatch waiting = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            l.lock();
            try {
                waiting.countDown();
                woke.set(l.await(TimeUnit.SECONDS.toNanos(10)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                l.release();
            }
        });
        List<String> blockerDuringProcessing = new ArrayList<>();
        l.setProcessor(p -> {
            l.wakeUp(); // sk_data_ready with the short lock held, as TCP input does
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Object blocker = java.util.concurrent.locks.LockSupport.getBlocker(waiter);
            blockerDuringProcessing.add(blocker == null ? "running" : blocker.getClass().getSimpleName());
        });
        waiter.start();
        assertThat(waiting.await(5, TimeUnit.SECONDS)).isTrue();
        while (waiter.getState() != Thread.State.WAITING && waiter.getState() != Thread.State.TIMED_WAITING) Thread.onSpinWait();
        Thread.sleep(50); // parked in await, the socket no longer owned
        assertThat(l.backlogOrProcess(packet(1, 10), 1000)).isTrue();
        waiter.join(5000);
        assertThat(woke).isTrue();
        assertThat(blockerDuringProcessing)
                .as("still parked in await, not woken early to block again on the short lock")
                .containsExactly("Waiter");
    }

    @Test
    void theWakeListenerRunsAfterTheShortLockIsReleasedOrAtOnceWithoutIt() {
        SockLock l = new SockLock();
        List<String> order = new ArrayList<>();
        l.setWakeListener(() -> order.add("listener"));
        l.setProcessor(p -> {
            l.wakeUp();
            order.add("processed");
        });
        l.backlogOrProcess(packet(1, 10), 1000);
        assertThat(order).as("from the receive path: after processing, before backlogOrProcess returns")
                .containsExactly("processed", "listener");
        order.clear();
        l.lock();
        l.wakeUp(); // an owner without the short lock (close, shutdown): at once
        order.add("after wakeUp");
        l.release();
        assertThat(order).containsExactly("listener", "after wakeUp");
    }

    @Test
    void oneWakeUpFromTheReceivePathWakesEveryWaiter() throws Exception {
        SockLock l = new SockLock();
        l.setProcessor(p -> l.wakeUp());
        int n = 4; // one first thread and three more: more than the first spare slots
        CountDownLatch parked = new CountDownLatch(n);
        List<Boolean> woke = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {
                l.lock();
                try {
                    parked.countDown();
                    woke.add(l.await(TimeUnit.SECONDS.toNanos(10)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    l.release();
                }
            });
            threads.add(t);
            t.start();
        }
        assertThat(parked.await(5, TimeUnit.SECONDS)).isTrue();
        for (Thread t : threads) {
            while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) Thread.onSpinWait();
        }
        Thread.sleep(50);
        assertThat(l.backlogOrProcess(packet(1, 10), 1000)).isTrue();
        for (Thread t : threads) t.join(5000);
        assertThat(woke).as("each woken by the wake-up, none by its 10 s timeout").containsExactly(true, true, true, true);
    }
}
