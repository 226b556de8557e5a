package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Memory per connection, and a sender facing a reader that never reads. */
class TcpMemoryTest {
    private static final int CONNECTIONS = 10_000;
    private static final long MAX_BYTES_PER_SOCKET = 16 * 1024;

    @Test
    void tenThousandIdleConnectionsFitInSixteenKibPerSocket() throws Exception {
        try (NetNamespace ns = NetNamespace.create("mem")) {
            TcpServerSocket srv = TcpServerSocket.open(ns);
            srv.bind(new InetSocketAddress("127.0.0.1", 9000));
            srv.listen(1024);
            long before = usedAfterGc();
            List<TcpSocket> sockets = new ArrayList<>(2 * CONNECTIONS);
            byte[] one = {42};
            byte[] buf = new byte[1];
            for (int i = 0; i < CONNECTIONS; i++) {
                TcpSocket c = TcpSocket.open(ns);
                c.connect(new InetSocketAddress("127.0.0.1", 9000));
                TcpSocket s = srv.accept();
                // one exchange each way so that both ends have been through the data path
                c.write(one, 0, 1);
                s.read(buf, 0, 1);
                s.write(one, 0, 1);
                c.read(buf, 0, 1);
                sockets.add(c);
                sockets.add(s);
            }
            long after = usedAfterGc();
            long perSocket = (after - before) / sockets.size();
            System.out.printf("memory: %d idle established connections (%d sockets): %.1f MiB heap+direct,"
                            + " %d bytes per socket (limit %d)%n", CONNECTIONS, sockets.size(),
                    (after - before) / 1048576.0, perSocket, MAX_BYTES_PER_SOCKET);
            assertThat(ns.extension(TcpProtocol.class).connectionCount()).isEqualTo(2 * CONNECTIONS);
            assertThat(perSocket).isLessThanOrEqualTo(MAX_BYTES_PER_SOCKET);
            for (TcpSocket s : sockets) s.close();
            srv.close();
            assertThat(ns.internalErrors()).isZero();
        }
    }

    @Test
    void senderFacingAReaderThatNeverReadsStaysWithinTheSocketBuffers() throws Exception {
        try (NetNamespace ns = NetNamespace.create("stuck")) {
            TcpServerSocket srv = TcpServerSocket.open(ns);
            srv.bind(new InetSocketAddress("127.0.0.1", 9001));
            srv.listen(4);
            TcpSocket c = TcpSocket.open(ns);
            c.connect(new InetSocketAddress("127.0.0.1", 9001));
            TcpConnection reader = (TcpConnection) srv.accept();
            TcpConnection writer = (TcpConnection) c;
            c.setBlocking(false);
            byte[] chunk = new byte[65536];
            long written = 0;
            int zeroes = 0;
            // write until the stack refuses more for a while; the reader never reads
            while (zeroes < 50) {
                int n = c.write(chunk, 0, chunk.length);
                written += n;
                if (n == 0) {
                    zeroes++;
                    Thread.sleep(5);
                } else {
                    zeroes = 0;
                }
                assertThat(written).as("writes must stop").isLessThan(256L << 20);
            }
            long queuedAtSender = writer.writeQueue.bytes();
            long queuedAtReader = reader.rmemAlloc();
            int sndbuf = c.getOption(SocketOption.SO_SNDBUF);
            int rcvbuf = reader.getOption(SocketOption.SO_RCVBUF);
            System.out.printf("stuck reader: %d bytes accepted by write, %d queued at the sender (SO_SNDBUF %d),"
                    + " %d at the reader (SO_RCVBUF %d)%n", written, queuedAtSender, sndbuf, queuedAtReader, rcvbuf);
            // one segment of slack each, as Linux lets the last skb overshoot
            assertThat(queuedAtSender).isLessThanOrEqualTo(sndbuf + 2L * (writer.mss + 512));
            assertThat(queuedAtReader).isLessThanOrEqualTo(rcvbuf + (long) reader.advMss + 1024);
            c.close();
            reader.close();
            srv.close();
            assertThat(ns.internalErrors()).isZero();
        }
    }

    private static long usedAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long direct = 0;
        for (BufferPoolMXBean p : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) direct += p.getMemoryUsed();
        return heap + direct;
    }
}
