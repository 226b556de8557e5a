package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Busy polling (Linux's SO_BUSY_POLL and net.core.busy_read): a blocked read spins for data up to the
 * socket's SO_BUSY_POLL before it sleeps. Real threads on loopback; what is checked is whether the wake-up
 * came during the spin (counted by the socket lock), never how fast.
 */
class TcpBusyPollTest {

    /** A reader blocked in read() gets one byte written by this thread {@code afterMillis} later; returns the reader's connection. */
    private static TcpConnection readOneByteWrittenLater(NetNamespace ns, int busyPollUs, long afterMillis) throws Exception {
        try (TcpServerSocket srv = TcpServerSocket.open(ns)) {
            srv.bind(new InetSocketAddress("127.0.0.1", 0));
            srv.listen(8);
            TcpSocket client = TcpSocket.open(ns);
            client.connect(srv.localAddress());
            TcpConnection reader = (TcpConnection) srv.accept();
            if (busyPollUs >= 0) reader.setOption(SocketOption.SO_BUSY_POLL, busyPollUs);
            CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> {
                try {
                    return reader.read(new byte[1], 0, 1);
                } catch (java.io.IOException e) {
                    throw new RuntimeException(e);
                }
            });
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!reader.lock.hasWaiters()) { // the reader waits in read(), so the byte comes during the wait
                if (System.nanoTime() > deadline) throw new AssertionError("the reader never waited");
                Thread.sleep(1);
            }
            Thread.sleep(afterMillis);
            client.write(new byte[] {7}, 0, 1);
            assertThat(read.get()).isEqualTo(1);
            client.close();
            reader.close();
            return reader;
        }
    }

    @Test
    void aReadSpinsUpToSoBusyPollAndIsWokenDuringTheSpin() throws Exception {
        try (NetNamespace ns = NetNamespace.create("busy")) {
            TcpConnection spinning = readOneByteWrittenLater(ns, 2_000_000, 100); // 2 s of spin, data after 100 ms
            assertThat(spinning.lock.busyPollWakes()).isEqualTo(1);
            TcpConnection sleeping = readOneByteWrittenLater(ns, -1, 100); // the default: net.core.busy_read = 0
            assertThat(sleeping.getOption(SocketOption.SO_BUSY_POLL)).isZero();
            assertThat(sleeping.lock.busyPollWakes()).isZero();
        }
    }

    @Test
    void netCoreBusyReadIsANewSocketsSoBusyPoll() throws Exception {
        try (NetNamespace ns = NetNamespace.create("busy")) {
            ns.sysctl().set("net.core.busy_read", "50");
            assertThat(ns.sysctl().dump()).contains("net.core.busy_read");
            try (TcpSocket s = TcpSocket.open(ns); io.jnet.socket.UdpSocket u = io.jnet.socket.UdpSocket.open(ns)) {
                assertThat(s.getOption(SocketOption.SO_BUSY_POLL)).isEqualTo(50);
                assertThat(u.getOption(SocketOption.SO_BUSY_POLL)).isEqualTo(50);
                s.setOption(SocketOption.SO_BUSY_POLL, 0);
                assertThat(s.getOption(SocketOption.SO_BUSY_POLL)).isZero();
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.setOption(SocketOption.SO_BUSY_POLL, -1))
                        .isInstanceOf(ErrnoException.class);
            }
        }
    }
}
