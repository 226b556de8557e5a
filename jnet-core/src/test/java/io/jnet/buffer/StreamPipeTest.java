package io.jnet.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

class StreamPipeTest {

    @Test
    void bytesComeOutInOrderAcrossChunkBoundaries() {
        StreamPipe p = new StreamPipe();
        Random r = new Random(7);
        byte[] in = new byte[5 * StreamPipe.CHUNK + 123];
        r.nextBytes(in);
        byte[] out = new byte[in.length];
        int w = 0, rd = 0;
        while (rd < in.length) {
            if (w < in.length) w += p.write(in, w, Math.min(in.length - w, 1 + r.nextInt(9000)), Long.MAX_VALUE);
            rd += p.read(out, rd, Math.min(in.length - rd, 1 + r.nextInt(7000)));
        }
        assertThat(out).isEqualTo(in);
        assertThat(p.head()).isEqualTo(in.length);
        assertThat(p.tail()).isEqualTo(in.length);
        assertThat(p.available()).isZero();
    }

    @Test
    void aWriteStopsAtTheLimit() {
        StreamPipe p = new StreamPipe();
        byte[] b = new byte[100_000];
        assertThat(p.write(b, 0, b.length, 40_000)).isEqualTo(40_000);
        assertThat(p.write(b, 0, b.length, 40_000)).isZero();
        assertThat(p.used()).isEqualTo(40_000);
        assertThat(p.read(new byte[1000], 0, 1000)).isEqualTo(1000);
        assertThat(p.write(b, 0, b.length, 40_000)).isEqualTo(1000);
        assertThat(p.write(b, 0, b.length, 30_000)).as("a limit below what is held").isZero();
    }

    @Test
    void byteBuffersAndSkip() {
        StreamPipe p = new StreamPipe();
        ByteBuffer src = ByteBuffer.allocateDirect(40_000);
        for (int i = 0; i < 40_000; i++) src.put((byte) i);
        src.flip();
        assertThat(p.write(src, 40_000, Long.MAX_VALUE)).isEqualTo(40_000);
        assertThat(src.remaining()).isZero();
        assertThat(p.skip(20_001)).isEqualTo(20_001);
        ByteBuffer dst = ByteBuffer.allocate(100_000);
        assertThat(p.read(dst, 100_000)).isEqualTo(19_999);
        assertThat(dst.get(0)).isEqualTo((byte) 20_001);
        assertThat(p.skip(5)).isZero();
    }

    @Test
    void peekCopiesFromAnyOffsetAcrossChunksAndConsumesNothing() {
        StreamPipe p = new StreamPipe();
        byte[] in = new byte[3 * StreamPipe.CHUNK + 77];
        new Random(11).nextBytes(in);
        assertThat(p.write(in, 0, in.length, Long.MAX_VALUE)).isEqualTo(in.length);
        byte[] out = new byte[in.length];
        assertThat(p.peek(0, out, 0, out.length)).isEqualTo(in.length);
        assertThat(out).isEqualTo(in);
        assertThat(p.available()).isEqualTo(in.length);
        // from inside the second chunk, into a direct buffer
        ByteBuffer dst = ByteBuffer.allocateDirect(10_000);
        assertThat(p.peek(StreamPipe.CHUNK + 5, dst, 20_000)).isEqualTo(10_000);
        byte[] got = new byte[10_000];
        dst.flip().get(got);
        assertThat(got).isEqualTo(java.util.Arrays.copyOfRange(in, StreamPipe.CHUNK + 5, StreamPipe.CHUNK + 10_005));
        // after a read that ends exactly at a chunk's end: the peek starts in the next chunk
        assertThat(p.read(new byte[StreamPipe.CHUNK], 0, StreamPipe.CHUNK)).isEqualTo(StreamPipe.CHUNK);
        assertThat(p.peek(StreamPipe.CHUNK, out, 0, 100)).isEqualTo(100);
        assertThat(java.util.Arrays.copyOf(out, 100)).isEqualTo(java.util.Arrays.copyOfRange(in, 2 * StreamPipe.CHUNK, 2 * StreamPipe.CHUNK + 100));
        assertThat(p.peek(in.length - StreamPipe.CHUNK, out, 0, 100)).as("nothing after the last byte").isZero();
        assertThat(p.peek(in.length - StreamPipe.CHUNK - 7, out, 0, 100)).isEqualTo(7);
        assertThat(p.available()).isEqualTo(in.length - StreamPipe.CHUNK);
    }

    @Test
    void theConsumersViewChangesOnlyWhenRefreshed() {
        StreamPipe p = new StreamPipe();
        assertThat(p.seen()).isZero();
        p.write(new byte[] {1, 2, 3, 4, 5}, 0, 5, 1 << 20);
        assertThat(p.seen()).as("written after the consumer last looked").isZero();
        assertThat(p.refresh()).isEqualTo(5);
        p.write(new byte[] {6}, 0, 1, 1 << 20);
        assertThat(p.seen()).isEqualTo(5);
        byte[] out = new byte[2];
        assertThat(p.read(out, 0, 2)).isEqualTo(2);
        assertThat(out).containsExactly(1, 2);
        assertThat(p.seen()).isEqualTo(3);
        assertThat(p.refresh()).isEqualTo(4);
        assertThat(p.available()).isEqualTo(4);
    }

    @Test
    void waitingFlagsAreReportedOnce() {
        StreamPipe p = new StreamPipe();
        assertThat(p.takeConsumerWaiting()).isFalse();
        p.consumerWaits();
        assertThat(p.takeConsumerWaiting()).isTrue();
        assertThat(p.takeConsumerWaiting()).isFalse();

        p.write(new byte[1000], 0, 1000, 1000);
        p.producerWaits();
        assertThat(p.takeProducerWaiting(1000, 1)).as("no room yet").isFalse();
        p.read(new byte[500], 0, 500);
        assertThat(p.takeProducerWaiting(1000, 600)).as("less than asked").isFalse();
        assertThat(p.takeProducerWaiting(1000, 500)).isTrue();
        assertThat(p.takeProducerWaiting(1000, 500)).isFalse();
    }

    @Test
    void eachSideDetachesOnce() {
        StreamPipe p = new StreamPipe();
        p.write(new byte[3 * StreamPipe.CHUNK], 0, 3 * StreamPipe.CHUNK, Long.MAX_VALUE);
        p.detachConsumer();
        p.detachProducer();
        assertThatThrownBy(p::detachProducer).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void twoThreadsMoveAStreamIntact() throws Exception {
        StreamPipe p = new StreamPipe();
        long total = 64L << 20;
        long limit = 128 * 1024;
        AtomicReference<Throwable> failed = new AtomicReference<>();
        CRC32 sent = new CRC32();
        Thread writer = new Thread(() -> {
            Random r = new Random(1);
            byte[] b = new byte[70_000];
            long done = 0;
            while (done < total) {
                int len = (int) Math.min(total - done, 1 + r.nextInt(b.length));
                for (int i = 0; i < len; i++) b[i] = (byte) (done + i);
                int off = 0;
                while (off < len) {
                    int n = p.write(b, off, len - off, limit);
                    if (n == 0) Thread.onSpinWait();
                    off += n;
                }
                sent.update(b, 0, len);
                done += len;
            }
        });
        writer.setUncaughtExceptionHandler((t, e) -> failed.set(e));
        writer.start();
        CRC32 received = new CRC32();
        byte[] b = new byte[50_000];
        Random r = new Random(2);
        long got = 0;
        while (got < total) {
            assertThat(p.used()).isLessThanOrEqualTo(limit);
            int n = p.read(b, 0, 1 + r.nextInt(b.length));
            if (n == 0) {
                Thread.onSpinWait();
                continue;
            }
            for (int i = 0; i < n; i++) {
                if (b[i] != (byte) (got + i)) throw new AssertionError("byte " + (got + i) + " corrupted");
            }
            received.update(b, 0, n);
            got += n;
        }
        writer.join();
        assertThat(failed.get()).isNull();
        assertThat(received.getValue()).isEqualTo(sent.getValue());
    }
}
