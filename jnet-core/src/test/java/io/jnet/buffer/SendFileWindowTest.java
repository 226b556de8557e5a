package io.jnet.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.buffer.PacketBuffer;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SendFileWindowTest {

    @TempDir
    Path dir;

    private FileChannel file(int size) throws Exception {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) b[i] = (byte) (i * 31 + (i >>> 8));
        Path p = Files.createTempFile(dir, "w", ".bin");
        Files.write(p, b);
        return FileChannel.open(p, StandardOpenOption.READ);
    }

    private static byte at(long i) { return (byte) (i * 31 + (i >>> 8)); }

    /** The byte the window's region holds for file offset {@code position}. */
    private static byte read(SendFileWindow w, long position) {
        byte[] one = new byte[1];
        w.region().read(w.offset(position), one, 0, 1);
        return one[0];
    }

    @Test
    void aSelectionStartsAtThePositionAndStopsAtTheCountOrTheWindowEnd() throws Exception {
        SendFileWindow w = new SendFileWindow(8192, 4096, () -> { });
        try (FileChannel fc = file(30_000)) {
            assertThat(w.held(fc, 5000)).as("nothing mapped yet").isZero();
            assertThat(w.select(fc, 5000, 100, fc.size())).isEqualTo(100);
            assertThat(read(w, 5000)).isEqualTo(at(5000));
            PayloadRegion r = w.region();
            assertThat(w.held(fc, 5000)).as("window [4096, 12288)").isEqualTo(12288 - 5000);
            assertThat(w.select(fc, 6000, 100_000, fc.size())).as("window [4096, 12288)").isEqualTo(12288 - 6000);
            assertThat(w.region()).as("the same window, the same region").isSameAs(r);
            assertThat(w.select(fc, 12288, 100_000, fc.size())).isEqualTo(8192);
            assertThat(w.region()).as("outside the window: mapped anew").isNotSameAs(r);
            assertThat(r.isFreed()).as("nothing referred to the old one").isTrue();
            assertThat(read(w, 12288)).isEqualTo(at(12288));
            assertThat(w.select(fc, 29_999, 100, fc.size())).as("a window ends at the end of the file").isEqualTo(1);
            assertThat(w.held(fc, 29_999)).isEqualTo(1);
        } finally {
            w.release();
        }
    }

    @Test
    void anotherFileOrAReleaseMapsAnew() throws Exception {
        SendFileWindow w = new SendFileWindow(8192, 4096, () -> { });
        try (FileChannel a = file(10_000); FileChannel b = file(10_000)) {
            w.select(a, 0, 10, a.size());
            PayloadRegion ra = w.region();
            assertThat(w.held(b, 0)).as("another file").isZero();
            w.select(b, 0, 10, b.size());
            PayloadRegion rb = w.region();
            assertThat(rb).isNotSameAs(ra);
            assertThat(ra.isFreed()).as("the old window was unmapped").isTrue();
            w.release();
            assertThat(rb.isFreed()).isTrue();
            assertThat(w.held(b, 0)).isZero();
            w.release();
            assertThat(w.select(b, 0, 10, b.size())).isEqualTo(10);
        } finally {
            w.release();
        }
    }

    @Test
    void aRegionReferredToOutlivesTheWindowUntilTheLastBufferIsReleased() throws Exception {
        SendFileWindow w = new SendFileWindow(8192, 4096, () -> { });
        try (FileChannel fc = file(10_000)) {
            assertThat(w.select(fc, 5000, 100, fc.size())).isEqualTo(100);
            PayloadRegion r = w.region();
            assertThat(w.offset(5000)).isEqualTo(5000 - 4096);
            PacketBuffer a = PacketBuffer.allocate(0, 0);
            PacketBuffer b = PacketBuffer.allocate(0, 0);
            a.attachPayload(r, w.offset(5000), 100, true);
            b.attachPayload(r, w.offset(5000), 100, true);
            w.release();
            assertThat(r.isFreed()).as("two buffers still refer to it").isFalse();
            byte[] got = new byte[100];
            b.copyData(0, got, 0, 100);
            assertThat(got[0]).isEqualTo((byte) (5000 * 31 + (5000 >>> 8)));
            a.release();
            assertThat(r.isFreed()).isFalse();
            b.release();
            assertThat(r.isFreed()).as("the last reference unmaps").isTrue();
        } finally {
            w.release();
        }
    }

    @Test
    void aClosedFileIsEbadf() throws Exception {
        SendFileWindow w = new SendFileWindow(8192, 4096, () -> { });
        FileChannel fc = file(100);
        fc.close();
        assertThatThrownBy(() -> w.select(fc, 0, 10, 100)).isInstanceOf(ErrnoException.class)
                .satisfies(e -> assertThat(((ErrnoException) e).errno()).isEqualTo(Errno.EBADF));
    }

    @Test
    void windowsMustHoldTheirAlignment() {
        assertThatThrownBy(() -> new SendFileWindow(4096, 8192, () -> { })).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SendFileWindow(1L << 32, 4096, () -> { })).isInstanceOf(IllegalArgumentException.class);
    }
}
