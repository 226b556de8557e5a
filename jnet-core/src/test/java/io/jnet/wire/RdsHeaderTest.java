package io.jnet.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * RdsHeader against Linux's RDS wire format. The offsets and constants come from Linux's source, not from a
 * capture: struct rds_header, RDS_FLAG_*, RDS_EXTHDR_* and RDS_CONG_MAP_BYTES in net/rds/rds.h, rds_exthdr_size,
 * rds_message_add_extension and rds_message_next_extension in net/rds/message.c, RDS_TCP_PORT in net/rds/tcp.h.
 * The test kernel has no RDS module and tshark has no RDS dissector, so the byte arrays are built by hand with
 * a distinct value in every field.
 */
class RdsHeaderTest {

    private static byte[] hex(String s) { return HexFormat.of().parseHex(s.replace(" ", "")); }

    /** Every field distinct, at the offsets of struct rds_header. */
    private static final String DISTINCT = ""
            + "0102030405060708"                  // @0  h_sequence be64
            + "1112131415161718"                  // @8  h_ack be64
            + "21222324"                          // @16 h_len be32
            + "3132"                              // @20 h_sport be16
            + "4142"                              // @22 h_dport be16
            + "25"                                // @24 h_flags
            + "61"                                // @25 h_credit
            + "71727374"                          // @26 h_padding[4]
            + "8182"                              // @30 h_csum
            + "909192939495969798999a9b9c9d9e9f"; // @32 h_exthdr[16]

    @Test
    void fieldsAtLinuxOffsets() {
        byte[] b = new byte[3 + RdsHeader.LENGTH];
        System.arraycopy(hex(DISTINCT), 0, b, 3, RdsHeader.LENGTH);
        int off = 3;
        assertThat(RdsHeader.sequence(b, off)).isEqualTo(0x0102030405060708L);
        assertThat(RdsHeader.ack(b, off)).isEqualTo(0x1112131415161718L);
        assertThat(RdsHeader.length(b, off)).isEqualTo(0x21222324L);
        assertThat(RdsHeader.sourcePort(b, off)).isEqualTo(0x3132);
        assertThat(RdsHeader.destinationPort(b, off)).isEqualTo(0x4142);
        assertThat(RdsHeader.flags(b, off)).isEqualTo(0x25);
        assertThat(RdsHeader.credit(b, off)).isEqualTo(0x61);
        assertThat(RdsHeader.padding(b, off)).isEqualTo(0x71727374);
        assertThat(RdsHeader.checksum(b, off)).isEqualTo(0x8182);

        RdsHeader h = new RdsHeader();
        assertThat(h.decode(b, off, RdsHeader.LENGTH, Long.MAX_VALUE)).isEqualTo(RdsHeader.OK);
        assertThat(h.sequence).isEqualTo(0x0102030405060708L);
        assertThat(h.ack).isEqualTo(0x1112131415161718L);
        assertThat(h.length).isEqualTo(0x21222324L);
        assertThat(h.sourcePort).isEqualTo(0x3132);
        assertThat(h.destinationPort).isEqualTo(0x4142);
        assertThat(h.flags).isEqualTo(0x25);
        assertThat(h.credit).isEqualTo(0x61);
        assertThat(h.padding).isEqualTo(0x71727374);
        assertThat(h.checksum).isEqualTo(0x8182);
        assertThat(h.extensions).isEqualTo(hex("909192939495969798999a9b9c9d9e9f"));
    }

    @Test
    void offsetsAndSizesMatchStructRdsHeader() {
        assertThat(new int[] {RdsHeader.OFF_SEQUENCE, RdsHeader.OFF_ACK, RdsHeader.OFF_LEN, RdsHeader.OFF_SPORT,
            RdsHeader.OFF_DPORT, RdsHeader.OFF_FLAGS, RdsHeader.OFF_CREDIT, RdsHeader.OFF_PADDING, RdsHeader.OFF_CSUM,
            RdsHeader.OFF_EXTHDR}).containsExactly(0, 8, 16, 20, 22, 24, 25, 26, 30, 32);
        assertThat(RdsHeader.LENGTH).isEqualTo(48);
        assertThat(RdsHeader.EXT_SPACE).isEqualTo(16);
    }

    @Test
    void linuxConstants() {
        assertThat(RdsHeader.FLAG_CONG_BITMAP).isEqualTo(0x01);
        assertThat(RdsHeader.FLAG_ACK_REQUIRED).isEqualTo(0x02);
        assertThat(RdsHeader.FLAG_RETRANSMITTED).isEqualTo(0x04);
        assertThat(RdsHeader.FLAG_EXTHDR_EXTENSION).isEqualTo(0x20);
        assertThat(RdsHeader.PROBE_PORT).isEqualTo(1);
        assertThat(RdsHeader.TCP_PORT).isEqualTo(16385);
        assertThat(RdsHeader.MAX_MSG_SIZE).isEqualTo(1024 * 1024);
        assertThat(RdsHeader.CONG_MAP_BYTES).isEqualTo(8192);
        assertThat(RdsHeader.PROTOCOL_3_0).isEqualTo(0x0300);
        assertThat(RdsHeader.PROTOCOL_3_1).isEqualTo(0x0301);
        int[] types = {RdsHeader.EXTHDR_NONE, RdsHeader.EXTHDR_VERSION, RdsHeader.EXTHDR_RDMA,
            RdsHeader.EXTHDR_RDMA_DEST, RdsHeader.EXTHDR_RDMA_BYTES, RdsHeader.EXTHDR_NPATHS, RdsHeader.EXTHDR_GEN_NUM,
            RdsHeader.EXTHDR_SPORT_IDX};
        assertThat(types).containsExactly(0, 1, 2, 3, 4, 5, 6, 8);
        int[] sizes = Arrays.stream(types).map(RdsHeader::extensionLength).toArray();
        assertThat(sizes).containsExactly(0, 4, 4, 8, 8, 2, 4, 1);
        assertThat(RdsHeader.extensionLength(7)).as("no entry in rds_exthdr_size").isZero();
        assertThat(RdsHeader.extensionLength(15)).isZero();
        assertThat(RdsHeader.extensionLength(16)).as("__RDS_EXTHDR_MAX").isEqualTo(-1);
        assertThat(RdsHeader.extensionLength(255)).isEqualTo(-1);
    }

    @Test
    void handshakeProbePorts() {
        assertThat(RdsHeader.isHandshakeProbe(1, 0)).as("ping").isTrue();
        assertThat(RdsHeader.isHandshakeProbe(0, 1)).as("pong").isTrue();
        assertThat(RdsHeader.isHandshakeProbe(0, 0)).isFalse();
        assertThat(RdsHeader.isHandshakeProbe(1, 1)).isFalse();
        assertThat(RdsHeader.isHandshakeProbe(2, 0)).isFalse();
    }

    @Test
    void writeIsPopulateHeaderOnAZeroedMessage() {
        byte[] b = new byte[RdsHeader.LENGTH];
        Arrays.fill(b, (byte) 0xEE); // stale bytes must not survive
        RdsHeader.write(b, 0, 0x0102030405060708L, 0x1112131415161718L, 0x21222324L, 0x3132, 0x4142, 0x25, 0x61);
        assertThat(b).isEqualTo(hex("0102030405060708 1112131415161718 21222324 3132 4142 25 61 00000000 0000"
                + "00000000000000000000000000000000"));
    }

    @Test
    void congestionUpdateAsLinuxSendsIt() {
        // rds_cong_update_alloc: h_flags = RDS_FLAG_CONG_BITMAP, h_len = RDS_CONG_MAP_BYTES, ports and sequence 0
        byte[] b = new byte[RdsHeader.LENGTH];
        RdsHeader.write(b, 0, 0, 0, RdsHeader.CONG_MAP_BYTES, 0, 0, RdsHeader.FLAG_CONG_BITMAP, 0);
        assertThat(b).isEqualTo(hex("0000000000000000 0000000000000000 00002000 0000 0000 01 00 00000000 0000"
                + "00000000000000000000000000000000"));
        assertThat(RdsHeader.isCongestionUpdate(b, 0)).isTrue();
        assertThat(RdsHeader.validate(b, 0, b.length, RdsHeader.MAX_MSG_SIZE)).isEqualTo(RdsHeader.OK);
        b[RdsHeader.OFF_FLAGS] = RdsHeader.FLAG_CONG_BITMAP | RdsHeader.FLAG_ACK_REQUIRED;
        assertThat(RdsHeader.isCongestionUpdate(b, 0)).as("rds_tcp_data_recv compares h_flags for equality").isFalse();
    }

    @Test
    void roundTripThroughTheHolder() {
        byte[] in = hex(DISTINCT);
        RdsHeader h = new RdsHeader();
        assertThat(h.decode(in, 0, in.length, Long.MAX_VALUE)).isEqualTo(RdsHeader.OK);
        byte[] out = new byte[RdsHeader.LENGTH + 2];
        assertThat(h.encode(out, 2)).isEqualTo(RdsHeader.LENGTH);
        assertThat(Arrays.copyOfRange(out, 2, out.length)).isEqualTo(in);

        Random r = new Random(48);
        RdsHeader a = new RdsHeader(), c = new RdsHeader();
        for (int i = 0; i < 1000; i++) {
            a.sequence = r.nextLong();
            a.ack = r.nextLong();
            a.length = r.nextLong() & 0xFFFFFFFFL;
            a.sourcePort = r.nextInt(0x10000);
            a.destinationPort = r.nextInt(0x10000);
            a.flags = r.nextInt(256);
            a.credit = r.nextInt(256);
            a.padding = r.nextInt();
            a.checksum = r.nextInt(0x10000);
            r.nextBytes(a.extensions);
            byte[] w = new byte[RdsHeader.LENGTH];
            a.encode(w, 0);
            c.decode(w, 0, w.length, Long.MAX_VALUE);
            assertThat(c).usingRecursiveComparison().isEqualTo(a);
        }
    }

    // ---- extension headers ----

    /** The (type, value) pairs an iteration yields, with a bound on the number of steps. */
    private static List<long[]> walk(byte[] b, int ext) {
        List<long[]> seen = new ArrayList<>();
        int pos = 0;
        for (int t; (t = RdsHeader.extensionAt(b, ext, pos)) != RdsHeader.EXTHDR_NONE; ) {
            seen.add(new long[] {t, RdsHeader.extensionValue(b, ext, pos, t), pos});
            int next = RdsHeader.nextExtension(pos, t);
            assertThat(next).isGreaterThan(pos).isLessThanOrEqualTo(RdsHeader.EXT_SPACE);
            pos = next;
            assertThat(seen).hasSizeLessThanOrEqualTo(RdsHeader.EXT_SPACE);
        }
        return seen;
    }

    @Test
    void handshakeProbeExtensionsAsRdsSendProbeAddsThem() {
        // rds_send_probe: NPATHS = RDS_MPATH_WORKERS (8), then GEN_NUM
        RdsHeader h = new RdsHeader();
        assertThat(h.addExtension(RdsHeader.EXTHDR_NPATHS, 8)).isTrue();
        assertThat(h.addExtension(RdsHeader.EXTHDR_GEN_NUM, 0xCAFEBABEL)).isTrue();
        assertThat(h.extensions).isEqualTo(hex("05 0008 06 cafebabe 0000000000000000"));
        assertThat(h.extensionValue(RdsHeader.EXTHDR_NPATHS, -1)).isEqualTo(8);
        assertThat(h.extensionValue(RdsHeader.EXTHDR_GEN_NUM, -1)).isEqualTo(0xCAFEBABEL);
        assertThat(h.extensionValue(RdsHeader.EXTHDR_VERSION, -1)).isEqualTo(-1);
        assertThat(h.findExtension(RdsHeader.EXTHDR_GEN_NUM)).isEqualTo(3);

        // through the byte array of a whole header
        byte[] b = new byte[RdsHeader.LENGTH];
        RdsHeader.write(b, 0, 1, 0, 0, RdsHeader.PROBE_PORT, 0, 0, 0);
        int ext = RdsHeader.OFF_EXTHDR;
        assertThat(RdsHeader.addExtension(b, ext, RdsHeader.EXTHDR_NPATHS, 8)).isTrue();
        assertThat(RdsHeader.addExtension(b, ext, RdsHeader.EXTHDR_GEN_NUM, 0xCAFEBABEL)).isTrue();
        assertThat(Arrays.copyOfRange(b, ext, ext + 16)).isEqualTo(h.extensions);
        List<long[]> seen = walk(b, ext);
        assertThat(seen).hasSize(2);
        assertThat(seen.get(0)).containsExactly(RdsHeader.EXTHDR_NPATHS, 8, 0);
        assertThat(seen.get(1)).containsExactly(RdsHeader.EXTHDR_GEN_NUM, 0xCAFEBABEL, 3);
    }

    @Test
    void payloadLayoutOfEachType() {
        RdsHeader h = new RdsHeader();
        assertThat(h.addExtension(RdsHeader.EXTHDR_RDMA_DEST, 0x11223344_55667788L)).isTrue();
        assertThat(h.addExtension(RdsHeader.EXTHDR_VERSION, RdsHeader.PROTOCOL_3_1)).isTrue();
        // struct rds_ext_header_rdma_dest: h_rdma_rkey then h_rdma_offset, both be32
        assertThat(h.extensions).isEqualTo(hex("03 11223344 55667788 01 00000301 00 00"));
        RdsHeader g = new RdsHeader();
        assertThat(g.addExtension(RdsHeader.EXTHDR_RDMA, 0xA1B2C3D4L)).isTrue();
        assertThat(g.addExtension(RdsHeader.EXTHDR_RDMA_BYTES, 0x00001000_01000000L)).isTrue();
        // struct rds_ext_header_rdma_bytes: h_rdma_bytes be32, h_rflags (RDS_FLAG_RDMA_WR_BYTES), h_pad[3]
        assertThat(g.extensions).isEqualTo(hex("02 a1b2c3d4 04 00001000 01 000000 00 00"));
    }

    @Test
    void extensionsFillingAllSixteenBytesHaveNoTerminator() {
        RdsHeader h = new RdsHeader();
        assertThat(h.addExtension(RdsHeader.EXTHDR_RDMA_DEST, 0x0102030405060708L)).isTrue(); // 9 bytes
        assertThat(h.addExtension(RdsHeader.EXTHDR_GEN_NUM, 0x0A0B0C0DL)).isTrue();           // 5 bytes, 14
        assertThat(h.addExtension(RdsHeader.EXTHDR_NPATHS, 1)).as("3 bytes do not fit in 2").isFalse();
        assertThat(h.addExtension(RdsHeader.EXTHDR_SPORT_IDX, 0)).isTrue();                   // 2 bytes, 16
        assertThat(h.extensions).isEqualTo(hex("03 0102030405060708 06 0a0b0c0d 08 00"));
        assertThat(h.addExtension(RdsHeader.EXTHDR_SPORT_IDX, 0)).as("full").isFalse();
        assertThat(h.extensions).isEqualTo(hex("03 0102030405060708 06 0a0b0c0d 08 00"));
        List<long[]> seen = walk(h.extensions, 0);
        assertThat(seen).extracting(e -> e[0]).containsExactly(3L, 6L, 8L);
        assertThat(seen).extracting(e -> e[2]).containsExactly(0L, 9L, 14L);
    }

    @Test
    void iterationStopsAtNoneAndAtTypesFromSixteen() {
        // NONE ends the list even with bytes after it
        assertThat(walk(hex("05 0002 00 06 01020304 00000000000000"), 0)).extracting(e -> e[0]).containsExactly(5L);
        // a type >= __RDS_EXTHDR_MAX ends it (rds_message_next_extension: goto none)
        assertThat(walk(hex("05 0002 10 06 01020304 00000000000000"), 0)).extracting(e -> e[0]).containsExactly(5L);
        assertThat(walk(hex("ff 0002 05 0001 000000000000000000 00"), 0)).isEmpty();
        // an empty space
        assertThat(walk(new byte[16], 0)).isEmpty();
    }

    @Test
    void typeWithoutSizeBelowSixteenIsZeroLengthAsInLinux() {
        // rds_exthdr_size[7] is 0: Linux returns type 7 with buflen 0 and goes on at the next byte
        List<long[]> seen = walk(hex("07 05 0002 00 0000000000000000000000"), 0);
        assertThat(seen).hasSize(2);
        assertThat(seen.get(0)).containsExactly(7, 0, 0);
        assertThat(seen.get(1)).containsExactly(5, 2, 1);
        // a run of them is bounded by the 16 bytes
        byte[] sevens = new byte[16];
        Arrays.fill(sevens, (byte) 7);
        assertThat(walk(sevens, 0)).hasSize(16);
    }

    @Test
    void payloadRunningPastTheSpaceEndsIteration() {
        // RDMA_DEST (9) + NPATHS (3) leave 4 bytes: a GEN_NUM type byte at 12 would need 5
        byte[] ext = hex("03 0102030405060708 05 0003 06 aabbcc");
        assertThat(walk(ext, 0)).extracting(e -> e[0]).containsExactly(3L, 5L);
        assertThat(RdsHeader.extensionAt(ext, 0, 12)).isEqualTo(RdsHeader.EXTHDR_NONE);
        assertThat(RdsHeader.extensionAt(ext, 0, 16)).isEqualTo(RdsHeader.EXTHDR_NONE);
        assertThat(RdsHeader.extensionAt(ext, 0, -1)).isEqualTo(RdsHeader.EXTHDR_NONE);
    }

    @Test
    void addRefusesUnknownTypesAndStopsAtUnknownOnes() {
        RdsHeader h = new RdsHeader();
        assertThat(h.addExtension(RdsHeader.EXTHDR_NONE, 0)).isFalse();
        assertThat(h.addExtension(7, 0)).isFalse();
        assertThat(h.addExtension(16, 0)).isFalse();
        assertThat(h.addExtension(-1, 0)).isFalse();
        assertThat(h.extensions).isEqualTo(new byte[16]);
        // rds_find_next_ext_space: an unknown type on the way is -EINVAL, nothing is written
        byte[] ext = hex("05 0002 07 000000000000000000000000");
        byte[] before = ext.clone();
        assertThat(RdsHeader.addExtension(ext, 0, RdsHeader.EXTHDR_NPATHS, 3)).isFalse();
        assertThat(ext).isEqualTo(before);
        ext[0] = 0x20;
        assertThat(RdsHeader.addExtension(ext, 0, RdsHeader.EXTHDR_NPATHS, 3)).isFalse();
    }

    @Test
    void addWritesNothingOutsideTheSpace() {
        byte[] b = new byte[4 + 16 + 4];
        Arrays.fill(b, (byte) 0x5A);
        Arrays.fill(b, 4, 20, (byte) 0);
        for (int i = 0; i < 20; i++) RdsHeader.addExtension(b, 4, RdsHeader.EXTHDR_NPATHS, 0xFFFF);
        assertThat(walk(b, 4)).hasSize(5); // 5 * 3 = 15 bytes, then a terminating 0
        for (int i : new int[] {0, 1, 2, 3, 20, 21, 22, 23}) assertThat(b[i]).isEqualTo((byte) 0x5A);
        assertThat(b[19]).isZero();
    }

    // ---- checksum ----

    /**
     * ip_fast_csum as x86 computes it: 32-bit little-endian loads with end-around carry, folded to 16 bits and
     * complemented, stored little-endian. An independent check of the big-endian computation.
     */
    private static int ipFastCsumLittleEndian(byte[] b, int off, int words) {
        long s = 0;
        for (int i = 0; i < words; i++) {
            int p = off + 4 * i;
            s += (b[p] & 0xFFL) | (b[p + 1] & 0xFFL) << 8 | (b[p + 2] & 0xFFL) << 16 | (b[p + 3] & 0xFFL) << 24;
            s = (s & 0xFFFFFFFFL) + (s >>> 32);
        }
        s = (s & 0xFFFF) + (s >>> 16);
        s = (s & 0xFFFF) + (s >>> 16);
        int le = (int) (~s & 0xFFFF);
        return (le & 0xFF) << 8 | le >>> 8; // the bytes in memory, read big-endian
    }

    @Test
    void checksumKnownAnswers() {
        // the congestion update header: 16-bit words 0x0001 (sequence 1 here), 0x2000 (h_len 8192),
        // 0x0100 (h_flags 1, h_credit 0), all else 0: sum 0x2101, checksum ~0x2101 = 0xdefe
        byte[] b = new byte[RdsHeader.LENGTH];
        RdsHeader.write(b, 0, 1, 0, RdsHeader.CONG_MAP_BYTES, 0, 0, RdsHeader.FLAG_CONG_BITMAP, 0);
        assertThat(RdsHeader.computeChecksum(b, 0)).isEqualTo(0xDEFE);
        RdsHeader.fillChecksum(b, 0);
        assertThat(RdsHeader.checksum(b, 0)).isEqualTo(0xDEFE);
        assertThat(b[30]).isEqualTo((byte) 0xDE);
        assertThat(b[31]).isEqualTo((byte) 0xFE);
        assertThat(RdsHeader.verifyChecksum(b, 0)).isTrue();

        // every field distinct, with carries; h_csum's old value (0x8182) is ignored by the computation
        byte[] d = hex(DISTINCT);
        assertThat(RdsHeader.computeChecksum(d, 0)).isEqualTo(0x21D0);
        byte[] z = d.clone();
        z[30] = z[31] = 0;
        assertThat(ipFastCsumLittleEndian(z, 0, 12)).isEqualTo(0x21D0);
        assertThat(RdsHeader.verifyChecksum(d, 0)).as("0x8182 is wrong").isFalse();
        RdsHeader.fillChecksum(d, 0);
        assertThat(RdsHeader.verifyChecksum(d, 0)).isTrue();
        assertThat(ipFastCsumLittleEndian(d, 0, 12)).as("rds_message_verify_checksum: ip_fast_csum == 0").isZero();
    }

    @Test
    void checksumAgreesWithIpFastCsumOnRandomHeaders() {
        Random r = new Random(30);
        byte[] b = new byte[RdsHeader.LENGTH];
        for (int i = 0; i < 10_000; i++) {
            r.nextBytes(b);
            b[30] = b[31] = 0;
            int expected = ipFastCsumLittleEndian(b, 0, 12);
            assertThat(RdsHeader.computeChecksum(b, 0)).isEqualTo(expected);
            RdsHeader.fillChecksum(b, 0);
            assertThat(RdsHeader.verifyChecksum(b, 0)).isTrue();
            b[r.nextInt(RdsHeader.LENGTH)] ^= (byte) (1 << r.nextInt(8));
            if (RdsHeader.checksum(b, 0) != 0) assertThat(RdsHeader.verifyChecksum(b, 0)).isFalse();
        }
    }

    @Test
    void zeroChecksumMeansNoneAsOverTcp() {
        // rds_message_verify_checksum: !h_csum passes; RDS over TCP always sends 0
        byte[] b = hex(DISTINCT);
        b[30] = b[31] = 0;
        assertThat(RdsHeader.verifyChecksum(b, 0)).isTrue();
        assertThat(RdsHeader.validate(b, 0, b.length, Long.MAX_VALUE, true)).isEqualTo(RdsHeader.OK);
        b[31] = 1;
        assertThat(RdsHeader.validate(b, 0, b.length, Long.MAX_VALUE, true)).isEqualTo(RdsHeader.ERR_CHECKSUM);
        assertThat(RdsHeader.validate(b, 0, b.length, Long.MAX_VALUE, false)).as("TCP does not check").isEqualTo(RdsHeader.OK);
    }

    // ---- validation ----

    @Test
    void truncatedHeaderIsAnErrorCode() {
        byte[] b = hex(DISTINCT);
        RdsHeader h = new RdsHeader();
        for (int len = 0; len < RdsHeader.LENGTH; len++) {
            assertThat(RdsHeader.validate(b, 0, len, Long.MAX_VALUE)).isEqualTo(RdsHeader.ERR_TRUNCATED);
            h.sequence = 5;
            assertThat(h.decode(b, 0, len, Long.MAX_VALUE)).isEqualTo(RdsHeader.ERR_TRUNCATED);
            assertThat(h.sequence).as("cleared").isZero();
        }
        assertThat(RdsHeader.validate(b, 0, RdsHeader.LENGTH, Long.MAX_VALUE)).isEqualTo(RdsHeader.OK);
        assertThat(RdsHeader.validate(new byte[0], 0, 0, 0)).isEqualTo(RdsHeader.ERR_TRUNCATED);
    }

    @Test
    void lengthAboveTheCallersMaximumIsAnErrorCode() {
        byte[] b = new byte[RdsHeader.LENGTH];
        RdsHeader.write(b, 0, 7, 0, RdsHeader.MAX_MSG_SIZE, 40000, 40001, 0, 0);
        assertThat(RdsHeader.validate(b, 0, b.length, RdsHeader.MAX_MSG_SIZE)).isEqualTo(RdsHeader.OK);
        assertThat(RdsHeader.validate(b, 0, b.length, RdsHeader.MAX_MSG_SIZE - 1)).isEqualTo(RdsHeader.ERR_LENGTH);
        RdsHeader.write(b, 0, 7, 0, 0xFFFFFFFFL, 40000, 40001, 0, 0);
        assertThat(RdsHeader.length(b, 0)).as("unsigned").isEqualTo(0xFFFFFFFFL);
        assertThat(RdsHeader.validate(b, 0, b.length, RdsHeader.MAX_MSG_SIZE)).isEqualTo(RdsHeader.ERR_LENGTH);
        RdsHeader h = new RdsHeader();
        assertThat(h.decode(b, 0, b.length, RdsHeader.MAX_MSG_SIZE)).isEqualTo(RdsHeader.ERR_LENGTH);
        assertThat(h.length).as("kept for counting").isEqualTo(0xFFFFFFFFL);
        assertThat(h.sourcePort).isEqualTo(40000);
        RdsHeader.write(b, 0, 7, 0, 0, 40000, 40001, 0, 0);
        assertThat(RdsHeader.validate(b, 0, b.length, 0)).as("an empty message").isEqualTo(RdsHeader.OK);
    }

    @Test
    void congestionUpdateOfTheWrongSizeIsAnErrorCode() {
        byte[] b = new byte[RdsHeader.LENGTH];
        for (long len : new long[] {0, 1, RdsHeader.CONG_MAP_BYTES - 1, RdsHeader.CONG_MAP_BYTES + 1, 65536}) {
            RdsHeader.write(b, 0, 0, 0, len, 0, 0, RdsHeader.FLAG_CONG_BITMAP, 0);
            assertThat(RdsHeader.validate(b, 0, b.length, RdsHeader.MAX_MSG_SIZE))
                    .as("h_len %d", len).isEqualTo(RdsHeader.ERR_CONG_MAP_LENGTH);
        }
        RdsHeader.write(b, 0, 0, 0, 3, 0, 0, RdsHeader.FLAG_CONG_BITMAP | RdsHeader.FLAG_RETRANSMITTED, 0);
        assertThat(RdsHeader.validate(b, 0, b.length, RdsHeader.MAX_MSG_SIZE)).isEqualTo(RdsHeader.OK);
    }

    @Test
    void toStringNamesFieldsAndExtensions() {
        RdsHeader h = new RdsHeader();
        h.sequence = -1;
        h.sourcePort = 1;
        h.addExtension(RdsHeader.EXTHDR_NPATHS, 8);
        assertThat(h.toString()).contains("seq 18446744073709551615").contains("1 > 0").contains("ext 5=8");
    }
}
