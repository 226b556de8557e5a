package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** ACK generation and flow control on virtual time: delayed ACK, zero-window probes, window update, Nagle. */
class TcpAckAndWindowTest {

    static long acksFromServer(VirtualNet net) {
        return net.filter.frames(false).stream().filter(TcpFrame::isPureAck).count();
    }

    @Test
    void aSmallSegmentIsAckedAfterTheDelayedAckTimeoutOnceQuickAckModeEnds() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            p[0].setOption(SocketOption.TCP_NODELAY, true);
            byte[] one = {1};
            int quick = 0;
            boolean delayed = false;
            for (int i = 0; i < 40 && !delayed; i++) {
                long before = acksFromServer(net);
                p[0].write(one, 0, 1);
                if (acksFromServer(net) > before) {
                    quick++;
                    net.advanceMillis(1);
                } else {
                    delayed = true;
                }
            }
            assertThat(delayed).as("leaves quick-ack mode").isTrue();
            assertThat(quick).as("quick ACKs at the start of the connection (Linux tcp_enter_quickack_mode)").isBetween(2, 16);
            long sent = net.clock.nanoTime();
            long acks = acksFromServer(net);
            long delackCounter = net.b.mib().get(MibCounter.TcpExtDelayedACKs);
            net.advanceMillis(39);
            assertThat(acksFromServer(net)).as("no ACK before tcp_delack_min (40 ms)").isEqualTo(acks);
            net.advanceMillis(1);
            assertThat(acksFromServer(net)).isEqualTo(acks + 1);
            TcpFrame ack = net.filter.frames(false).getLast();
            assertThat(ack.atNanos() - sent).isEqualTo(40_000_000L);
            assertThat(ack.ack()).isEqualTo(p[0].sndNxt);
            assertThat(net.b.mib().get(MibCounter.TcpExtDelayedACKs)).isEqualTo(delackCounter + 1);
        }
    }

    @Test
    void everySecondFullSizedSegmentIsAckedAtOnce() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            c.setOption(SocketOption.TCP_NODELAY, true);
            // leave quick-ack mode with small segments first
            for (int i = 0; i < 40; i++) {
                long before = acksFromServer(net);
                c.write(new byte[1], 0, 1);
                net.advanceMillis(1);
                if (acksFromServer(net) == before) break;
            }
            net.advanceMillis(100); // flush any delayed ACK (a silence longer than the RTO would re-enter quick-ack)
            VirtualNet.drain(p[1], 1000);
            assertThat(p[1].quickAcks).isZero();
            int mss = c.mss;
            long acks = acksFromServer(net);
            c.write(new byte[mss], 0, mss);
            assertThat(acksFromServer(net)).as("one full segment: ACK delayed").isEqualTo(acks);
            assertThat(VirtualNet.drain(p[1], 4 * mss)).hasSize(mss); // the reader keeps up; reading sends no ACK
            assertThat(acksFromServer(net)).isEqualTo(acks);
            c.write(new byte[mss], 0, mss);
            assertThat(acksFromServer(net)).as("second full segment: ACK at once (RFC 9293 3.8.6.3)").isEqualTo(acks + 1);
            assertThat(net.filter.frames(false).getLast().ack()).isEqualTo(c.sndNxt);
            assertThat(VirtualNet.drain(p[1], 4 * mss)).hasSize(mss);
        }
    }

    /** Fills a small receive buffer the reader does not read; returns how many bytes the writer queued. */
    static int stallReader(VirtualNet net, TcpConnection c, TcpConnection s, byte[] data) throws Exception {
        assertThat(s.rcvbuf).isEqualTo(8192);
        int written = c.write(data, 0, data.length); // non-blocking: what fits in the send buffer
        assertThat(written).isPositive().isLessThan(data.length);
        net.advanceMillis(1000); // delayed ACKs and retransmissions settle
        // the window closes (to below one segment: the right edge never moves left, RFC 9293 3.8.6.2.2)
        assertThat(s.receiveWindow()).isLessThan(c.mss);
        return written;
    }

    @Test
    void aStalledReaderIsProbedAndAWindowUpdateResumesTheTransfer() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            srv.setOption(SocketOption.SO_RCVBUF, 4096); // 8192 effective, inherited by the accepted socket
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            TcpConnection s = p[1];
            byte[] data = new byte[200_000];
            new Random(9).nextBytes(data);
            int written = stallReader(net, c, s, data);
            net.filter.clearRecording();
            net.advanceMillis(10_000);
            List<TcpFrame> out = net.filter.frames(true);
            assertThat(out.stream().filter(TcpFrame::isData)).as("nothing sent into the closed window").isEmpty();
            assertThat(out.stream().filter(f -> f.isPureAck() && f.seq() == c.sndUna - 1)).as("window probes").isNotEmpty();
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPWinProbe)).isPositive();
            assertThat(c.state()).as("answered probes keep the connection").isEqualTo("ESTAB");

            // the reader drains the buffer: a window update goes out at once and the sender resumes
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            net.filter.clearRecording();
            got.writeBytes(VirtualNet.drain(s, 100_000));
            List<TcpFrame> update = net.filter.frames(false);
            assertThat(update).as("window update sent without waiting for a probe").isNotEmpty();
            assertThat(update.getFirst().window()).isPositive();
            assertThat(net.filter.frames(true).stream().anyMatch(TcpFrame::isData)).as("sender resumed").isTrue();

            int off = written;
            for (int round = 0; round < 10_000 && got.size() < data.length; round++) {
                if (off < data.length) off += c.write(data, off, data.length - off);
                got.writeBytes(VirtualNet.drain(s, 100_000));
                net.advanceMillis(1);
            }
            assertThat(Arrays.equals(got.toByteArray(), data)).as("every byte arrives in order").isTrue();
        }
    }

    @Test
    void aWindowBelowOneSegmentIsFilledEveryRtoWithoutBackoff() throws Exception {
        // a reader that shrinks SO_RCVBUF far below the window it advertised (4096 against 64 KiB segments): the
        // sender's SWS avoidance does not send into the small window, its persist timer sends what fits
        // (tcp_write_wakeup); a probe that carried data ends probing and its backoff (tcp_send_probe0), so the
        // next one comes one RTO after the ACK instead of a doubled wait each time
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            net.veth.a().setMtu(65535);
            net.veth.b().setMtu(65535);
            srv.setOption(SocketOption.SO_RCVBUF, 1 << 20);
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            TcpConnection s = p[1];
            byte[] first = new byte[2_000_000];
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            int off = 0;
            for (int round = 0; round < 10_000 && got.size() < first.length; round++) {
                if (off < first.length) off += c.write(first, off, first.length - off);
                got.writeBytes(VirtualNet.drain(s, 1 << 20));
                net.advanceMillis(1);
            }
            assertThat(got.size()).isEqualTo(first.length);
            s.setOption(SocketOption.SO_RCVBUF, 4096);

            byte[] data = new byte[600_000];
            new Random(11).nextBytes(data);
            got.reset();
            net.filter.clearRecording();
            off = 0;
            for (int round = 0; round < 600_000 && got.size() < data.length; round++) {
                if (off < data.length) off += c.write(data, off, data.length - off);
                got.writeBytes(VirtualNet.drain(s, 1 << 20));
                net.advanceMillis(1);
            }
            assertThat(Arrays.equals(got.toByteArray(), data)).as("every byte arrives in order").isTrue();
            List<TcpFrame> sent = net.filter.frames(true).stream().filter(TcpFrame::isData).toList();
            assertThat(sent.stream().filter(f -> f.payloadLength() <= 8192).count())
                    .as("segments sized to the shrunken window (the old window's right edge used up first)")
                    .isGreaterThan(10);
            long maxGap = 0;
            for (int i = 1; i < sent.size(); i++) maxGap = Math.max(maxGap, sent.get(i).atNanos() - sent.get(i - 1).atNanos());
            assertThat(maxGap).as("no doubled persist waits between window-sized segments (ns)")
                    .isLessThanOrEqualTo(2L * c.rtt.currentRtoUs() * 1000 + 10_000_000L);
        }
    }

    @Test
    void zeroWindowProbesBackOffExponentially() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            srv.setOption(SocketOption.SO_RCVBUF, 4096);
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            stallReader(net, c, p[1], new byte[200_000]);
            net.filter.clearRecording();
            net.advanceMillis(60_000);
            List<TcpFrame> probes = net.filter.frames(true).stream()
                    .filter(f -> f.isPureAck() && f.seq() == c.sndUna - 1).toList();
            assertThat(probes.size()).isBetween(4, 12);
            List<Long> gaps = new ArrayList<>();
            for (int i = 1; i < probes.size(); i++) gaps.add(probes.get(i).atNanos() - probes.get(i - 1).atNanos());
            for (int i = 1; i < gaps.size(); i++) {
                assertThat(gaps.get(i)).as("persist backoff doubles: %s", gaps)
                        .isEqualTo(Math.min(2 * gaps.get(i - 1), 120_000_000_000L));
            }
        }
    }

    @Test
    void nagleHoldsASecondSmallWriteUntilTheFirstIsAcked() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            net.filter.hold(false, true); // hold the server's ACKs
            c.write(new byte[] {1}, 0, 1);
            c.write(new byte[] {2}, 0, 1);
            c.write(new byte[] {3}, 0, 1);
            List<TcpFrame> data = net.filter.frames(true).stream().filter(TcpFrame::isData).toList();
            assertThat(data).as("only the first small segment goes while it is unacknowledged").hasSize(1);
            net.filter.hold(false, false);
            net.filter.releaseHeld(); // the ACK of byte 1 releases the held bytes, coalesced
            data = net.filter.frames(true).stream().filter(TcpFrame::isData).toList();
            assertThat(data).hasSize(2);
            assertThat(data.get(1).payloadLength()).isEqualTo(2);
            assertThat(VirtualNet.drain(p[1], 10)).containsExactly(1, 2, 3);
        }
    }

    /**
     * Minshall's refinement (Linux tcp_minshall_check): Nagle holds a partial segment only while an
     * earlier partial segment is in flight, so a small write after full-sized segments goes at once, on
     * connections of every ISS. Before snd_sml started at the ISS it started at 0, which counted as a
     * partial segment in flight whenever the ISS lay in the half of the sequence space below 0; a 1 MiB
     * request's 848-byte tail then waited for the peer's delayed ACK (40 ms) on loopback.
     */
    @Test
    void aSmallWriteAfterFullSegmentsIsNotHeldByNagle() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            int issBelowZero = 0;
            for (int i = 0; i < 8; i++) {
                TcpConnection[] p = net.establish(srv);
                TcpConnection c = p[0];
                if (Tcp.seqGt(0, c.sndUna)) issBelowZero++;
                net.filter.clearRecording();
                net.filter.hold(false, true); // no ACK from the server reaches the client
                c.write(new byte[2 * c.mss], 0, 2 * c.mss);
                c.write(new byte[] {1}, 0, 1);
                List<TcpFrame> data = net.filter.frames(true).stream().filter(TcpFrame::isData).toList();
                assertThat(data.getLast().payloadLength()).as("connection %d: the small write is a segment of its own", i)
                        .isEqualTo(1);
                assertThat(data.getLast().seq() + 1).as("connection %d (ISS %d): the small write goes while full"
                        + " segments are unacknowledged", i, c.sndUna - 1).isEqualTo(c.writeSeq);
                net.filter.hold(false, false);
                net.filter.releaseHeld();
                assertThat(VirtualNet.drain(p[1], 4 * c.mss)).hasSize(2 * c.mss + 1);
                c.close();
                p[1].close();
                net.advanceMillis(1);
            }
            assertThat(issBelowZero).as("some connections have an ISS below 0, the case that was held").isPositive();
        }
    }

    @Test
    void tcpNodelaySendsSmallWritesWhileDataIsUnacknowledged() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            c.setOption(SocketOption.TCP_NODELAY, true);
            net.filter.hold(false, true);
            c.write(new byte[] {1}, 0, 1);
            c.write(new byte[] {2}, 0, 1);
            c.write(new byte[] {3}, 0, 1);
            assertThat(net.filter.frames(true).stream().filter(TcpFrame::isData).count()).isEqualTo(3);
            net.filter.hold(false, false);
            net.filter.releaseHeld();
            assertThat(VirtualNet.drain(p[1], 10)).containsExactly(1, 2, 3);
        }
    }

    @Test
    void settingTcpNodelayPushesDataHeldByNagle() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            net.filter.hold(false, true);
            p[0].write(new byte[] {1}, 0, 1);
            p[0].write(new byte[] {2}, 0, 1);
            assertThat(net.filter.frames(true).stream().filter(TcpFrame::isData).count()).isEqualTo(1);
            p[0].setOption(SocketOption.TCP_NODELAY, true);
            assertThat(net.filter.frames(true).stream().filter(TcpFrame::isData).count()).as("Linux pushes on TCP_NODELAY").isEqualTo(2);
            net.filter.hold(false, false);
            net.filter.releaseHeld();
        }
    }

    /** tcp_incr_quickack: rcv_wnd / (2 * rcv_mss) quick ACKs, 2 only when that is 0, at most 16. */
    @Test
    void quickAckCountFollowsTheWindowInSegments() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection s = net.establish(srv)[1];
            int[][] cases = {{2920, 1000, 1}, {1999, 1000, 2}, {6000, 1000, 3}, {200_000, 1000, 16}};
            for (int[] k : cases) {
                s.rcvWnd = k[0];
                s.rcvMss = k[1];
                s.quickAcks = 0;
                TcpInput.enterQuickAck(s);
                assertThat(s.quickAcks).as("rcv_wnd %d, rcv_mss %d", k[0], k[1]).isEqualTo(k[2]);
            }
        }
    }
}
