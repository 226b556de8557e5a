package io.jnet.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link PacketBuffer} data that goes on by reference into a {@link PayloadRegion}. */
class PacketBufferPayloadTest {
    private final byte[] content = new byte[8192];
    private PayloadRegion region;
    private int faults;

    @BeforeEach
    void region() {
        for (int i = 0; i < content.length; i++) content[i] = (byte) (i * 7 + 3);
        Arena arena = Arena.ofShared();
        ByteBuffer mem = arena.allocate(content.length).asByteBuffer();
        mem.put(content);
        region = new PayloadRegion(arena, mem.asReadOnlyBuffer(), () -> faults++);
    }

    @AfterEach
    void noFaults() {
        assertThat(faults).isZero();
    }

    /** A buffer holding "head" bytes 100..103 in its array and region bytes [1000, 1000 + n) behind them. */
    private PacketBuffer buffer(int n) {
        PacketBuffer b = PacketBuffer.allocate(16, 8 + n);
        b.put(new byte[] {100, 101, 102, 103}, 0, 4);
        b.attachPayload(region, 1000, n, false);
        return b;
    }

    private byte[] expected(int n) {
        byte[] e = new byte[4 + n];
        e[0] = 100; e[1] = 101; e[2] = 102; e[3] = 103;
        System.arraycopy(content, 1000, e, 4, n);
        return e;
    }

    @Test
    void byteAtReadsEitherPart() {
        PacketBuffer b = buffer(500);
        byte[] e = expected(500);
        for (int i : new int[] {0, 3, 4, 5, 503}) assertThat(b.byteAt(i)).as("byte %d", i).isEqualTo(e[i] & 0xFF);
        assertThatThrownBy(() -> b.byteAt(504)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> b.byteAt(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        b.release();
    }

    @Test
    void lengthCountsBothPartsAndReadsGoThroughTheReference() {
        PacketBuffer b = buffer(500);
        assertThat(b.length()).isEqualTo(504);
        assertThat(b.headLength()).isEqualTo(4);
        assertThat(b.payloadLength()).isEqualTo(500);
        assertThat(b.toBytes()).isEqualTo(expected(500));
        byte[] part = new byte[10];
        b.copyData(2, part, 0, 10);
        assertThat(part).isEqualTo(Arrays.copyOfRange(expected(500), 2, 12));
        ByteBuffer direct = ByteBuffer.allocateDirect(504);
        b.copyData(0, direct, 504);
        assertThat(direct.position()).isEqualTo(504);
        byte[] back = new byte[504];
        direct.flip().get(back);
        assertThat(back).isEqualTo(expected(500));
        PacketBuffer copy = b.copy();
        assertThat(copy.payloadRegion()).as("a copy is linear").isNull();
        assertThat(copy.toBytes()).isEqualTo(expected(500));
        copy.release();
        b.release();
        region.release();
        assertThat(region.isFreed()).isTrue();
    }

    @Test
    void pullAndTrimCutIntoTheReferenceAndDropItWhenEmpty() {
        PacketBuffer b = buffer(500);
        b.pull(10); // 4 from the array, 6 from the region
        assertThat(b.headLength()).isZero();
        assertThat(b.payloadOffset()).isEqualTo(1006);
        assertThat(b.toBytes()).isEqualTo(Arrays.copyOfRange(expected(500), 10, 504));
        b.trim(100);
        assertThat(b.payloadLength()).isEqualTo(100);
        b.trim(0);
        assertThat(b.payloadRegion()).as("nothing left by reference").isNull();
        region.release();
        assertThat(region.isFreed()).as("trimming dropped the buffer's reference").isTrue();
        b.release();
    }

    @Test
    void linearizeCopiesIntoTheTailroomOrAGrownArray() {
        PacketBuffer fits = buffer(500);
        fits.linearize();
        assertThat(fits.payloadRegion()).isNull();
        assertThat(fits.headLength()).isEqualTo(504);
        assertThat(fits.toBytes()).isEqualTo(expected(500));
        PacketBuffer grows = PacketBuffer.allocate(0, 0);
        grows.attachPayload(region, 1000, 300, true);
        assertThat(grows.truesize()).as("charged").isEqualTo(300);
        grows.linearize();
        assertThat(grows.toBytes()).isEqualTo(Arrays.copyOfRange(content, 1000, 1300));
        region.release();
        assertThat(region.isFreed()).isTrue();
    }

    @Test
    void nothingIsAppendedBehindAReferenceButItsBytesCoalesceIntoALinearBuffer() {
        PacketBuffer b = buffer(500);
        assertThatThrownBy(() -> b.put(1)).isInstanceOf(IllegalStateException.class);
        PacketBuffer small = PacketBuffer.allocate(0, 0);
        small.attachPayload(region, 2000, 20, true);
        assertThat(b.tryCoalesce(small)).as("not behind a reference").isFalse();
        PacketBuffer linear = PacketBuffer.allocate(0, 100);
        linear.put(new byte[] {1}, 0, 1);
        assertThat(linear.tryCoalesce(small)).isTrue();
        assertThat(linear.toBytes()).startsWith(1).endsWith(Arrays.copyOfRange(content, 2000, 2020));
        small.release();
        b.release();
        region.release();
        assertThat(region.isFreed()).isTrue();
    }

    @Test
    void aQueueChargesWhatItsTailGrowsBy() {
        PacketQueue q = new PacketQueue();
        PacketBuffer b = PacketBuffer.allocate(0, 0);
        b.attachPayload(region, 0, 1000, true);
        q.add(b);
        long before = q.bytes();
        q.extendTail(500);
        assertThat(b.payloadLength()).isEqualTo(1500);
        assertThat(q.bytes()).isEqualTo(before + 500);
        assertThat(q.poll().truesize()).isEqualTo(before + 500);
        assertThat(q.bytes()).isZero();
        assertThatThrownBy(() -> b.extendPayload(content.length)).isInstanceOf(IndexOutOfBoundsException.class);
        b.release();
        region.release();
    }

    @Test
    void aRegionFreedIsNotTakenAgain() {
        region.release();
        PacketBuffer b = PacketBuffer.allocate(0, 0);
        assertThatThrownBy(() -> b.attachPayload(region, 0, 10, false)).isInstanceOf(IllegalStateException.class);
        assertThat(b.payloadRegion()).isNull();
    }
}
