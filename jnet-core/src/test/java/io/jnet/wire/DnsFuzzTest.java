package io.jnet.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Runs {@link DnsMessage#parse} over random bytes and over mutations of real dnsmasq answers (bit flips, byte
 * sets, compression pointers aimed anywhere, changed counts and RDLENGTHs, cuts, splices). The only allowed
 * outcomes are a message or a {@link MalformedPacketException}; a parsed message whose names can be sent again
 * encodes to bytes that parse to the same message, and no name in it is longer than 255 bytes. Fixed seeds: a
 * failure names the case.
 */
class DnsFuzzTest {
    private static final long SEED = 0x646e735f66757a7aL;

    @Test
    void randomAndMutatedMessagesNeverBreakTheParser() throws IOException {
        run(200_000, SEED);
    }

    @Test
    @Tag("long")
    void tenMillionCases() throws IOException {
        run(10_000_000, SEED + 1);
    }

    private static void run(int cases, long seed) throws IOException {
        List<byte[]> templates = new ArrayList<>();
        for (String f : List.of("dnsmasq-cname.bin", "dnsmasq-nx.bin", "dnsmasq-ptr.bin", "dnsmasq-big.bin")) {
            templates.add(DnsMessageTest.resource(f));
        }
        SplittableRandom r = new SplittableRandom(seed);
        long parsed = 0, refused = 0;
        for (int i = 0; i < cases; i++) {
            byte[] m = r.nextInt(8) == 0 ? random(r) : mutate(templates.get(r.nextInt(templates.size())), r);
            int off = r.nextInt(3);
            byte[] framed = new byte[m.length + off + 2];
            System.arraycopy(m, 0, framed, off, m.length);
            try {
                DnsMessage msg = DnsMessage.parse(framed, off, m.length);
                parsed++;
                check(msg, i);
            } catch (MalformedPacketException e) {
                refused++;
                assertThat(e.getMessage()).isNotBlank();
            } catch (RuntimeException e) {
                throw new AssertionError("case " + i + ": " + java.util.HexFormat.of().formatHex(m), e);
            }
        }
        assertThat(parsed).as("parsed").isPositive();
        assertThat(refused).as("refused").isPositive();
    }

    private static void check(DnsMessage msg, int i) throws MalformedPacketException {
        List<String> names = new ArrayList<>();
        msg.questions().forEach(q -> names.add(q.name()));
        for (var section : List.of(msg.answers(), msg.authorities(), msg.additionals())) {
            for (var rr : section) {
                names.add(rr.name());
                if (rr.target() != null) names.add(rr.target());
            }
        }
        boolean sendable = true;
        for (String n : names) {
            try {
                Dns.checkName(n);
            } catch (IllegalArgumentException escapesOrOdd) {
                sendable = false;
            }
        }
        if (!sendable) return;
        byte[] again = msg.encode();
        DnsMessage back = DnsMessage.parse(again, 0, again.length);
        if (!back.equals(msg)) fail("case " + i + ": encode/parse changed " + msg + " into " + back);
    }

    private static byte[] random(SplittableRandom r) {
        byte[] b = new byte[r.nextInt(600)];
        for (int i = 0; i < b.length; i++) b[i] = (byte) r.nextInt(256);
        if (b.length >= 12 && r.nextBoolean()) {
            for (int k = 4; k < 12; k += 2) { b[k] = 0; b[k + 1] = (byte) r.nextInt(4); }
        }
        return b;
    }

    private static byte[] mutate(byte[] t, SplittableRandom r) {
        byte[] b = t.clone();
        int edits = 1 + r.nextInt(4);
        for (int e = 0; e < edits; e++) {
            if (b.length == 0) break;
            int at = r.nextInt(b.length);
            switch (r.nextInt(7)) {
                case 0 -> b[at] ^= (byte) (1 << r.nextInt(8));
                case 1 -> b[at] = (byte) r.nextInt(256);
                case 2 -> { // a compression pointer anywhere
                    if (at + 1 < b.length) { int target = r.nextInt(b.length + 8); b[at] = (byte) (0xC0 | (target >>> 8)); b[at + 1] = (byte) target; }
                }
                case 3 -> { // a count
                    if (b.length >= 12) { int k = 4 + 2 * r.nextInt(4); b[k] = 0; b[k + 1] = (byte) r.nextInt(64); }
                }
                case 4 -> b = java.util.Arrays.copyOf(b, r.nextInt(b.length + 1)); // cut
                case 5 -> { // a length byte that claims more or less
                    b[at] = (byte) r.nextInt(80);
                }
                default -> { // splice a slice of the message into itself
                    int from = r.nextInt(b.length), len = r.nextInt(Math.min(40, b.length - from) + 1);
                    int to = r.nextInt(b.length);
                    byte[] c = new byte[b.length + len];
                    System.arraycopy(b, 0, c, 0, to);
                    System.arraycopy(b, from, c, to, len);
                    System.arraycopy(b, to, c, to + len, b.length - to);
                    b = c;
                }
            }
        }
        return b;
    }
}
