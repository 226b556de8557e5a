package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.MsgFlags;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.wire.Tcp;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** TCP_CORK and MSG_MORE as Linux (tcp_push, tcp_nagle_test, the probe timer's ceiling), on virtual time. */
class TcpCorkTest {

    static List<TcpFrame> dataFromClient(VirtualNet net) {
        return net.filter.frames(true).stream().filter(TcpFrame::isData).toList();
    }

    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (seed + i * 7);
        return b;
    }

    /** Everything the server can read now. */
    static byte[] readAll(TcpConnection s) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[1 << 16];
        int n;
        while ((n = s.read(buf, 0, buf.length)) > 0) out.write(buf, 0, n);
        return out.toByteArray();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) out.writeBytes(p);
        return out.toByteArray();
    }

    @Test
    void corkedSmallWritesAreCoalescedIntoOneSegmentSentOnUncork() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            assertThat(c.getOption(SocketOption.TCP_CORK)).isFalse();
            c.setOption(SocketOption.TCP_CORK, true);
            assertThat(c.getOption(SocketOption.TCP_CORK)).isTrue();
            byte[] a = bytes(100, 1), b = bytes(200, 2), d = bytes(50, 3);
            c.write(a, 0, a.length);
            c.write(ByteBuffer.wrap(b));
            c.write(d, 0, d.length);
            net.advanceMillis(100);
            assertThat(dataFromClient(net)).as("nothing sent while corked").isEmpty();
            c.setOption(SocketOption.TCP_CORK, false);
            List<TcpFrame> data = dataFromClient(net);
            assertThat(data).hasSize(1);
            assertThat(data.getFirst().payloadLength()).isEqualTo(350);
            assertThat(data.getFirst().has(Tcp.PSH)).isTrue();
            assertThat(readAll(p[1])).isEqualTo(concat(a, b, d));
        }
    }

    @Test
    void fullSizedSegmentsGoWhileCorkedAndThePartialRestWaits() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            c.setOption(SocketOption.TCP_CORK, true);
            int mss = c.mss;
            byte[] m = bytes(3 * mss + 123, 9);
            assertThat(c.write(m, 0, m.length)).isEqualTo(m.length);
            List<TcpFrame> data = dataFromClient(net);
            int sent = data.stream().mapToInt(TcpFrame::payloadLength).sum();
            assertThat(sent).as("the full-sized segments go").isEqualTo(3 * mss);
            assertThat(data).allSatisfy(f -> assertThat(f.payloadLength() % mss).isZero());
            c.setOption(SocketOption.TCP_CORK, false);
            data = dataFromClient(net);
            assertThat(data.getLast().payloadLength()).isEqualTo(123);
            assertThat(readAll(p[1])).isEqualTo(m);
        }
    }

    @Test
    void aCorkedSegmentOfSeveralMssSendsItsFullSizedPartAndHoldsTheRest() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection s = p[1]; // the server's veth takes GSO segments: write-queue segments of several MSS
            assertThat(TcpOutput.sizeGoal(s)).isGreaterThan(4 * s.mss);
            s.setOption(SocketOption.TCP_CORK, true);
            int mss = s.mss;
            byte[] m = bytes(3 * mss + 123, 5);
            s.write(m, 0, m.length);
            List<TcpFrame> data = net.filter.frames(false).stream().filter(TcpFrame::isData).toList();
            assertThat(data.stream().mapToInt(TcpFrame::payloadLength).sum()).as("tcp_mss_split_point").isEqualTo(3 * mss);
            s.setOption(SocketOption.TCP_CORK, false);
            data = net.filter.frames(false).stream().filter(TcpFrame::isData).toList();
            assertThat(data.getLast().payloadLength()).isEqualTo(123);
            assertThat(VirtualNet.drain(p[0], m.length + 1)).isEqualTo(m);
        }
    }

    @Test
    void aCorkedPartialSegmentGoesWhenTheProbeTimerFires() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            c.setOption(SocketOption.TCP_CORK, true);
            long ceiling = TcpOutput.persistTimeoutNs(c);
            assertThat(ceiling).as("max(RTO, tcp_rto_min)").isGreaterThanOrEqualTo(200_000_000L);
            byte[] a = bytes(10, 4);
            long t0 = net.clock.nanoTime();
            c.write(a, 0, a.length);
            net.advanceMillis(ceiling / 1_000_000L - 1);
            assertThat(dataFromClient(net)).as("held until the probe timer").isEmpty();
            net.advanceMillis(2);
            List<TcpFrame> data = dataFromClient(net);
            assertThat(data).hasSize(1);
            assertThat(data.getFirst().atNanos() - t0).isBetween(ceiling, ceiling + 2_000_000L);
            assertThat(readAll(p[1])).isEqualTo(a);
            assertThat(c.getOption(SocketOption.TCP_CORK)).as("still corked").isTrue();
            // the next corked write waits for the timer again, armed anew once the ACK emptied the flight
            net.advanceMillis(1000);
            byte[] b = bytes(20, 5);
            long t1 = net.clock.nanoTime();
            c.write(b, 0, b.length);
            assertThat(dataFromClient(net)).hasSize(1);
            net.advanceMillis(TcpOutput.persistTimeoutNs(c) / 1_000_000L + 1);
            data = dataFromClient(net);
            assertThat(data).hasSize(2);
            assertThat(data.getLast().atNanos() - t1).isGreaterThanOrEqualTo(200_000_000L);
            assertThat(readAll(p[1])).isEqualTo(b);
        }
    }

    @Test
    void dataCorkedBehindSegmentsInFlightGoesAfterTheirAckAndTheProbeTimer() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            net.filter.hold(false, true); // the server's ACKs wait
            byte[] a = bytes(100, 1);
            c.write(a, 0, a.length);
            assertThat(dataFromClient(net)).hasSize(1);
            c.setOption(SocketOption.TCP_CORK, true);
            byte[] b = bytes(30, 2);
            c.write(b, 0, b.length);
            net.advanceMillis(50);
            net.filter.hold(false, false);
            net.filter.releaseHeld();
            assertThat(c.sndUna).as("all acknowledged").isEqualTo(c.sndNxt);
            assertThat(dataFromClient(net)).as("the ACK does not uncork").hasSize(1);
            long acked = net.clock.nanoTime();
            net.advanceMillis(TcpOutput.persistTimeoutNs(c) / 1_000_000L + 1);
            List<TcpFrame> data = dataFromClient(net);
            assertThat(data).hasSize(2);
            assertThat(data.getLast().atNanos() - acked).isGreaterThanOrEqualTo(200_000_000L);
            assertThat(readAll(p[1])).isEqualTo(concat(a, b));
        }
    }

    @Test
    void msgMoreOnEveryFragmentButTheLastGivesOneSegment() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            c.setOption(SocketOption.TCP_NODELAY, true); // MSG_MORE holds also without Nagle
            byte[] hdr = bytes(48, 1), f1 = bytes(300, 2), f2 = bytes(200, 3);
            for (int msg = 0; msg < 3; msg++) {
                int before = dataFromClient(net).size();
                assertThat(c.write(hdr, 0, hdr.length, MsgFlags.MSG_MORE)).isEqualTo(hdr.length);
                assertThat(c.write(ByteBuffer.wrap(f1), MsgFlags.MSG_MORE)).isEqualTo(f1.length);
                assertThat(dataFromClient(net)).hasSize(before);
                assertThat(c.write(f2, 0, f2.length, 0)).isEqualTo(f2.length);
                List<TcpFrame> data = dataFromClient(net);
                assertThat(data).hasSize(before + 1);
                assertThat(data.getLast().payloadLength()).isEqualTo(548);
                assertThat(readAll(p[1])).isEqualTo(concat(hdr, f1, f2));
                net.advanceMillis(50);
            }
        }
    }

    @Test
    void sendpageNotLastBuildsFullSizedSegmentsFromSmallWrites() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection s = p[1]; // the server's veth takes GSO segments
            // as RDS over TCP: TCP_NODELAY, corked for the length of a transmit pass
            s.setOption(SocketOption.TCP_NODELAY, true);
            s.setOption(SocketOption.TCP_CORK, true);
            s.setOption(SocketOption.SO_SNDBUF, 1 << 20); // room for all of it: a full send buffer pushes what it has
            s.win.cwnd = 1 << 20; // a window open past the initial one: segments go whole, not cut to the cwnd quota
            int goal = TcpOutput.sizeGoal(s);
            assertThat(goal).isGreaterThan(4 * 4096);
            int frag = 4096, n = goal / frag + 3; // one full segment and a bit
            byte[] m = bytes(n * frag + 100, 9);
            int more = MsgFlags.MSG_MORE | MsgFlags.MSG_SENDPAGE_NOTLAST;
            for (int i = 0; i < n; i++) {
                assertThat(s.write(m, i * frag, frag, more)).isEqualTo(frag);
            }
            List<TcpFrame> data = net.filter.frames(false).stream().filter(TcpFrame::isData).toList();
            assertThat(data).as("only the segment that reached the size goal went").hasSize(1);
            assertThat(data.getFirst().payloadLength()).isEqualTo(goal);
            assertThat(s.write(m, n * frag, 100, 0)).isEqualTo(100);
            // the last piece, corked: its full-sized part goes (tcp_mss_split_point), the partial rest at uncork
            s.setOption(SocketOption.TCP_CORK, false);
            data = net.filter.frames(false).stream().filter(TcpFrame::isData).toList();
            int mss = s.mss;
            int rest = m.length - goal;
            assertThat(data).extracting(TcpFrame::payloadLength).containsExactly(goal, rest - rest % mss, rest % mss);
            assertThat(VirtualNet.drain(p[0], m.length + 1)).isEqualTo(m);
        }
    }

    @Test
    void smallWritesWithoutNotLastGoOneSegmentEach() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection s = p[1];
            s.setOption(SocketOption.TCP_NODELAY, true);
            byte[] m = bytes(8 * 4096, 4);
            for (int i = 0; i < 8; i++) s.write(m, i * 4096, 4096, 0);
            List<TcpFrame> data = net.filter.frames(false).stream().filter(TcpFrame::isData).toList();
            assertThat(data).as("each write pushed on its own (TCP_NODELAY)").hasSize(8);
            assertThat(VirtualNet.drain(p[0], m.length + 1)).isEqualTo(m);
        }
    }

    @Test
    void msgMoreDataGoesWhenItFillsASegmentOrWhenTheProbeTimerFires() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            int mss = c.mss;
            byte[] a = bytes(100, 1), b = bytes(mss - 10, 2), d = bytes(30, 3);
            long t = net.clock.nanoTime();
            c.write(a, 0, a.length, MsgFlags.MSG_MORE);
            assertThat(dataFromClient(net)).isEmpty();
            net.advanceMillis(TcpOutput.persistTimeoutNs(c) / 1_000_000L + 1);
            List<TcpFrame> data = dataFromClient(net);
            assertThat(data).as("the probe timer sends it").hasSize(1);
            assertThat(data.getFirst().payloadLength()).isEqualTo(100);
            assertThat(data.getFirst().atNanos() - t).isGreaterThanOrEqualTo(200_000_000L);
            net.advanceMillis(1000);
            net.filter.hold(false, true); // the server's ACKs wait
            c.write(b, 0, b.length, MsgFlags.MSG_MORE);
            assertThat(dataFromClient(net)).hasSize(1);
            c.write(d, 0, d.length, MsgFlags.MSG_MORE);
            data = dataFromClient(net);
            assertThat(data).as("the segment filled to the MSS goes, the rest waits").hasSize(2);
            assertThat(data.getLast().payloadLength()).isEqualTo(mss);
            // as Linux: the ACK that empties the flight pushes with the socket's own setting (Nagle here);
            // MSG_MORE was for the write calls only
            net.filter.hold(false, false);
            net.filter.releaseHeld();
            data = dataFromClient(net);
            assertThat(data).hasSize(3);
            assertThat(data.getLast().payloadLength()).isEqualTo(20);
            assertThat(readAll(p[1])).isEqualTo(concat(a, b, d));
        }
    }

    @Test
    void corkWinsOverNodelayForPartialSegmentsButSettingNodelayPushesOnce() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            c.setOption(SocketOption.TCP_NODELAY, true);
            c.setOption(SocketOption.TCP_CORK, true);
            byte[] a = bytes(10, 1), b = bytes(20, 2), d = bytes(40, 3);
            c.write(a, 0, a.length);
            c.write(b, 0, b.length);
            assertThat(dataFromClient(net)).as("corked despite TCP_NODELAY").isEmpty();
            // Linux __tcp_sock_set_nodelay: TCP_NAGLE_PUSH sends what is queued, also while corked
            c.setOption(SocketOption.TCP_NODELAY, true);
            assertThat(dataFromClient(net)).hasSize(1);
            assertThat(dataFromClient(net).getFirst().payloadLength()).isEqualTo(30);
            net.advanceMillis(50);
            c.write(d, 0, d.length);
            assertThat(dataFromClient(net)).as("the push was one-shot: a new segment is corked again").hasSize(1);
            c.setOption(SocketOption.TCP_CORK, false);
            assertThat(dataFromClient(net)).hasSize(2);
            assertThat(dataFromClient(net).getLast().payloadLength()).isEqualTo(40);
            assertThat(readAll(p[1])).isEqualTo(concat(a, b, d));
        }
    }

    @Test
    void uncorkingWithoutNodelayLeavesTheSegmentToNagle() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            net.filter.hold(false, true); // the server's ACKs wait
            byte[] a = bytes(10, 1), b = bytes(20, 2);
            c.write(a, 0, a.length); // a partial segment in flight
            c.setOption(SocketOption.TCP_CORK, true);
            c.write(b, 0, b.length);
            c.setOption(SocketOption.TCP_CORK, false);
            assertThat(dataFromClient(net)).as("Nagle holds it: a partial segment is unacknowledged").hasSize(1);
            net.filter.hold(false, false);
            net.filter.releaseHeld();
            assertThat(dataFromClient(net)).hasSize(2);
            assertThat(readAll(p[1])).isEqualTo(concat(a, b));
        }
    }

    @Test
    void unknownSendFlagsAreRefusedWithEinval() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            for (int bad : new int[] {0x100 /* MSG_WAITALL */, 0x4 /* MSG_DONTROUTE */, 0x10000, MsgFlags.MSG_MORE | 0x2}) {
                assertThatThrownBy(() -> c.write(new byte[1], 0, 1, bad))
                        .isInstanceOf(ErrnoException.class)
                        .satisfies(e -> assertThat(((ErrnoException) e).errno()).isEqualTo(Errno.EINVAL));
                assertThatThrownBy(() -> c.write(ByteBuffer.allocate(1), bad))
                        .isInstanceOf(ErrnoException.class)
                        .satisfies(e -> assertThat(((ErrnoException) e).errno()).isEqualTo(Errno.EINVAL));
            }
            assertThat(c.outq()).as("nothing queued").isZero();
            assertThat(c.write(new byte[] {7}, 0, 1, MsgFlags.MSG_NOSIGNAL)).isEqualTo(1);
            assertThat(readAll(p[1])).containsExactly(7);
        }
    }

    @Test
    void msgDontwaitDoesNotBlockABlockingSocket() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0];
            c.setBlocking(true);
            c.setOption(SocketOption.SO_SNDBUF, 4096);
            net.filter.hold(false, true); // no ACK frees the send buffer
            byte[] big = bytes(1 << 20, 3);
            // a blocking write would wait here for ever (virtual time stands still): fail instead of hanging
            int n = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> c.write(big, 0, big.length, MsgFlags.MSG_DONTWAIT));
            assertThat(n).isPositive().isLessThan(big.length);
            int m = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> c.write(big, n, big.length - n, MsgFlags.MSG_DONTWAIT));
            assertThat(m).as("full: 0 as non-blocking").isZero();
            assertThat(c.isBlocking()).isTrue();
        }
    }

    @Test
    void acceptedConnectionsInheritTheListenersCork() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            srv.setOption(SocketOption.TCP_CORK, true);
            assertThat(srv.getOption(SocketOption.TCP_CORK)).isTrue();
            TcpConnection[] p = net.establish(srv);
            assertThat(p[1].getOption(SocketOption.TCP_CORK)).isTrue();
            assertThat(p[0].getOption(SocketOption.TCP_CORK)).isFalse();
            p[1].write(new byte[5], 0, 5);
            assertThat(net.filter.frames(false).stream().filter(TcpFrame::isData).count()).isZero();
            p[1].setOption(SocketOption.TCP_CORK, false);
            assertThat(net.filter.frames(false).stream().filter(TcpFrame::isData).count()).isEqualTo(1);
        }
    }
}
