package io.jnet.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class PcapFramesTest {

    @ParameterizedTest
    @CsvSource({"tcp-clean.pcap, 281", "tcp-lossy-sack.pcap, 295", "icmp-udp-rst.pcap, 8", "vxlan-tcp.pcap, 58",
        "ipv6-tcp.pcap, 69"})
    void readsTheTestCaptures(String file, int frames) {
        List<PcapFrames.Frame> f = PcapFrames.resource(file);
        assertThat(f).hasSize(frames);
        for (int i = 0; i < f.size(); i++) {
            assertThat(f.get(i).index()).isEqualTo(i);
            assertThat(f.get(i).originalLength()).isEqualTo(f.get(i).data().length);
            if (i > 0) assertThat(f.get(i).timestampNanos()).isGreaterThanOrEqualTo(f.get(i - 1).timestampNanos());
        }
        assertThat(f.get(0).timestampNanos() % 1000).as("microsecond capture").isZero();
    }

    private static byte[] file(ByteOrder order, int magic, int linkType, long[][] records) {
        ByteBuffer bb = ByteBuffer.allocate(4096).order(order);
        bb.putInt(magic).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(linkType);
        for (long[] r : records) {
            bb.putInt((int) r[0]).putInt((int) r[1]).putInt((int) r[2]).putInt((int) r[3]);
            for (int i = 0; i < r[2]; i++) bb.put((byte) i);
        }
        byte[] out = new byte[bb.position()];
        bb.flip().get(out);
        return out;
    }

    @Test
    void bigEndianNanosecondFile() throws IOException {
        byte[] f = file(ByteOrder.BIG_ENDIAN, 0xa1b23c4d, 1, new long[][] {{10, 999_999_999, 20, 60}, {11, 5, 3, 3}});
        List<PcapFrames.Frame> frames = PcapFrames.parse(f);
        assertThat(frames).hasSize(2);
        assertThat(frames.get(0).timestampNanos()).isEqualTo(10_999_999_999L);
        assertThat(frames.get(0).originalLength()).isEqualTo(60);
        assertThat(frames.get(0).data()).hasSize(20).startsWith((byte) 0, (byte) 1, (byte) 2);
        assertThat(frames.get(1).timestampNanos()).isEqualTo(11_000_000_005L);
    }

    @Test
    void littleEndianMicrosecondFile() throws IOException {
        byte[] f = file(ByteOrder.LITTLE_ENDIAN, 0xa1b2c3d4, 1, new long[][] {{0xF0000000L, 7, 1, 1}});
        List<PcapFrames.Frame> frames = PcapFrames.parse(f);
        assertThat(frames).singleElement().satisfies(fr -> {
            assertThat(fr.timestampNanos()).isEqualTo(0xF0000000L * 1_000_000_000L + 7_000);
            assertThat(fr.data()).containsExactly(0);
        });
    }

    @Test
    void malformedFilesAreRejected() {
        assertThatThrownBy(() -> PcapFrames.parse(new byte[10])).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> PcapFrames.parse(file(ByteOrder.BIG_ENDIAN, 0x0a0d0d0a, 1, new long[0][])))
                .isInstanceOf(IOException.class).hasMessageContaining("magic");
        assertThatThrownBy(() -> PcapFrames.parse(file(ByteOrder.BIG_ENDIAN, 0xa1b2c3d4, 101, new long[0][])))
                .isInstanceOf(IOException.class).hasMessageContaining("linktype");
        byte[] ok = file(ByteOrder.LITTLE_ENDIAN, 0xa1b2c3d4, 1, new long[][] {{1, 1, 8, 8}});
        assertThatThrownBy(() -> PcapFrames.parse(java.util.Arrays.copyOf(ok, ok.length - 1)))
                .isInstanceOf(IOException.class).hasMessageContaining("claims");
        assertThatThrownBy(() -> PcapFrames.parse(java.util.Arrays.copyOf(ok, 24 + 10)))
                .isInstanceOf(IOException.class).hasMessageContaining("truncated record header");
    }
}
