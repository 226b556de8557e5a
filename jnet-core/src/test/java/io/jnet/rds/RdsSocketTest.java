package io.jnet.rds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.RdsSocket;
import io.jnet.socket.SocketOption;
import io.jnet.stack.NetNamespace;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** RDS sockets in one namespace (bind.c, send.c and recv.c errors; the loopback transport, rds_loop). */
class RdsSocketTest {
    static final String LO = "127.0.0.1";

    NetNamespace ns;
    RdsProtocol rds;

    @BeforeEach
    void setUp() {
        ns = NetNamespace.create("rds-unit");
        rds = RdsProtocol.of(ns);
    }

    @AfterEach
    void tearDown() {
        long errors = ns.internalErrors();
        Throwable last = ns.lastInternalError();
        ns.close();
        assertThat(errors).as("internal errors (last: %s)", last).isZero();
    }

    static InetSocketAddress addr(String a, int port) { return new InetSocketAddress(a, port); }

    static Errno errno(ThrowingRunnable r) {
        try {
            r.run();
        } catch (ErrnoException e) {
            return e.errno();
        } catch (Exception e) {
            throw new AssertionError("not an ErrnoException", e);
        }
        throw new AssertionError("no exception");
    }

    interface ThrowingRunnable { void run() throws Exception; }

    /** rds_loop_xmit_cong_map: a local congestion change seen by a loopback connection is an update received. */
    @Test
    void loopbackCongestionChangeCountsAsAnUpdateReceived() throws Exception {
        try (RdsSocket a = bound(4000); RdsSocket b = bound(4001)) {
            b.setOption(SocketOption.SO_RCVBUF, 1); // the minimum: congested beyond 1152 bytes queued
            RdsStatistics st = RdsProtocol.of(ns).statistics();
            a.send(new byte[2000], 0, 2000, addr(LO, 4001));
            assertThat(st.get("s_cong_update_received")).as("congested").isEqualTo(1);
            b.receive(new byte[2000], 0, 2000);
            assertThat(st.get("s_cong_update_received")).as("uncongested").isEqualTo(2);
        }
    }

    RdsSocket bound(int port) throws Exception {
        RdsSocket s = ns.openRdsSocket();
        s.bind(addr(LO, port));
        return s;
    }

    @Test
    void factoryInstallsTheProtocolAndTheListenerOpensWithTheFirstSocket() throws Exception {
        assertThat(rds.isListening()).isFalse();
        try (RdsSocket s = RdsSocket.open(ns)) {
            assertThat(s.localAddress()).isNull();
            assertThat(rds.isListening()).isTrue();
        }
    }

    @Test
    void bindErrors() throws Exception {
        try (RdsSocket a = ns.openRdsSocket(); RdsSocket b = ns.openRdsSocket(); RdsSocket c = ns.openRdsSocket()) {
            assertThat(errno(() -> a.bind(addr("0.0.0.0", 4000)))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> a.bind(addr("10.9.9.9", 4000)))).isEqualTo(Errno.EADDRNOTAVAIL);
            a.bind(addr(LO, 4000));
            assertThat(a.localAddress()).isEqualTo(addr(LO, 4000));
            assertThat(errno(() -> a.bind(addr(LO, 4001)))).as("already bound").isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> b.bind(addr(LO, 4000)))).isEqualTo(Errno.EADDRINUSE);
            b.bind(addr("127.0.0.2", 4000)); // another address, same port
            c.bind(addr(LO, 0));
            assertThat(c.localAddress().getPort()).isBetween(2, 65535).isNotEqualTo(4000);
            assertThat(rds.boundSocketCount()).isEqualTo(3);
        }
        assertThat(rds.boundSocketCount()).isZero();
        try (RdsSocket again = bound(4000)) {
            assertThat(again.localAddress().getPort()).as("port free after close").isEqualTo(4000);
        }
    }

    @Test
    void sendErrors() throws Exception {
        byte[] m = new byte[10];
        try (RdsSocket unbound = ns.openRdsSocket(); RdsSocket s = bound(4000)) {
            assertThat(errno(() -> unbound.send(m, 0, 10, addr(LO, 4000)))).isEqualTo(Errno.ENOTCONN);
            assertThat(errno(() -> s.send(m, 0, 10, null))).as("no destination").isEqualTo(Errno.ENOTCONN);
            assertThat(errno(() -> s.send(m, 0, 10, addr("0.0.0.0", 5)))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> s.send(new byte[RdsSocket.MAX_MESSAGE_SIZE + 1], 0, RdsSocket.MAX_MESSAGE_SIZE + 1,
                    addr(LO, 4000)))).isEqualTo(Errno.EMSGSIZE);
            int half = s.getOption(SocketOption.SO_SNDBUF) / 2;
            assertThat(errno(() -> s.send(new byte[half + 1], 0, half + 1, addr(LO, 4000)))).isEqualTo(Errno.EMSGSIZE);
            assertThat(errno(() -> s.send(m, 0, 10, addr("10.99.0.1", 4000)))).isEqualTo(Errno.EHOSTUNREACH);
            assertThat(errno(() -> s.connect(addr("0.0.0.0", 7)))).isEqualTo(Errno.EDESTADDRREQ);
            assertThat(errno(() -> s.connect(addr("224.0.0.1", 7)))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> s.send(m, 0, 10, addr("224.0.0.1", 7)))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> s.send(m, 0, 10, addr("255.255.255.255", 7)))).isEqualTo(Errno.EINVAL);
            s.connect(addr(LO, 0)); // allowed, as Linux: sends to it are pings
            s.close();
            assertThat(errno(() -> s.send(m, 0, 10, addr(LO, 4000)))).isEqualTo(Errno.EBADF);
            assertThat(errno(() -> s.receive(m, 0, 10))).isEqualTo(Errno.EBADF);
            assertThat(s.readyEvents()).isEqualTo(Events.POLLHUP);
        }
    }

    @Test
    void loopbackDeliversInOrderWithSenderAndTruncation() throws Exception {
        try (RdsSocket a = bound(4000); RdsSocket b = bound(4001)) {
            for (int i = 0; i < 100; i++) {
                byte[] m = ("message " + i).getBytes();
                a.send(m, 0, m.length, addr(LO, 4001));
            }
            byte[] buf = new byte[100];
            for (int i = 0; i < 100; i++) {
                RdsSocket.Received r = b.receive(buf, 0, buf.length);
                assertThat(r.sender()).isEqualTo(addr(LO, 4000));
                assertThat(new String(buf, 0, r.length())).isEqualTo("message " + i);
                assertThat(r.truncated()).isFalse();
                assertThat(r.isCongestionUpdate()).isFalse();
            }
            b.connect(addr(LO, 4000));
            byte[] big = new byte[1000];
            for (int i = 0; i < big.length; i++) big[i] = (byte) i;
            b.send(ByteBuffer.wrap(big), null);
            ByteBuffer small = ByteBuffer.allocate(10);
            RdsSocket.Received r = a.receive(small);
            assertThat(r.length()).isEqualTo(10);
            assertThat(r.fullLength()).isEqualTo(1000);
            assertThat(r.truncated()).isTrue();
            assertThat(small.position()).isEqualTo(10);
            assertThat(small.array()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
            b.send(new byte[0], 0, 0, null);
            assertThat(a.receive(buf, 0, buf.length).fullLength()).as("empty message").isZero();
        }
        RdsStatistics st = rds.statistics();
        assertThat(st.get("s_send_queued")).isEqualTo(102);
        assertThat(st.get("s_recv_queued")).isEqualTo(102);
        assertThat(st.get("s_recv_delivered")).isEqualTo(102);
        assertThat(st.get(RdsStatistics.Counter.s_recv_bytes_added_to_socket))
                .isEqualTo(st.get(RdsStatistics.Counter.s_recv_bytes_removed_from_socket));
        assertThat(st.toString()).contains("s_recv_delivered").contains("102");
        RdsConnection c = rds.connection(java.net.InetAddress.getByName(LO), java.net.InetAddress.getByName(LO));
        assertThat(c.isLoopback()).isTrue();
        assertThat(c.state()).isEqualTo(RdsConnState.UP);
        assertThat(c.nextTxSequence()).as("102 messages, both ways on the one 127.0.0.1 connection").isEqualTo(103);
    }

    @Test
    void unboundDestinationIsCountedNotAnError() throws Exception {
        try (RdsSocket a = bound(4000)) {
            a.send(new byte[5], 0, 5, addr(LO, 4999));
            assertThat(rds.statistics().get(RdsStatistics.Counter.s_recv_drop_no_sock)).isEqualTo(1);
        }
    }

    @Test
    void nonBlockingReceiveTimeoutAndReadiness() throws Exception {
        try (RdsSocket a = bound(4000); RdsSocket b = bound(4001)) {
            byte[] buf = new byte[10];
            b.setBlocking(false);
            assertThat(b.receive(buf, 0, 10)).isNull();
            assertThat(b.readyEvents()).isEqualTo(Events.POLLOUT);
            b.setBlocking(true);
            b.setOption(SocketOption.SO_RCVTIMEO, Duration.ofMillis(20));
            assertThat(errno(() -> b.receive(buf, 0, 10))).as("SO_RCVTIMEO").isEqualTo(Errno.ETIMEDOUT);
            AtomicInteger notified = new AtomicInteger();
            b.addReadinessListener(s -> notified.incrementAndGet());
            a.send(buf, 0, 3, addr(LO, 4001));
            assertThat(notified.get()).isPositive();
            assertThat(b.readyEvents()).isEqualTo(Events.POLLIN | Events.POLLOUT);
            assertThat(b.receive(buf, 0, 10).length()).isEqualTo(3);
            assertThat(b.readyEvents()).isEqualTo(Events.POLLOUT);
        }
    }

    @Test
    void blockedReceiverIsWokenBySendAndByClose() throws Exception {
        try (RdsSocket a = bound(4000); RdsSocket b = bound(4001)) {
            CountDownLatch got = new CountDownLatch(1);
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    if (b.receive(new byte[10], 0, 10).length() == 4) got.countDown();
                } catch (Exception e) {
                    // the assertion below fails
                }
            });
            Thread.sleep(20); // let it block (the test passes without, less usefully)
            a.send(new byte[4], 0, 4, addr(LO, 4001));
            assertThat(got.await(5, TimeUnit.SECONDS)).isTrue();
            t.join();
            AtomicInteger err = new AtomicInteger();
            Thread t2 = Thread.ofPlatform().start(() -> {
                try {
                    b.receive(new byte[10], 0, 10);
                } catch (ErrnoException e) {
                    if (e.errno() == Errno.EBADF) err.set(1);
                } catch (Exception e) {
                    err.set(2);
                }
            });
            Thread.sleep(20);
            b.close();
            t2.join(5000);
            assertThat(err.get()).isEqualTo(1);
        }
    }

    @Test
    void options() throws Exception {
        try (RdsSocket a = ns.openRdsSocket()) {
            assertThat(a.getOption(SocketOption.SO_SNDBUF)).isEqualTo(ns.sysctl().wmemDefault.intValue());
            a.setOption(SocketOption.SO_SNDBUF, 10000);
            assertThat(a.getOption(SocketOption.SO_SNDBUF)).isEqualTo(20000);
            a.setOption(SocketOption.SO_RCVBUF, 1);
            assertThat(a.getOption(SocketOption.SO_RCVBUF)).isEqualTo(RdsSocketImpl.SOCK_MIN_RCVBUF);
            assertThat(a.getOption(SocketOption.RDS_CONG_MONITOR)).isFalse();
            a.setOption(SocketOption.RDS_CONG_MONITOR, true);
            assertThat(a.getOption(SocketOption.RDS_CONG_MONITOR)).isTrue();
            assertThat(errno(() -> a.setOption(SocketOption.TCP_NODELAY, true))).isEqualTo(Errno.ENOPROTOOPT);
        }
    }
}
