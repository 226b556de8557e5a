package io.jnet.ip;

import static io.jnet.ip.FragPackets.header;
import static io.jnet.ip.FragPackets.payload;
import static io.jnet.ip.FragPackets.split;
import static io.jnet.ip.FragPackets.udpDatagram;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Checksum;
import io.jnet.wire.Ipv4;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class Ipv4FragmenterTest {
    private final Mib mib = new Mib();
    private final Ipv4Fragmenter fragmenter = new Ipv4Fragmenter(mib);

    /** Record route (not copied, 7 bytes), NOP, loose source route (copied, 7), NOP, router alert (copied, 4). */
    static final byte[] OPTIONS = {
        0x07, 7, 4, 0, 0, 0, 0,
        0x01,
        (byte) 0x83, 7, 4, 10, 0, 0, 1,
        0x01,
        (byte) 0x94, 4, 0, 0,
    };

    @Test
    void datagramThatFitsPassesThroughUnchanged() {
        PacketBuffer p = udpDatagram(1, 1472, 0);
        byte[] before = p.toBytes();
        List<PacketBuffer> out = new ArrayList<>();
        assertThat(fragmenter.fragment(p, 1500, out::add)).isEqualTo(1);
        assertThat(out).containsExactly(p);
        assertThat(p.toBytes()).isEqualTo(before);
        assertThat(p.isReleased()).isFalse();
        assertThat(mib.get(MibCounter.IpFragOKs) + mib.get(MibCounter.IpFragCreates) + mib.get(MibCounter.IpFragFails)).isZero();
    }

    @Test
    void largestUdpDatagramAtMtu1500() {
        PacketBuffer p = udpDatagram(0x1234, 65507, 7);
        byte[] original = p.toBytes();
        assertThat(original.length).isEqualTo(65535);
        List<PacketBuffer> frags = split(fragmenter, p, 1500);

        // 65515 payload bytes: 44 fragments of 1480 and one of 395
        assertThat(frags).hasSize(45);
        assertThat(p.isReleased()).isTrue();
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        int expectedOffset = 0;
        for (int i = 0; i < frags.size(); i++) {
            PacketBuffer f = frags.get(i);
            byte[] b = f.array();
            int off = f.dataStart();
            boolean last = i == frags.size() - 1;
            assertThat(f.headroom()).isEqualTo(PacketBuffer.DEFAULT_HEADROOM);
            assertThat(f.networkOffset()).isEqualTo(off);
            assertThat(Ipv4.validate(b, off, f.length(), true)).isEqualTo(Ipv4.OK);
            assertThat(Ipv4.totalLength(b, off)).isEqualTo(f.length()).isLessThanOrEqualTo(1500);
            assertThat(Ipv4.identification(b, off)).isEqualTo(0x1234);
            assertThat(Ipv4.fragmentOffset(b, off)).isEqualTo(expectedOffset);
            assertThat(Ipv4.moreFragments(b, off)).isEqualTo(!last);
            assertThat(Ipv4.dontFragment(b, off)).isFalse();
            int size = Ipv4.totalLength(b, off) - Ipv4.headerLength(b, off);
            assertThat(size).isEqualTo(last ? 395 : 1480);
            if (!last) assertThat(size % 8).isZero();
            joined.writeBytes(payload(f));
            expectedOffset += size;
        }
        assertThat(joined.toByteArray()).isEqualTo(Arrays.copyOfRange(original, 20, original.length));
        assertThat(mib.get(MibCounter.IpFragOKs)).isEqualTo(1);
        assertThat(mib.get(MibCounter.IpFragCreates)).isEqualTo(45);
        assertThat(mib.get(MibCounter.IpFragFails)).isZero();
    }

    @Test
    void everyFragmentPayloadIsAMultipleOf8ForOddMtus() {
        for (int mtu = 28; mtu < 600; mtu += 37) {
            PacketBuffer p = udpDatagram(mtu, 3001, mtu);
            byte[] original = p.toBytes();
            List<PacketBuffer> frags = split(fragmenter, p, mtu);
            ByteArrayOutputStream joined = new ByteArrayOutputStream();
            for (int i = 0; i < frags.size(); i++) {
                PacketBuffer f = frags.get(i);
                int size = payload(f).length;
                assertThat(f.length()).isLessThanOrEqualTo(mtu);
                if (i < frags.size() - 1) {
                    assertThat(size % 8).isZero();
                    assertThat(size).isEqualTo((mtu - 20) & ~7);
                }
                assertThat(Ipv4.fragmentOffset(f.array(), f.dataStart())).isEqualTo(joined.size());
                joined.writeBytes(payload(f));
            }
            assertThat(joined.toByteArray()).isEqualTo(Arrays.copyOfRange(original, 20, original.length));
        }
    }

    @Test
    void smallestMtuCarries8BytesPerFragment() {
        List<PacketBuffer> frags = split(fragmenter, udpDatagram(9, 92, 1), 28);
        assertThat(frags).hasSize(13); // 100 payload bytes: 12 x 8 + 4
        assertThat(frags).allSatisfy(f -> assertThat(f.length()).isLessThanOrEqualTo(28));
    }

    @Test
    void mtuTooSmallForHeaderPlus8BytesFails() {
        PacketBuffer p = udpDatagram(9, 92, 1);
        List<PacketBuffer> out = new ArrayList<>();
        assertThat(fragmenter.fragment(p, 27, out::add)).isEqualTo(Ipv4Fragmenter.ERR_INVALID);
        assertThat(out).isEmpty();
        assertThat(p.isReleased()).isFalse();
        assertThat(mib.get(MibCounter.IpFragFails)).isEqualTo(1);
    }

    @Test
    void dontFragmentReturnsMsgSizeWithoutConsuming() {
        PacketBuffer p = udpDatagram(5, 2000, Ipv4.FLAG_DF, new byte[0], 3);
        List<PacketBuffer> out = new ArrayList<>();
        assertThat(fragmenter.fragment(p, 1500, out::add)).isEqualTo(Ipv4Fragmenter.ERR_MSGSIZE).isEqualTo(-90);
        assertThat(out).isEmpty();
        assertThat(p.isReleased()).isFalse();
        assertThat(mib.get(MibCounter.IpFragFails)).isEqualTo(1);
        assertThat(mib.get(MibCounter.IpFragCreates)).isZero();

        PacketBuffer small = udpDatagram(6, 100, Ipv4.FLAG_DF, new byte[0], 3);
        assertThat(fragmenter.fragment(small, 1500, out::add)).isEqualTo(1);
        assertThat(out).containsExactly(small);
    }

    @Test
    void malformedHeaderOrOptionsFail() {
        PacketBuffer badVersion = udpDatagram(1, 3000, 1);
        badVersion.array()[badVersion.dataStart()] = 0x65;
        assertThat(fragmenter.fragment(badVersion, 1500, x -> { })).isEqualTo(Ipv4Fragmenter.ERR_INVALID);

        PacketBuffer badOption = udpDatagram(2, 3000, 0, new byte[] {(byte) 0x83, 1, 0, 0}, 1);
        assertThat(fragmenter.fragment(badOption, 1500, x -> { })).isEqualTo(Ipv4Fragmenter.ERR_INVALID);
        PacketBuffer optionTooLong = udpDatagram(3, 3000, 0, new byte[] {(byte) 0x83, 9, 4, 0}, 1);
        assertThat(fragmenter.fragment(optionTooLong, 1500, x -> { })).isEqualTo(Ipv4Fragmenter.ERR_INVALID);

        assertThat(badOption.isReleased()).isFalse();
        assertThat(mib.get(MibCounter.IpFragFails)).isEqualTo(3);
    }

    @Test
    void onlyCopiedOptionsGoIntoLaterFragments() {
        PacketBuffer p = udpDatagram(77, 3000, 0, OPTIONS, 5);
        byte[] original = p.toBytes();
        List<PacketBuffer> frags = split(fragmenter, p, 576);

        PacketBuffer first = frags.get(0);
        byte[] h0 = header(first);
        assertThat(h0).hasSize(40);
        // all options kept in the first fragment
        assertThat(Arrays.copyOfRange(h0, 20, 40)).isEqualTo(OPTIONS);
        assertThat(payload(first)).hasSize((576 - 40) & ~7);

        byte[] copied = {(byte) 0x83, 7, 4, 10, 0, 0, 1, (byte) 0x94, 4, 0, 0, 0 /* EOL pad */};
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        joined.writeBytes(payload(first));
        for (int i = 1; i < frags.size(); i++) {
            PacketBuffer f = frags.get(i);
            byte[] h = header(f);
            assertThat(h).hasSize(32);
            assertThat(h[0]).isEqualTo((byte) 0x48);
            assertThat(Arrays.copyOfRange(h, 20, 32)).isEqualTo(copied);
            assertThat(Checksum.verify(h, 0, h.length, 0)).isTrue();
            // fixed fields other than length, flags/offset and checksum come from the original header
            assertThat(Arrays.copyOfRange(h, 4, 6)).isEqualTo(Arrays.copyOfRange(original, 4, 6));
            assertThat(Arrays.copyOfRange(h, 8, 10)).isEqualTo(Arrays.copyOfRange(original, 8, 10));
            assertThat(Arrays.copyOfRange(h, 12, 20)).isEqualTo(Arrays.copyOfRange(original, 12, 20));
            if (i < frags.size() - 1) assertThat(payload(f)).hasSize((576 - 32) & ~7);
            assertThat(Ipv4.fragmentOffset(f.array(), f.dataStart())).isEqualTo(joined.size());
            joined.writeBytes(payload(f));
        }
        assertThat(joined.toByteArray()).isEqualTo(Arrays.copyOfRange(original, 40, original.length));
    }

    @Test
    void optionsWithoutCopiedFlagLeaveLaterFragmentsWithBareHeaders() {
        byte[] rrOnly = {0x07, 7, 4, 0, 0, 0, 0, 0};
        List<PacketBuffer> frags = split(fragmenter, udpDatagram(78, 2000, 0, rrOnly, 5), 1000);
        assertThat(header(frags.get(0))).hasSize(28);
        for (int i = 1; i < frags.size(); i++) assertThat(header(frags.get(i))).hasSize(20);
    }

    @Test
    void refragmentingAFragmentKeepsItsOffsetAndMoreFragmentsFlag() {
        // a middle fragment (MF set, offset 800) being forwarded onto a smaller link
        PacketBuffer middle = udpDatagram(40, 1472, Ipv4.FLAG_MF | 100, new byte[0], 2);
        List<PacketBuffer> frags = split(fragmenter, middle, 576);
        assertThat(frags).hasSize(3);
        int expected = 800;
        for (PacketBuffer f : frags) {
            assertThat(Ipv4.fragmentOffset(f.array(), f.dataStart())).isEqualTo(expected);
            assertThat(Ipv4.moreFragments(f.array(), f.dataStart())).isTrue();
            expected += payload(f).length;
        }
        assertThat(expected).isEqualTo(800 + 1480);

        // the final fragment: only its last piece has MF clear
        PacketBuffer last = udpDatagram(41, 1472, 100, new byte[0], 2);
        List<PacketBuffer> pieces = split(fragmenter, last, 576);
        for (int i = 0; i < pieces.size(); i++) {
            assertThat(Ipv4.moreFragments(pieces.get(i).array(), pieces.get(i).dataStart())).isEqualTo(i < pieces.size() - 1);
        }
    }

    @Test
    void fragmentOffsetOverflowFails() {
        // offset 65000 with 1480 payload bytes would end past 65535
        PacketBuffer p = udpDatagram(42, 1472, Ipv4.FLAG_MF | 65000 / 8, new byte[0], 2);
        assertThat(fragmenter.fragment(p, 576, x -> { })).isEqualTo(Ipv4Fragmenter.ERR_INVALID);
    }

    @Test
    void ownerAndSocketAreCopied() {
        PacketBuffer p = udpDatagram(43, 3000, 2);
        Object owner = new Object();
        p.setOwner(owner);
        p.setSocket("sock");
        assertThat(split(fragmenter, p, 1500)).allSatisfy(f -> {
            assertThat(f.owner()).isSameAs(owner);
            assertThat(f.socket()).isEqualTo("sock");
        });
    }
}
