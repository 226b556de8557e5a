package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * SACK blocks fuzzed against a live connection on virtual time: a real jnet client sends {@link #BYTES} to a real
 * jnet server over a link that drops {@link #LOSS} of the data frames, and while it does, crafted ACKs from the
 * server's address (SND.UNA or a little below, the server's window and timestamps), one to four after each write of
 * up to two segments, carry random and adversarial SACK
 * options: blocks beyond SND.NXT, below SND.UNA, reversed, empty, overlapping, wrapping by 2^31, leaving 1-byte holes,
 * edges inside segments, D-SACK lookalikes (below the ACK, or inside the second block), blocks that claim data the
 * server never got (the sender must take them back at a timeout, TcpExtTCPSACKReneging), and SACK options with a
 * broken length. After {@link #FUZZ_ACKS} of them (seeded: the same seed, the same run) the fuzzing stops and the
 * transfer must complete byte-exact within {@link #SETTLE_MS} virtual ms: no exception escaped into the stack (the
 * namespaces' internal error counts stay 0), the connection is never stuck, and the scoreboard's invariants (tree,
 * SACKed, lost and retransmitted byte counts) hold after every ACK.
 */
class SackFuzzTest {
    static final int BYTES = 2 << 20;
    static final double LOSS = 0.05;
    static final int FUZZ_ACKS = 4000;
    static final long SETTLE_MS = 120_000;
    static final long SEED = 20261202;

    @Test
    void randomAndHostileSackBlocksNeitherBreakNorStallATransfer() throws Exception {
        Result r = run(SEED);
        System.out.printf("SACK fuzz seed %d: %d crafted ACKs, %d virtual ms, SACK discards %d, malformed %d, "
                        + "reneging %d, retransmitted %d, timeouts %d%n", SEED, r.fuzzed, r.virtualMs, r.discards,
                r.malformed, r.reneging, r.retrans, r.timeouts);
        assertThat(r.fuzzed).isEqualTo(FUZZ_ACKS);
        assertThat(r.discards).as("invalid blocks were seen and counted").isPositive();
        assertThat(r.malformed).as("malformed SACK options were seen and counted").isPositive();
    }

    @Test
    void sameSeedSameRun() throws Exception {
        Result a = run(7);
        Result b = run(7);
        assertThat(b.virtualMs).isEqualTo(a.virtualMs);
        assertThat(b.retrans).isEqualTo(a.retrans);
        assertThat(b.discards).isEqualTo(a.discards);
    }

    record Result(int fuzzed, long virtualMs, long discards, long malformed, long reneging, long retrans, long timeouts) { }

    static Result run(long seed) throws Exception {
        Random rnd = new Random(seed);
        Random loss = new Random(seed ^ 0x5EED);
        byte[] data = new byte[BYTES];
        new Random(seed + 1).nextBytes(data);
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            TcpConnection s = p[1];
            assertThat(c.sackOk).isTrue();
            c.setOption(SocketOption.TCP_NODELAY, true);
            net.filter.dropOutbound(f -> f.isData() && loss.nextDouble() < LOSS);
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[64 << 10];
            int written = 0;
            int fuzzed = 0;
            long t0 = net.clock.millis();
            long fuzzEnd = -1;
            while (got.size() < BYTES) {
                boolean moved = false;
                if (written < BYTES) {
                    // while fuzzing, a little at a time: the transfer must outlast the crafted ACKs
                    int chunk = fuzzed < FUZZ_ACKS ? 1 + rnd.nextInt(2 * c.mss) : 32 << 10;
                    int w = c.write(data, written, Math.min(chunk, BYTES - written));
                    if (w > 0) {
                        written += w;
                        moved = true;
                    }
                }
                int n = s.read(buf, 0, buf.length);
                if (n > 0) {
                    got.write(buf, 0, n);
                    moved = true;
                }
                if (fuzzed < FUZZ_ACKS && c.sndMax != c.sndUna) {
                    for (int k = 1 + rnd.nextInt(4); k > 0 && fuzzed < FUZZ_ACKS; k--) {
                        inject(net, c, rnd);
                        fuzzed++;
                        c.sack.check();
                    }
                    if (fuzzed == FUZZ_ACKS) fuzzEnd = net.clock.millis();
                    moved = true;
                }
                if (!moved) {
                    long now = net.clock.millis();
                    assertThat(fuzzEnd < 0 || now - fuzzEnd <= SETTLE_MS)
                            .as("stuck %d ms after the fuzzing stopped: got %d of %d, sndUna %d sndMax %d, state %s, ca %d",
                                    now - fuzzEnd, got.size(), BYTES, c.sndUna, c.sndMax, c.state, c.caState)
                            .isTrue();
                    assertThat(now - t0).as("virtual ms").isLessThan(30 * SETTLE_MS);
                    net.advanceMillis(1);
                }
                if (net.filter.frames().size() > 10_000) net.filter.clearRecording();
            }
            c.sack.check();
            assertThat(Arrays.equals(got.toByteArray(), data)).as("byte-exact").isTrue();
            assertThat(net.a.internalErrors()).isZero();
            assertThat(net.b.internalErrors()).isZero();
            return new Result(fuzzed, net.clock.millis() - t0, net.a.mib().get(MibCounter.TcpExtTCPSACKDiscard),
                    net.a.mib().get(MibCounter.TcpExtJnetSackOptionMalformed),
                    net.a.mib().get(MibCounter.TcpExtTCPSACKReneging), net.a.mib().get(MibCounter.TcpRetransSegs),
                    net.a.mib().get(MibCounter.TcpExtTCPTimeouts));
        }
    }

    /** One crafted ACK from the server with random, mostly hostile, SACK blocks. */
    private static void inject(VirtualNet net, TcpConnection c, Random rnd) {
        int una = c.sndUna;
        int nxt = c.sndMax;
        int flight = Math.max(1, nxt - una);
        int mss = c.mss;
        TcpOptions o = new TcpOptions();
        int blocks = 1 + rnd.nextInt(4);
        o.hasTimestamp = blocks < 4 && rnd.nextInt(4) != 0;
        o.tsVal = c.tsRecent;
        o.tsEcr = c.tcp.tsClock() + c.tsOffset;
        if (o.hasTimestamp) blocks = Math.min(blocks, 3);
        o.sackBlocks = blocks;
        for (int i = 0; i < blocks; i++) {
            int l;
            int r;
            switch (rnd.nextInt(12)) {
                case 0 -> { // anywhere in flight, any edges
                    l = una + rnd.nextInt(flight);
                    r = l + rnd.nextInt(flight);
                }
                case 1 -> { // beyond SND.NXT
                    l = nxt - rnd.nextInt(3 * mss);
                    r = nxt + 1 + rnd.nextInt(1 << 20);
                }
                case 2 -> { // below SND.UNA
                    r = una - rnd.nextInt(1 << 16);
                    l = r - 1 - rnd.nextInt(1 << 16);
                }
                case 3 -> { // reversed
                    r = una + rnd.nextInt(flight);
                    l = r + 1 + rnd.nextInt(4 * mss);
                }
                case 4 -> { // empty
                    l = una + rnd.nextInt(flight);
                    r = l;
                }
                case 5 -> { // 1-byte holes: from just after a segment start to a segment end
                    int seg = rnd.nextInt(Math.max(1, flight / mss));
                    l = una + seg * mss + 1;
                    r = una + (seg + 1 + rnd.nextInt(4)) * mss;
                }
                case 6 -> { // the same as the previous block, or overlapping it
                    l = i > 0 ? o.sackLeft[i - 1] + rnd.nextInt(2 * mss) - mss : una;
                    r = i > 0 ? o.sackRight[i - 1] + rnd.nextInt(2 * mss) - mss : nxt;
                }
                case 7 -> { // wrapped by 2^31
                    l = una + (1 << 31) + rnd.nextInt(flight);
                    r = l + mss;
                }
                case 8 -> { // D-SACK lookalike below the ACK: straddling SND.UNA or just under it
                    l = una - rnd.nextInt(4 * mss) - 1;
                    r = rnd.nextBoolean() ? una : una + rnd.nextInt(2 * mss);
                }
                case 9 -> { // whole segments, maybe lies: claims data the server may not have
                    int seg = rnd.nextInt(Math.max(1, flight / mss));
                    l = una + seg * mss;
                    r = Math.min(nxt, l + (1 + rnd.nextInt(8)) * mss);
                }
                case 10 -> { // tiny blocks at odd edges
                    l = una + rnd.nextInt(flight);
                    r = l + 1 + rnd.nextInt(3);
                }
                default -> { // anything at all
                    l = rnd.nextInt();
                    r = rnd.nextInt();
                }
            }
            o.sackLeft[i] = l;
            o.sackRight[i] = r;
        }
        if (blocks > 1 && rnd.nextInt(8) == 0) { // D-SACK lookalike: the first block inside the second
            o.sackLeft[0] = o.sackLeft[1] + rnd.nextInt(mss);
            o.sackRight[0] = o.sackLeft[0] + rnd.nextInt(mss);
        }
        int ack = rnd.nextInt(10) == 0 ? una - rnd.nextInt(4 * mss) : una; // sometimes an old ACK
        byte[] f = net.craftToClient(c.remotePort, c.localPort, c.rcvNxt, ack, Tcp.ACK,
                (int) Math.min(65535, c.sndWnd >> c.sndWscale), o, new byte[0]);
        if (rnd.nextInt(10) == 0) breakSackLength(f, rnd);
        net.filter.injectInbound(f, PacketBuffer.DEFAULT_HEADROOM, 0);
    }

    /** Gives the SACK option of a crafted frame a wrong length (0, 1, 2, not 2 + 8k, or past the header). */
    private static void breakSackLength(byte[] f, Random rnd) {
        int t = VirtualNet.TCP_OFFSET;
        int hl = ((f[t + 12] & 0xFF) >>> 4) * 4;
        int i = t + Tcp.MIN_HEADER_LENGTH;
        while (i < t + hl) {
            int kind = f[i] & 0xFF;
            if (kind == 0) return;
            if (kind == 1) {
                i++;
                continue;
            }
            if (i + 1 >= t + hl) return;
            if (kind == 5) {
                int[] lengths = {0, 1, 2, 3, 9, 11, 17, 40, 255, (f[i + 1] & 0xFF) + 8};
                f[i + 1] = (byte) lengths[rnd.nextInt(lengths.length)];
                VirtualNet.refillChecksum(f, false);
                return;
            }
            int len = f[i + 1] & 0xFF;
            if (len < 2) return;
            i += len;
        }
    }
}
