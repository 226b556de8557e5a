package io.jnet.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every frame of every capture in src/test/resources/pcaps parses layer by layer with all checksums
 * verified, and re-emits byte for byte from the Repr records (headers emitted, checksums recomputed,
 * payloads copied).
 */
class CaptureDissectionTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        // file,             frames,inner,arp,ipv4,ipv6,icmp,quoted,udp,vxlan,tcp,sack
        "tcp-clean.pcap,       281,   0,  2, 276,   3,   0,   0,   0,   0, 276,   0",
        "tcp-lossy-sack.pcap,  295,   0,  0, 294,   1,   0,   0,   0,   0, 294,  16",
        "icmp-udp-rst.pcap,      8,   0,  0,   9,   0,   5,   1,   2,   0,   2,   0",
        "vxlan-tcp.pcap,        58,  57,  2, 108,   5,   0,   0,  57,  57,  51,   0",
        "ipv6-tcp.pcap,         69,   1,  0,   1,  69,   0,   0,   1,   1,   0,   0",
    })
    void everyFrameParsesVerifiesAndReEmitsByteForByte(String file, int frames, int inner, int arp, int ipv4, int ipv6,
                                                       int icmp, int quoted, int udp, int vxlan, int tcp, int sack)
            throws MalformedPacketException {
        List<PcapFrames.Frame> capture = PcapFrames.resource(file);
        FrameWalker walker = new FrameWalker(true, false);
        for (PcapFrames.Frame f : capture) {
            byte[] in = f.data();
            byte[] out = new byte[in.length];
            walker.frame(in, 0, in.length, out);
            assertThat(out).as("frame %d of %s re-emitted\nexpected %s\nactual   %s", f.index(), file,
                    HexFormat.of().formatHex(in), HexFormat.of().formatHex(out)).isEqualTo(in);
        }
        FrameWalker.Counts c = walker.counts;
        assertThat(capture).hasSize(frames);
        assertThat(new int[] {c.frames, c.innerFrames, c.arp, c.ipv4, c.ipv6, c.icmp, c.icmpQuoted, c.udp, c.vxlan,
                c.tcp, c.tcpSackSegments})
                .as("%s: %s", file, c)
                .containsExactly(frames, inner, arp, ipv4, ipv6, icmp, quoted, udp, vxlan, tcp, sack);
        assertThat(c.otherEtherType).isZero();
        assertThat(c.fragments).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp-clean.pcap", "tcp-lossy-sack.pcap", "icmp-udp-rst.pcap", "vxlan-tcp.pcap"})
    void linuxOptionBytesAreReproducedByTcpOptionsWrite(String file) throws MalformedPacketException {
        FrameWalker walker = new FrameWalker(true, true);
        for (PcapFrames.Frame f : PcapFrames.resource(file)) walker.frame(f.data(), 0, f.data().length, new byte[f.data().length]);
        assertThat(walker.tcpSegments).isNotEmpty();
        for (TcpRepr t : walker.tcpSegments) {
            byte[] written = new byte[t.options().writtenLength()];
            assertThat(t.options().write(written, 0)).isEqualTo(written.length);
            assertThat(written).as("options %s", t.options()).isEqualTo(t.rawOptions());
        }
    }
}
