package io.jnet.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Shared data: {@link PacketBuffer#cloneShared()} and the reference count on the data (Linux skb_clone, dataref). */
class PacketBufferCloneTest {
    private final AtomicInteger freed = new AtomicInteger();

    /** An original of {@code n} pattern bytes behind 200 bytes of headroom, whose hook counts frees. */
    private PacketBuffer original(int n) {
        PacketBuffer b = PacketBuffer.allocate(200, n + 64);
        for (int i = 0; i < n; i++) b.array()[b.put(1)] = (byte) (i * 7 + 3);
        b.setReleaseHook(x -> freed.incrementAndGet());
        return b;
    }

    @Test
    void aCloneSharesTheBytesAndTheDataIsFreedOnceWhenBothAreReleasedInEitherOrder() {
        for (boolean originalFirst : new boolean[] {true, false}) {
            freed.set(0);
            PacketBuffer o = original(100);
            PacketBuffer c = o.cloneShared();
            assertThat(c.array()).isSameAs(o.array());
            assertThat(c.toBytes()).isEqualTo(o.toBytes());
            assertThat(c.isClone()).isTrue();
            assertThat(o.dataShared()).isTrue();
            assertThat(c.dataShared()).isTrue();
            (originalFirst ? o : c).release();
            assertThat(freed).hasValue(0);
            assertThat((originalFirst ? c : o).dataShared()).isFalse();
            (originalFirst ? c : o).release();
            assertThat(freed).hasValue(1);
            o.release();
            c.release();
            assertThat(freed).as("further releases are no-ops").hasValue(1);
        }
    }

    @Test
    void aCloneHasItsOwnBoundsAndPushesItsHeadersIntoTheHeadroom() {
        PacketBuffer o = original(100);
        PacketBuffer c = o.cloneShared();
        int at = c.push(40);
        for (int i = 0; i < 40; i++) c.array()[at + i] = 9;
        c.pull(60);
        assertThat(c.length()).isEqualTo(80);
        assertThat(o.length()).isEqualTo(100);
        assertThat(o.headroom()).isEqualTo(200);
        assertThat(o.toBytes()[0]).isEqualTo((byte) 3);
    }

    @Test
    void sharedBytesAreReadOnlyForAppendsAndCoalescing() {
        PacketBuffer o = original(100);
        PacketBuffer c = o.cloneShared();
        assertThatThrownBy(() -> o.put(1)).isInstanceOf(IllegalStateException.class).hasMessageContaining("shared");
        assertThatThrownBy(() -> c.put(1)).isInstanceOf(IllegalStateException.class);
        PacketBuffer small = PacketBuffer.copyOf(new byte[] {1, 2, 3}, 0, 3, 0);
        assertThat(c.tryCoalesce(small)).isFalse();
        assertThat(o.tryCoalesce(small)).isFalse();
        assertThat(c.length()).isEqualTo(100);
        c.release();
        assertThat(o.tryCoalesce(small)).as("no longer shared").isTrue();
        assertThat(o.length()).isEqualTo(103);
    }

    @Test
    void theSpareCloneHeaderIsReusedOnceTheDataIsNotSharedAndOtherwiseANewOneIsMade() {
        PacketBuffer o = original(10);
        PacketBuffer c1 = o.cloneShared();
        PacketBuffer c2 = o.cloneShared(); // c1 still alive: a new header
        assertThat(c2).isNotSameAs(c1);
        c1.release();
        c2.release();
        PacketBuffer c3 = o.cloneShared();
        assertThat(c3).as("the spare header again").isSameAs(c1);
        assertThat(c3.isReleased()).isFalse();
        c3.release();
        o.release();
        assertThat(freed).hasValue(1);
    }

    @Test
    void aCloneOfACloneCountsOnTheSameData() {
        PacketBuffer o = original(10);
        PacketBuffer c = o.cloneShared();
        PacketBuffer cc = c.cloneShared();
        o.release();
        c.release();
        assertThat(freed).hasValue(0);
        assertThat(cc.toBytes()).hasSize(10);
        cc.release();
        assertThat(freed).hasValue(1);
    }

    @Test
    void unshareCopiesSharedBytesSoAWriterCannotChangeTheOriginal() {
        PacketBuffer o = original(50);
        assertThat(o.unshare()).as("not shared: itself").isSameAs(o);
        PacketBuffer c = o.cloneShared();
        PacketBuffer w = c.unshare();
        assertThat(w).isNotSameAs(c);
        assertThat(c.isReleased()).isTrue();
        assertThat(w.dataShared()).isFalse();
        w.array()[w.dataStart()] ^= 0x55;
        assertThat(o.toBytes()[0]).isEqualTo((byte) 3);
        assertThat(o.dataShared()).isFalse();
        o.release();
        assertThat(freed).hasValue(1);
    }

    @Test
    void linearizingACloneGivesItAPrivateArrayAndDropsItsReference() {
        byte[] content = new byte[4096];
        for (int i = 0; i < content.length; i++) content[i] = (byte) i;
        Arena arena = Arena.ofShared();
        ByteBuffer mem = arena.allocate(content.length).asByteBuffer();
        mem.put(content);
        PayloadRegion region = new PayloadRegion(arena, mem.asReadOnlyBuffer(), () -> { });
        PacketBuffer o = PacketBuffer.allocate(200, 0);
        o.setReleaseHook(x -> freed.incrementAndGet());
        o.attachPayload(region, 100, 1000, true);
        PacketBuffer c = o.cloneShared();
        c.push(20);
        c.linearize();
        assertThat(c.payloadRegion()).isNull();
        assertThat(c.array()).isNotSameAs(o.array());
        assertThat(c.length()).isEqualTo(1020);
        PacketBuffer c2 = o.cloneShared();
        assertThat(c2).as("the spare header is still the linearized clone's").isNotSameAs(c);
        c2.release();
        o.release();
        assertThat(freed).as("the clone holds the data until it is released").hasValue(0);
        c.release();
        assertThat(freed).hasValue(1);
        region.release(); // the creator's reference; the clone made its bytes its own
        assertThat(region.isFreed()).isTrue();
        assertThat(java.util.Arrays.copyOfRange(c.toBytes(), 20, 1020)).isEqualTo(java.util.Arrays.copyOfRange(content, 100, 1100));
        assertThatThrownBy(() -> {
            PacketBuffer o2 = PacketBuffer.allocate(200, 0);
            o2.attachPayload(PacketBufferCloneTest.region(), 0, 10, true);
            o2.cloneShared();
            o2.linearize();
        }).isInstanceOf(IllegalStateException.class).hasMessageContaining("original");
    }

    private static PayloadRegion region() {
        Arena arena = Arena.ofShared();
        return new PayloadRegion(arena, arena.allocate(4096).asByteBuffer(), () -> { });
    }

    @Test
    void aPooledBufferGoesBackToItsPoolOnlyWhenOriginalAndCloneAreReleased() {
        PacketPool pool = new PacketPool();
        PacketBuffer o = pool.allocate(200, 1000);
        PacketBuffer c = o.cloneShared();
        int free = pool.freeBuffers();
        o.release();
        assertThat(pool.freeBuffers()).isEqualTo(free);
        c.release();
        assertThat(pool.freeBuffers()).isEqualTo(free + 1);
        PacketBuffer again = pool.allocate(200, 1000);
        assertThat(again).isSameAs(o);
        assertThat(again.dataShared()).isFalse();
        PacketBuffer c2 = again.cloneShared();
        assertThat(c2).as("the spare header stays with its buffer through the pool").isSameAs(c);
        c2.release();
        again.release();
    }

    @Test
    void originalAndCloneReleasedConcurrentlyFreeTheDataExactlyOnce() throws Exception {
        int rounds = 20_000;
        CyclicBarrier barrier = new CyclicBarrier(2);
        PacketBuffer[] slot = new PacketBuffer[1];
        PacketBuffer o = original(64);
        Thread other = new Thread(() -> {
            try {
                for (int i = 0; i < rounds; i++) {
                    barrier.await();
                    slot[0].release();
                    barrier.await();
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        other.start();
        for (int i = 0; i < rounds; i++) {
            o.reset(200);
            o.put(64);
            PacketBuffer c = o.cloneShared();
            slot[0] = c;
            barrier.await();
            o.release();
            barrier.await();
            assertThat(freed.get()).isEqualTo(i + 1);
        }
        other.join();
    }
}
