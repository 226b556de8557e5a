package io.jnet.link.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.NetDevice;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PcapSnifferTest {

    final RecordingDevice inner = new RecordingDevice();
    final ByteArrayOutputStream file = new ByteArrayOutputStream();
    final AtomicLong clock = new AtomicLong(1_800_000_000_000_000_000L);
    PcapWriter writer;
    PcapSniffer sniffer;

    @BeforeEach
    void setUp() throws IOException {
        writer = new PcapWriter(file);
        sniffer = new PcapSniffer(inner, writer, () -> clock.addAndGet(1_000_000L), true);
    }

    static byte[] frame(int tag, int length) {
        byte[] f = new byte[length];
        for (int i = 0; i < length; i++) f[i] = (byte) (tag + i);
        return f;
    }

    static PacketBuffer buffer(byte[] f) {
        return PacketBuffer.copyOf(f, 0, f.length, PacketBuffer.DEFAULT_HEADROOM);
    }

    List<PcapRecord> captured() throws IOException {
        writer.flush();
        return new PcapReader(new ByteArrayInputStream(file.toByteArray())).readAll();
    }

    @Test
    void capturesTransmittedFramesBeforeTheDeviceOwnsThem() throws IOException {
        byte[] a = frame(1, 60);
        byte[] b = frame(2, 1514);
        PacketBuffer bufA = buffer(a);
        sniffer.transmit(bufA);
        sniffer.transmit(buffer(b));

        assertThat(inner.transmitted).containsExactly(a, b);
        assertThat(inner.transmittedBuffers.get(0)).as("the very buffer is forwarded").isSameAs(bufA);
        assertThat(bufA.isReleased()).isTrue();
        // the device scribbled over the buffers after taking them; the capture is unaffected
        assertThat(captured()).containsExactly(
                new PcapRecord(1_800_000_000_001_000_000L, 60, a),
                new PcapRecord(1_800_000_000_002_000_000L, 1514, b));
        assertThat(sniffer.captured()).isEqualTo(2);
        assertThat(sniffer.captureErrors()).isZero();
    }

    @Test
    void capturesReceivedFramesAndPresentsItselfAsTheDevice() throws IOException {
        List<NetDevice> seenDevices = new ArrayList<>();
        List<byte[]> received = new ArrayList<>();
        sniffer.setReceiver((dev, f) -> {
            seenDevices.add(dev);
            received.add(f.toBytes());
            f.release();
        });
        byte[] a = frame(7, 64);
        inner.inject(a);
        assertThat(seenDevices).containsExactly(sniffer);
        assertThat(received).containsExactly(a);
        assertThat(captured()).containsExactly(new PcapRecord(1_800_000_000_001_000_000L, 64, a));

        sniffer.setReceiver(null);
        assertThat(inner.receiver).isNull();
    }

    @Test
    void finisherWorksOnTheCapturedCopyOnly() throws IOException {
        sniffer.setFrameFinisher(f -> f.array()[f.dataStart() + 24] = (byte) 0xAB); // e.g. a checksum byte
        byte[] a = frame(3, 60);
        sniffer.transmit(buffer(a));
        sniffer.setReceiver((dev, f) -> {
            assertThat(f.array()[f.dataStart() + 24]).as("received frame untouched").isEqualTo(a[24]);
            f.release();
        });
        inner.inject(a);

        assertThat(inner.transmitted).containsExactly(a);
        byte[] finished = a.clone();
        finished[24] = (byte) 0xAB;
        assertThat(captured()).extracting(PcapRecord::data).containsExactly(finished, finished);
    }

    @Test
    void aThrowingFinisherIsCountedAndTheFrameCapturedUnfinished() throws IOException {
        sniffer.setFrameFinisher(f -> {
            throw new IllegalStateException("cannot finish");
        });
        byte[] a = frame(4, 60);
        sniffer.transmit(buffer(a));
        assertThat(inner.transmitted).containsExactly(a);
        assertThat(sniffer.finisherErrors()).isEqualTo(1);
        assertThat(captured()).extracting(PcapRecord::data).containsExactly(a);
    }

    @Test
    void captureFailuresAreCountedAndFramesStillFlow() throws IOException {
        writer.close();
        byte[] a = frame(5, 60);
        sniffer.transmit(buffer(a));
        List<byte[]> received = new ArrayList<>();
        sniffer.setReceiver((dev, f) -> received.add(f.toBytes()));
        inner.inject(a);
        assertThat(inner.transmitted).containsExactly(a);
        assertThat(received).containsExactly(a);
        assertThat(sniffer.captureErrors()).isEqualTo(2);
        assertThat(sniffer.captured()).isZero();
    }

    @Test
    void delegatesDeviceProperties() {
        assertThat(sniffer.name()).isEqualTo("rec0");
        assertThat(sniffer.macAddress()).isEqualTo(0x02_00_00_00_00_01L);
        assertThat(sniffer.isLoopback()).isFalse();
        sniffer.setMtu(9000);
        assertThat(inner.mtu).isEqualTo(9000);
        assertThat(sniffer.mtu()).isEqualTo(9000);
        assertThat(sniffer.stats()).isSameAs(inner.stats);
        assertThat(sniffer.inner()).isSameAs(inner);
        assertThat(sniffer.writer()).isSameAs(writer);
    }

    @Test
    void closeClosesTheDeviceAndTheWriterItOwns() throws IOException {
        sniffer.transmit(buffer(frame(6, 60)));
        sniffer.close();
        assertThat(inner.closed).isTrue();
        assertThat(new PcapReader(new ByteArrayInputStream(file.toByteArray())).readAll()).hasSize(1);
        assertThatThrownBy(() -> writer.write(0, new byte[14], 0, 14)).isInstanceOf(IOException.class);
    }

    @Test
    void aSharedWriterIsOnlyFlushedAtClose() throws IOException {
        RecordingDevice other = new RecordingDevice();
        PcapSniffer second = new PcapSniffer(other, writer, PcapSniffer.WALL_CLOCK_NANOS, false);
        long before = System.currentTimeMillis();
        second.transmit(buffer(frame(8, 60)));
        second.close();
        assertThat(other.closed).isTrue();
        List<PcapRecord> records = new PcapReader(new ByteArrayInputStream(file.toByteArray())).readAll();
        assertThat(records).hasSize(1);
        long capturedMillis = records.get(0).timestampNanos() / 1_000_000L;
        assertThat(capturedMillis).isBetween(before - 1000, System.currentTimeMillis() + 1000);
        writer.write(0, new byte[14], 0, 14); // still open
    }
}
