package io.jnet.link.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.buffer.PacketBuffer;
import io.jnet.testing.CommandResult;
import io.jnet.testing.Tools;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PcapReaderWriterTest {

    static final Path PCAPS = Path.of("src/test/resources/pcaps");

    @TempDir
    Path tmp;

    @ParameterizedTest
    @CsvSource({"tcp-clean.pcap, 281", "tcp-lossy-sack.pcap, 295", "icmp-udp-rst.pcap, 8", "vxlan-tcp.pcap, 58",
            "ipv6-tcp.pcap, 69"})
    void readsTheRealLinuxCaptures(String file, int frames) throws IOException {
        try (PcapReader r = PcapReader.open(PCAPS.resolve(file))) {
            assertThat(r.byteOrder()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
            assertThat(r.nanosecondTimestamps()).isFalse();
            assertThat(r.versionMajor()).isEqualTo(2);
            assertThat(r.versionMinor()).isEqualTo(4);
            assertThat(r.snaplen()).isEqualTo(262144);
            assertThat(r.linkType()).isEqualTo(PcapFormat.LINKTYPE_ETHERNET);
            List<PcapRecord> records = r.readAll();
            assertThat(records).hasSize(frames);
            assertThat(r.recordsRead()).isEqualTo(frames);
            for (PcapRecord rec : records) {
                assertThat(rec.truncated()).isFalse();
                assertThat(rec.capturedLength()).isBetween(42, 1514);
                // captured in 2026: seconds since the epoch around 1.8e9
                assertThat(rec.timestampNanos()).isBetween(1_700_000_000_000_000_000L, 2_000_000_000_000_000_000L);
                assertThat(rec.timestampNanos() % 1000).as("microsecond file").isZero();
            }
        }
    }

    @Test
    void tcpCleanHasTheArpExchangeAfterTheIpv6Chatter() throws IOException {
        // tcpdump -e: frames 1-3 are IPv6 ND/MLD, frame 4 the ARP request (03:54:44.463901), 5 the reply
        List<PcapRecord> records = PcapReader.readAll(PCAPS.resolve("tcp-clean.pcap"));
        for (int i = 0; i < 3; i++) assertThat(ethertype(records.get(i).data())).isEqualTo(0x86dd);
        byte[] request = records.get(3).data();
        byte[] reply = records.get(4).data();
        assertThat(ethertype(request)).isEqualTo(0x0806);
        assertThat(request[21]).as("ARP opcode request").isEqualTo((byte) 1);
        assertThat(ethertype(reply)).isEqualTo(0x0806);
        assertThat(reply[21]).as("ARP opcode reply").isEqualTo((byte) 2);
        assertThat(records.get(3).timestampNanos() % 1_000_000_000L).isEqualTo(463_901_000L);
        assertThat(records.get(4).timestampNanos() - records.get(3).timestampNanos()).isEqualTo(19_000L);
    }

    static int ethertype(byte[] frame) {
        return ((frame[12] & 0xff) << 8) | (frame[13] & 0xff);
    }

    @ParameterizedTest
    @CsvSource({"tcp-clean.pcap", "tcp-lossy-sack.pcap", "icmp-udp-rst.pcap", "vxlan-tcp.pcap", "ipv6-tcp.pcap"})
    void readerToWriterToReaderIsByteIdentical(String file) throws IOException {
        byte[] original = Files.readAllBytes(PCAPS.resolve(file));
        List<PcapRecord> records = PcapReader.readAll(PCAPS.resolve(file));
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        try (PcapWriter w = new PcapWriter(copy)) {
            for (PcapRecord r : records) w.write(r);
            assertThat(w.recordsWritten()).isEqualTo(records.size());
        }
        assertThat(new PcapReader(new ByteArrayInputStream(copy.toByteArray())).readAll()).isEqualTo(records);
        // same header fields as tcpdump wrote them, so the whole file comes out identical
        assertThat(copy.toByteArray()).isEqualTo(original);
    }

    @Test
    void writesHeaderAndRecordsInTheClassicLayout() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] frame = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x08, 0x00, 42};
        try (PcapWriter w = new PcapWriter(out)) {
            w.write(1_700_000_000_123_456_789L, frame, 0, frame.length);
        }
        ByteBuffer b = ByteBuffer.wrap(out.toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.remaining()).isEqualTo(24 + 16 + frame.length);
        assertThat(b.getInt(0)).isEqualTo(0xa1b2c3d4);
        assertThat(b.getShort(4)).isEqualTo((short) 2);
        assertThat(b.getShort(6)).isEqualTo((short) 4);
        assertThat(b.getInt(8)).isZero();
        assertThat(b.getInt(12)).isZero();
        assertThat(b.getInt(16)).isEqualTo(262144);
        assertThat(b.getInt(20)).isEqualTo(1);
        assertThat(b.getInt(24)).isEqualTo(1_700_000_000);
        assertThat(b.getInt(28)).as("microseconds, truncated").isEqualTo(123_456);
        assertThat(b.getInt(32)).isEqualTo(frame.length);
        assertThat(b.getInt(36)).isEqualTo(frame.length);
        assertThat(Arrays.copyOfRange(out.toByteArray(), 40, 40 + frame.length)).isEqualTo(frame);
    }

    @Test
    void readsBigEndianAndNanosecondFiles() throws IOException {
        byte[] data = {10, 20, 30};
        for (ByteOrder order : List.of(ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN)) {
            for (boolean nanos : List.of(true, false)) {
                ByteBuffer b = ByteBuffer.allocate(24 + 16 + data.length).order(order);
                b.putInt(nanos ? 0xa1b23c4d : 0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0)
                        .putInt(65535).putInt(1);
                b.putInt(0xC0000000).putInt(nanos ? 999_999_999 : 999_999).putInt(3).putInt(60).put(data);
                PcapReader r = new PcapReader(new ByteArrayInputStream(b.array()));
                assertThat(r.byteOrder()).isEqualTo(order);
                assertThat(r.nanosecondTimestamps()).isEqualTo(nanos);
                assertThat(r.snaplen()).isEqualTo(65535);
                PcapRecord rec = r.next();
                // seconds field is unsigned: 0xC0000000 = 3221225472 s (year 2072)
                long expected = 3_221_225_472L * 1_000_000_000L + (nanos ? 999_999_999L : 999_999_000L);
                assertThat(rec).isEqualTo(new PcapRecord(expected, 60, data));
                assertThat(rec.truncated()).isTrue();
                assertThat(r.next()).isNull();
            }
        }
    }

    @Test
    void nanosecondWriterKeepsNanoseconds() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PcapRecord rec = new PcapRecord(1_234_567_890_123_456_789L, 4, new byte[] {1, 2, 3, 4});
        try (PcapWriter w = new PcapWriter(out, 65535, PcapFormat.LINKTYPE_ETHERNET, true)) {
            w.write(rec);
        }
        PcapReader r = new PcapReader(new ByteArrayInputStream(out.toByteArray()));
        assertThat(r.nanosecondTimestamps()).isTrue();
        assertThat(r.readAll()).containsExactly(rec);
    }

    @Test
    void framesLongerThanSnaplenAreCut() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] frame = new byte[100];
        for (int i = 0; i < frame.length; i++) frame[i] = (byte) i;
        try (PcapWriter w = new PcapWriter(out, 64, PcapFormat.LINKTYPE_ETHERNET, false)) {
            w.write(5_000_000_000L, PacketBuffer.copyOf(frame, 0, frame.length, 20));
        }
        PcapRecord rec = new PcapReader(new ByteArrayInputStream(out.toByteArray())).next();
        assertThat(rec.originalLength()).isEqualTo(100);
        assertThat(rec.data()).isEqualTo(Arrays.copyOf(frame, 64));
        assertThat(rec.timestampNanos()).isEqualTo(5_000_000_000L);
    }

    @Test
    void badInputIsRejectedWithClearErrors() throws IOException {
        assertThatThrownBy(() -> new PcapReader(new ByteArrayInputStream(new byte[0])))
                .isInstanceOf(EOFException.class);
        byte[] pcapng = {0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        assertThatThrownBy(() -> new PcapReader(new ByteArrayInputStream(pcapng)))
                .isInstanceOf(IOException.class).hasMessageContaining("magic 0x0a0d0d0a");

        byte[] whole = Files.readAllBytes(PCAPS.resolve("icmp-udp-rst.pcap"));
        PcapReader cutInData = new PcapReader(new ByteArrayInputStream(Arrays.copyOf(whole, whole.length - 1)));
        assertThatThrownBy(cutInData::readAll).isInstanceOf(EOFException.class).hasMessageContaining("record 8");
        PcapReader cutInHeader = new PcapReader(new ByteArrayInputStream(Arrays.copyOf(whole, 24 + 8)));
        assertThatThrownBy(cutInHeader::next).isInstanceOf(EOFException.class).hasMessageContaining("header 1");

        ByteBuffer huge = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
        huge.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(1);
        huge.putInt(0).putInt(0).putInt(10_000_000).putInt(10_000_000);
        PcapReader r = new PcapReader(new ByteArrayInputStream(huge.array()));
        assertThatThrownBy(r::next).isInstanceOf(IOException.class).hasMessageContaining("captured length 10000000");

        PcapReader iterated = new PcapReader(new ByteArrayInputStream(Arrays.copyOf(whole, whole.length - 1)));
        assertThatThrownBy(() -> iterated.forEach(rec -> { })).isInstanceOf(UncheckedIOException.class);
        assertThatThrownBy(iterated::iterator).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void writerRejectsBadArgumentsAndWritesAfterClose() throws IOException {
        PcapWriter w = new PcapWriter(new ByteArrayOutputStream());
        assertThatThrownBy(() -> w.write(-1, new byte[14], 0, 14)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> w.write((1L << 32) * 1_000_000_000L, new byte[14], 0, 14))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> w.write(0, new byte[14], 10, 14)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new PcapWriter(new ByteArrayOutputStream(), 0, 1, false))
                .isInstanceOf(IllegalArgumentException.class);
        w.close();
        assertThatThrownBy(() -> w.write(0, new byte[14], 0, 14)).isInstanceOf(IOException.class).hasMessageContaining("closed");
        w.close();
    }

    @Test
    void concurrentWritersProduceWholeRecords() throws Exception {
        Path file = tmp.resolve("concurrent.pcap");
        int threads = 4;
        int perThread = 500;
        try (PcapWriter w = PcapWriter.create(file)) {
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                ts.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < perThread; i++) {
                        byte[] f = new byte[60 + id * 100 + (i % 50)];
                        Arrays.fill(f, (byte) id);
                        ByteBuffer.wrap(f).putInt(14, i);
                        try {
                            w.write(1_000_000_000L * (i + 1), f, 0, f.length);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    }
                }));
            }
            for (Thread t : ts) t.join();
        }
        List<PcapRecord> records = PcapReader.readAll(file);
        assertThat(records).hasSize(threads * perThread);
        int[] next = new int[threads];
        for (PcapRecord rec : records) {
            byte[] d = rec.data();
            int id = d[0];
            int seq = ByteBuffer.wrap(d).getInt(14);
            assertThat(seq).as("records of one thread in order").isEqualTo(next[id]++);
            assertThat(d.length).isEqualTo(60 + id * 100 + (seq % 50));
            assertThat(rec.timestampNanos()).isEqualTo(1_000_000_000L * (seq + 1));
        }
    }

    /** Writes the ICMP/UDP/RST capture again through PcapWriter and lets tshark and tcpdump judge it. */
    @Test
    void tsharkAndTcpdumpReadWhatWeWrite() throws IOException {
        Path file = tmp.resolve("rewritten.pcap");
        List<PcapRecord> records = PcapReader.readAll(PCAPS.resolve("icmp-udp-rst.pcap"));
        try (PcapWriter w = PcapWriter.create(file)) {
            long t = 1_800_000_000_000_000_000L;
            for (PcapRecord r : records) {
                w.write(t, r.data(), 0, r.capturedLength());
                t += 1_500_000L;
            }
        }
        boolean tshark = Tools.has("tshark");
        boolean tcpdump = Tools.has("tcpdump");
        org.junit.jupiter.api.Assumptions.assumeTrue(tshark || tcpdump, "neither tshark nor tcpdump is installed");
        if (tshark) {
            CommandResult r = Tools.run(Duration.ofSeconds(60), "tshark", "-n", "-r", file.toString(),
                    "-T", "fields", "-e", "frame.number", "-e", "frame.time_epoch", "-e", "_ws.col.Protocol").checkSuccess();
            List<String> lines = r.stdout().lines().toList();
            assertThat(lines).hasSize(records.size());
            assertThat(lines.get(0)).startsWith("1\t1800000000.000000000");
            assertThat(lines.get(1)).startsWith("2\t1800000000.001500000");
            assertThat(r.stdout()).contains("ICMP").contains("UDP").contains("TCP");
        }
        if (tcpdump) {
            CommandResult r = Tools.run(Duration.ofSeconds(30), "tcpdump", "-n", "-r", file.toString()).checkSuccess();
            assertThat(r.stdout().lines().count()).isEqualTo(records.size());
            assertThat(r.stdout()).contains("ICMP echo request");
        }
    }
}
