package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.MsgFlags;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Bytes;
import io.jnet.wire.Tcp;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * TCP urgent data as Linux has it, on virtual time: sending with MSG_OOB (tcp_mark_urg, the urgent pointer in
 * __tcp_transmit_skb, urgent mode past Nagle and TCP_CORK), receiving (tcp_urg, tcp_check_urg, tcp_recv_urg, the
 * mark in tcp_recvmsg_locked, SIOCATMARK and SIOCINQ in tcp_ioctl, POLLPRI in tcp_poll) and net.ipv4.tcp_stdurg.
 * Each receive case was played against Linux 6.18 as a script first (conformance/tcp/urgent).
 */
class TcpUrgentTest {

    static List<TcpFrame> dataFrom(VirtualNet net, boolean client) {
        return net.filter.frames(client).stream().filter(TcpFrame::isData).toList();
    }

    static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (i * 13 + 1);
        return b;
    }

    /** A patch for {@link CraftedSender#patch}: URG with urgent pointer {@code ptr}. */
    static Consumer<byte[]> urg(int ptr) {
        return f -> Tcp.setUrgent(f, VirtualNet.TCP_OFFSET, ptr);
    }

    /** Sends the stream bytes [from, to) to the client with URG and urgent pointer {@code ptr}. */
    static void sendUrgent(CraftedSender s, int from, int to, int ptr) {
        s.patch = urg(ptr);
        try {
            s.send(from, to);
        } finally {
            s.patch = null;
        }
    }

    static byte[] read(TcpSocket c, int max) throws Exception {
        byte[] b = new byte[max];
        int n = c.read(b, 0, max);
        return Arrays.copyOf(b, Math.max(n, 0));
    }

    static int readOob(TcpSocket c) throws Exception {
        byte[] b = new byte[1];
        assertThat(c.read(b, 0, 1, MsgFlags.MSG_OOB)).isEqualTo(1);
        return b[0];
    }

    static void assertErrno(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, Errno errno) {
        assertThatThrownBy(call).isInstanceOf(ErrnoException.class)
                .satisfies(e -> assertThat(((ErrnoException) e).errno()).isEqualTo(errno));
    }

    // ---------------------------------------------------------------------------------------------- sending

    @Test
    void sendOobMarksItsLastByteOnEverySegmentUntilAcknowledged() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection[] p = net.establish(srv);
            TcpConnection c = p[0], s = p[1];
            int mss = c.mss;
            byte[] m = bytes(3 * mss);
            assertThat(c.write(m, 0, m.length, MsgFlags.MSG_OOB)).isEqualTo(m.length);
            // tcp_send_mss: one MSS per segment; each carries URG and the pointer one past the urgent byte
            List<TcpFrame> data = dataFrom(net, true);
            assertThat(data).hasSize(3);
            for (int i = 0; i < 3; i++) {
                TcpFrame f = data.get(i);
                assertThat(f.payloadLength()).isEqualTo(mss);
                assertThat(f.has(Tcp.URG)).as("segment %d URG", i).isTrue();
                assertThat(f.urgentPointer()).as("segment %d pointer", i).isEqualTo((3 - i) * mss);
                assertThat(f.has(Tcp.PSH)).as("PSH on the last only").isEqualTo(i == 2);
            }
            // the receiver: the urgent byte is out of band, the stream stops before it
            assertThat(s.readyEvents() & (Events.POLLIN | Events.POLLPRI)).isEqualTo(Events.POLLIN | Events.POLLPRI);
            assertThat(s.inq()).isEqualTo(3 * mss - 1);
            byte[] got = new byte[4 * mss];
            int n = s.read(got, 0, got.length);
            assertThat(n).as("up to the mark").isEqualTo(3 * mss - 1);
            assertThat(Arrays.copyOf(got, n)).isEqualTo(Arrays.copyOf(m, n));
            assertThat(s.atMark()).isTrue();
            assertThat(readOob(s)).isEqualTo(m[m.length - 1]);
            assertThat(s.readyEvents() & Events.POLLPRI).as("read out of band: no POLLPRI").isZero();
            assertThat(s.read(got, 0, got.length)).as("the urgent byte left the stream").isZero();

            net.advanceMillis(250); // the receiver's ACK
            assertThat(c.sndUrg).as("urgent mode ends with the ACK of the urgent data").isFalse();
            net.filter.clearRecording();
            c.write(new byte[10], 0, 10);
            assertThat(dataFrom(net, true)).singleElement().satisfies(f -> {
                assertThat(f.has(Tcp.URG)).isFalse();
                assertThat(f.urgentPointer()).isZero();
            });
        }
    }

    @Test
    void urgentModeSendsWhatNagleAndCorkWouldHold() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            c.setOption(SocketOption.TCP_CORK, true);
            c.write(new byte[10], 0, 10);
            assertThat(dataFrom(net, true)).as("corked").isEmpty();
            c.write(new byte[5], 0, 5, MsgFlags.MSG_OOB);
            // tcp_nagle_test: no Nagle, no cork in urgent mode
            assertThat(dataFrom(net, true)).singleElement().satisfies(f -> {
                assertThat(f.payloadLength()).isEqualTo(15);
                assertThat(f.has(Tcp.URG) && f.has(Tcp.PSH)).isTrue();
                assertThat(f.urgentPointer()).isEqualTo(15);
            });
        }
    }

    @Test
    void anAckSentWhileUrgentDataWaitsCarriesTheUrgentPointer() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            CraftedSender peer = new CraftedSender(net, c);
            TcpFrame last = net.filter.frames(false).getLast();
            // the peer closes its window: the urgent data cannot go
            net.filter.injectInbound(net.craftToClient(last.srcPort(), last.dstPort(), peer.base, c.sndNxt, Tcp.ACK, 0,
                    null, new byte[0]));
            int una = c.sndUna;
            c.write(new byte[10], 0, 10, MsgFlags.MSG_OOB);
            assertThat(dataFrom(net, true)).isEmpty();
            peer.patch = f -> Bytes.put16(f, VirtualNet.TCP_OFFSET + 14, 0); // the window stays closed
            peer.send(0, 5);
            // __tcp_transmit_skb marks any segment before snd_up, the ACK too
            TcpFrame ack = net.filter.frames(true).getLast();
            assertThat(ack.isPureAck()).isTrue();
            assertThat(ack.seq()).isEqualTo(una);
            assertThat(ack.has(Tcp.URG)).isTrue();
            assertThat(ack.urgentPointer()).isEqualTo(10);
        }
    }

    @Test
    void anUrgentPointer64KiBAheadIsSentAs0xffff() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            net.filter.hold(true, false); // nothing acknowledged: the first flight only
            c.setOption(SocketOption.SO_SNDBUF, 200_000);
            int mss = c.mss;
            int len = 65_536 + 5 * mss;
            assertThat(c.write(bytes(len), 0, len, MsgFlags.MSG_OOB)).isEqualTo(len);
            List<TcpFrame> data = dataFrom(net, true);
            assertThat(data).hasSizeGreaterThan(6);
            for (int i = 0; i < data.size(); i++) {
                int ahead = len - i * mss;
                assertThat(data.get(i).has(Tcp.URG)).isTrue();
                assertThat(data.get(i).urgentPointer()).as("segment %d, %d bytes ahead", i, ahead)
                        .isEqualTo(Math.min(ahead, 0xFFFF));
            }
        }
    }

    @Test
    void msgOobOnAFriendsConnectionIsEopnotsupp() throws Exception {
        try (NetNamespace ns = NetNamespace.create("friends-oob"); TcpServerSocket srv = TcpServerSocket.open(ns)) {
            srv.bind(new InetSocketAddress("127.0.0.1", 0));
            srv.listen(4);
            ns.sysctl().set("net.ipv4.tcp_friends", "1");
            TcpSocket c = TcpSocket.open(ns);
            c.connect(srv.localAddress());
            TcpSocket s = srv.accept();
            assertThat(TcpFriends.isPaired((TcpConnection) c)).isTrue();
            assertErrno(() -> c.write(new byte[1], 0, 1, MsgFlags.MSG_OOB), Errno.EOPNOTSUPP);
            assertThat(s.available()).isZero();
            assertErrno(() -> s.read(new byte[1], 0, 1, MsgFlags.MSG_OOB), Errno.EINVAL);
            c.close();
            s.close();
        }
    }

    // -------------------------------------------------------------------------------------------- receiving

    @Test
    void theUrgentByteLeavesTheStreamAndAReadStopsAtItsMark() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            CraftedSender peer = new CraftedSender(net, c);
            assertThat(c.atMark()).isFalse();
            assertErrno(() -> c.read(new byte[1], 0, 1, MsgFlags.MSG_OOB), Errno.EINVAL); // none yet
            sendUrgent(peer, 0, 10, 5); // BSD pointer: byte 4 is urgent
            assertThat(c.readyEvents() & (Events.POLLIN | Events.POLLPRI)).isEqualTo(Events.POLLIN | Events.POLLPRI);
            assertThat(c.inq()).as("SIOCINQ counts up to the mark").isEqualTo(4);
            assertThat(c.available()).isEqualTo(4);
            assertThat(c.atMark()).isFalse();
            assertThat(read(c, 100)).isEqualTo(CraftedSender.data(0, 4));
            assertThat(c.atMark()).isTrue();
            assertThat(c.inq()).isZero();
            ByteBuffer oob = ByteBuffer.allocate(4);
            assertThat(c.read(oob, MsgFlags.MSG_OOB)).isEqualTo(1);
            assertThat(oob.get(0)).isEqualTo(CraftedSender.data(4));
            assertThat(c.readyEvents() & (Events.POLLIN | Events.POLLPRI)).isEqualTo(Events.POLLIN);
            assertThat(c.atMark()).as("until a read passes the mark").isTrue();
            assertThat(c.inq()).isZero();
            assertErrno(() -> c.read(new byte[1], 0, 1, MsgFlags.MSG_OOB), Errno.EINVAL); // read already
            assertThat(read(c, 100)).isEqualTo(CraftedSender.data(5, 10));
            assertThat(c.atMark()).isFalse();
            peer.send(10, 20);
            assertThat(c.inq()).isEqualTo(10);
        }
    }

    @Test
    void aReadPastTheMarkDropsAnUrgentByteNotReadOutOfBand() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            CraftedSender peer = new CraftedSender(net, c);
            sendUrgent(peer, 0, 10, 5);
            assertThat(read(c, 100)).hasSize(4);
            assertThat(read(c, 100)).isEqualTo(CraftedSender.data(5, 10));
            assertErrno(() -> c.read(new byte[1], 0, 1, MsgFlags.MSG_OOB), Errno.EINVAL);
            assertThat(c.atMark()).isFalse();
            assertThat(c.readyEvents() & Events.POLLPRI).isZero();
        }
    }

    @Test
    void withOobInlineTheUrgentByteStaysInTheStream() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            CraftedSender peer = new CraftedSender(net, c);
            assertThat(c.getOption(SocketOption.SO_OOBINLINE)).isFalse();
            c.setOption(SocketOption.SO_OOBINLINE, true);
            assertThat(c.getOption(SocketOption.SO_OOBINLINE)).isTrue();
            sendUrgent(peer, 0, 10, 5);
            assertThat(c.readyEvents() & Events.POLLPRI).isNotZero();
            assertThat(c.inq()).as("SO_OOBINLINE: all of it").isEqualTo(10);
            assertErrno(() -> c.read(new byte[1], 0, 1, MsgFlags.MSG_OOB), Errno.EINVAL);
            assertThat(read(c, 100)).as("still stops at the mark").isEqualTo(CraftedSender.data(0, 4));
            assertThat(c.atMark()).isTrue();
            assertThat(read(c, 100)).isEqualTo(CraftedSender.data(4, 10));
            assertThat(c.atMark()).isFalse();
            assertThat(c.readyEvents() & Events.POLLPRI).as("past the mark: urgent data forgotten").isZero();
        }
    }

    @Test
    void oobInlineIsInheritedFromTheListener() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            srv.setOption(SocketOption.SO_OOBINLINE, true);
            assertThat(srv.getOption(SocketOption.SO_OOBINLINE)).isTrue();
            TcpConnection[] p = net.establish(srv);
            assertThat(p[1].getOption(SocketOption.SO_OOBINLINE)).isTrue();
            assertThat(p[0].getOption(SocketOption.SO_OOBINLINE)).isFalse();
        }
    }

    @Test
    void anUrgentByteNotArrivedGivesEagainUntilASegmentBringsItInOrderOrNot() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            CraftedSender peer = new CraftedSender(net, c);
            sendUrgent(peer, 0, 5, 15); // byte 14: not here yet
            assertThat(c.readyEvents() & Events.POLLPRI).isZero();
            assertErrno(() -> c.read(new byte[1], 0, 1, MsgFlags.MSG_OOB), Errno.EAGAIN);
            assertThat(c.inq()).as("the mark lies beyond RCV.NXT: all of it").isEqualTo(5);
            peer.send(10, 20); // out of order, but it holds byte 14 (tcp_urg looks at any acceptable segment)
            assertThat(c.readyEvents() & Events.POLLPRI).isNotZero();
            assertThat(readOob(c)).isEqualTo(CraftedSender.data(14));
            assertThat(read(c, 100)).isEqualTo(CraftedSender.data(0, 5));
            peer.send(5, 10);
            assertThat(read(c, 100)).isEqualTo(CraftedSender.data(5, 14));
            assertThat(c.atMark()).isTrue();
            assertThat(read(c, 100)).isEqualTo(CraftedSender.data(15, 20));
        }
    }

    @Test
    void stdurgOneReadsThePointerAsRfc1122() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            assertThat(net.a.sysctl().get("net.ipv4.tcp_stdurg")).isEqualTo("0");
            net.a.sysctl().set("net.ipv4.tcp_stdurg", "1");
            TcpConnection c = net.establish(srv)[0];
            CraftedSender peer = new CraftedSender(net, c);
            sendUrgent(peer, 0, 10, 5); // RFC 1122: byte 5 is urgent
            assertThat(c.inq()).isEqualTo(5);
            assertThat(read(c, 100)).isEqualTo(CraftedSender.data(0, 5));
            assertThat(readOob(c)).isEqualTo(CraftedSender.data(5));
            assertThat(read(c, 100)).isEqualTo(CraftedSender.data(6, 10));
            assertThatThrownBy(() -> net.a.sysctl().set("net.ipv4.tcp_stdurg", "2")).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aNewPointerWhileTheReaderStandsAtTheMarkMovesItPastTheOldByte() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            CraftedSender peer = new CraftedSender(net, c);
            sendUrgent(peer, 0, 10, 5);
            assertThat(read(c, 100)).hasSize(4);
            sendUrgent(peer, 10, 20, 5); // byte 14
            assertThat(c.atMark()).isFalse();
            assertThat(c.inq()).isEqualTo(9);
            assertThat(readOob(c)).isEqualTo(CraftedSender.data(14));
            assertThat(read(c, 100)).isEqualTo(CraftedSender.data(5, 14));
            assertThat(read(c, 100)).isEqualTo(CraftedSender.data(15, 20));
        }
    }

    @Test
    void aNewerPointerReplacesTheOlderWhoseByteIsThenReadInTheStream() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            CraftedSender peer = new CraftedSender(net, c);
            sendUrgent(peer, 0, 10, 5);
            assertThat(readOob(c)).isEqualTo(CraftedSender.data(4));
            sendUrgent(peer, 10, 20, 5);
            assertThat(c.inq()).isEqualTo(14);
            assertThat(read(c, 100)).isEqualTo(CraftedSender.data(0, 14));
            assertThat(c.atMark()).isTrue();
            assertThat(readOob(c)).isEqualTo(CraftedSender.data(14));
            assertThat(read(c, 100)).isEqualTo(CraftedSender.data(15, 20));
        }
    }

    @Test
    void aRetransmittedUrgentPointerIsNotReplayed() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            CraftedSender peer = new CraftedSender(net, c);
            sendUrgent(peer, 0, 10, 5);
            assertThat(readOob(c)).isEqualTo(CraftedSender.data(4));
            assertThat(read(c, 100)).hasSize(4);
            assertThat(read(c, 100)).hasSize(5);
            sendUrgent(peer, 0, 10, 5); // the same segment again
            assertThat(c.readyEvents() & Events.POLLPRI).isZero();
            assertErrno(() -> c.read(new byte[1], 0, 1, MsgFlags.MSG_OOB), Errno.EINVAL);
            assertThat(c.inq()).isZero();
        }
    }

    @Test
    void theUrgentByteAloneIsNotReadableAndCloseResetsOverIt() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            CraftedSender peer = new CraftedSender(net, c);
            sendUrgent(peer, 0, 5, 5); // the last byte is urgent
            assertThat(read(c, 100)).hasSize(4);
            // tcp_poll: one byte more than SO_RCVLOWAT at the mark without SO_OOBINLINE
            assertThat(c.readyEvents() & (Events.POLLIN | Events.POLLPRI)).isEqualTo(Events.POLLPRI);
            assertThat(readOob(c)).isEqualTo(CraftedSender.data(4));
            assertThat(c.readyEvents() & (Events.POLLIN | Events.POLLPRI)).isZero();
            assertThat(c.inq()).isZero();
            long abortOnData = net.a.mib().get(MibCounter.TcpExtTCPAbortOnData);
            long abortOnClose = net.a.mib().get(MibCounter.TcpExtTCPAbortOnClose);
            c.close(); // the urgent byte is still queued, as Linux's receive queue holds it: unread data
            assertThat(net.filter.frames(true).getLast().isRst()).isTrue();
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPAbortOnClose)).isEqualTo(abortOnClose + 1);
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPAbortOnData)).isEqualTo(abortOnData);
        }
    }

    @Test
    void aReadOfOnlyTheUrgentByteSkipsItAndFindsNothing() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            CraftedSender peer = new CraftedSender(net, c);
            sendUrgent(peer, 0, 5, 5);
            assertThat(read(c, 100)).hasSize(4);
            assertThat(c.read(new byte[100], 0, 100)).as("skipped, nothing else: non-blocking 0").isZero();
            assertThat(c.readyEvents() & Events.POLLIN).isZero();
            long abortOnClose = net.a.mib().get(MibCounter.TcpExtTCPAbortOnClose);
            c.close();
            assertThat(net.filter.frames(true).getLast().isFin()).as("nothing unread: FIN").isTrue();
            assertThat(net.a.mib().get(MibCounter.TcpExtTCPAbortOnClose)).isEqualTo(abortOnClose);
        }
    }

    @Test
    void afterFinAnUrgentByteThatNeverCameReadsAsEndAndAfterResetEnotconn() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            CraftedSender peer = new CraftedSender(net, c);
            sendUrgent(peer, 0, 10, 15);
            peer.send(10, 10, Tcp.FIN);
            assertThat(c.read(new byte[1], 0, 1, MsgFlags.MSG_OOB)).as("Linux's 0").isEqualTo(-1);
            assertThat(read(c, 100)).hasSize(10);
            assertThat(c.read(new byte[1], 0, 1)).isEqualTo(-1);
        }
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            CraftedSender peer = new CraftedSender(net, c);
            sendUrgent(peer, 0, 10, 5);
            peer.send(10, 10, Tcp.RST);
            assertThat(c.tcpState()).isEqualTo(TcpState.CLOSED);
            assertErrno(() -> c.read(new byte[1], 0, 1, MsgFlags.MSG_OOB), Errno.ENOTCONN);
        }
    }

    @Test
    void recvFlagsOutsideTheSetAreEinvalAndMsgDontwaitDoesNotBlock() throws Exception {
        try (VirtualNet net = new VirtualNet(); TcpServerSocket srv = net.listen(VirtualNet.PORT)) {
            TcpConnection c = net.establish(srv)[0];
            assertErrno(() -> c.read(new byte[1], 0, 1, 0x20 /* MSG_TRUNC */), Errno.EINVAL);
            assertErrno(() -> c.read(ByteBuffer.allocate(1), 0x8000 /* MSG_MORE */), Errno.EINVAL);
            c.setBlocking(true);
            assertThat(c.read(new byte[1], 0, 1, MsgFlags.MSG_DONTWAIT)).isZero();
            assertThat(c.read(ByteBuffer.allocate(1), MsgFlags.MSG_DONTWAIT)).isZero();
            // recv(MSG_OOB) never blocks either (tcp_recv_urg): without urgent data, EINVAL at once
            assertErrno(() -> c.read(new byte[1], 0, 1, MsgFlags.MSG_OOB), Errno.EINVAL);
        }
    }
}
