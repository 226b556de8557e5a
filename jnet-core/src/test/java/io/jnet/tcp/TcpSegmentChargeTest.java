package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.socket.TcpServerSocket;
import org.junit.jupiter.api.Test;

/**
 * What a segment is charged (truesize) and what it does to the window: a split moves the charge with the bytes
 * (Linux tcp_fragment), and a clamped rcv_ssthresh grows only for segments whose charge the window allows for
 * (Linux tcp_grow_window, __tcp_grow_window).
 */
class TcpSegmentChargeTest {
    @Test
    void aSplitMovesTheChargeOfTheBytesItSplitsOff() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.connect(VirtualNet.PORT);
            int len = 65160;
            PacketBuffer seg = c.tcp.ns.allocator().allocate(TcpOutput.TX_HEADROOM, len);
            seg.put(len);
            seg.seq = c.writeSeq;
            seg.endSeq = c.writeSeq + len;
            long charge = seg.truesize();
            long queued = c.writeQueue.bytes();
            c.writeQueue.add(seg);
            TcpOutput.split(c, seg, 4000);
            PacketBuffer tail = seg.next;
            assertThat(seg.length()).isEqualTo(4000);
            assertThat(tail.length()).isEqualTo(len - 4000);
            assertThat(seg.truesize()).as("the first part keeps the charge of its own bytes").isEqualTo(charge - (len - 4000));
            assertThat(tail.truesize()).as("the second part is charged its bytes").isGreaterThanOrEqualTo(len - 4000);
            assertThat(c.writeQueue.bytes()).isEqualTo(queued + seg.truesize() + tail.truesize());
            c.writeQueue.poll().release();
            c.writeQueue.poll().release();
        }
    }

    /**
     * rcv_ssthresh starts at the window the handshake offered (Linux tcp_connect_init, tcp_openreq_init_rwin), so the
     * first window after it is that one rounded up to the scale, not half the buffer; data segments then grow it
     * (tcp_grow_window) until it covers the buffer.
     */
    @Test
    void theWindowStartsAtTheHandshakesAndGrowsWithData() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            TcpConnection s = p[1];
            TcpFrame syn = net.filter.frames(true).stream().filter(TcpFrame::isSyn).findFirst().orElseThrow();
            assertThat(c.rcvSsthresh).isEqualTo(syn.window()).isEqualTo(TcpOutput.initialWindow(c));
            assertThat(s.rcvSsthresh).isEqualTo(TcpOutput.initialWindow(s));
            int scale = 1 << c.rcvWscale;
            // the client's first window after the handshake: the SYN's, rounded up to the scale
            TcpFrame ack = net.filter.frames(true).stream().filter(f -> !f.isSyn()).findFirst().orElseThrow();
            assertThat((long) ack.window() * scale).isEqualTo((syn.window() + scale - 1) / scale * scale);
            int before = s.rcvSsthresh;
            byte[] data = new byte[8 * s.mss];
            c.write(data, 0, data.length);
            net.advanceMillis(10);
            assertThat(s.rcvSsthresh).isGreaterThan(before);
            assertThat(net.a.internalErrors()).isZero();
        }
    }

    @Test
    void aClampedWindowGrowsForCompactSegmentsAndForBloatedOnesOnlyWhileItIsSmall() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.connect(VirtualNet.PORT);
            c.rcvbuf = 4 << 20;
            int mss = 1448;
            PacketBuffer compact = segment(mss, 0);
            PacketBuffer bloated = segment(mss, 65536 - mss); // one MSS in a 64 KiB buffer
            // tcp_rmem[2] = 6 MiB: a window of a quarter of it (1.5 MiB), halved with each halving of a quarter
            // of the bloated segment's charge (16 KiB) until that fits its bytes (1 KiB): grows up to 96 KiB only
            c.rcvSsthresh = 200_000;
            ReceiveMemory.growWindow(c, bloated);
            assertThat(c.rcvSsthresh).as("not for a bloated segment once the window is large").isEqualTo(200_000);
            ReceiveMemory.growWindow(c, compact);
            assertThat(c.rcvSsthresh).isEqualTo(200_000 + Math.max(2 * c.advMss, 2 * mss));
            c.rcvSsthresh = 2 * c.advMss;
            ReceiveMemory.growWindow(c, bloated);
            assertThat(c.rcvSsthresh).as("a small window grows for it").isEqualTo(2 * c.advMss + Math.max(2 * c.rcvMss, 2 * mss));
            c.rcvSsthresh = c.rcvbuf - 100;
            ReceiveMemory.growWindow(c, compact);
            assertThat(c.rcvSsthresh).as("unclamped once it covers the buffer").isEqualTo(Integer.MAX_VALUE);
            compact.release();
            bloated.release();
        }
    }

    /** A buffer of {@code len} bytes with {@code spare} unused bytes charged behind them. */
    private static PacketBuffer segment(int len, int spare) {
        PacketBuffer b = PacketBuffer.allocate(0, len + spare);
        b.put(len);
        return b;
    }
}
