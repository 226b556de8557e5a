package io.jnet.link.tap;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The test's own frame helpers must be right before they judge anything. */
class FramesTest {

    @Test
    void internetChecksumMatchesRfc1071Example() {
        // RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2, checksum is its complement
        byte[] b = {0x00, 0x01, (byte) 0xf2, 0x03, (byte) 0xf4, (byte) 0xf5, (byte) 0xf6, (byte) 0xf7};
        assertThat(Frames.checksum(b, 0, b.length)).isEqualTo(~0xddf2 & 0xffff);
        // odd length pads with a zero byte
        assertThat(Frames.checksum(new byte[] {0x01}, 0, 1)).isEqualTo(~0x0100 & 0xffff);
    }

    @Test
    void arpReplyAnswersTheRequest() {
        byte[] req = new byte[42];
        Frames.putMac(req, 0, 0xFFFF_FFFF_FFFFL);
        Frames.putMac(req, 6, 0x0a_0b_0c_0d_0e_0fL);
        Frames.put16(req, 12, 0x0806);
        Frames.put16(req, 14, 1);
        Frames.put16(req, 16, 0x0800);
        req[18] = 6;
        req[19] = 4;
        Frames.put16(req, 20, 1);
        Frames.putMac(req, 22, 0x0a_0b_0c_0d_0e_0fL);
        Frames.put32(req, 28, Frames.ipv4(192, 0, 2, 1));
        Frames.put32(req, 38, Frames.ipv4(192, 0, 2, 2));
        assertThat(Frames.isArpRequestFor(req, Frames.ipv4(192, 0, 2, 2))).isTrue();
        assertThat(Frames.isArpRequestFor(req, Frames.ipv4(192, 0, 2, 3))).isFalse();

        byte[] reply = Frames.arpReply(req, 0x02_00_00_00_00_02L, Frames.ipv4(192, 0, 2, 2));
        assertThat(Frames.mac(reply, 0)).isEqualTo(0x0a_0b_0c_0d_0e_0fL);
        assertThat(Frames.u16(reply, 20)).isEqualTo(2);
        assertThat(Frames.mac(reply, 22)).isEqualTo(0x02_00_00_00_00_02L);
        assertThat(Frames.u32(reply, 28)).isEqualTo(Frames.ipv4(192, 0, 2, 2));
        assertThat(Frames.mac(reply, 32)).isEqualTo(0x0a_0b_0c_0d_0e_0fL);
        assertThat(Frames.u32(reply, 38)).isEqualTo(Frames.ipv4(192, 0, 2, 1));
    }
}
